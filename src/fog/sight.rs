//! Which findable entities each team sees now: [`TeamSight`], the one judge of "does this team
//! see this entity" that the ghosts, the hidden entities, the sprites under the fog and
//! replication read. A team sees an entity when the entity stands on a tile the team sees on
//! its map.
//!
//! It is kept from what changed, never by asking every entity: the findable entities placed
//! anew in this frame (they moved, appeared or came back), those that went (despawned,
//! disabled), the entities near the tiles whose state changed for a team (the fog's list of
//! what changed), and the entities of a map whose fog went. Each update lists, per team, the
//! entities it started or stopped seeing, and those it saw or sees that changed maps.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::fog::{FogOfWar, Team, TeamFog};
use crate::placement::placed::{Findable, Placed, PlacedIndex, PlacedMoves};
use crate::support::team_bits::TeamBits;

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

/// What every team sees of the findable entities (each with where it stood at the last
/// update), and what changed for each team in the last update.
#[derive(Resource, Default)]
pub(crate) struct TeamSight {
    seen: TeamBits<Team, At>,
    /// Per team index, what changed for it in the last update.
    changes: Vec<Vec<SightChange>>,
    /// Entities to judge again at the next update: disabled or despawned since.
    again: EntityHashSet,
    /// How many updates it had.
    updates: u64,
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
    pub(crate) fn updates(&self) -> u64 {
        self.updates
    }

    /// Whether `team` sees `entity` (as of the last update).
    pub(crate) fn sees(&self, team: Team, entity: Entity) -> bool {
        self.seen.holds(team, entity)
    }

    /// Whether any team sees `entity` (as of the last update).
    pub(crate) fn seen_by_any(&self, entity: Entity) -> bool {
        self.seen.any(entity)
    }

    /// What changed in the last update, for every team.
    pub(crate) fn changes(&self) -> impl Iterator<Item = (Team, &SightChange)> + '_ {
        let teams = self.seen.teams().iter().zip(&self.changes);
        teams.flat_map(|(&team, changes)| changes.iter().map(move |change| (team, change)))
    }

    /// What changed for `team` in the last update.
    pub(crate) fn changes_of(&self, team: Team) -> &[SightChange] {
        self.seen
            .team_index(team)
            .map_or(&[], |index| self.changes[index].as_slice())
    }

    /// `entity` stands `at` now (it may be new): judged for every team.
    fn place(&mut self, entity: Entity, at: At, fogs: &mut Fogs) {
        if let Some((map, _)) = at {
            for team in fogs.teams_of(map) {
                self.know(team);
            }
        }
        let slot = match self.seen.slot(entity) {
            Some(slot) => slot,
            None => self.seen.add(entity, None),
        };
        let from = std::mem::replace(self.seen.value_mut(slot), at);
        for index in 0..self.seen.teams().len() {
            let now = fogs.sees(self.seen.teams()[index], at);
            self.judge(index, slot, (from, at), now);
        }
    }

    /// Whether team `index` sees the slot's entity is now `now`, the entity having stood at
    /// `from` at the last update and standing at `to` now: noted when it changed, or when a
    /// sighting moved to another map.
    fn judge(&mut self, index: usize, slot: u32, (from, to): (At, At), now: bool) {
        let was = self.seen.get(index, slot);
        let moved_away = (was || now) && from.map(|(m, _)| m) != to.map(|(m, _)| m);
        if was == now && !moved_away {
            return;
        }
        self.seen.set(index, slot, now);
        let entity = self.seen.at(slot).0;
        self.changes[index].push(SightChange {
            entity,
            was,
            now,
            from,
            to,
        });
    }

    /// `entity` went (despawned, disabled, no longer findable): each team that saw it stops,
    /// and it is forgotten.
    fn remove(&mut self, entity: Entity) {
        let Some((from, saw)) = self.seen.remove(entity) else {
            return;
        };
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

    /// Judges again, for team `index`, the entities filed near `tiles` of `map` that stand on
    /// one of them.
    fn judge_tiles(
        &mut self,
        index: usize,
        (map, tiles): (Entity, &ChangedTiles),
        near: &[Entity],
        fogs: &mut Fogs,
    ) {
        let team = self.seen.teams()[index];
        for &entity in near {
            let Some(slot) = self.seen.slot(entity) else {
                continue;
            };
            let at = self.seen.at(slot).1;
            let Some((on, tile)) = at.filter(|&(on, tile)| on == map && tiles.holds(tile)) else {
                continue;
            };
            let now = fogs.sees(team, Some((on, tile)));
            self.judge(index, slot, (at, at), now);
        }
    }
}

