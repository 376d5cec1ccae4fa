//! What a world of many tilemaps costs against one big map (`cargo bench --bench worlds`).
//!
//! - `borders/*`: the plugin bench's 256x256 dungeon and its 1,000 walkers (radius 8, all
//!   moving every frame), on one tilemap (`one_map`) and cut into 64 chunks of 32x32 of a
//!   `WorldMap` (`world`): the same views, three quarters of them across chunk borders.
//! - `streaming/*`: worlds of 3x3 and 7x7 loaded chunks with still viewers on them, one
//!   chunk taken out and put back every frame (`chunks`), and the same worlds with nothing
//!   streamed (`still`): what a chunk that comes and goes costs (`chunks` less `still`) as
//!   the world loaded around it grows.
//!
//! Each iteration is one `app.update()`.

mod scene;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::support::MapKind;
use scene::world::{streaming_app, world_app};
use scene::{SIZE, Scene, Variant, plugin_app};

fn borders(c: &mut Criterion) {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut group = c.benchmark_group("borders");
    let viewers = 1000;
    let mut one_map = plugin_app(&grid, viewers, Scene::Moving, Variant::Plain);
    group.bench_function(BenchmarkId::new("one_map", viewers), |b| {
        b.iter(|| one_map.update());
    });
    let mut world = world_app(&grid, viewers);
    group.bench_function(BenchmarkId::new("world", viewers), |b| {
        b.iter(|| world.update());
    });
    group.finish();
}

fn streaming(c: &mut Criterion) {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut group = c.benchmark_group("streaming");
    for side in [3, 7] {
        for (name, streams) in [("chunks", true), ("still", false)] {
            let mut app = streaming_app(&grid, side, 8, streams);
            group.bench_function(BenchmarkId::new(name, side * side), |b| {
                b.iter(|| app.update());
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = scene::criterion_config();
    targets = borders, streaming
}
criterion_main!(benches);
