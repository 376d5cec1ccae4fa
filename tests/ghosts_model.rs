//! The ghosts model: random games in which, after every update, the [`LastSeen`] of every map
//! holds exactly the ghosts that a plain model of the documented rules gives, team by team,
//! entity by entity, tile and time included (`docs/fog.md`, "Ghosts of what was seen", and the
//! docs of `LeavesGhost` and `LastSeen`).
//!
//! What each team sees is worked out here from the viewers' own `Viewshed` contents (the union
//! of its enabled `RevealsFog` members' views on the map; the views themselves are checked in
//! other files), and where each remembered entity stands from what the game gave it (its
//! `TilePos`, or the tile under its `Transform`, on its `TilemapId`). The plugin's own
//! bookkeeping (`Placed`, its indexes, the fog) is never asked, except in one cross-check that
//! the fog's team views are the union of the viewsheds, so that a failure says whose fault it
//! is.
//!
//! A game: up to four maps (square ones and a hexagonal one, resized, despawned, spawned again,
//! their fog removed), viewers of four teams (some remembered themselves) and remembered
//! entities (by `TilePos` or by `Transform`) spawned, moved, despawned, disabled and changed,
//! walls toggled, and the game reading and changing `LastSeen` through its public API:
//! `remember`, `forget`, `clear`, a save (`FogOfWar` and `LastSeen` through serde_json) loaded
//! into the same map or a fresh one, and clones put back later or onto another map, by insert
//! or in place. Several changes go into each update. `PROPTEST_CASES` sets how many games run
//! (48 by default). Each bug the model found has a small test of its own at the end.
#![cfg(feature = "serde")]

mod common_app;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Ghost, Team};
use common_app::{app, spawn_map};
use proptest::prelude::*;

/// The clock's step per update: `seen_at` is `Time::elapsed` of an update.
const STEP: Duration = Duration::from_millis(50);
/// The side of a tile in world units (`spawn_map`'s grid).
const TILE: f32 = 16.0;
/// The sizes a map is resized to. 16x8 and 70x4 (and 10x6 and 66x3) take as many 64-bit words
/// per team view with other row layouts.
const SIZES: [(u32, u32); 7] = [(16, 8), (12, 8), (70, 4), (10, 6), (66, 3), (20, 6), (4, 3)];
/// Viewers are in teams `0..TEAMS`; the game remembers ghosts for one more team, which has no
/// viewers.
const TEAMS: u32 = 4;
const MAX_MAPS: usize = 4;

type Tile = (u32, u32);

/// A ghost a team has of a remembered entity on one map, in the model: where and when the
/// team last saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    Ghost { tile: Tile, seen_at: Duration },
}

/// The ghosts the teams have on one map: team, entity, its ghost.
type Knowledge = BTreeMap<u32, BTreeMap<Entity, Known>>;

/// What the teams see now on one map: team, entity, its tile and this update's time. It is the
/// plugin's own: the game's changes to `LastSeen` (remember, forget, clear, a clone or a save
/// put on the map) change the ghosts only.
type SeenNow = BTreeMap<u32, BTreeMap<Entity, (Tile, Duration)>>;

/// The ghosts alone (what a save keeps, what `LastSeen::ghosts` shows).
fn ghosts_of(knowledge: &Knowledge) -> Knowledge {
    knowledge.clone()
}

/// Whether `a` and `b` are neighbours: 8 neighbours on a square map, 6 on a hexagonal one (row
/// axial coordinates: `(x + 1, y - 1)` and `(x - 1, y + 1)` are neighbours, the other
/// diagonals not).
fn neighbours(hex: bool, a: Tile, b: Tile) -> bool {
    let (dx, dy) = (
        i64::from(b.0) - i64::from(a.0),
        i64::from(b.1) - i64::from(a.1),
    );
    let square = dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0);
    square && !(hex && dx == dy)
}

/// One update of the rules on one map. `visible`: what each team sees now (the union of its
/// members' views); `at`: the tile of each remembered entity that stands on this map now;
/// `now`: this update's time.
///
/// The rules, per team and entity:
/// 1. While the team sees the entity's tile, it sees the entity: no ghost (a ghost it had is
///    cleared, wherever it was).
/// 2. When it stops seeing it, a ghost goes where it last saw it, with the time of the last
///    update it saw it; if it still sees that tile (the entity stepped out of view), on the
///    tile the entity stepped to, when that tile is a neighbour of the one it was seen on.
///    Otherwise (it vanished from a tile in view: moved further, moved to another map or off
///    the map, despawned, disabled, no longer `LeavesGhost`) no ghost.
/// 3. A ghost stays until the team sees its tile (without the entity: else rule 1), whatever
///    became of the entity: a despawned, disabled or unremembered entity keeps its ghosts
///    until their tiles are seen (the team does not know). A ghost off the map (a map that
///    shrank, a ghost put there by the game) is never seen, so it stays.
/// 4. A team with no member on the map sees nothing there (its ghosts stay, what it saw
///    becomes ghosts by rule 2), whether or not the fog has a view for it.
fn judge(
    (knowledge, seen): (&mut Knowledge, &mut SeenNow),
    visible: &BTreeMap<u32, BTreeSet<Tile>>,
    at: &BTreeMap<Entity, Tile>,
    now: Duration,
    hex: bool,
) {
    let teams: BTreeSet<u32> = knowledge
        .keys()
        .chain(seen.keys())
        .chain(visible.keys())
        .copied()
        .collect();
    let nothing = BTreeSet::new();
    for team in teams {
        let sees = visible.get(&team).unwrap_or(&nothing);
        let ghosts = knowledge.entry(team).or_default();
        let mut next = BTreeMap::new();
        for (&entity, &tile) in at {
            if sees.contains(&tile) {
                next.insert(entity, (tile, now));
                ghosts.remove(&entity);
            }
        }
        for (&entity, &(tile, seen_at)) in seen.entry(team).or_default().iter() {
            if next.contains_key(&entity) {
                continue;
            }
            if !sees.contains(&tile) {
                ghosts.insert(entity, Known::Ghost { tile, seen_at });
            } else if let Some(&to) = at.get(&entity)
                && neighbours(hex, tile, to)
            {
                ghosts.insert(entity, Known::Ghost { tile: to, seen_at });
            }
        }
        ghosts.retain(|_, Known::Ghost { tile, .. }| !sees.contains(tile));
        seen.insert(team, next);
    }
}