/// The maps' fogs, the last one looked up kept at hand (entities judged one after another
/// mostly stand on one map).
struct Fogs<'a, 'w, 's> {
    query: &'a Query<'w, 's, &'static FogOfWar>,
    last: Option<(Entity, Option<&'a FogOfWar>)>,
}

impl<'a> Fogs<'a, '_, '_> {
    fn fog(&mut self, map: Entity) -> Option<&'a FogOfWar> {
        match self.last {
            Some((last, fog)) if last == map => fog,
            _ => {
                let fog = self.query.get(map).ok();
                self.last = Some((map, fog));
                fog
            }
        }
    }

    /// The teams with a fog on `map`.
    fn teams_of(&mut self, map: Entity) -> Vec<Team> {
        let fog = self.fog(map);
        fog.into_iter()
            .flat_map(FogOfWar::teams)
            .map(|(team, _)| team)
            .collect()
    }

    /// Whether `team` sees the tile `at`.
    fn sees(&mut self, team: Team, at: At) -> bool {
        let Some((map, tile)) = at else {
            return false;
        };
        let fog = self.fog(map).and_then(|fog| fog.team(team));
        fog.is_some_and(|fog: &TeamFog| fog.is_visible(tile))
    }
}

/// What the team sight is brought up to date from.
#[derive(SystemParam)]
pub(super) struct SightInputs<'w, 's> {
    findable: Query<'w, 's, &'static Placed, With<Findable>>,
    new: Query<'w, 's, Entity, Added<Findable>>,
    moves: Res<'w, PlacedMoves>,
    changes: Res<'w, FogChanges>,
    index: Res<'w, PlacedIndex>,
    fogs: Query<'w, 's, &'static FogOfWar>,
    gone_fogs: RemovedComponents<'w, 's, FogOfWar>,
}

/// Brings [`TeamSight`] up to date: the findable entities placed anew, new or gone are judged
/// for every team; those of a map whose fog went, for every team; those near the tiles whose
/// state changed for a team, for that team.
pub(super) fn update_team_sight(mut sight: ResMut<TeamSight>, mut inputs: SightInputs) {
    sight.updates += 1;
    for changes in &mut sight.changes {
        changes.clear();
    }
    let mut listed: Vec<Entity> = inputs.moves.entities().to_vec();
    listed.extend(inputs.new.iter());
    listed.extend(sight.again.drain());
    for map in inputs.gone_fogs.read() {
        listed.extend(inputs.index.on_map(map));
    }
    let mut fogs = Fogs {
        query: &inputs.fogs,
        last: None,
    };
    for entity in listed {
        match inputs.findable.get(entity) {
            Ok(placed) => sight.place(entity, placed.get(), &mut fogs),
            Err(_) => sight.remove(entity),
        }
    }
    for (map, changed) in inputs.changes.maps() {
        for (team, tiles) in changed.teams() {
            let index = sight.know(team);
            let near: Vec<Entity> = match tiles {
                ChangedTiles::All(_) => inputs.index.on_map(map).collect(),
                ChangedTiles::Changed { area, bits } => {
                    inputs.index.touched_by(map, bits, (area.x, area.y))
                }
            };
            sight.judge_tiles(index, (map, tiles), &near, &mut fogs);
        }
    }
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
