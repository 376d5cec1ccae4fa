//! The plugin benches' world: a headless app with a 256x256 dungeon of tile entities (walls
//! `Opaque`) and radius-8 viewers on floor tiles, in one of three scenes (all moving, one
//! door toggling, idle) and three variants (plain, cones, teams with fog). Shared by
//! `benches/plugin.rs` (criterion) and `benches/frame_instructions.rs` (callgrind).
#![allow(dead_code)]

#[path = "../../crates/viewshed_core/benches/support/mod.rs"]
pub mod support;

pub mod game;
pub mod lights;
#[cfg(feature = "replicon")]
pub mod replicon;
pub mod spread;
pub mod world;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::VisionCone;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Elevation, ElevationCells, OpacityGrid, Team};
use support::Rng;

pub const SIZE: u32 = 256;
pub const RADIUS: u32 = 8;

/// Where a viewer walks: back and forth between two neighbouring floor tiles.
#[derive(Component, Clone, Copy)]
pub struct Walk {
    pub a: TilePos,
    pub b: TilePos,
}

pub fn walk(mut walkers: Query<(&Walk, &mut TilePos)>) {
    for (walk, mut pos) in &mut walkers {
        *pos = if *pos == walk.a { walk.b } else { walk.a };
    }
}

/// The toggling tile of the door groups: a door (a wall that comes and goes) or, on high
/// ground, a cliff (a tile raised to the top level and back down).
#[derive(Component, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    Wall,
    Cliff,
}

pub fn toggle_door(
    mut commands: Commands,
    door: Single<(Entity, &Door, Has<Opaque>, Has<Elevation>)>,
) {
    let (door, kind, closed, raised) = *door;
    match (*kind, closed || raised) {
        (Door::Wall, true) => commands.entity(door).remove::<Opaque>(),
        (Door::Wall, false) => commands.entity(door).insert(Opaque),
        (Door::Cliff, true) => commands.entity(door).remove::<Elevation>(),
        (Door::Cliff, false) => commands.entity(door).insert(Elevation(15)),
    };
}

/// Viewer start tiles: floor tiles with a floor neighbour, spread over the map.
pub fn walks(grid: &OpacityGrid, count: usize) -> Vec<Walk> {
    let mut rng = Rng(99);
    let mut walks = Vec::with_capacity(count);
    while walks.len() < count {
        let (x, y) = (
            rng.below(grid.width() - 2) + 1,
            rng.below(grid.height() - 2) + 1,
        );
        if grid.is_opaque(x, y) {
            continue;
        }
        let next = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
            .into_iter()
            .find(|&(nx, ny)| !grid.is_opaque(nx, ny));
        if let Some((nx, ny)) = next {
            walks.push(Walk {
                a: TilePos { x, y },
                b: TilePos { x: nx, y: ny },
            });
        }
    }
    walks
}

/// The tile entities of the dungeon `grid`, walls `Opaque`.
pub fn spawn_dungeon(world: &mut World, grid: &OpacityGrid) -> Entity {
    let size = TilemapSize::new(grid.width(), grid.height());
    let map = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let pos = TilePos { x, y };
            let mut tile =
                world.spawn((pos, TilemapId(map), TileVisible(true), TileColor::default()));
            if grid.is_opaque(x, y) {
                tile.insert(Opaque);
            }
            storage.set(&pos, tile.id());
        }
    }
    world.entity_mut(map).insert((
        size,
        storage,
        TilemapGridSize::new(16.0, 16.0),
        TilemapTileSize::new(16.0, 16.0),
        TilemapType::Square,
    ));
    map
}

