//! Remembered entities: an entity marked [`LeavesGhost`] leaves, for each team that saw
//! it and sees it no more, a [`Ghost`] in its map's [`LastSeen`]: where and when the team
//! last saw it, until the team sees that tile again without it.

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::ecs::entity::{EntityHashSet, EntityMapper, MapEntities};
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::fog::sight::{At, SightChange, TeamSight};
use crate::fog::{FogOfWar, Team};
use crate::opacity::map_opacity::MapOpacity;
use crate::placement::placed::Placed;
use crate::support::neighbours::Neighbourhood;

/// An entity on the map (a monster, an item) whose last known place each team remembers: when
/// a team stops seeing it, the map's [`LastSeen`] gets a [`Ghost`] of it for that team, which
/// a game draws as a dim sprite. It stands on its `TilePos` + `TilemapId`, or under its
/// `Transform` on its `TilemapId`, as viewers and [`HidesOutsideView`](crate::HidesOutsideView)
/// entities do.
///
/// The rules, per team, checked every update after the fog:
/// - While a member sees the entity's tile, the team sees the entity: no ghost.
/// - When it stops seeing it, the ghost goes where the team last saw it; if that tile is still
///   seen (the entity stepped out of view), on the tile it stepped to, when that tile is a
///   neighbour of the one it was seen on (8 neighbours, 6 on hexagonal maps). Otherwise (it
///   vanished from a tile in view: teleported, despawned, moved to another map) no ghost.
/// - A ghost is cleared when the team sees its tile again without the entity there, or sees
///   the entity (anywhere on the map).
/// - A despawned entity keeps its ghosts until their tiles are seen: the team does not know.
///   So does an entity that is `Disabled`, loses this marker or stands on no tile of the map:
///   to the teams it has vanished (it is judged where it stands when it is back).
/// - A team with no member on the map sees nothing there, whether or not the map's
///   [`FogOfWar`] has a view for it.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::Team;
/// # fn spawn(mut commands: Commands, map: Entity) {
/// // A goblin the player's team remembers where it last saw it.
/// commands.spawn((LeavesGhost, TilePos { x: 4, y: 2 }, TilemapId(map)));
/// # }
/// // Draw the ghosts of team 0 on a map: where and when each was last seen.
/// fn draw_ghosts(maps: Query<&LastSeen>) {
///     for last_seen in &maps {
///         for ghost in last_seen.ghosts(Team(0)) {
///             info!("{} last seen at {:?}", ghost.entity, ghost.tile);
///         }
///     }
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(crate::placement::placed::Findable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct LeavesGhost;

/// Where and when a team last saw a [`LeavesGhost`] entity it does not see now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[type_path = "bevy_viewshed"]
pub struct Ghost {
    /// The entity (it may have been despawned since).
    pub entity: Entity,
    /// The tile it was last seen on (or stepped to out of view).
    pub tile: TilePos,
    /// `Time::elapsed` of the update when it was last seen.
    pub seen_at: Duration,
}

/// Where and when one team last saw one entity it does not see now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sighting {
    tile: TilePos,
    seen_at: Duration,
}

/// The [`Ghost`]s of one map, per [`Team`]: on every map root, next to its
/// [`FogOfWar`]. It is changed (for `Changed<LastSeen>`) only in updates where a ghost
/// appears, moves or is cleared, so a game redraws its ghost sprites then:
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// fn draw_ghosts(maps: Query<(&LastSeen, &FogOfWar), Changed<LastSeen>>) {
///     for (last_seen, fog) in &maps {
///         for ghost in last_seen.ghosts(fog.drawn_team()) {
///             info!("{} was last seen at {:?}", ghost.entity, ghost.tile);
///         }
///     }
/// }
/// ```
///
/// With the `serde` feature it serializes as its ghosts (entities by their bits; a game that
/// loads a save into new entities maps them, e.g. with Bevy's scenes, which use its
/// `MapEntities`); a ghost's tile off the map is kept (it is never seen, so never cleared).
///
/// It holds the ghosts only: which entities each team sees now is the plugin's own
/// bookkeeping, so a `LastSeen` the game puts on a map (inserted or assigned: a clone from
/// another map or from an earlier update, a save) brings its ghosts and nothing else, and the
/// teams see what they see at the next update.
///
/// It is `Reflect` as an opaque value (an inspector shows its `Debug` form and can clone it).
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[component(map_entities)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "LastSeenSave", try_from = "LastSeenSave")
)]
#[type_path = "bevy_viewshed"]
pub struct LastSeen {
    teams: BTreeMap<Team, BTreeMap<Entity, Sighting>>,
}

