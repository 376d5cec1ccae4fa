//! Frame time of the plugin in a headless Bevy app: a 256x256 dungeon (tile entities, walls
//! `Opaque`) with 1,000 or 10,000 viewers of radius 8.
//!
//! ```text
//! cargo bench --bench plugin
//! ```
//!
//! - `moving/*`: every viewer steps to a neighbouring floor tile every frame.
//! - `door/*`: nobody moves, one door toggles every frame.
//! - `idle/*`: nothing changes: what the plugin costs a frame in which nothing happens.
//! - `bevy_viewshed_cones`: the same with a 120-degree vision cone on every viewer;
//!   `bevy_viewshed_teams`: every viewer `RevealsFog` in one of four teams, fog of war written
//!   into the tiles.
//! - `tutorial_baseline`: the same moves with views kept the way the popular Rust roguelike
//!   tutorial keeps them: a `Vec<Point>` per viewer, recomputed every turn with
//!   bracket-pathfinding's `field_of_view`, then trimmed to the map.
//!
//! Each iteration is one `app.update()`. The door groups also print how many viewers each
//! toggle recomputed.

#[path = "../crates/viewshed_core/benches/support/mod.rs"]
mod support;

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bracket_pathfinding::prelude::{Algorithm2D, BaseMap, Point, field_of_view};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use support::{MapKind, Rng};

const SIZE: u32 = 256;
const RADIUS: u32 = 8;

/// Where a viewer walks: back and forth between two neighbouring floor tiles.
#[derive(Component, Clone, Copy)]
struct Walk {
    a: TilePos,
    b: TilePos,
}

fn walk(mut walkers: Query<(&Walk, &mut TilePos)>) {
    for (walk, mut pos) in &mut walkers {
        *pos = if *pos == walk.a { walk.b } else { walk.a };
    }
}

/// The toggling door of the door groups.
#[derive(Component)]
struct Door;

fn toggle_door(mut commands: Commands, door: Single<(Entity, Has<Opaque>), With<Door>>) {
    let (door, closed) = *door;
    if closed {
        commands.entity(door).remove::<Opaque>();
    } else {
        commands.entity(door).insert(Opaque);
    }
}

