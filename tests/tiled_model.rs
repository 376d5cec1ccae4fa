//! A model test of the Tiled integration: random games on the Tiled files of `assets/tiled/`
//! (orthogonal, isometric, the four hexagonal layouts, infinite), loaded by bevy_ecs_tiled's
//! own loader and systems (see `tests/common_tiled`). The game moves the viewers by their
//! `Transform` (as a game moves a Tiled object), opens and closes the objects that block sight
//! and pushes them around, paints walls on tiles and clears them, and reloads the map (a hot
//! reload: bevy_ecs_tiled spawns it again). After every update the app is held to a plain
//! model, built from the file as the `tiled` crate reads it and from the ops alone:
//!
//! - the root tilemap's `MapOpacity` is the model's: the file's blocking tiles, the blocking
//!   objects that are closed (the tiles they cover where they stand now), the painted tiles;
//! - every viewer stands on the model's tile and sees the core's field of view from there;
//! - every team's fog shows as visible the union of its `RevealsFog` members' views, and as
//!   explored every tile it ever saw, across reloads.
//!
//! `TILED_MODEL_CASES` sets the number of games (64 by default).
#![cfg(feature = "tiled")]

mod common_tiled;

use std::collections::{HashMap, HashSet};

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::MapOpacity;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{OpacityGrid, Team};
use common_tiled::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// The maps a game is played on.
const FILES: [&str; 7] = [
    "room.tmx",
    "isometric.tmx",
    "hex_x_even.tmx",
    "hex_x_odd.tmx",
    "hex_y_even.tmx",
    "hex_y_odd.tmx",
    "infinite.tmx",
];

#[derive(Clone, Debug)]
enum Op {
    /// Viewer `viewer` (modulo their number) steps `(dx, dy)` tiles, kept on the map, by its
    /// `Transform`.
    Move { viewer: usize, dx: i32, dy: i32 },
    /// Blocking object `which` (modulo their number) is opened or closed.
    Toggle { which: usize },
    /// Blocking object `which` is pushed `(dx, dy)` tiles by its `Transform`.
    Push { which: usize, dx: i32, dy: i32 },
    /// The root layer's tile at `(x, y)` (modulo the map's size) gets a painted wall, or
    /// loses the one painted there (a wall from the file is left alone).
    Paint { x: u32, y: u32 },
    /// bevy_ecs_tiled reloads the map.
    Reload,
}

fn op() -> impl Strategy<Value = Op> {
    let step = || -3..=3i32;
    prop_oneof![
        4 => (0..3usize, step(), step()).prop_map(|(viewer, dx, dy)| Op::Move { viewer, dx, dy }),
        2 => (0..2usize).prop_map(|which| Op::Toggle { which }),
        1 => (0..2usize, step(), step()).prop_map(|(which, dx, dy)| Op::Push { which, dx, dy }),
        3 => (0..64u32, 0..64u32).prop_map(|(x, y)| Op::Paint { x, y }),
        1 => Just(Op::Reload),
    ]
}

/// An object that blocks sight while it is `Opaque`: the tiles it covers (as `TilePos`
/// coordinates, maybe off the map once pushed), and whether it is closed.
struct Blocker {
    entity: Entity,
    covers: Vec<(i32, i32)>,
    closed: bool,
}

/// What the app must show, from the file and the ops.
struct Model {
    data: MapData,
    /// The file's blocking tiles.
    walls: OpacityGrid,
    blockers: Vec<Blocker>,
    /// Root tile entities with a painted wall, and their tiles.
    painted: HashMap<Entity, TilePos>,
    /// The viewers (by name), where they stand and their team if they reveal the fog.
    viewers: Vec<(Entity, TilePos, Option<Team>)>,
    /// Per team, every tile it ever saw.
    explored: HashMap<Team, HashSet<TilePos>>,
}

impl Model {
    fn opaque(&self, tile: TilePos) -> bool {
        let at = (tile.x as i32, tile.y as i32);
        self.walls.is_opaque(tile.x, tile.y)
            || self.painted.values().any(|&p| p == tile)
            || self
                .blockers
                .iter()
                .any(|b| b.closed && b.covers.contains(&at))
    }

    fn grid(&self) -> OpacityGrid {
        OpacityGrid::from_fn(self.data.width, self.data.height, |x, y| {
            self.opaque(TilePos::new(x, y))
        })
    }

    fn clamp(&self, tile: TilePos, dx: i32, dy: i32) -> TilePos {
        let x = (tile.x as i32 + dx).clamp(0, self.data.width as i32 - 1);
        let y = (tile.y as i32 + dy).clamp(0, self.data.height as i32 - 1);
        TilePos::new(x as u32, y as u32)
    }
}