/// One change the game makes; several make one update. Indices pick among what exists (modulo
/// its number); a change that finds nothing to change is skipped.
#[derive(Clone, Debug)]
enum Op {
    /// A revealing viewer of a team (`None`: no `Team`, so team 0) on a map, with a radius;
    /// `true`: also `LeavesGhost` (a unit the other teams remember).
    SpawnViewer(Option<u32>, usize, u32, u32, u32, bool),
    /// A viewer goes to a tile of a map (maybe off it): in place on its own map, by insert
    /// onto another.
    MoveViewer(usize, usize, u32, u32),
    /// A viewer steps by `(dx, dy)` (in place).
    WalkViewer(usize, i32, i32),
    DespawnViewer(usize),
    ToggleViewerDisabled(usize),
    /// A viewer's team becomes `t`: in place (`*team = Team(t)`) when it has a `Team` and
    /// `in_place`, else by insert.
    SetTeam(usize, u32, bool),
    /// A viewer loses its `Team` (team 0).
    RemoveTeam(usize),
    /// A viewer loses or gets `RevealsFog`.
    ToggleReveals(usize),
    /// A remembered entity on a tile of a map (maybe off it), by `TilePos` or (`true`) by
    /// `Transform` at the centre of that tile.
    SpawnTarget(bool, usize, u32, u32),
    /// A remembered entity goes to a tile of a map (maybe off it, maybe another map).
    MoveTarget(usize, usize, u32, u32),
    /// A remembered entity steps by `(dx, dy)` on its map.
    WalkTarget(usize, i32, i32),
    DespawnTarget(usize),
    ToggleTargetDisabled(usize),
    /// A remembered entity loses `LeavesGhost`, or gets it back.
    ToggleRemember(usize),
    /// The tile entity at `(x, y)` of a map becomes opaque, or stops being.
    ToggleWall(usize, u32, u32),
    /// A map takes one of [`SIZES`].
    Resize(usize, usize),
    /// A map is despawned with its tiles.
    DespawnMap(usize),
    /// A map is spawned: square, or (`true`) hexagonal.
    SpawnMap(bool),
    /// A map's `FogOfWar` is removed (the plugin gives it a new one, with the views of the
    /// teams that have members there).
    RemoveFog(usize),
    /// `LastSeen::remember` on a map: team, entity (any target or viewer), tile, `seen_at` in ms.
    Remember(usize, u32, usize, u32, u32, u64),
    /// `LastSeen::forget` on a map: team, entity.
    Forget(usize, u32, usize),
    /// `LastSeen::clear` on a map.
    Clear(usize),
    /// A save of a map: its `FogOfWar` and `LastSeen` through serde_json.
    Save(usize),
    /// A save loaded (both components inserted) into a map, or (`None`) into a fresh map of
    /// the save's size.
    Load(usize, Option<usize>),
    /// A clone of a map's `LastSeen`, kept.
    Snapshot(usize),
    /// A kept clone put on a map: by insert, or (`true`) in place (`*last_seen = clone`).
    PutSnapshot(usize, usize, bool),
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0..16usize;
    let map = || 0..4usize;
    let step = || (-1..=1i32, -1..=1i32);
    let team = proptest::option::weighted(0.8, 0..TEAMS);
    prop_oneof![
        2 => (team, map(), 0..20u32, 0..9u32, 1..7u32, proptest::bool::weighted(0.3))
            .prop_map(|(t, m, x, y, r, rem)| Op::SpawnViewer(t, m, x, y, r, rem)),
        3 => (i(), map(), 0..22u32, 0..10u32).prop_map(|(i, m, x, y)| Op::MoveViewer(i, m, x, y)),
        6 => (i(), step()).prop_map(|(i, (dx, dy))| Op::WalkViewer(i, dx, dy)),
        1 => i().prop_map(Op::DespawnViewer),
        1 => i().prop_map(Op::ToggleViewerDisabled),
        2 => (i(), 0..TEAMS, any::<bool>()).prop_map(|(i, t, p)| Op::SetTeam(i, t, p)),
        1 => i().prop_map(Op::RemoveTeam),
        1 => i().prop_map(Op::ToggleReveals),
        2 => (any::<bool>(), map(), 0..20u32, 0..9u32)
            .prop_map(|(t, m, x, y)| Op::SpawnTarget(t, m, x, y)),
        3 => (i(), map(), 0..22u32, 0..10u32).prop_map(|(i, m, x, y)| Op::MoveTarget(i, m, x, y)),
        12 => (i(), step()).prop_map(|(i, (dx, dy))| Op::WalkTarget(i, dx, dy)),
        1 => i().prop_map(Op::DespawnTarget),
        1 => i().prop_map(Op::ToggleTargetDisabled),
        1 => i().prop_map(Op::ToggleRemember),
        2 => (map(), 0..20u32, 0..9u32).prop_map(|(m, x, y)| Op::ToggleWall(m, x, y)),
        1 => (map(), 0..SIZES.len()).prop_map(|(m, s)| Op::Resize(m, s)),
        1 => map().prop_map(Op::DespawnMap),
        1 => map().prop_map(Op::RemoveFog),
        1 => any::<bool>().prop_map(Op::SpawnMap),
        2 => (map(), 0..=TEAMS, 0..32usize, 0..22u32, 0..10u32, 0..2_000u64)
            .prop_map(|(m, t, e, x, y, ms)| Op::Remember(m, t, e, x, y, ms)),
        1 => (map(), 0..=TEAMS, 0..32usize).prop_map(|(m, t, e)| Op::Forget(m, t, e)),
        1 => map().prop_map(Op::Clear),
        1 => map().prop_map(Op::Save),
        1 => (i(), proptest::option::of(map())).prop_map(|(s, m)| Op::Load(s, m)),
        1 => map().prop_map(Op::Snapshot),
        2 => (i(), map(), any::<bool>()).prop_map(|(s, m, p)| Op::PutSnapshot(s, m, p)),
    ]
}