impl PartialEq for LastSeen {
    fn eq(&self, other: &Self) -> bool {
        self.teams == other.teams
    }
}

impl LastSeen {
    /// The ghosts `team` has on this map, by entity.
    pub fn ghosts(&self, team: Team) -> impl Iterator<Item = Ghost> + '_ {
        self.teams
            .get(&team)
            .into_iter()
            .flatten()
            .map(|(&entity, sighting)| Ghost {
                entity,
                tile: sighting.tile,
                seen_at: sighting.seen_at,
            })
    }

    /// Every team's ghosts on this map.
    #[cfg(feature = "replicon")]
    pub(crate) fn every_ghost(&self) -> impl Iterator<Item = (Team, Ghost)> + '_ {
        self.teams
            .keys()
            .flat_map(|&team| self.ghosts(team).map(move |g| (team, g)))
    }

    /// The ghost of `entity` for `team`, if the team remembers it and does not see it now.
    pub fn ghost(&self, team: Team, entity: Entity) -> Option<Ghost> {
        let sighting = self.teams.get(&team)?.get(&entity)?;
        Some(Ghost {
            entity,
            tile: sighting.tile,
            seen_at: sighting.seen_at,
        })
    }

    /// Puts a ghost of `ghost.entity` for `team` (a scripted sighting, a scroll of
    /// detection), in place of what the team knew of it.
    pub fn remember(&mut self, team: Team, ghost: Ghost) {
        let sighting = Sighting {
            tile: ghost.tile,
            seen_at: ghost.seen_at,
        };
        self.teams
            .entry(team)
            .or_default()
            .insert(ghost.entity, sighting);
    }

    /// `team` forgets `entity` (its ghost goes; if the team sees it, it is remembered again
    /// when it leaves the view).
    pub fn forget(&mut self, team: Team, entity: Entity) {
        if let Some(sightings) = self.teams.get_mut(&team) {
            sightings.remove(&entity);
        }
    }

    /// Every team forgets every ghost (a new level).
    pub fn clear(&mut self) {
        self.teams.clear();
    }
}

impl MapEntities for LastSeen {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        for sightings in self.teams.values_mut() {
            *sightings = std::mem::take(sightings)
                .into_iter()
                .map(|(entity, sighting)| (mapper.get_mapped(entity), sighting))
                .collect();
        }
    }
}

/// The remembered entities each team saw at the last update, and when that was: the ghosts'
/// own bookkeeping (the team sight says what changed since).
#[derive(Default)]
pub(crate) struct Looked {
    in_view: BTreeMap<Team, EntityHashSet>,
    /// `Time::elapsed` of the last update.
    at: Duration,
}

impl Looked {
    /// The entities `team` saw at the last update.
    fn of(&mut self, team: Team) -> &mut EntityHashSet {
        self.in_view.entry(team).or_default()
    }
}

/// A map as the ghosts look at it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct GhostMap {
    entity: Entity,
    fog: &'static FogOfWar,
    last_seen: &'static mut LastSeen,
    opacity: &'static MapOpacity,
}

impl GhostMapItem<'_, '_> {
    /// Whether `team` sees `tile` of this map.
    fn sees(&self, team: Team, tile: TilePos) -> bool {
        self.fog.team(team).is_some_and(|fog| fog.is_visible(tile))
    }

    /// `team`'s ghosts here, to change without marking the map's `LastSeen` changed.
    fn ghosts_of(&mut self, team: Team) -> &mut BTreeMap<Entity, Sighting> {
        let last_seen = self.last_seen.bypass_change_detection();
        last_seen.teams.entry(team).or_default()
    }
}

/// The maps' ghosts, and which of them changed in this update.
struct Ghosts<'a, 'w, 's> {
    maps: &'a mut Query<'w, 's, GhostMap>,
    changed: Vec<Entity>,
}

