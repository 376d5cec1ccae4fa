//! Frame time of the plugin in a headless Bevy app: a 256x256 dungeon (tile entities, walls
//! `Opaque`) with 1,000 or 10,000 viewers of radius 8.
//!
//! ```text
//! cargo bench --bench plugin
//! ```
//!
//! - `moving/*`: every viewer steps to a neighbouring floor tile every frame.
//! - `door/*`: nobody moves, one door toggles every frame (`bevy_viewshed_cliff`: on the map
//!   of 8 levels, one tile rises to the top level and back instead).
//! - `idle/*`: nothing changes: what the plugin costs a frame in which nothing happens.
//! - `bevy_viewshed_cones`: the same with a 120-degree vision cone on every viewer;
//!   `bevy_viewshed_teams`: every viewer `RevealsFog` in one of four teams, fog of war written
//!   into the tiles; `bevy_viewshed_hills`: the map in 8 levels of high ground, each viewer's
//!   eye one level up (against the flat `bevy_viewshed` in the same group).
//! - `no_plugin`: the same app (world, viewers' components, scene) without `ViewshedPlugins`: what
//!   a frame costs that the plugin cannot take away (Bevy's own systems and executor).
//! - `tutorial_baseline`: the same moves with views kept the way the popular Rust roguelike
//!   tutorial keeps them: a `Vec<Point>` per viewer, recomputed every turn with
//!   bracket-pathfinding's `field_of_view`, then trimmed to the map.
//!
//! Each iteration is one `app.update()`. The door groups also print how many viewers each
//! toggle recomputed.

mod scene;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FovOptions;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Fov, OpacityGrid, VisibleSet};
use bracket_pathfinding::prelude::{Algorithm2D, BaseMap, Point, field_of_view};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::support::MapKind;
use scene::{RADIUS, SIZE, Scene, Variant, minimal_plugins, plugin_app, walk, walks};

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
            ("bevy_viewshed_hills", Variant::Hills),
        ] {
            let mut app = plugin_app(&grid, viewers, Scene::Moving, variant);
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| app.update())
            });
        }
        bench_without_plugin(&mut group, &grid, viewers, Scene::Moving);
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
        // A door toggled on the flat map, and a tile raised to the top level and back on the
        // map of 8 levels (`bevy_viewshed_cliff`).
        for (name, variant) in [
            ("bevy_viewshed", Variant::Plain),
            ("bevy_viewshed_cliff", Variant::Hills),
        ] {
            let mut app = plugin_app(&grid, viewers, Scene::Door, variant);
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
                "plugin/door/{viewers}/{name}: one toggle recomputed {} of {viewers} viewers",
                after - before
            );
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| app.update())
            });
        }
        bench_without_plugin(&mut group, &grid, viewers, Scene::Door);
        group.finish();
    }
    let mut group = c.benchmark_group("plugin/idle/10000");
    let mut app = plugin_app(&grid, 10_000, Scene::Idle, Variant::Plain);
    group.bench_function(BenchmarkId::from_parameter("bevy_viewshed"), |b| {
        b.iter(|| app.update())
    });
    bench_without_plugin(&mut group, &grid, 10_000, Scene::Idle);
    group.finish();
}

/// The same app without the plugin, in the same group: the floor of the frame.
fn bench_without_plugin(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    grid: &OpacityGrid,
    viewers: usize,
    scene: Scene,
) {
    let mut app = plugin_app(grid, viewers, scene, Variant::NoPlugin);
    group.bench_function(BenchmarkId::from_parameter("no_plugin"), |b| {
        b.iter(|| app.update())
    });
}

criterion_group! {
    name = benches;
    config = scene::criterion_config();
    targets = plugin_benches
}
criterion_main!(benches);