/// A map of the game (despawned maps are dropped from the list).
struct MapSlot {
    entity: Entity,
    hex: bool,
    /// Its `TilemapSize` now.
    size: (u32, u32),
    /// Its `GlobalTransform`'s translation: far from every other map's.
    origin: Vec3,
}

struct Viewer {
    entity: Entity,
    alive: bool,
    disabled: bool,
    reveals: bool,
    /// Also `LeavesGhost`.
    remembered: bool,
    team: Option<u32>,
    map: Entity,
    tile: Tile,
}

/// A remembered entity (or one that was).
struct Target {
    entity: Entity,
    alive: bool,
    disabled: bool,
    remembered: bool,
    by_transform: bool,
    map: Entity,
    tile: Tile,
}

/// A save: the two components as JSON, and the ghosts the model had then.
struct Save {
    fog: String,
    last_seen: String,
    size: (u32, u32),
    hex: bool,
    ghosts: Knowledge,
}

/// A clone of a map's `LastSeen`, with the ghosts the model knew then.
struct Snapshot {
    value: LastSeen,
    knowledge: Knowledge,
}

/// The maps whose `LastSeen` changed (for `Changed<LastSeen>`) since the last update's fog.
#[derive(Resource, Default)]
struct ChangedLastSeen(BTreeSet<Entity>);

fn record_changed(changed: Query<Entity, Changed<LastSeen>>, mut record: ResMut<ChangedLastSeen>) {
    record.0 = changed.iter().collect();
}

struct Game {
    app: App,
    maps: Vec<MapSlot>,
    viewers: Vec<Viewer>,
    targets: Vec<Target>,
    /// The model: the ghosts the teams have on each map.
    knowledge: BTreeMap<Entity, Knowledge>,
    /// The model: what the teams see now on each map.
    seen: BTreeMap<Entity, SeenNow>,
    saves: Vec<Save>,
    snapshots: Vec<Snapshot>,
    /// Updates done.
    frame: u64,
    /// Maps whose `LastSeen` the game changed (or that are new) since the last update.
    touched: BTreeSet<Entity>,
    /// The ghosts each map showed after the last update.
    shown: BTreeMap<Entity, Knowledge>,
    maps_spawned: u32,
}