impl Ghosts<'_, '_, '_> {
    /// `team` no longer has a ghost of `entity` on `map`.
    fn clear(&mut self, map: Entity, team: Team, entity: Entity) {
        if let Ok(mut on) = self.maps.get_mut(map)
            && on.ghosts_of(team).remove(&entity).is_some()
        {
            self.changed.push(map);
        }
    }

    /// `team` stopped seeing a remembered entity (`change`): its ghost goes where the team last
    /// saw it if that tile is out of view now, else on the neighbouring tile of the same map it
    /// stepped to (while it still leaves ghosts: `marked`), else nowhere (it vanished in view).
    fn left_view(&mut self, team: Team, change: &SightChange, marked: bool, seen_at: Duration) {
        let Some((map, from)) = change.from else {
            return;
        };
        let Ok(mut on) = self.maps.get_mut(map) else {
            return;
        };
        let around = Neighbourhood::of(on.opacity.map_type(), on.fog.area());
        let stepped = change.to.filter(|&(to_map, to)| {
            marked && !change.now && to_map == map && around.are_neighbours(from, to)
        });
        let tile = match stepped {
            _ if !on.sees(team, from) => from,
            Some((_, to)) => to,
            None => return,
        };
        on.ghosts_of(team)
            .insert(change.entity, Sighting { tile, seen_at });
        self.changed.push(map);
    }

    /// The ghosts of `team` on `tiles` of `map` (whose state changed for it) that it sees now,
    /// without their entity (which would have no ghost where seen): cleared.
    fn clear_seen(&mut self, map: Entity, (team, tiles): (Team, &ChangedTiles)) {
        let Ok(mut on) = self.maps.get_mut(map) else {
            return;
        };
        let fog = on.fog.team(team);
        let seen = |tile: TilePos| tiles.holds(tile) && fog.is_some_and(|f| f.is_visible(tile));
        let ghosts = on.ghosts_of(team);
        let before = ghosts.len();
        ghosts.retain(|_, ghost| !seen(ghost.tile));
        if ghosts.len() != before {
            self.changed.push(map);
        }
    }

    /// A `LastSeen` the game changed (a save loaded, a ghost remembered by hand): the ghosts of
    /// entities the team sees there, and those on tiles it sees, are cleared.
    fn recheck(&mut self, map: Entity, sight: &TeamSight, stands: impl Fn(Entity) -> At) {
        let Ok(mut on) = self.maps.get_mut(map) else {
            return;
        };
        let teams: Vec<Team> = on.last_seen.teams.keys().copied().collect();
        let mut cleared = false;
        for team in teams {
            let fog = on.fog.team(team);
            let ghosts = on.ghosts_of(team);
            let before = ghosts.len();
            ghosts.retain(|&entity, ghost| {
                let here = stands(entity).is_some_and(|(on_map, _)| on_map == map);
                let seen = here && sight.sees(team, entity);
                !seen && !fog.is_some_and(|fog| fog.is_visible(ghost.tile))
            });
            cleared |= ghosts.len() != before;
        }
        if cleared {
            self.changed.push(map);
        }
    }
}