/// A game: the app with one map loaded, and the model.
struct Game {
    app: App,
    map: Entity,
    model: Model,
}

impl Game {
    fn start(file: &str) -> Result<Self, TestCaseError> {
        let mut app = tiled_app(configure);
        let map = load_map(&mut app, file);
        let data = MapData::read(file);
        let walls = OpacityGrid::from_fn(data.width, data.height, |x, y| {
            let tiled = (
                x as i32 + data.origin.0,
                (data.height - 1 - y) as i32 + data.origin.1,
            );
            data.tile_blocks(tiled)
        });
        let model = Model {
            data,
            walls,
            blockers: Vec::new(),
            painted: HashMap::new(),
            viewers: Vec::new(),
            explored: HashMap::new(),
        };
        let mut game = Self { app, map, model };
        game.learn();
        game.check()?;
        Ok(game)
    }

    /// After a load: the model's objects are the new entities, as the file places them.
    fn learn(&mut self) {
        let data = &self.model.data;
        let mut blockers = Vec::new();
        let mut viewers = Vec::new();
        let mut objects = self.app.world_mut().query::<(
            Entity,
            &TiledName,
            Has<Opaque>,
            Has<Viewshed>,
            Option<&Team>,
            Has<RevealsFog>,
        )>();
        for (entity, name, opaque, viewer, team, reveals) in objects.iter(self.app.world()) {
            let Some(object) = data.objects().into_iter().find(|o| o.name == name.0) else {
                continue;
            };
            if opaque {
                let covers = data.object_covers(&object);
                let covers = covers.iter().map(|t| (t.x as i32, t.y as i32)).collect();
                blockers.push((name.0.clone(), entity, covers));
            }
            if viewer {
                let team = reveals.then(|| team.copied().unwrap_or(Team(0)));
                viewers.push((name.0.clone(), entity, data.tile_of(&name.0), team));
            }
        }
        blockers.sort_by(|a, b| a.0.cmp(&b.0));
        viewers.sort_by(|a, b| a.0.cmp(&b.0));
        self.model.blockers = blockers
            .into_iter()
            .map(|(_, entity, covers)| Blocker {
                entity,
                covers,
                closed: true,
            })
            .collect();
        self.model.viewers = viewers
            .into_iter()
            .map(|(_, e, t, team)| (e, t, team))
            .collect();
        self.model.painted.clear();
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::Move { viewer, dx, dy } => self.move_viewer(viewer, dx, dy),
            Op::Toggle { which } => self.toggle(which),
            Op::Push { which, dx, dy } => self.push(which, dx, dy),
            Op::Paint { x, y } => self.paint(x, y),
            Op::Reload => return self.reload(),
        }
        self.app.update();
        self.check()
    }

    fn move_viewer(&mut self, index: usize, dx: i32, dy: i32) {
        let Some(count) = Some(self.model.viewers.len()).filter(|&n| n > 0) else {
            return;
        };
        let (entity, at, team) = self.model.viewers[index % count];
        let to = self.model.clamp(at, dx, dy);
        self.shift(entity, self.between(at, to));
        self.model.viewers[index % count] = (entity, to, team);
    }

    fn toggle(&mut self, index: usize) {
        let Some(count) = Some(self.model.blockers.len()).filter(|&n| n > 0) else {
            return;
        };
        let blocker = &mut self.model.blockers[index % count];
        blocker.closed = !blocker.closed;
        let mut entity = self.app.world_mut().entity_mut(blocker.entity);
        if blocker.closed {
            entity.insert(Opaque);
        } else {
            entity.remove::<Opaque>();
        }
    }

    /// (Blocking objects are on orthogonal maps only, where `MapData::object_covers` holds
    /// and a step of whole tiles is a step of the grid's size.)
    fn push(&mut self, index: usize, dx: i32, dy: i32) {
        let Some(count) = Some(self.model.blockers.len()).filter(|&n| n > 0) else {
            return;
        };
        let root = root(&self.app, self.map);
        let world = self.app.world();
        let grid = world.get::<TilemapGridSize>(root).unwrap();
        let step = Vec3::new(dx as f32 * grid.x, dy as f32 * grid.y, 0.0);
        let step = world
            .get::<GlobalTransform>(root)
            .unwrap()
            .affine()
            .transform_vector3(step);
        let blocker = &mut self.model.blockers[index % count];
        for cover in &mut blocker.covers {
            *cover = (cover.0 + dx, cover.1 + dy);
        }
        let entity = blocker.entity;
        self.shift(entity, step);
    }

    fn paint(&mut self, x: u32, y: u32) {
        let (w, h) = (self.model.data.width, self.model.data.height);
        let tile = TilePos::new(x % w, y % h);
        let root = root(&self.app, self.map);
        let storage = self.app.world().get::<TileStorage>(root).unwrap();
        let Some(entity) = storage.get(&tile) else {
            return;
        };
        if self.model.painted.remove(&entity).is_some() {
            self.app.world_mut().entity_mut(entity).remove::<Opaque>();
        } else if self.app.world().get::<Opaque>(entity).is_none() {
            self.model.painted.insert(entity, tile);
            self.app.world_mut().entity_mut(entity).insert(Opaque);
        }
    }

    fn reload(&mut self) -> Result<(), TestCaseError> {
        let old_root = root(&self.app, self.map);
        let map = self.map;
        self.app.world_mut().entity_mut(map).insert(RespawnTiledMap);
        update_until(
            &mut self.app,
            |app| map_ready(app, map) && root(app, map) != old_root,
            "the reloaded map",
        );
        self.learn();
        self.check()
    }

    /// The world-space step from the centre of tile `from` to that of tile `to` on the root.
    fn between(&self, from: TilePos, to: TilePos) -> Vec3 {
        let world = self.app.world();
        let root = root(&self.app, self.map);
        let centre = |tile: TilePos| {
            tile.center_in_world(
                world.get::<TilemapSize>(root).unwrap(),
                world.get::<TilemapGridSize>(root).unwrap(),
                world.get::<TilemapTileSize>(root).unwrap(),
                world.get::<TilemapType>(root).unwrap(),
                &world
                    .get::<TilemapAnchor>(root)
                    .copied()
                    .unwrap_or_default(),
            )
        };
        let step = (centre(to) - centre(from)).extend(0.0);
        let transform = world.get::<GlobalTransform>(root).unwrap();
        transform.affine().transform_vector3(step)
    }

    /// Moves `entity` by the world-space `step` through its own `Transform`.
    fn shift(&mut self, entity: Entity, step: Vec3) {
        let world = self.app.world();
        let parent = world.get::<ChildOf>(entity).map(ChildOf::parent);
        let local = parent
            .and_then(|p| world.get::<GlobalTransform>(p))
            .map_or(step, |g| g.affine().inverse().transform_vector3(step));
        let mut transform = self.app.world_mut().get_mut::<Transform>(entity).unwrap();
        transform.translation += local;
    }

    fn check(&mut self) -> Result<(), TestCaseError> {
        let root = root(&self.app, self.map);
        let world = self.app.world();
        let grid = self.model.grid();
        let opacity = world.get::<MapOpacity>(root).unwrap();
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let tile = TilePos::new(x, y);
                prop_assert_eq!(
                    opacity.is_opaque(tile),
                    grid.is_opaque(x, y),
                    "opacity of {:?}",
                    tile
                );
            }
        }
        let map_type = *world.get::<TilemapType>(root).unwrap();
        let mut seen: HashMap<Team, HashSet<TilePos>> = HashMap::new();
        for &(entity, at, team) in &self.model.viewers {
            prop_assert_eq!(world.get::<TilePos>(entity), Some(&at), "a viewer's tile");
            let viewshed = world.get::<Viewshed>(entity).unwrap();
            let expected = expected_view(&grid, map_type, at, viewshed.options);
            prop_assert_eq!(
                view_of(viewshed),
                expected.clone(),
                "the view from {:?}",
                at
            );
            if let Some(team) = team {
                seen.entry(team).or_default().extend(expected);
            }
        }
        let fog = world.get::<FogOfWar>(root).unwrap();
        for (&team, tiles) in &seen {
            self.model
                .explored
                .entry(team)
                .or_default()
                .extend(tiles.iter().copied());
        }
        for (&team, explored) in &self.model.explored {
            let team_fog = fog.team(team).unwrap();
            let visible = seen.get(&team);
            for y in 0..grid.height() {
                for x in 0..grid.width() {
                    let tile = TilePos::new(x, y);
                    let sees = visible.is_some_and(|v| v.contains(&tile));
                    prop_assert_eq!(
                        team_fog.is_visible(tile),
                        sees,
                        "{:?} sees {:?}",
                        team,
                        tile
                    );
                    prop_assert_eq!(
                        team_fog.is_explored(tile),
                        explored.contains(&tile),
                        "{:?} explored {:?}",
                        team,
                        tile
                    );
                }
            }
        }
        Ok(())
    }
}

/// How many random games run: `TILED_MODEL_CASES`, or 64.
fn games() -> u32 {
    std::env::var("TILED_MODEL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: games(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random games on every kind of Tiled map follow the model.
    #[test]
    fn tiled_maps_follow_the_model(
        file in 0..FILES.len(),
        ops in proptest::collection::vec(op(), 1..16),
    ) {
        let mut game = Game::start(FILES[file])?;
        for op in &ops {
            game.apply(op)?;
        }
    }
}