impl Game {
    fn new() -> Self {
        let mut app = app();
        app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP))
            .init_resource::<ChangedLastSeen>()
            .add_systems(PostUpdate, record_changed.after(ViewshedSystems));
        let mut game = Self {
            app,
            maps: Vec::new(),
            viewers: Vec::new(),
            targets: Vec::new(),
            knowledge: BTreeMap::new(),
            seen: BTreeMap::new(),
            saves: Vec::new(),
            snapshots: Vec::new(),
            frame: 0,
            touched: BTreeSet::new(),
            shown: BTreeMap::new(),
            maps_spawned: 0,
        };
        game.spawn_map(false, (16, 8));
        game.spawn_map(true, (12, 8));
        game.apply(Op::SpawnViewer(Some(0), 0, 2, 4, 4, false));
        game.apply(Op::SpawnViewer(None, 0, 10, 4, 3, false));
        game.apply(Op::SpawnViewer(Some(1), 0, 13, 2, 4, true));
        game.apply(Op::SpawnViewer(Some(2), 1, 3, 3, 3, false));
        game.apply(Op::SpawnTarget(false, 0, 4, 4));
        game.apply(Op::SpawnTarget(true, 0, 7, 4));
        game.apply(Op::SpawnTarget(false, 0, 12, 3));
        game.apply(Op::SpawnTarget(false, 1, 5, 3));
        game.apply(Op::SpawnTarget(true, 1, 2, 5));
        game
    }

    fn world(&mut self) -> &mut World {
        self.app.world_mut()
    }

    fn spawn_map(&mut self, hex: bool, (width, height): (u32, u32)) -> Entity {
        let walls = move |x: u32, y: u32| {
            if hex {
                x == 5 && y != 3
            } else {
                x == 6 && y % 3 != 1
            }
        };
        let map = spawn_map(&mut self.app, width, height, walls);
        let origin = Vec3::new(4000.0 * self.maps_spawned as f32, 0.0, 0.0);
        self.maps_spawned += 1;
        let mut entity = self.app.world_mut().entity_mut(map);
        entity.insert((
            Transform::from_translation(origin),
            GlobalTransform::from_translation(origin),
        ));
        if hex {
            entity.insert(TilemapType::Hexagon(HexCoordSystem::Row));
        }
        self.maps.push(MapSlot {
            entity: map,
            hex,
            size: (width, height),
            origin,
        });
        self.knowledge.insert(map, Knowledge::new());
        self.seen.insert(map, SeenNow::new());
        self.touched.insert(map);
        map
    }

    fn map(&self, i: usize) -> Option<&MapSlot> {
        (!self.maps.is_empty()).then(|| &self.maps[i % self.maps.len()])
    }

    fn slot(&self, map: Entity) -> Option<&MapSlot> {
        self.maps.iter().find(|slot| slot.entity == map)
    }

    /// The world position of the centre of `tile` on `map`, by bevy_ecs_tilemap's geometry.
    fn centre(&self, map: Entity, tile: Tile) -> Vec3 {
        let slot = self.slot(map).expect("a live map");
        let map_type = if slot.hex {
            TilemapType::Hexagon(HexCoordSystem::Row)
        } else {
            TilemapType::Square
        };
        let local = TilePos::new(tile.0, tile.1).center_in_world(
            &TilemapSize::new(slot.size.0, slot.size.1),
            &TilemapGridSize::new(TILE, TILE),
            &TilemapTileSize::new(TILE, TILE),
            &map_type,
            &TilemapAnchor::None,
        );
        slot.origin + local.extend(0.0)
    }

    fn viewer(&self, i: usize) -> Option<usize> {
        let alive: Vec<usize> = (0..self.viewers.len())
            .filter(|&v| self.viewers[v].alive)
            .collect();
        (!alive.is_empty()).then(|| alive[i % alive.len()])
    }

    fn target(&self, i: usize) -> Option<usize> {
        let alive: Vec<usize> = (0..self.targets.len())
            .filter(|&t| self.targets[t].alive)
            .collect();
        (!alive.is_empty()).then(|| alive[i % alive.len()])
    }

    /// Any entity the game may name in `LastSeen`: a target (also a despawned one) or a viewer.
    fn any_entity(&self, i: usize) -> Option<Entity> {
        let all: Vec<Entity> = self
            .targets
            .iter()
            .map(|t| t.entity)
            .chain(self.viewers.iter().map(|v| v.entity))
            .collect();
        (!all.is_empty()).then(|| all[i % all.len()])
    }

    /// The map's `LastSeen`, to change it (the game touched it).
    fn last_seen_mut(&mut self, map: Entity) -> Option<Mut<'_, LastSeen>> {
        self.touched.insert(map);
        self.app.world_mut().get_mut::<LastSeen>(map)
    }

    fn set_disabled(&mut self, entity: Entity, disabled: bool) {
        let mut entity = self.world().entity_mut(entity);
        if disabled {
            entity.insert(Disabled);
        } else {
            entity.remove::<Disabled>();
        }
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::SpawnViewer(team, map, x, y, radius, remembered) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                let mut entity = self.world().spawn((
                    Viewshed::new(radius),
                    RevealsFog,
                    TilePos { x, y },
                    TilemapId(map),
                ));
                if let Some(team) = team {
                    entity.insert(Team(team));
                }
                if remembered {
                    entity.insert(LeavesGhost);
                }
                let entity = entity.id();
                self.viewers.push(Viewer {
                    entity,
                    alive: true,
                    disabled: false,
                    reveals: true,
                    remembered,
                    team,
                    map,
                    tile: (x, y),
                });
            }
            Op::MoveViewer(i, map, x, y) => {
                let (Some(v), Some(map)) = (self.viewer(i), self.map(map).map(|s| s.entity)) else {
                    return;
                };
                let viewer = &mut self.viewers[v];
                let (entity, same) = (viewer.entity, viewer.map == map);
                (viewer.map, viewer.tile) = (map, (x, y));
                let mut entity = self.world().entity_mut(entity);
                if same {
                    *entity.get_mut::<TilePos>().unwrap() = TilePos { x, y };
                } else {
                    entity.insert((TilemapId(map), TilePos { x, y }));
                }
            }
            Op::WalkViewer(i, dx, dy) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                let (x, y) = viewer.tile;
                let to = (x.saturating_add_signed(dx), y.saturating_add_signed(dy));
                viewer.tile = to;
                let entity = viewer.entity;
                *self.world().get_mut::<TilePos>(entity).unwrap() = TilePos::new(to.0, to.1);
            }
            Op::DespawnViewer(i) => {
                let Some(v) = self.viewer(i) else { return };
                self.viewers[v].alive = false;
                let entity = self.viewers[v].entity;
                self.world().despawn(entity);
            }
            Op::ToggleViewerDisabled(i) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                viewer.disabled = !viewer.disabled;
                let (entity, disabled) = (viewer.entity, viewer.disabled);
                self.set_disabled(entity, disabled);
            }
            Op::SetTeam(i, team, in_place) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                let in_place = in_place && viewer.team.is_some();
                viewer.team = Some(team);
                let entity = viewer.entity;
                let mut entity = self.world().entity_mut(entity);
                if in_place {
                    *entity.get_mut::<Team>().unwrap() = Team(team);
                } else {
                    entity.insert(Team(team));
                }
            }
            Op::RemoveTeam(i) => {
                let Some(v) = self.viewer(i) else { return };
                self.viewers[v].team = None;
                let entity = self.viewers[v].entity;
                self.world().entity_mut(entity).remove::<Team>();
            }
            Op::ToggleReveals(i) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                viewer.reveals = !viewer.reveals;
                let (entity, reveals) = (viewer.entity, viewer.reveals);
                let mut entity = self.world().entity_mut(entity);
                if reveals {
                    entity.insert(RevealsFog);
                } else {
                    entity.remove::<RevealsFog>();
                }
            }
            Op::SpawnTarget(by_transform, map, x, y) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                let centre = self.centre(map, (x, y));
                let mut entity = self.world().spawn((LeavesGhost, TilemapId(map)));
                if by_transform {
                    entity.insert((
                        Transform::from_translation(centre),
                        GlobalTransform::from_translation(centre),
                    ));
                } else {
                    entity.insert(TilePos { x, y });
                }
                let entity = entity.id();
                self.targets.push(Target {
                    entity,
                    alive: true,
                    disabled: false,
                    remembered: true,
                    by_transform,
                    map,
                    tile: (x, y),
                });
            }
            Op::MoveTarget(i, map, x, y) => {
                let (Some(t), Some(map)) = (self.target(i), self.map(map).map(|s| s.entity)) else {
                    return;
                };
                self.move_target(t, map, (x, y));
            }
            Op::WalkTarget(i, dx, dy) => {
                let Some(t) = self.target(i) else { return };
                let target = &self.targets[t];
                let (map, (x, y)) = (target.map, target.tile);
                if self.slot(map).is_none() {
                    return;
                }
                let to = (x.saturating_add_signed(dx), y.saturating_add_signed(dy));
                self.move_target(t, map, to);
            }
            Op::DespawnTarget(i) => {
                let Some(t) = self.target(i) else { return };
                self.targets[t].alive = false;
                let entity = self.targets[t].entity;
                self.world().despawn(entity);
            }
            Op::ToggleTargetDisabled(i) => {
                let Some(t) = self.target(i) else { return };
                let target = &mut self.targets[t];
                target.disabled = !target.disabled;
                let (entity, disabled) = (target.entity, target.disabled);
                self.set_disabled(entity, disabled);
            }
            Op::ToggleRemember(i) => {
                let Some(t) = self.target(i) else { return };
                let target = &mut self.targets[t];
                target.remembered = !target.remembered;
                let (entity, remembered) = (target.entity, target.remembered);
                let mut entity = self.world().entity_mut(entity);
                if remembered {
                    entity.insert(LeavesGhost);
                } else {
                    entity.remove::<LeavesGhost>();
                }
            }
            Op::ToggleWall(map, x, y) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                let world = self.world();
                let Some(tile) = world
                    .get::<TileStorage>(map)
                    .and_then(|storage| storage.checked_get(&TilePos { x, y }))
                else {
                    return;
                };
                let mut tile = world.entity_mut(tile);
                if tile.contains::<Opaque>() {
                    tile.remove::<Opaque>();
                } else {
                    tile.insert(Opaque);
                }
            }
            Op::Resize(map, size) => {
                let Some(i) = (!self.maps.is_empty()).then(|| map % self.maps.len()) else {
                    return;
                };
                let (width, height) = SIZES[size];
                self.maps[i].size = (width, height);
                let map = self.maps[i].entity;
                *self.world().get_mut::<TilemapSize>(map).unwrap() =
                    TilemapSize::new(width, height);
            }
            Op::DespawnMap(map) => {
                let Some(i) = (!self.maps.is_empty()).then(|| map % self.maps.len()) else {
                    return;
                };
                let map = self.maps.remove(i).entity;
                self.knowledge.remove(&map);
                self.seen.remove(&map);
                let world = self.world();
                let tiles: Vec<Entity> = world
                    .get::<TileStorage>(map)
                    .map(|storage| storage.iter().flatten().copied().collect())
                    .unwrap_or_default();
                for tile in tiles {
                    world.despawn(tile);
                }
                world.despawn(map);
            }
            Op::RemoveFog(map) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                self.world().entity_mut(map).remove::<FogOfWar>();
            }
            Op::SpawnMap(hex) => {
                if self.maps.len() < MAX_MAPS {
                    self.spawn_map(hex, if hex { (12, 8) } else { (16, 8) });
                }
            }
            Op::Remember(map, team, entity, x, y, ms) => {
                let (Some(map), Some(entity)) =
                    (self.map(map).map(|s| s.entity), self.any_entity(entity))
                else {
                    return;
                };
                let ghost = Ghost {
                    entity,
                    tile: TilePos { x, y },
                    seen_at: Duration::from_millis(ms),
                };
                let Some(mut last_seen) = self.last_seen_mut(map) else {
                    return;
                };
                last_seen.remember(Team(team), ghost);
                // The ghost, in place of what the team knew of the entity.
                let known = self
                    .knowledge
                    .get_mut(&map)
                    .unwrap()
                    .entry(team)
                    .or_default();
                known.insert(
                    entity,
                    Known::Ghost {
                        tile: (x, y),
                        seen_at: ghost.seen_at,
                    },
                );
            }
            Op::Forget(map, team, entity) => {
                let (Some(map), Some(entity)) =
                    (self.map(map).map(|s| s.entity), self.any_entity(entity))
                else {
                    return;
                };
                let Some(mut last_seen) = self.last_seen_mut(map) else {
                    return;
                };
                last_seen.forget(Team(team), entity);
                // The team knows nothing of it; if it sees it, it sees it again at the update.
                if let Some(known) = self.knowledge.get_mut(&map).unwrap().get_mut(&team) {
                    known.remove(&entity);
                }
            }
            Op::Clear(map) => {
                let Some(map) = self.map(map).map(|s| s.entity) else {
                    return;
                };
                let Some(mut last_seen) = self.last_seen_mut(map) else {
                    return;
                };
                last_seen.clear();
                self.knowledge.insert(map, Knowledge::new());
            }
            Op::Save(map) => self.save(map),
            Op::Load(save, onto) => self.load(save, onto),
            Op::Snapshot(map) => {
                let Some(map) = self.map(map).map(|s| s.entity) else {
                    return;
                };
                let Some(value) = self.app.world().get::<LastSeen>(map).cloned() else {
                    return;
                };
                self.snapshots.push(Snapshot {
                    value,
                    knowledge: self.knowledge[&map].clone(),
                });
            }
            Op::PutSnapshot(snapshot, map, in_place) => {
                let (Some(map), false) =
                    (self.map(map).map(|s| s.entity), self.snapshots.is_empty())
                else {
                    return;
                };
                let snapshot = &self.snapshots[snapshot % self.snapshots.len()];
                let value = snapshot.value.clone();
                // The clone's ghosts, wherever and whenever it was taken; what the teams see
                // now is the plugin's and stays.
                let knowledge = snapshot.knowledge.clone();
                if in_place {
                    let Some(mut last_seen) = self.last_seen_mut(map) else {
                        return;
                    };
                    *last_seen = value;
                } else {
                    self.touched.insert(map);
                    self.world().entity_mut(map).insert(value);
                }
                self.knowledge.insert(map, knowledge);
            }
        }
    }

    fn move_target(&mut self, t: usize, map: Entity, to: Tile) {
        let centre = self.centre(map, to);
        let target = &mut self.targets[t];
        let same = target.map == map;
        (target.map, target.tile) = (map, to);
        let (entity, by_transform) = (target.entity, target.by_transform);
        let mut entity = self.world().entity_mut(entity);
        if !same {
            entity.insert(TilemapId(map));
        }
        if by_transform {
            *entity.get_mut::<Transform>().unwrap() = Transform::from_translation(centre);
            *entity.get_mut::<GlobalTransform>().unwrap() =
                GlobalTransform::from_translation(centre);
        } else {
            *entity.get_mut::<TilePos>().unwrap() = TilePos::new(to.0, to.1);
        }
    }

    /// A save of `map`: what the docs say a save holds of a map, `FogOfWar` (the explored
    /// memory) and `LastSeen` (the ghosts), through serde_json.
    fn save(&mut self, map: usize) {
        let Some(slot) = self.map(map) else { return };
        let (map, hex) = (slot.entity, slot.hex);
        let world = self.app.world();
        let (Some(fog), Some(last_seen)) = (world.get::<FogOfWar>(map), world.get::<LastSeen>(map))
        else {
            return;
        };
        let fog_size = fog.size();
        let save = Save {
            fog: serde_json::to_string(fog).unwrap(),
            last_seen: serde_json::to_string(last_seen).unwrap(),
            // The fog's size: a map resized since the last update still has the old one.
            size: (fog_size.x, fog_size.y),
            hex,
            // A save holds the ghosts, not what the teams see now.
            ghosts: ghosts_of(&self.knowledge[&map]),
        };
        // The round trip keeps every ghost of every team.
        let back: LastSeen = serde_json::from_str(&save.last_seen).unwrap();
        for team in 0..=TEAMS {
            let ghosts = |last_seen: &LastSeen| last_seen.ghosts(Team(team)).collect::<Vec<_>>();
            assert_eq!(ghosts(&back), ghosts(last_seen), "a saved team {team}");
        }
        self.saves.push(save);
    }

    /// Loads a save into a map (`Some`), or into a fresh map of its size.
    fn load(&mut self, save: usize, onto: Option<usize>) {
        if self.saves.is_empty() {
            return;
        }
        let save = &self.saves[save % self.saves.len()];
        let fog: FogOfWar = serde_json::from_str(&save.fog).unwrap();
        let last_seen: LastSeen = serde_json::from_str(&save.last_seen).unwrap();
        let (ghosts, size, hex) = (save.ghosts.clone(), save.size, save.hex);
        let map = match onto {
            Some(i) => match self.map(i) {
                Some(slot) => slot.entity,
                None => return,
            },
            None if self.maps.len() < MAX_MAPS => self.spawn_map(hex, size),
            None => return,
        };
        self.touched.insert(map);
        let map_size = self.slot(map).expect("a live map").size;
        let mut entity = self.world().entity_mut(map);
        // The explored memory: restored into the map's own fog when it has the save's size,
        // inserted whole when the save is of another size than the map (the plugin resizes it
        // and gathers the team views again), else left out: a `FogOfWar` inserted whole at
        // its map's size has no team views until a viewer moves (a fog matter, reported, see
        // `a_fog_of_war_inserted_on_a_map_in_play_keeps_the_team_views`).
        let size = fog.size();
        match entity.get_mut::<FogOfWar>() {
            Some(mut own) if own.size() == size => own.restore(&fog.memory()).unwrap(),
            _ if (size.x, size.y) == map_size => {}
            _ => {
                entity.insert(fog);
            }
        }
        entity.insert(last_seen);
        // The map's teams know the save's ghosts, and nothing else.
        self.knowledge.insert(map, ghosts);
    }

    /// Where each remembered entity stands now: its tile on its map, when it is alive, enabled,
    /// `LeavesGhost`, on a live map and inside it.
    fn standing(&self) -> BTreeMap<Entity, BTreeMap<Entity, Tile>> {
        let targets = self.targets.iter().map(|t| {
            let remembered = t.alive && !t.disabled && t.remembered;
            (t.entity, remembered, t.map, t.tile)
        });
        let viewers = self.viewers.iter().map(|v| {
            let remembered = v.alive && !v.disabled && v.remembered;
            (v.entity, remembered, v.map, v.tile)
        });
        let mut at: BTreeMap<Entity, BTreeMap<Entity, Tile>> = BTreeMap::new();
        for (entity, remembered, map, tile) in targets.chain(viewers) {
            let Some(slot) = self.slot(map).filter(|_| remembered) else {
                continue;
            };
            if tile.0 < slot.size.0 && tile.1 < slot.size.1 {
                at.entry(map).or_default().insert(entity, tile);
            }
        }
        at
    }

    /// What each team sees on each map: the union of the views of its enabled `RevealsFog`
    /// members (team 0 without a `Team`) on that map, read from their `Viewshed`s.
    fn visible(&self) -> BTreeMap<Entity, BTreeMap<u32, BTreeSet<Tile>>> {
        let mut visible: BTreeMap<Entity, BTreeMap<u32, BTreeSet<Tile>>> = BTreeMap::new();
        for viewer in &self.viewers {
            if !viewer.alive || viewer.disabled || !viewer.reveals {
                continue;
            }
            let viewshed = self.app.world().get::<Viewshed>(viewer.entity).unwrap();
            let Some((map, _)) = viewshed.origin() else {
                continue;
            };
            let team = viewer.team.unwrap_or(0);
            visible
                .entry(map)
                .or_default()
                .entry(team)
                .or_default()
                .extend(viewshed.iter().map(|tile| (tile.x, tile.y)));
        }
        visible
    }

    /// One update, then the model's, and every map checked.
    fn update(&mut self) -> Result<(), TestCaseError> {
        self.app.update();
        self.frame += 1;
        let now = self.app.world().resource::<Time>().elapsed();
        let visible = self.visible();
        let standing = self.standing();
        let changed = self.app.world().resource::<ChangedLastSeen>().0.clone();
        let nobody = BTreeMap::new();
        let nothing = BTreeMap::new();
        let mut shown = BTreeMap::new();
        for slot in &self.maps {
            let map = slot.entity;
            let sees = visible.get(&map).unwrap_or(&nobody);
            // The fog's team views are the union of the viewsheds (checked elsewhere; here so
            // that a failure below is known to be the ghosts').
            let fog = self.app.world().get::<FogOfWar>(map);
            prop_assert!(fog.is_some(), "map {map} has no FogOfWar");
            let fog = fog.unwrap();
            for team in 0..=TEAMS {
                let fog_sees: BTreeSet<Tile> = fog
                    .team(Team(team))
                    .into_iter()
                    .flat_map(|fog| fog.visible_tiles().map(|t| (t.x, t.y)))
                    .collect();
                let members_see = sees.get(&team).cloned().unwrap_or_default();
                prop_assert_eq!(
                    &fog_sees,
                    &members_see,
                    "frame {}: the fog of team {} on map {} is not the union of its viewsheds",
                    self.frame,
                    team,
                    map
                );
            }
            let knowledge = self.knowledge.get_mut(&map).unwrap();
            let seen = self.seen.get_mut(&map).unwrap();
            judge(
                (knowledge, seen),
                sees,
                standing.get(&map).unwrap_or(&nothing),
                now,
                slot.hex,
            );
            let expected = ghosts_of(knowledge);
            let last_seen = self.app.world().get::<LastSeen>(map);
            prop_assert!(last_seen.is_some(), "map {map} has no LastSeen");
            let last_seen = last_seen.unwrap();
            let mut actual = Knowledge::new();
            let teams: BTreeSet<u32> = expected.keys().copied().chain(0..=TEAMS).collect();
            for &team in &teams {
                let ghosts: BTreeMap<Entity, Known> = last_seen
                    .ghosts(Team(team))
                    .map(|ghost| {
                        let tile = (ghost.tile.x, ghost.tile.y);
                        let known = Known::Ghost {
                            tile,
                            seen_at: ghost.seen_at,
                        };
                        (ghost.entity, known)
                    })
                    .collect();
                for (&entity, &known) in &ghosts {
                    let one = last_seen.ghost(Team(team), entity).map(|g| Known::Ghost {
                        tile: (g.tile.x, g.tile.y),
                        seen_at: g.seen_at,
                    });
                    prop_assert_eq!(one, Some(known), "ghost() disagrees with ghosts()");
                }
                let wanted = expected.get(&team).cloned().unwrap_or_default();
                prop_assert_eq!(
                    &ghosts,
                    &wanted,
                    "frame {} (time {:?}): the ghosts of team {} on map {}",
                    self.frame,
                    now,
                    team,
                    map
                );
                // Seen now: no ghost.
                for &entity in seen.get(&team).into_iter().flatten().map(|(e, _)| e) {
                    prop_assert_eq!(last_seen.ghost(Team(team), entity), None);
                }
                if !ghosts.is_empty() {
                    actual.insert(team, ghosts);
                }
            }
            // `LastSeen` changes (for `Changed<LastSeen>`) exactly in the updates where a ghost
            // appears, moves or goes; a map the game changed or spawned is not judged here.
            if !self.touched.contains(&map) {
                let before = self.shown.get(&map).cloned().unwrap_or_default();
                prop_assert_eq!(
                    changed.contains(&map),
                    before != actual,
                    "frame {}: Changed<LastSeen> on map {} (ghosts before {:?}, now {:?})",
                    self.frame,
                    map,
                    before,
                    actual
                );
            }
            shown.insert(map, actual);
        }
        self.shown = shown;
        self.touched.clear();
        Ok(())
    }

    /// A game: the opening position, then each update's changes, checked after each update.
    fn play(frames: Vec<Vec<Op>>) -> Result<(), TestCaseError> {
        let mut game = Self::new();
        game.update()?;
        for ops in frames {
            for op in ops {
                game.apply(op);
            }
            game.update()?;
        }
        Ok(())
    }
}

