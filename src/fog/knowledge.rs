//! What a team knows, for its bots: [`TeamKnowledge`], answered from the same data the fog
//! draws (the team sight, the teams' fog and when they last saw each tile), never from the
//! world's truth; and the record of where each team last saw each entity it follows.

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::seen_times::SeenTimes;
use crate::fog::sight::TeamSight;
use crate::fog::{FogOfWar, Team};
use crate::placement::placed::Findable;

/// Where and when a team saw an entity: its map and tile, and the time
/// (`Time::elapsed()`) of that update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sighting {
    /// The map it stood on.
    pub map: Entity,
    /// The tile it stood on.
    pub tile: TilePos,
    /// The time of the update.
    pub at: Duration,
}

/// Per team, where and when it last saw each entity it saw and no longer sees; and the time
/// of the last update.
#[derive(Resource, Debug, Default)]
pub(super) struct TeamSightings {
    last: BTreeMap<Team, EntityHashMap<Sighting>>,
    now: Duration,
}

/// Records where each team last saw the entities it stopped seeing in this update, and
/// forgets the entities that are gone.
pub(super) fn record_sightings(
    sight: Res<TeamSight>,
    mut sightings: ResMut<TeamSightings>,
    time: Option<Res<Time>>,
    entities: &bevy::ecs::entity::Entities,
    mut gone: RemovedComponents<Findable>,
) {
    let now = time.map_or(Duration::ZERO, |time| time.elapsed());
    let before = std::mem::replace(&mut sightings.now, now);
    for (team, change) in sight.changes() {
        if let (true, false, Some((map, tile))) = (change.was, change.now, change.from) {
            let last = sightings.last.entry(team).or_default();
            last.insert(
                change.entity,
                Sighting {
                    map,
                    tile,
                    at: before,
                },
            );
        }
    }
    // Despawned: forgotten by every team, whether it saw it in this update or not.
    for entity in gone.read().filter(|&entity| !entities.contains(entity)) {
        for last in sightings.last.values_mut() {
            last.remove(&entity);
        }
    }
}

/// What each team knows, for a bot that respects the fog of war: whether it sees an entity
/// now, where and when it last saw it, when it last saw a tile. It answers from what the fog
/// draws, never from where the entities really are. It knows the entities the teams follow:
/// those with [`CanBeSpotted`](crate::CanBeSpotted), [`HidesOutsideView`](crate::HidesOutsideView),
/// [`LeavesGhost`](crate::LeavesGhost) or a fogged sprite. See `docs/strategy.md`.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::{Team, TeamKnowledge};
/// fn bot(knowledge: TeamKnowledge, units: Query<Entity, With<Name>>) {
///     for unit in &units {
///         if let Some(seen) = knowledge.last_seen(Team(1), unit) {
///             info!("team 1 saw {unit} at {:?} on {}", seen.tile, seen.at.as_secs_f32());
///         }
///     }
/// }
/// ```
#[derive(SystemParam)]
pub struct TeamKnowledge<'w, 's> {
    sight: Res<'w, TeamSight>,
    sightings: Res<'w, TeamSightings>,
    maps: Query<'w, 's, (&'static FogOfWar, &'static SeenTimes)>,
}

impl TeamKnowledge<'_, '_> {
    /// Whether `team` sees `entity` now: it stands on a tile the team sees.
    pub fn sees(&self, team: Team, entity: Entity) -> bool {
        self.sight.sees(team, entity)
    }

    /// Where and when `team` last saw `entity`: where it stands, at this update, while the
    /// team sees it; else where it stood in the last update in which the team saw it. `None`
    /// if the team never saw it, or it was despawned.
    pub fn last_seen(&self, team: Team, entity: Entity) -> Option<Sighting> {
        if self.sees(team, entity) {
            let (map, tile) = self.sight.stands(entity)?;
            let at = self.sightings.now;
            return Some(Sighting { map, tile, at });
        }
        self.sightings.last.get(&team)?.get(&entity).copied()
    }

    /// The time of the last update in which `team` saw `tile` of `map` (this update's if it
    /// sees it now); `None` if it never saw it, or forgot it since (`forget_all`,
    /// `set_explored(tile, false)`, regrowth): a tile the game explored is not seen.
    pub fn tile_seen_at(&self, map: Entity, team: Team, tile: TilePos) -> Option<Duration> {
        let (fog, times) = self.maps.get(map).ok()?;
        let team_fog = fog.team(team)?;
        if team_fog.is_visible(tile) {
            Some(self.sightings.now)
        } else if team_fog.is_explored(tile) {
            times.seen(team, tile)
        } else {
            None
        }
    }

    /// The tiles of `map` that `team` saw at `since` or later (whose
    /// [`tile_seen_at`](Self::tile_seen_at) is `since` or later).
    pub fn tiles_seen_since(&self, map: Entity, team: Team, since: Duration) -> Vec<TilePos> {
        let Some(team_fog) = self.maps.get(map).ok().and_then(|(fog, _)| fog.team(team)) else {
            return Vec::new();
        };
        let recent = |&tile: &TilePos| {
            self.tile_seen_at(map, team, tile)
                .is_some_and(|t| t >= since)
        };
        team_fog.explored_tiles().filter(recent).collect()
    }
}
