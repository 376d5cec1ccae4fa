//! Which findable entities each team sees now: [`TeamSight`], the one judge of "does this team
//! see this entity" that the ghosts, the hidden entities, the sprites under the fog and
//! replication read. A team sees an entity when the entity stands on a tile the team sees on
//! its map.
//!
//! It is kept from what changed, never by asking every entity: the findable entities placed
//! anew in this frame (they moved, appeared or came back), those that went (despawned,
//! disabled), the entities on the tiles whose state changed for a team (the fog's list of
//! what changed), and the entities of a map whose fog went. It files the findable entities
//! under the 8x8-tile buckets of their map, which is how the later steps find the entities of
//! a map, and it lists, per team, the entities the team started or stopped seeing in the last
//! update, and those it saw or sees that changed maps.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::fog::detection::Cloaked;
use crate::fog::{FogOfWar, Team, TeamFog};
use crate::placement::placed::{Findable, Placed, PlacedMoves};
use crate::support::buckets::MapBuckets;
use crate::support::team_bits::TeamBits;
use viewshed_core::visible::Window;

/// Where an entity stands: its map and tile, if any.
pub(crate) type At = Option<(Entity, TilePos)>;

/// A change of what one team sees of one entity in an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SightChange {
    pub(crate) entity: Entity,
    /// Whether the team saw it at the last update.
    pub(crate) was: bool,
    /// Whether the team sees it now.
    pub(crate) now: bool,
    /// Where it stood at the last update (where the team saw it, if it did).
    pub(crate) from: At,
    /// Where it stands now (`None`: nowhere, or it went: despawned, disabled).
    pub(crate) to: At,
}

impl SightChange {
    /// Whether it stood at the last update on another map than now (or nowhere then or now).
    pub(crate) fn changed_map(&self) -> bool {
        self.from.map(|(map, _)| map) != self.to.map(|(map, _)| map)
    }
}

/// The side of a bucket, in tiles.
const BUCKET: u32 = 8;

/// A findable entity filed under a bucket: its slot and tile.
#[derive(Clone, Copy, Debug)]
struct Filed {
    slot: u32,
    x: u32,
    y: u32,
}

/// Where a findable entity stands, where it stood before the last update, and the update in
/// which it last moved.
#[derive(Clone, Copy, Debug, Default)]
struct Stand {
    at: At,
    before: At,
    moved_in: u64,
    /// Whether it is [`Cloaked`]: seen only where the team detects.
    cloaked: bool,
}

/// What every team sees of the findable entities (each with where it stands), where they
/// stand by bucket, and what changed for each team in the last update.
#[derive(Resource)]
pub(crate) struct TeamSight {
    seen: TeamBits<Team, Stand>,
    /// The slots of each map's entities, by bucket of where they stand.
    filed: MapBuckets<Vec<Filed>>,
    /// Per team index, what changed for it in the last update.
    changes: Vec<Vec<SightChange>>,
    /// Entities to judge again at the next update: disabled or despawned since.
    again: EntityHashSet,
    /// How many updates it had.
    updates: u64,
}

impl Default for TeamSight {
    fn default() -> Self {
        Self {
            seen: TeamBits::default(),
            filed: MapBuckets::new(BUCKET),
            changes: Vec::new(),
            again: EntityHashSet::default(),
            updates: 0,
        }
    }
}

impl TeamSight {
    /// The index of `team`, known from now on (it sees nothing yet).
    fn know(&mut self, team: Team) -> usize {
        let index = self.seen.know(team);
        self.changes.resize_with(self.seen.teams().len(), Vec::new);
        index
    }

    /// The teams met so far (on a map's fog).
    pub(crate) fn teams(&self) -> &[Team] {
        self.seen.teams()
    }