/// Keeps every map's [`LastSeen`] up to date with what each team sees, from what changed: the
/// sightings of remembered entities the team sight ([`TeamSight`]) changed, the ghosts on
/// tiles whose state changed for a team, entities marked or unmarked, and the `LastSeen`s the
/// game changed.
pub(super) fn remember_seen(
    marked: Query<&Placed, With<LeavesGhost>>,
    newly_marked: Query<Entity, Added<LeavesGhost>>,
    mut unmarked: RemovedComponents<LeavesGhost>,
    (changes, sight): (Res<FogChanges>, Res<TeamSight>),
    mut maps: Query<GhostMap>,
    time: Option<Res<Time>>,
    mut looked: Local<Looked>,
) {
    let now = time.map_or(Duration::ZERO, |time| time.elapsed());
    let before = std::mem::replace(&mut looked.at, now);
    let rewritten = maps.iter_mut().filter(|map| map.last_seen.is_changed());
    let rewritten: Vec<Entity> = rewritten.map(|map| map.entity).collect();
    let stands = |entity| marked.get(entity).ok().and_then(Placed::get);
    let mut ghosts = Ghosts {
        maps: &mut maps,
        changed: Vec::new(),
    };
    for map in rewritten {
        ghosts.recheck(map, &sight, stands);
    }
    for (team, change) in sight.changes() {
        let entity = change.entity;
        let marked_now = change.to.is_some() && marked.contains(entity);
        let in_view = looked.of(team);
        let saw = change.was && in_view.contains(&entity);
        if saw && (!change.now || change.changed_map() || !marked_now) {
            in_view.remove(&entity);
            ghosts.left_view(team, change, marked_now, before);
        }
        if change.now && marked_now {
            looked.of(team).insert(entity);
            if let Some((map, _)) = change.to {
                ghosts.clear(map, team, entity);
            }
        }
    }
    for (map, changed) in changes.maps() {
        for team_tiles in changed.teams() {
            ghosts.clear_seen(map, team_tiles);
        }
    }
    for entity in &newly_marked {
        for &team in sight.teams() {
            let at = stands(entity);
            if let Some((map, _)) = at.filter(|_| sight.sees(team, entity)) {
                looked.of(team).insert(entity);
                ghosts.clear(map, team, entity);
            }
        }
    }
    // An entity that no longer leaves ghosts (or was despawned) has vanished where the teams
    // that saw it saw it at the last update: a ghost there if that tile is out of view now.
    for entity in unmarked.read() {
        if marked.contains(entity) {
            // Unmarked and marked again before this update: it still leaves ghosts.
            continue;
        }
        let vanished = SightChange {
            entity,
            was: true,
            now: false,
            from: sight.stood(entity),
            to: None,
        };
        for (&team, in_view) in &mut looked.in_view {
            if in_view.remove(&entity) {
                ghosts.left_view(team, &vanished, false, before);
            }
        }
    }
    let mut changed = std::mem::take(&mut ghosts.changed);
    changed.sort_unstable();
    changed.dedup();
    for map in changed {
        if let Ok(mut map) = maps.get_mut(map) {
            map.last_seen.set_changed();
        }
    }
}

/// What a save keeps of a [`LastSeen`]: each team's ghosts (not what it sees now: the viewers
/// see it again at the next update).
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LastSeenSave {
    #[serde(default = "crate::support::save_format::unspecified")]
    format: u32,
    teams: Vec<(Team, Vec<GhostSave>)>,
}

/// A saved [`Ghost`], its entity by [`Entity::to_bits`].
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GhostSave {
    entity: u64,
    x: u32,
    y: u32,
    seen_at: Duration,
}

#[cfg(feature = "serde")]
impl From<LastSeen> for LastSeenSave {
    fn from(last_seen: LastSeen) -> Self {
        let ghosts = |team| {
            last_seen
                .ghosts(team)
                .map(|ghost| GhostSave {
                    entity: ghost.entity.to_bits(),
                    x: ghost.tile.x,
                    y: ghost.tile.y,
                    seen_at: ghost.seen_at,
                })
                .collect()
        };
        Self {
            format: crate::support::save_format::SAVE_FORMAT,
            teams: last_seen
                .teams
                .keys()
                .map(|&team| (team, ghosts(team)))
                .collect(),
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<LastSeenSave> for LastSeen {
    type Error = String;

    /// The ghosts of a save, checked: valid entities, each team once, each entity once per
    /// team.
    fn try_from(save: LastSeenSave) -> Result<Self, String> {
        crate::support::save_format::check(save.format, "LastSeen")?;
        let mut last_seen = LastSeen::default();
        for (team, ghosts) in save.teams {
            if last_seen.teams.contains_key(&team) {
                return Err(format!("saved ghosts have team {} twice", team.0));
            }
            let sightings = last_seen.teams.entry(team).or_default();
            for ghost in ghosts {
                let entity = Entity::try_from_bits(ghost.entity).ok_or_else(|| {
                    format!("a saved ghost's entity {} is not an entity", ghost.entity)
                })?;
                let sighting = Sighting {
                    tile: TilePos::new(ghost.x, ghost.y),
                    seen_at: ghost.seen_at,
                };
                if sightings.insert(entity, sighting).is_some() {
                    return Err(format!(
                        "saved ghosts of team {} have entity {entity} twice",
                        team.0
                    ));
                }
            }
        }
        Ok(last_seen)
    }
}