/// `MinimalPlugins` with every core in the compute pool: on a 2-core machine Bevy's default
/// gives compute one thread (the others go to IO and async tasks), so `par_iter` would not
/// run in parallel at all.
///
/// `FRAME_THREADS=1` gives the compute pool one thread: every task then runs on the main
/// thread, which makes callgrind's counts of parallel work exact (with more threads, idle
/// workers spin for a varying number of instructions).
pub fn minimal_plugins() -> impl PluginGroup {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = std::env::var("FRAME_THREADS")
        .ok()
        .and_then(|n| n.parse().ok());
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = threads.unwrap_or(cores);
    if let Some(threads) = threads {
        options.compute.max_threads = threads;
    }
    MinimalPlugins.set(TaskPoolPlugin {
        task_pool_options: options,
    })
}

/// What happens every frame of a bench app.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scene {
    /// Every viewer steps to a neighbouring floor tile.
    Moving,
    /// One door in the middle of the map opens or closes.
    Door,
    /// Nothing.
    Idle,
}

/// What the viewers of a bench app carry besides a plain radius-8 `Viewshed`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Plain,
    /// A 120-degree vision cone facing along the viewer's walk.
    Cones,
    /// `RevealsFog` in one of four teams, with the fog written into the tiles for team 0.
    Teams,
    /// High ground: the map in 8 levels (`ElevationCells`, blocks of 32 tiles rising
    /// diagonally), every viewer's eye one level above its tile.
    Hills,
    /// The same world without `ViewshedPlugins`: what a frame of this app costs anyway.
    NoPlugin,
}

pub fn plugin_app(grid: &OpacityGrid, viewers: usize, scene: Scene, variant: Variant) -> App {
    let mut app = App::new();
    app.add_plugins(minimal_plugins());
    if variant != Variant::NoPlugin {
        app.add_plugins(ViewshedPlugins::default());
    }
    let map = spawn_dungeon(app.world_mut(), grid);
    if variant == Variant::Teams {
        app.world_mut().entity_mut(map).insert(FogStyle::default());
    }
    if variant == Variant::Hills {
        let hills = ElevationCells::from_fn(SIZE, SIZE, |x, y| ((x / 32 + y / 32) % 8) as u8);
        app.world_mut().entity_mut(map).insert(hills);
    }
    for (i, walk) in walks(grid, viewers).into_iter().enumerate() {
        let mut viewshed = Viewshed::new(RADIUS);
        if variant == Variant::Cones {
            let (dx, dy) = (
                walk.b.x as i32 - walk.a.x as i32,
                walk.b.y as i32 - walk.a.y as i32,
            );
            viewshed = viewshed.with_cone(VisionCone::toward_degrees(dx, dy, 120.0));
        }
        if variant == Variant::Hills {
            viewshed = viewshed.with_eye_height(1);
        }
        let mut viewer = app.world_mut().spawn((viewshed, walk.a, TilemapId(map)));
        if variant == Variant::Teams {
            viewer.insert((RevealsFog, Team(i as u32 % 4)));
        }
        if scene == Scene::Moving {
            viewer.insert(walk);
        }
    }
    if scene == Scene::Moving {
        app.add_systems(Update, walk);
    } else if scene == Scene::Door {
        // A door in the middle of the map: a floor tile that becomes a wall and back.
        let door = (SIZE / 2..SIZE)
            .flat_map(|x| (SIZE / 2..SIZE).map(move |y| (x, y)))
            .find(|&(x, y)| !grid.is_opaque(x, y) && grid.is_opaque(x, y + 1))
            .unwrap();
        let storage = app.world().get::<TileStorage>(map).unwrap();
        let tile = storage
            .get(&TilePos {
                x: door.0,
                y: door.1,
            })
            .unwrap();
        let kind = if variant == Variant::Hills {
            Door::Cliff
        } else {
            Door::Wall
        };
        app.world_mut().entity_mut(tile).insert(kind);
        app.add_systems(Update, toggle_door);
    }
    // The first frames place every opaque tile and compute every view.
    app.update();
    app.update();
    app
}

/// The criterion settings the plugin benches share: short warm-up, 3 s of 20 samples.
pub fn criterion_config() -> criterion::Criterion {
    criterion::Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(20)
}
