//! Remembered entities: an entity marked [`LeavesGhost`] leaves, for each team that saw
//! it and sees it no more, a [`Ghost`] in its map's [`LastSeen`]: where and when the team
//! last saw it, until the team sees that tile again without it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bevy::ecs::entity::{EntityHashMap, EntityMapper, MapEntities};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapType;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::neighbours::Neighbourhood;
use crate::fog::{FogOfWar, Team, TeamFog};
use crate::maps::placed::{Placed, PlacedIndex};
use viewshed_core::bits::BitRows;

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
#[require(crate::maps::placed::Findable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LeavesGhost;

/// Where and when a team last saw a [`LeavesGhost`] entity it does not see now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Reflect)]
pub struct Ghost {
    /// The entity (it may have been despawned since).
    pub entity: Entity,
    /// The tile it was last seen on (or stepped to out of view).
    pub tile: TilePos,
    /// `Time::elapsed` of the update when it was last seen.
    pub seen_at: Duration,
}

/// One team's knowledge of one entity: seen now, or a ghost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sighting {
    tile: TilePos,
    seen_at: Duration,
    in_view: bool,
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
///         for ghost in last_seen.ghosts(fog.shown_team()) {
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
/// A `LastSeen` the game puts on a map (inserted or assigned) that the plugin did not write for
/// that map at the last update (a clone from another map or from an earlier update, a save)
/// holds its ghosts only: what it says a team saw then is no news of now, and the teams see
/// what they see at the next update. A clone put back on its own map before the next update
/// changes nothing.
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
pub struct LastSeen {
    teams: BTreeMap<Team, BTreeMap<Entity, Sighting>>,
    /// The stamp of the update and map the plugin last wrote this for (0: never), which only
    /// that map's entry in `Looked` holds: the sightings in view are trusted only then.
    written: u64,
}