/// How many random games run: `PROPTEST_CASES`, or 48.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Random games: every map's ghosts follow the model after every update.
    #[test]
    fn ghosts_follow_the_model(
        frames in prop::collection::vec(prop::collection::vec(op(), 1..5), 1..40)
    ) {
        Game::play(frames)?;
    }
}

/// A 20x5 open map, spawned at `x` world units (maps never overlap).
fn open_map(app: &mut App, x: f32) -> Entity {
    let map = spawn_map(app, 20, 5, |_, _| false);
    let at = Vec3::new(x, 0.0, 0.0);
    app.world_mut().entity_mut(map).insert((
        Transform::from_translation(at),
        GlobalTransform::from_translation(at),
    ));
    map
}

fn timed_app() -> App {
    let mut app = app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    app
}

fn spawn_unit(app: &mut App, map: Entity, team: u32, (x, y): Tile, radius: u32) -> Entity {
    app.world_mut()
        .spawn((
            Viewshed::new(radius),
            RevealsFog,
            Team(team),
            TilePos { x, y },
            TilemapId(map),
        ))
        .id()
}

fn spawn_rat(app: &mut App, map: Entity, (x, y): Tile) -> Entity {
    app.world_mut()
        .spawn((LeavesGhost, TilePos { x, y }, TilemapId(map)))
        .id()
}