    /// How many updates it had (a reader outside the plugin's schedule tells from it whether
    /// it missed one).
    #[cfg_attr(
        not(feature = "replicon"),
        allow(dead_code, reason = "read by replication")
    )]
    pub(crate) fn updates(&self) -> u64 {
        self.updates
    }

    /// Whether `team` sees `entity` (as of the last update).
    pub(crate) fn sees(&self, team: Team, entity: Entity) -> bool {
        self.seen.holds(team, entity)
    }

    /// Whether any team sees `entity` (as of the last update).
    #[cfg_attr(
        not(feature = "render"),
        allow(dead_code, reason = "read by the sprites under the fog")
    )]
    pub(crate) fn seen_by_any(&self, entity: Entity) -> bool {
        self.seen.any(entity)
    }

    /// What changed in the last update, for every team.
    pub(crate) fn changes(&self) -> impl Iterator<Item = (Team, &SightChange)> + '_ {
        let teams = self.seen.teams().iter().zip(&self.changes);
        teams.flat_map(|(&team, changes)| changes.iter().map(move |change| (team, change)))
    }

    /// What changed for `team` in the last update.
    #[cfg_attr(
        not(feature = "render"),
        allow(dead_code, reason = "read by the sprites under the fog")
    )]
    pub(crate) fn changes_of(&self, team: Team) -> &[SightChange] {
        self.seen
            .team_index(team)
            .map_or(&[], |index| self.changes[index].as_slice())
    }

    /// Where `entity` stands, as of the last update.
    pub(crate) fn stands(&self, entity: Entity) -> At {
        self.seen.at(self.seen.slot(entity)?).1.at
    }

    /// Where `entity` stood at the update before the last one (where a team that saw it then
    /// saw it), if it is a findable entity.
    pub(crate) fn stood(&self, entity: Entity) -> At {
        let stand = self.seen.at(self.seen.slot(entity)?).1;
        if stand.moved_in == self.updates {
            stand.before
        } else {
            stand.at
        }
    }

    /// The findable entities standing on `map` (as of the last update).
    pub(crate) fn on_map(&self, map: Entity) -> impl Iterator<Item = Entity> + '_ {
        let lists = self
            .filed
            .get(map)
            .into_iter()
            .flat_map(|grid| grid.lists());
        lists.flat_map(|list| list.iter().map(|filed| self.seen.at(filed.slot).0))
    }

    /// The findable entities that are not cloaked and may stand within `window` of `map` (as
    /// of the last update), with their tiles: those of the buckets it overlaps, and the wide
    /// list's.
    pub(crate) fn near(
        &self,
        map: Entity,
        window: Window,
    ) -> impl Iterator<Item = (Entity, TilePos)> + '_ {
        let lists = self.filed.get(map).into_iter();
        let filed = lists
            .flat_map(move |grid| grid.lists_near(window))
            .flatten();
        filed.filter_map(|filed| {
            let (entity, stand) = self.seen.at(filed.slot);
            (!stand.cloaked).then_some((*entity, TilePos::new(filed.x, filed.y)))
        })
    }

    /// `entity` stands `at` now (it may be new), `cloaked` or not: filed there and judged for
    /// every team.
    fn place(&mut self, entity: Entity, (at, cloaked): (At, bool), fogs: &mut Fogs) {
        if let Some((map, _)) = at {
            for &team in fogs.teams_of(map) {
                self.know(team);
            }
        }
        let slot = match self.seen.slot(entity) {
            Some(slot) => slot,
            None => self.seen.add(entity, Stand::default()),
        };
        let updates = self.updates;
        let stand = self.seen.value_mut(slot);
        let from = stand.at;
        if stand.moved_in != updates {
            (stand.before, stand.moved_in) = (from, updates);
        }
        stand.at = at;
        stand.cloaked = cloaked;
        self.refile(slot, from, at);
        for index in 0..self.seen.teams().len() {
            let now = fogs.sees(self.seen.teams()[index], at, cloaked);
            judge(
                &mut self.seen,
                &mut self.changes[index],
                (index, slot),
                (from, at),
                now,
            );
        }
    }

    /// `slot` stood at `from` and stands at `to`: filed under the bucket of `to`.
    fn refile(&mut self, slot: u32, from: At, to: At) {
        if let Some((map, tile)) = from
            && let Some(grid) = self.filed.get_mut(map)
        {
            let bucket = grid.bucket_of((tile.x, tile.y));
            let here = |list: &Vec<Filed>| list.iter().position(|f| f.slot == slot);
            let found = match grid.list(bucket).and_then(here) {
                Some(i) => grid.list_mut(bucket).map(|list| (list, i)),
                None => here(grid.wide()).map(|i| (grid.wide_mut(), i)),
            };
            if let Some((list, i)) = found {
                list.swap_remove(i);
            }
        }
        if let Some((map, tile)) = to {
            let grid = self.filed.grid_mut(map);
            let bucket = grid.bucket_of((tile.x, tile.y));
            let (x, y) = (tile.x, tile.y);
            grid.list_growing(bucket).push(Filed { slot, x, y });
        }
    }

    /// `entity` went (despawned, disabled, no longer findable): each team that saw it stops,
    /// and it is forgotten; the last slot takes its place.
    fn remove(&mut self, entity: Entity) {
        let Some(slot) = self.seen.slot(entity) else {
            return;
        };
        let last = self.seen.len() as u32 - 1;
        let last_at = self.seen.at(last).1.at;
        let from = self.seen.at(slot).1.at;
        self.refile(slot, from, None);
        let Some((_, saw)) = self.seen.remove(entity) else {
            return;
        };
        if slot != last {
            // The last slot's entity is `slot` now.
            self.refile(last, last_at, None);
            self.refile(slot, None, last_at);
        }
        for index in saw {
            self.changes[index].push(SightChange {
                entity,
                was: true,
                now: false,
                from,
                to: None,
            });
        }
    }

    /// Judges again, for team `index`, the entities standing on `tiles` of `map`.
    fn judge_tiles(
        &mut self,
        index: usize,
        (map, tiles): (Entity, &ChangedTiles),
        fogs: &mut Fogs,
    ) {
        let team = self.seen.teams()[index];
        let Some(grid) = self.filed.get(map) else {
            return;
        };
        let mut on_tiles = Vec::new();
        let look = |list: &Vec<Filed>| {
            let filed = list.iter().filter(|f| tiles.holds(TilePos::new(f.x, f.y)));
            on_tiles.extend(filed.map(|f| f.slot));
        };
        match tiles {
            ChangedTiles::All(_) => grid.lists().for_each(look),
            ChangedTiles::Changed { area, bits } => {
                grid.for_each_touched(bits, (area.x, area.y), look);
            }
        }
        for slot in on_tiles {
            let stand = self.seen.at(slot).1;
            let (at, now) = (stand.at, fogs.sees(team, stand.at, stand.cloaked));
            judge(
                &mut self.seen,
                &mut self.changes[index],
                (index, slot),
                (at, at),
                now,
            );
        }
    }
}