/// The sightings, not where and when the plugin wrote them: a clone equals its original.
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
            .filter(|(_, sighting)| !sighting.in_view)
            .map(|(&entity, sighting)| Ghost {
                entity,
                tile: sighting.tile,
                seen_at: sighting.seen_at,
            })
    }

    /// The ghost of `entity` for `team`, if the team remembers it and does not see it now.
    pub fn ghost(&self, team: Team, entity: Entity) -> Option<Ghost> {
        let sighting = self.teams.get(&team)?.get(&entity)?;
        (!sighting.in_view).then_some(Ghost {
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
            in_view: false,
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

    /// Forgets what the teams see now, keeping the ghosts: the sightings of a `LastSeen` the
    /// plugin did not write for this map at the last update are no news of now.
    fn keep_ghosts_only(&mut self) {
        for sightings in self.teams.values_mut() {
            sightings.retain(|_, sighting| !sighting.in_view);
        }
    }

    /// Brings `team`'s knowledge of `entity` up to date with what `fog` sees, the entity
    /// standing at `now_at` on this map (`None`: nowhere on it). `before` is when the team
    /// last looked (the update before this one). Returns whether a ghost appeared, moved or
    /// went.
    fn judge(
        &mut self,
        team: Team,
        entity: Entity,
        now_at: Option<TilePos>,
        (fog, around): (&TeamFog, &Neighbourhood),
        (now, before): (Duration, Duration),
    ) -> bool {
        let sightings = self.teams.entry(team).or_default();
        if let Some(tile) = now_at.filter(|&tile| fog.is_visible(tile)) {
            let seen = Sighting {
                tile,
                seen_at: now,
                in_view: true,
            };
            return sightings
                .insert(entity, seen)
                .is_some_and(|before| !before.in_view);
        }
        let Some(sighting) = sightings.get_mut(&entity) else {
            return false;
        };
        let tile_seen = fog.is_visible(sighting.tile);
        if !sighting.in_view {
            // A ghost: cleared when its tile is seen without the entity.
            if tile_seen {
                sightings.remove(&entity);
            }
            return tile_seen;
        }
        // It has just left the view: it was last seen at the update before this one.
        sighting.in_view = false;
        sighting.seen_at = before;
        let kept = match now_at {
            _ if !tile_seen => true,
            Some(to) if around.are_neighbours(sighting.tile, to) => {
                sighting.tile = to;
                true
            }
            _ => false,
        };
        if !kept {
            sightings.remove(&entity);
        }
        kept
    }

    /// The entities `team` knows of (seen now or ghosts) whose tile is set in `tiles`, or all
    /// of them.
    fn known_on(&self, team: Team, tiles: Option<&BitRows>) -> Vec<Entity> {
        let Some(sightings) = self.teams.get(&team) else {
            return Vec::new();
        };
        let on =
            |sighting: &Sighting| tiles.is_none_or(|t| t.get(sighting.tile.y, sighting.tile.x));
        sightings
            .iter()
            .filter(|(_, sighting)| on(sighting))
            .map(|(&entity, _)| entity)
            .collect()
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

/// What each team's view of each map was when the ghosts last looked, so that only the tiles
/// whose visibility changed since are looked at again.
#[derive(Default)]
pub(crate) struct Looked {
    maps: EntityHashMap<MapLooked>,
    /// `Time::elapsed` of the last update.
    at: Duration,
}

/// What the ghosts saw of one map at the last update.
#[derive(Default)]
struct MapLooked {
    /// Each team's view.
    teams: BTreeMap<Team, BitRows>,
    /// The stamp written into the map's `LastSeen` then (0: none).
    stamp: u64,
}

/// A stamp no other map or update has (in any world of the process).
fn new_stamp() -> u64 {
    static STAMPS: AtomicU64 = AtomicU64::new(1);
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

/// Remembered entities disabled since the last update: to each team that saw one, it has
/// vanished (it is judged again when it is enabled, as a moved entity).
#[derive(Resource, Default)]
pub(super) struct DisabledRemembered(Vec<Entity>);

/// A remembered entity was disabled: the ghosts judge it at the next update.
pub(super) fn on_remembered_disabled(
    event: On<Add, Disabled>,
    remembered: Query<(), (With<LeavesGhost>, Allow<Disabled>)>,
    mut disabled: ResMut<DisabledRemembered>,
) {
    if remembered.contains(event.entity) {
        disabled.0.push(event.entity);
    }
}

/// Keeps every map's [`LastSeen`] up to date with what each team sees now, looking only at
/// the remembered entities that moved or went, those near tiles whose visibility changed for
/// a team, and what the team knew of those tiles.
pub(super) fn remember_seen(
    entities: Query<&Placed, With<LeavesGhost>>,
    moved: Query<Entity, (With<LeavesGhost>, Or<(Changed<Placed>, Added<LeavesGhost>)>)>,
    (mut gone, mut disabled): (RemovedComponents<LeavesGhost>, ResMut<DisabledRemembered>),
    index: Res<PlacedIndex>,
    mut maps: Query<(Entity, &FogOfWar, &mut LastSeen, Option<&TilemapType>)>,
    time: Option<Res<Time>>,
    mut looked: Local<Looked>,
) {
    let now = time.map_or(Duration::ZERO, |time| time.elapsed());
    let before = std::mem::replace(&mut looked.at, now);
    let mut changed_entities: Vec<Entity> = moved.iter().collect();
    changed_entities.extend(gone.read());
    changed_entities.append(&mut disabled.0);
    let remembered = |(.., last_seen, _): (Entity, &FogOfWar, &LastSeen, Option<&TilemapType>)| {
        last_seen
            .teams
            .values()
            .any(|sightings| !sightings.is_empty())
    };
    if entities.is_empty() && changed_entities.is_empty() && !maps.iter().any(remembered) {
        // Nothing to remember, nothing remembered: what the teams see is looked at afresh
        // when something is.
        looked.maps.clear();
        return;
    }
    let mut diff = BitRows::default();
    for (map, fog, mut last_seen, map_type) in &mut maps {
        let map_looked = looked.maps.entry(map).or_default();
        // Not what the plugin wrote for this map at the last update (cloned from another map
        // or an earlier update, loaded): its sightings in view are no news of now.
        let written_here = map_looked.stamp != 0 && last_seen.written == map_looked.stamp;
        if !written_here {
            last_seen.bypass_change_detection().keep_ghosts_only();
        }
        // Changed by the game (a save loaded, a ghost remembered by hand): look at everything.
        let everything = !written_here || last_seen.is_changed();
        let around = Neighbourhood::of(map_type, fog.size());
        // A team the fog has no view for (it has no member here, and the fog was replaced
        // since: inserted, or removed and given again) sees nothing: what it saw goes out of
        // view like any sighting.
        let blind_teams: Vec<Team> = (last_seen.teams.keys())
            .filter(|&&team| fog.team(team).is_none())
            .copied()
            .collect();
        let blind = (!blind_teams.is_empty()).then(|| TeamFog::new(fog.size().x, fog.size().y));
        let blind_views = blind_teams
            .iter()
            .filter_map(|&team| Some((team, blind.as_ref()?)));
        let mut changed = false;
        for (team, team_fog) in fog.teams().chain(blind_views) {
            let seen = map_looked.teams.entry(team).or_default();
            // Bits are only compared between views of the same shape: a map resized to as
            // many words in other rows (16x8 and 70x4) puts other tiles under the same bits.
            let shape = |rows: &BitRows| (rows.rows(), rows.bits_per_row());
            let whole = everything || shape(seen) != shape(&team_fog.visible);
            diff.reset(team_fog.visible.rows(), team_fog.visible.bits_per_row());
            for ((d, &now), &was) in diff
                .words_mut()
                .iter_mut()
                .zip(team_fog.visible.words())
                .zip(seen.words())
            {
                *d = now ^ was;
            }
            let tiles = (!whole).then_some(&diff);
            let near = match tiles {
                Some(tiles) => index.touched_by(map, tiles),
                None => index.on_map(map).collect(),
            };
            let known = last_seen.known_on(team, tiles);
            let last_seen = last_seen.bypass_change_detection();
            // An entity met twice is judged twice: the second time changes nothing.
            for &entity in changed_entities.iter().chain(&near).chain(&known) {
                let at = entities.get(entity).ok().and_then(Placed::get);
                let now_at = at.filter(|&(on, _)| on == map).map(|(_, tile)| tile);
                changed |=
                    last_seen.judge(team, entity, now_at, (team_fog, &around), (now, before));
            }
            seen.clone_from(&team_fog.visible);
        }
        // Only the views of the teams judged now are kept: a team that is neither in the fog
        // nor in `LastSeen` for a while is looked at whole when it comes back.
        map_looked
            .teams
            .retain(|team, _| fog.team(*team).is_some() || blind_teams.contains(team));
        map_looked.stamp = new_stamp();
        last_seen.bypass_change_detection().written = map_looked.stamp;
        if changed {
            last_seen.set_changed();
        }
    }
    // Maps that are gone.
    looked.maps.retain(|&map, _| maps.contains(map));
}

/// What a save keeps of a [`LastSeen`]: each team's ghosts (not what it sees now: the viewers
/// see it again at the next update).
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LastSeenSave {
    #[serde(default = "crate::save_format::unspecified")]
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
            format: crate::save_format::SAVE_FORMAT,
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
        crate::save_format::check(save.format, "LastSeen")?;
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
                    in_view: false,
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