/// Viewer start tiles: floor tiles with a floor neighbour, spread over the map.
fn walks(grid: &OpacityGrid, count: usize) -> Vec<Walk> {
    let mut rng = Rng(99);
    let mut walks = Vec::with_capacity(count);
    while walks.len() < count {
        let (x, y) = (rng.below(SIZE - 2) + 1, rng.below(SIZE - 2) + 1);
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

/// The tile entities of the dungeon, walls `Opaque`.
fn spawn_dungeon(world: &mut World, grid: &OpacityGrid) -> Entity {
    let size = TilemapSize::new(SIZE, SIZE);
    let map = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..SIZE {
        for x in 0..SIZE {
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
fn minimal_plugins() -> impl PluginGroup {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = cores;
    MinimalPlugins.set(TaskPoolPlugin {
        task_pool_options: options,
    })
}

/// What happens every frame of a bench app.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scene {
    /// Every viewer steps to a neighbouring floor tile.
    Moving,
    /// One door in the middle of the map opens or closes.
    Door,
    /// Nothing.
    Idle,
}

/// What the viewers of a bench app carry besides a plain radius-8 `Viewshed`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Plain,
    /// A 120-degree vision cone facing along the viewer's walk.
    Cones,
    /// `RevealsFog` in one of four teams, with the fog written into the tiles for team 0.
    Teams,
}

fn plugin_app(grid: &OpacityGrid, viewers: usize, scene: Scene, variant: Variant) -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugin::default()));
    let map = spawn_dungeon(app.world_mut(), grid);
    if variant == Variant::Teams {
        app.world_mut().entity_mut(map).insert(FogStyle::default());
    }
    for (i, walk) in walks(grid, viewers).into_iter().enumerate() {
        let mut viewshed = Viewshed::new(RADIUS);
        if variant == Variant::Cones {
            let (dx, dy) = (
                walk.b.x as i32 - walk.a.x as i32,
                walk.b.y as i32 - walk.a.y as i32,
            );
            viewshed = viewshed.with_cone(VisionCone::toward(dx, dy, 120f64.to_radians()));
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
        app.world_mut().entity_mut(tile).insert(Door);
        app.add_systems(Update, toggle_door);
    }
    // The first frames place every opaque tile and compute every view.
    app.update();
    app.update();
    app
}

// --- The tutorial's way -------------------------------------------------------------------

#[derive(Resource)]
struct TutorialMap {
    opaque: Vec<bool>,
}

impl BaseMap for TutorialMap {
    fn is_opaque(&self, idx: usize) -> bool {
        self.opaque[idx]
    }
}

impl Algorithm2D for TutorialMap {
    fn dimensions(&self) -> Point {
        Point::new(SIZE, SIZE)
    }
}

#[derive(Component)]
struct TutorialViewshed {
    visible_tiles: Vec<Point>,
    range: i32,
}

fn tutorial_visibility(
    map: Res<TutorialMap>,
    mut viewers: Query<(&mut TutorialViewshed, &TilePos)>,
) {
    for (mut viewshed, pos) in &mut viewers {
        viewshed.visible_tiles.clear();
        viewshed.visible_tiles = field_of_view(Point::new(pos.x, pos.y), viewshed.range, &*map);
        viewshed
            .visible_tiles
            .retain(|p| p.x >= 0 && p.x < SIZE as i32 && p.y >= 0 && p.y < SIZE as i32);
    }
}

fn tutorial_app(grid: &OpacityGrid, viewers: usize) -> App {
    let mut app = App::new();
    app.add_plugins(minimal_plugins());
    let opaque = (0..SIZE * SIZE)
        .map(|i| grid.is_opaque(i % SIZE, i / SIZE))
        .collect();
    app.insert_resource(TutorialMap { opaque });
    for walk in walks(grid, viewers) {
        app.world_mut().spawn((
            TutorialViewshed {
                visible_tiles: Vec::new(),
                range: RADIUS as i32,
            },
            walk.a,
            walk,
        ));
    }
    app.add_systems(Update, (walk, tutorial_visibility).chain());
    app.update();
    app
}

fn plugin_benches(c: &mut Criterion) {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    for viewers in [1_000, 10_000] {
        let mut group = c.benchmark_group(format!("plugin/moving/{viewers}"));
        for (name, variant) in [
            ("bevy_viewshed", Variant::Plain),
            ("bevy_viewshed_cones", Variant::Cones),
            ("bevy_viewshed_teams", Variant::Teams),
        ] {
            let mut app = plugin_app(&grid, viewers, Scene::Moving, variant);
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| app.update())
            });
        }
        // The FOV alone, one thread, for the same viewers' moves: what the frame is made of.
        let moves = walks(&grid, viewers);
        let (mut fov, mut visible, mut flip) = (Fov::new(), VisibleSet::new(), false);
        group.bench_function(BenchmarkId::from_parameter("core_only_one_thread"), |b| {
            b.iter(|| {
                flip = !flip;
                for walk in &moves {
                    let tile = if flip { walk.b } else { walk.a };
                    fov.compute(
                        &grid,
                        (tile.x, tile.y),
                        FovOptions::radius(RADIUS),
                        &mut visible,
                    )
                    .unwrap();
                }
                visible.count()
            })
        });
        let mut app = tutorial_app(&grid, viewers);
        group.bench_function(BenchmarkId::from_parameter("tutorial_baseline"), |b| {
            b.iter(|| app.update())
        });
        group.finish();
    }
    for viewers in [1_000, 10_000] {
        let mut group = c.benchmark_group(format!("plugin/door/{viewers}"));
        let mut app = plugin_app(&grid, viewers, Scene::Door, Variant::Plain);
        let mut generations = app.world_mut().query::<&Viewshed>();
        let before: u64 = generations
            .iter(app.world())
            .map(Viewshed::generation)
            .sum();
        app.update();
        let after: u64 = generations
            .iter(app.world())
            .map(Viewshed::generation)
            .sum();
        eprintln!(
            "plugin/door/{viewers}: one toggle recomputed {} of {viewers} viewers",
            after - before
        );
        group.bench_function(BenchmarkId::from_parameter("bevy_viewshed"), |b| {
            b.iter(|| app.update())
        });
        group.finish();
    }
    let mut group = c.benchmark_group("plugin/idle/10000");
    let mut app = plugin_app(&grid, 10_000, Scene::Idle, Variant::Plain);
    group.bench_function(BenchmarkId::from_parameter("bevy_viewshed"), |b| {
        b.iter(|| app.update())
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    targets = plugin_benches
}
criterion_main!(benches);
