//! Remembered entities: an entity marked [`LeavesGhost`] leaves, for each team that saw
//! it and sees it no more, a [`Ghost`] in its map's [`LastSeen`]: where and when the team
//! last saw it, until the team sees that tile again without it.

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::ecs::entity::{EntityHashMap, EntityMapper, MapEntities};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::{Allow, QueryData};
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::fog::sight::{At, TeamSight};
use crate::fog::{FogOfWar, Team, TeamFog};
use crate::opacity::map_opacity::MapOpacity;
use crate::placement::placed::{Moved, Placed, PlacedIndex};
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

/// What one team knows of the remembered entities of one map: its ghosts (in the map's
/// [`LastSeen`]) and the entities it sees now, with their tiles (the plugin's own, in
/// [`Looked`]).
struct Knowledge<'a> {
    ghosts: &'a mut BTreeMap<Entity, Sighting>,
    in_view: &'a mut EntityHashMap<TilePos>,
}

impl Knowledge<'_> {
    /// Brings what the team knows of `entity` up to date with what it sees (`eyes`), the
    /// entity standing at `now_at` on this map (`None`: nowhere on it). `before` is when the
    /// team last looked (the update before this one). Returns whether a ghost appeared, moved
    /// or went.
    fn judge(
        &mut self,
        entity: Entity,
        now_at: Option<TilePos>,
        (eyes, around): (&TeamEyes, &Neighbourhood),
        before: Duration,
    ) -> bool {
        if let Some(tile) = now_at.filter(|_| eyes.sees(entity)) {
            self.in_view.insert(entity, tile);
            return self.ghosts.remove(&entity).is_some();
        }
        if let Some(tile) = self.in_view.remove(&entity) {
            // It has just left the view: it was last seen at the update before this one,
            // where it stood if that tile is out of view now, else on the neighbouring tile
            // it stepped to; otherwise it vanished in view.
            let ghost = match now_at {
                _ if !eyes.sees_tile(tile) => Some(tile),
                Some(to) if around.are_neighbours(tile, to) => Some(to),
                _ => None,
            };
            let Some(tile) = ghost else {
                return false;
            };
            let seen_at = before;
            self.ghosts.insert(entity, Sighting { tile, seen_at });
            return true;
        }
        // A ghost: cleared when its tile is seen without the entity.
        let seen = self
            .ghosts
            .get(&entity)
            .is_some_and(|ghost| eyes.sees_tile(ghost.tile));
        if seen {
            self.ghosts.remove(&entity);
        }
        seen
    }

    /// The entities the team has a ghost of on `tiles`.
    fn ghosts_on<'a>(&'a self, tiles: &'a ChangedTiles) -> impl Iterator<Item = Entity> + 'a {
        let on = self
            .ghosts
            .iter()
            .filter(|(_, ghost)| tiles.holds(ghost.tile));
        on.map(|(&entity, _)| entity)
    }

    /// Every entity the team knows of here: its ghosts and those it sees.
    fn known(&self) -> impl Iterator<Item = Entity> + '_ {
        self.ghosts.keys().chain(self.in_view.keys()).copied()
    }
}

/// What one team sees on one map: the tiles of its fog there (none: nothing), and which
/// entities it sees ([`TeamSight`]).
struct TeamEyes<'a> {
    team: Team,
    fog: Option<&'a TeamFog>,
    sight: &'a TeamSight,
}

impl TeamEyes<'_> {
    /// Whether the team sees `tile`.
    fn sees_tile(&self, tile: TilePos) -> bool {
        self.fog.is_some_and(|fog| fog.is_visible(tile))
    }

    /// Whether the team sees `entity`, which stands on this map.
    fn sees(&self, entity: Entity) -> bool {
        self.fog.is_some() && self.sight.sees(self.team, entity)
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

/// Which entities each team sees now on each map, as the ghosts last judged them, and when
/// that was: the ghosts' own bookkeeping (the fog's list of what changed says which tiles to
/// look at again).
#[derive(Default)]
pub(crate) struct Looked {
    maps: EntityHashMap<MapLooked>,
    /// `Time::elapsed` of the last update.
    at: Duration,
}

/// What the ghosts saw of one map at the last update.
#[derive(Default)]
struct MapLooked {
    /// The remembered entities each team sees now, and their tiles.
    in_view: BTreeMap<Team, EntityHashMap<TilePos>>,
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

/// A map as the ghosts look at it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct GhostMap {
    entity: Entity,
    fog: &'static FogOfWar,
    last_seen: &'static mut LastSeen,
    opacity: &'static MapOpacity,
}

/// What every map's judging shares in one update.
struct Judging<'a, 'w, 's> {
    /// Where each remembered entity stands.
    entities: &'a Query<'w, 's, &'static Placed, With<LeavesGhost>>,
    index: &'a PlacedIndex,
    /// Which entities each team sees, and what changed.
    sight: &'a TeamSight,
    /// The tiles whose state changed for each team.
    changes: &'a FogChanges,
    /// The remembered entities that moved, went or were disabled.
    changed: &'a [Entity],
    /// When the teams last looked (the update before this one).
    before: Duration,
}