fn place(app: &mut App, entity: Entity, (x, y): Tile) {
    *app.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
}

/// The ghosts of `team` on `map`: entity, tile, time.
fn ghosts(app: &App, map: Entity, team: u32) -> Vec<(Entity, Tile, Duration)> {
    app.world()
        .get::<LastSeen>(map)
        .unwrap()
        .ghosts(Team(team))
        .map(|g| (g.entity, (g.tile.x, g.tile.y), g.seen_at))
        .collect()
}

fn elapsed(app: &App) -> Duration {
    app.world().resource::<Time>().elapsed()
}

#[test]
fn a_last_seen_cloned_onto_another_map_brings_no_ghost_of_what_was_seen_there() {
    let mut app = timed_app();
    let (first, second) = (open_map(&mut app, 0.0), open_map(&mut app, 4000.0));
    spawn_unit(&mut app, first, 0, (2, 2), 3);
    // Team 0 also stands on the second map, far from (4, 2).
    spawn_unit(&mut app, second, 0, (16, 2), 2);
    let rat = spawn_rat(&mut app, first, (4, 2));
    app.update();
    app.update();
    // The first map's `LastSeen` (team 0 sees the rat there) copied onto the second map.
    let copy = app.world().get::<LastSeen>(first).unwrap().clone();
    app.world_mut().entity_mut(second).insert(copy);
    app.update();
    let last_seen = app.world().get::<LastSeen>(second).unwrap();
    assert_eq!(
        last_seen.ghost(Team(0), rat),
        None,
        "team 0 never saw the rat on the second map"
    );
    assert_eq!(ghosts(&app, second, 0), []);
    assert_eq!(ghosts(&app, first, 0), [], "it sees it on the first");
}