/// Whether team `index` sees the entity of `slot` is now `now`, the entity having stood at
/// `from` at the last update and standing at `to` now: noted in the team's `changes` when it
/// changed, or when a sighting moved to another map.
fn judge(
    seen: &mut TeamBits<Team, Stand>,
    changes: &mut Vec<SightChange>,
    (index, slot): (usize, u32),
    (from, to): (At, At),
    now: bool,
) {
    let was = seen.get(index, slot);
    let moved_away = (was || now) && from.map(|(m, _)| m) != to.map(|(m, _)| m);
    if was == now && !moved_away {
        return;
    }
    seen.set(index, slot, now);
    changes.push(SightChange {
        entity: seen.at(slot).0,
        was,
        now,
        from,
        to,
    });
}

/// The maps' fogs, the last one looked up kept at hand with its teams (entities judged one
/// after another mostly stand on one map).
struct Fogs<'a, 'w, 's> {
    query: &'a Query<'w, 's, &'static FogOfWar>,
    last: Option<(Entity, Option<&'a FogOfWar>)>,
    teams: Vec<Team>,
}

impl<'a> Fogs<'a, '_, '_> {
    fn fog(&mut self, map: Entity) -> Option<&'a FogOfWar> {
        match self.last {
            Some((last, fog)) if last == map => fog,
            _ => {
                let fog = self.query.get(map).ok();
                self.last = Some((map, fog));
                self.teams.clear();
                self.teams
                    .extend(fog.into_iter().flat_map(FogOfWar::teams).map(|(t, _)| t));
                fog
            }
        }
    }

    /// The teams with a fog on `map`.
    fn teams_of(&mut self, map: Entity) -> &[Team] {
        self.fog(map);
        &self.teams
    }

    /// Whether `team` sees an entity on the tile `at`, `cloaked` or not.
    fn sees(&mut self, team: Team, at: At, cloaked: bool) -> bool {
        let Some((map, tile)) = at else {
            return false;
        };
        let fog = self.fog(map).and_then(|fog| fog.team(team));
        fog.is_some_and(|fog: &TeamFog| fog.is_visible(tile) && (!cloaked || fog.is_detected(tile)))
    }
}

/// What the team sight is brought up to date from.
#[derive(SystemParam)]
pub(super) struct SightInputs<'w, 's> {
    findable: Query<'w, 's, (&'static Placed, Has<Cloaked>), With<Findable>>,
    new: Query<'w, 's, Entity, Added<Findable>>,
    moves: Res<'w, PlacedMoves>,
    changes: Res<'w, FogChanges>,
    fogs: Query<'w, 's, &'static FogOfWar>,
    gone_fogs: RemovedComponents<'w, 's, FogOfWar>,
}

/// Brings [`TeamSight`] up to date: the findable entities placed anew, new or gone are judged
/// for every team; those of a map whose fog went, for every team; those on the tiles whose
/// state changed for a team, for that team.
pub(super) fn update_team_sight(mut sight: ResMut<TeamSight>, mut inputs: SightInputs) {
    sight.updates += 1;
    for changes in &mut sight.changes {
        changes.clear();
    }
    let mut listed: Vec<Entity> = inputs.moves.entities().to_vec();
    listed.extend(inputs.new.iter());
    let again = std::mem::take(&mut sight.again);
    listed.extend(again);
    for map in inputs.gone_fogs.read() {
        listed.extend(sight.on_map(map));
    }
    let mut fogs = Fogs {
        query: &inputs.fogs,
        last: None,
        teams: Vec::new(),
    };
    for entity in listed {
        match inputs.findable.get(entity) {
            Ok((placed, cloaked)) => sight.place(entity, (placed.get(), cloaked), &mut fogs),
            Err(_) => sight.remove(entity),
        }
    }
    for (map, changed) in inputs.changes.maps() {
        for (team, tiles) in changed.teams() {
            let index = sight.know(team);
            sight.judge_tiles(index, (map, tiles), &mut fogs);
        }
    }
}

/// An entity was cloaked or uncloaked: judged again at the next update.
pub(super) fn on_cloak_changed<E: EntityEvent>(
    event: On<E, Cloaked>,
    mut sight: ResMut<TeamSight>,
) {
    sight.again.insert(event.event_target());
}

/// A findable entity was disabled or despawned: judged at the next update (it went).
pub(super) fn on_findable_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    findable: Query<(), (With<Findable>, Allow<Disabled>)>,
    mut sight: ResMut<TeamSight>,
) {
    if findable.contains(event.event_target()) {
        sight.again.insert(event.event_target());
    }
}