/// Keeps every map's [`LastSeen`] up to date with what each team sees now, looking only at
/// the remembered entities that moved or went, those whose sight changed for a team
/// ([`TeamSight`]), and the ghosts on tiles whose state changed for a team.
pub(super) fn remember_seen(
    entities: Query<&'static Placed, With<LeavesGhost>>,
    moved: Query<Entity, Moved<LeavesGhost>>,
    (mut gone, mut disabled): (RemovedComponents<LeavesGhost>, ResMut<DisabledRemembered>),
    (index, changes, sight): (Res<PlacedIndex>, Res<FogChanges>, Res<TeamSight>),
    mut maps: Query<GhostMap>,
    time: Option<Res<Time>>,
    mut looked: Local<Looked>,
) {
    let now = time.map_or(Duration::ZERO, |time| time.elapsed());
    let before = std::mem::replace(&mut looked.at, now);
    let mut changed: Vec<Entity> = moved.iter().collect();
    changed.extend(gone.read());
    changed.append(&mut disabled.0);
    if entities.is_empty() && changed.is_empty() && !remembers(&looked, &maps) {
        // Nothing to remember, nothing remembered: what the teams see is looked at afresh
        // when something is.
        looked.maps.clear();
        return;
    }
    let judging = Judging {
        entities: &entities,
        index: &index,
        sight: &sight,
        changes: &changes,
        changed: &changed,
        before,
    };
    for mut map in &mut maps {
        let fresh = !looked.maps.contains_key(&map.entity);
        let map_looked = looked.maps.entry(map.entity).or_default();
        if remember_on_map(&mut map, map_looked, fresh, &judging) {
            map.last_seen.set_changed();
        }
    }
    // Maps that are gone.
    looked.maps.retain(|&map, _| maps.contains(map));
}

/// Whether any team remembers or sees any entity on any map.
fn remembers(looked: &Looked, maps: &Query<GhostMap>) -> bool {
    let ghosts = maps.iter().any(|map| {
        let teams = map.last_seen.teams.values();
        teams.into_iter().any(|ghosts| !ghosts.is_empty())
    });
    let seen = looked.maps.values().flat_map(|map| map.in_view.values());
    ghosts || seen.into_iter().any(|in_view| !in_view.is_empty())
}

/// Judges what each team knows of one map, looking at everything when the ghosts look at it
/// for the first time (`fresh`) or the game changed its `LastSeen`; returns whether a ghost
/// appeared, moved or went.
fn remember_on_map(
    map: &mut GhostMapItem,
    looked: &mut MapLooked,
    fresh: bool,
    judging: &Judging,
) -> bool {
    let fog = map.fog;
    // Changed by the game (a save loaded, a ghost remembered by hand): look at everything.
    let everything = map.last_seen.is_changed() || fresh;
    let around = Neighbourhood::of(map.opacity.map_type(), fog.area());
    let last_seen = map.last_seen.bypass_change_detection();
    // The teams with a view here, and those that knew something here and have none now (the
    // fog was replaced: inserted, or removed and given again): they see nothing, so what they
    // saw goes out of view like any sighting.
    let known_teams = last_seen.teams.keys().chain(looked.in_view.keys());
    let mut teams: Vec<Team> = fog.teams().map(|(team, _)| team).collect();
    teams.extend(known_teams);
    teams.sort_unstable();
    teams.dedup();
    let tiles = judging.changes.of(map.entity);
    let mut changed = false;
    for team in teams {
        let eyes = TeamEyes {
            team,
            fog: fog.team(team),
            sight: judging.sight,
        };
        let look = match tiles.and_then(|tiles| tiles.of_team(team)) {
            _ if everything => Look::All,
            Some(tiles) => Look::Tiles(tiles),
            None => Look::Nothing,
        };
        let on_map = (map.entity, look, &around);
        changed |= judge_team(&eyes, (last_seen, &mut *looked), on_map, judging);
    }
    changed
}

/// Which tiles of a map a team's judging looks at again, besides the entities that moved or
/// whose sight changed.
#[derive(Clone, Copy)]
enum Look<'a> {
    /// Every tile: every entity on the map and every one the team knows there.
    All,
    /// The ghosts on these tiles, whose state changed for the team.
    Tiles(&'a ChangedTiles),
    /// None.
    Nothing,
}

/// Judges the entities `eyes`' team may know something new of on `map`: those that moved or
/// went, those whose sight changed for it here, and the ghosts `look` names.
fn judge_team(
    eyes: &TeamEyes,
    (last_seen, looked): (&mut LastSeen, &mut MapLooked),
    (map, look, around): (Entity, Look, &Neighbourhood),
    judging: &Judging,
) -> bool {
    let team = eyes.team;
    let mut knowledge = Knowledge {
        ghosts: last_seen.teams.entry(team).or_default(),
        in_view: looked.in_view.entry(team).or_default(),
    };
    let here = |at: At| at.is_some_and(|(on, _)| on == map);
    let sighted = judging.sight.changes_of(team).iter();
    let sighted = sighted.filter(|change| here(change.from) || here(change.to));
    let mut candidates: Vec<Entity> = judging.changed.to_vec();
    candidates.extend(sighted.map(|change| change.entity));
    match look {
        Look::All => {
            candidates.extend(judging.index.on_map(map));
            candidates.extend(knowledge.known());
        }
        Look::Tiles(tiles) => candidates.extend(knowledge.ghosts_on(tiles)),
        Look::Nothing => {}
    }
    let mut changed = false;
    // An entity met twice is judged twice: the second time changes nothing.
    for entity in candidates {
        let at = judging.entities.get(entity).ok().and_then(Placed::get);
        let now_at = at.filter(|&(on, _)| on == map).map(|(_, tile)| tile);
        changed |= knowledge.judge(entity, now_at, (eyes, around), judging.before);
    }
    changed
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