#[test]
fn a_last_seen_put_back_after_an_update_keeps_only_its_ghosts() {
    let mut app = timed_app();
    let map = open_map(&mut app, 0.0);
    let player = spawn_unit(&mut app, map, 0, (2, 2), 3);
    let (rat, bat) = (
        spawn_rat(&mut app, map, (4, 2)),
        spawn_rat(&mut app, map, (5, 1)),
    );
    app.update();
    let seen_at = elapsed(&app);
    // Put back in the update it was taken in, a clone changes nothing: the bat steps out of
    // view in that update and leaves its ghost where it went.
    let now = app.world().get::<LastSeen>(map).unwrap().clone();
    place(&mut app, bat, (6, 1));
    app.world_mut().entity_mut(map).insert(now);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(bat, (6, 1), seen_at)]);
    // A clone with the bat's ghost (and the rat seen at (4, 2)); then the rat vanishes in view
    // (teleported): no ghost.
    let earlier = app.world().get::<LastSeen>(map).unwrap().clone();
    place(&mut app, rat, (18, 2));
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(bat, (6, 1), seen_at)]);
    // The clone put back an update later, as the player walks off: it holds the bat's ghost,
    // not that the team sees the rat at (4, 2) (the team saw it vanish since).
    *app.world_mut().get_mut::<LastSeen>(map).unwrap() = earlier;
    place(&mut app, player, (10, 3));
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(bat, (6, 1), seen_at)]);
}

