//! A headless Bevy app with the plugin and helpers to spawn tilemaps, shared by the plugin
//! test files.
#![allow(dead_code)]

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    FovOptions, LayerOf, MapOpacity, SpottedTargets, ViewshedSchedule, ViewshedStepSystems,
};
use bevy_viewshed::{HexCoords, OpacityGrid, field_of_view};

/// `MinimalPlugins` + `ViewshedPlugins`: no window, no GPU.
pub fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ViewshedPlugins::default()));
    app
}

/// [`app`] with `threads` compute threads whatever the machine has (Bevy's default gives a
/// 2-core machine one), so that the plugin's parallel paths run in parallel. The compute pool
/// is global: the first app of a test binary sets it.
pub fn threaded_app(threads: usize) -> App {
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = threads;
    options.compute.max_threads = threads;
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: options,
        }),
        ViewshedPlugins::default(),
    ));
    app
}

/// Spawns a `width` x `height` tilemap whose tiles are entities with `TileVisible` and
/// `TileColor`; the tiles where `wall(x, y)` is true are `Opaque`.
pub fn spawn_map(
    app: &mut App,
    width: u32,
    height: u32,
    wall: impl Fn(u32, u32) -> bool,
) -> Entity {
    spawn_layer(app, width, height, wall, None)
}

/// Like [`spawn_map`], as a layer of `root` when given.
pub fn spawn_layer(
    app: &mut App,
    width: u32,
    height: u32,
    wall: impl Fn(u32, u32) -> bool,
    root: Option<Entity>,
) -> Entity {
    let world = app.world_mut();
    let size = TilemapSize::new(width, height);
    let map = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..height {
        for x in 0..width {
            let pos = TilePos { x, y };
            let mut tile = world.spawn((
                pos,
                TilemapId(map),
                TileVisible(true),
                TileColor(Color::WHITE),
            ));
            if wall(x, y) {
                tile.insert(Opaque);
            }
            storage.set(&pos, tile.id());
        }
    }
    let mut map_entity = world.entity_mut(map);
    map_entity.insert((
        size,
        storage,
        TilemapGridSize::new(16.0, 16.0),
        TilemapTileSize::new(16.0, 16.0),
        TilemapType::Square,
        TilemapAnchor::None,
        Transform::default(),
        GlobalTransform::default(),
    ));
    if let Some(root) = root {
        map_entity.insert(LayerOf(root));
    }
    map
}

/// Spawns a viewer at `(x, y)` on `map`.
pub fn spawn_viewer(app: &mut App, map: Entity, x: u32, y: u32, radius: u32) -> Entity {
    app.world_mut()
        .spawn((Viewshed::new(radius), TilePos { x, y }, TilemapId(map)))
        .id()
}

/// Spawns a revealing viewer (team 0) at `(x, y)` on `map`.
pub fn spawn_player(app: &mut App, map: Entity, x: u32, y: u32, radius: u32) -> Entity {
    app.world_mut()
        .spawn((
            Viewshed::new(radius),
            RevealsFog,
            TilePos { x, y },
            TilemapId(map),
        ))
        .id()
}

/// The `TileVisible` and `TileColor` of tile `(x, y)` of `map`.
pub fn look(app: &App, map: Entity, x: u32, y: u32) -> (bool, Color) {
    let tile = tile_entity(app, map, x, y);
    let visible = app.world().get::<TileVisible>(tile).unwrap().0;
    let color = app.world().get::<TileColor>(tile).unwrap().0;
    (visible, color)
}

/// The fog of war of `map`.
pub fn fog(app: &App, map: Entity) -> &FogOfWar {
    app.world().get::<FogOfWar>(map).expect("map has FogOfWar")
}

pub fn viewshed(app: &App, viewer: Entity) -> &Viewshed {
    app.world()
        .get::<Viewshed>(viewer)
        .expect("viewer has a Viewshed")
}

/// The targets `viewer` spots (none if it has no `SpottedTargets`).
pub fn spotted(app: &App, viewer: Entity) -> impl Iterator<Item = Entity> + '_ {
    app.world()
        .get::<SpottedTargets>(viewer)
        .into_iter()
        .flat_map(SpottedTargets::iter)
}

pub fn generation(app: &App, viewer: Entity) -> u64 {
    viewshed(app, viewer).generation()
}

pub fn tile_entity(app: &App, map: Entity, x: u32, y: u32) -> Entity {
    app.world()
        .get::<TileStorage>(map)
        .unwrap()
        .get(&TilePos { x, y })
        .unwrap()
}

pub fn opacity(app: &App, map: Entity) -> &MapOpacity {
    app.world()
        .get::<MapOpacity>(map)
        .expect("map has MapOpacity")
}

/// The visible tiles as `(x, y)`, sorted.
pub fn seen(app: &App, viewer: Entity) -> Vec<(u32, u32)> {
    let mut tiles: Vec<_> = viewshed(app, viewer).iter().map(|t| (t.x, t.y)).collect();
    tiles.sort_unstable_by_key(|&(x, y)| (y, x));
    tiles
}

/// The same, from the core on the same walls.
pub fn core_seen(
    width: u32,
    height: u32,
    wall: impl Fn(u32, u32) -> bool,
    origin: (u32, u32),
    radius: u32,
) -> Vec<(u32, u32)> {
    let grid = OpacityGrid::from_fn(width, height, wall);
    let options = if radius == Viewshed::UNLIMITED {
        FovOptions::unlimited()
    } else {
        FovOptions::radius(radius)
    };
    field_of_view(&grid, origin, options)
        .unwrap()
        .iter()
        .collect()
}

/// Spotted (true) / LostSight (false) as (viewer, target), in the order read.
#[derive(Resource, Default)]
pub struct Log(Vec<(bool, Entity, Entity)>);

fn log_messages(
    mut spotted: MessageReader<Spotted>,
    mut lost: MessageReader<LostSight>,
    mut log: ResMut<Log>,
) {
    log.0
        .extend(spotted.read().map(|m| (true, m.viewer, m.target)));
    log.0
        .extend(lost.read().map(|m| (false, m.viewer, m.target)));
}

/// An app that records the messages after the plugin's `Notify` phase.
pub fn logging_app() -> App {
    let mut app = app();
    app.init_resource::<Log>().add_systems(
        ViewshedSchedule,
        log_messages
            .after(ViewshedStepSystems::Sightings)
            .before(ViewshedStepSystems::Fog),
    );
    app
}

pub fn take_log(app: &mut App) -> Vec<(bool, Entity, Entity)> {
    std::mem::take(&mut app.world_mut().resource_mut::<Log>().0)
}

/// The core's coordinate system for a bevy_ecs_tilemap hexagonal map's.
pub fn hex_coords(system: HexCoordSystem) -> HexCoords {
    match system {
        HexCoordSystem::Row => HexCoords::Row,
        HexCoordSystem::Column => HexCoords::Column,
        HexCoordSystem::RowEven => HexCoords::RowEven,
        HexCoordSystem::RowOdd => HexCoords::RowOdd,
        HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
        HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
    }
}

/// The random-game model tests' proptest settings: `PROPTEST_CASES` games (64 by default), no
/// regression files.
pub fn model_config() -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(64),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}