#[test]
fn a_team_whose_fog_was_replaced_still_remembers_what_it_saw() {
    let mut app = timed_app();
    let map = open_map(&mut app, 0.0);
    let scout = spawn_unit(&mut app, map, 1, (2, 2), 3);
    let rat = spawn_rat(&mut app, map, (4, 2));
    app.update();
    let seen_at = elapsed(&app);
    // The map's fog is taken away (the plugin gives it a new one) as team 1's only member
    // leaves: the new fog has no view for team 1, which sees nothing now.
    app.world_mut().entity_mut(map).remove::<FogOfWar>();
    app.world_mut().despawn(scout);
    app.update();
    assert!(
        app.world()
            .get::<FogOfWar>(map)
            .unwrap()
            .team(Team(1))
            .is_none()
    );
    assert_eq!(ghosts(&app, map, 1), [(rat, (4, 2), seen_at)]);
    // Seen again by a new member: the ghost goes.
    spawn_unit(&mut app, map, 1, (6, 2), 3);
    app.update();
    assert_eq!(ghosts(&app, map, 1), []);
}

/// A fog matter found by the model, outside the ghosts: a save's `FogOfWar` inserted whole on
/// a map in play, at the map's size, gets its team views gathered again at the next update
/// (before, `track_fog` did so only when the sizes differed, so the teams saw nothing until a
/// viewer moved and left ghosts of what they saw).
#[test]
fn a_fog_of_war_inserted_on_a_map_in_play_keeps_the_team_views() {
    let mut app = timed_app();
    let map = open_map(&mut app, 0.0);
    spawn_unit(&mut app, map, 0, (2, 2), 3);
    spawn_rat(&mut app, map, (4, 2));
    app.update();
    let json = serde_json::to_string(app.world().get::<FogOfWar>(map).unwrap()).unwrap();
    let loaded: FogOfWar = serde_json::from_str(&json).unwrap();
    app.world_mut().entity_mut(map).insert(loaded);
    app.update();
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert!(fog.is_visible(TilePos { x: 4, y: 2 }));
    assert_eq!(ghosts(&app, map, 0), [], "the rat is seen");
}

#[test]
fn a_ghost_is_cleared_after_its_map_is_resized_to_as_many_words_in_other_rows() {
    let mut app = timed_app();
    // 16x8 and 70x4 team views take 8 words each, in rows of 1 and of 2 words.
    let map = spawn_map(&mut app, 16, 8, |_, _| false);
    let player = spawn_unit(&mut app, map, 0, (2, 4), 4);
    let rat = spawn_rat(&mut app, map, (4, 4));
    app.update();
    let seen_at = elapsed(&app);
    // The map shrinks to 70x4 under both: the rat is gone with row 4, and the player sees
    // nothing; it steps back onto the map.
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(70, 4);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(rat, (4, 4), seen_at)]);
    place(&mut app, rat, (16, 4));
    place(&mut app, player, (2, 3));
    app.update();
    assert_eq!(
        ghosts(&app, map, 0),
        [(rat, (4, 4), seen_at)],
        "(4, 4) is off the map"
    );
    // Back to 16x8: the player sees (4, 4) again, without the rat (off the map at x = 16).
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(16, 8);
    app.update();
    assert!(
        app.world()
            .get::<FogOfWar>(map)
            .unwrap()
            .is_visible(TilePos { x: 4, y: 4 })
    );
    assert_eq!(ghosts(&app, map, 0), []);
}

#[test]
fn a_team_that_comes_back_to_a_map_sees_what_stood_in_its_view_all_along() {
    let mut app = timed_app();
    let (map, other) = (open_map(&mut app, 0.0), open_map(&mut app, 4000.0));
    // A remembered entity elsewhere, so that the ghosts are looked after at every update.
    spawn_rat(&mut app, other, (18, 2));
    let scout = spawn_unit(&mut app, map, 1, (2, 2), 3);
    app.update();
    // The map's ghosts are cleared, then its fog taken away as team 1's only member leaves:
    // team 1 is known neither to the fog nor to `LastSeen` there.
    app.world_mut().get_mut::<LastSeen>(map).unwrap().clear();
    app.update();
    app.world_mut().entity_mut(map).remove::<FogOfWar>();
    app.world_mut().despawn(scout);
    app.update();
    // A rat comes where the scout saw; a scout of team 1 comes back and sees it there.
    let rat = spawn_rat(&mut app, map, (4, 2));
    app.update();
    let scout = spawn_unit(&mut app, map, 1, (2, 2), 3);
    app.update();
    let seen_at = elapsed(&app);
    place(&mut app, scout, (15, 2));
    app.update();
    assert_eq!(ghosts(&app, map, 1), [(rat, (4, 2), seen_at)]);
}
