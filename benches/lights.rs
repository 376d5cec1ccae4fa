//! Frame time of light and darkness in a headless Bevy app: the 256x256 dungeon of
//! `benches/scene/` with 1,000 lights of radius 6 and 1,000 viewers of radius 16 that
//! `NeedsLight` (dark vision 1).
//!
//! ```text
//! cargo bench --workspace --all-features --bench lights
//! ```
//!
//! - `lights/moving/1000`: every light and every viewer steps to a neighbouring floor tile
//!   every frame. `lit_viewers` is the scene above; `viewers_only` the same viewers without
//!   lights or `NeedsLight`, so the ratio is what light and darkness cost.
//! - `lights/idle/1000`: nothing moves.
//!
//! Each iteration is one `app.update()`.

mod scene;

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::OpacityGrid;
use bevy_viewshed::prelude::*;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::support::MapKind;
use scene::{SIZE, minimal_plugins, spawn_dungeon, walk, walks};

const LIGHTS: usize = 1000;
const VIEWERS: usize = 1000;
const LIGHT_RADIUS: u32 = 6;
const VIEW_RADIUS: u32 = 16;

/// The dungeon with its viewers, and its lights when `lit`; everything walks when `moving`.
fn lights_app(grid: &OpacityGrid, lit: bool, moving: bool) -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugin::default()));
    let map = spawn_dungeon(app.world_mut(), grid);
    // One list of walks: the first half for viewers, the second for lights.
    let all = walks(grid, VIEWERS + LIGHTS);
    let (viewers, lights) = all.split_at(VIEWERS);
    for walk in viewers {
        let mut viewer =
            app.world_mut()
                .spawn((Viewshed::new(VIEW_RADIUS), walk.a, TilemapId(map)));
        if lit {
            viewer.insert(NeedsLight::new(1));
        }
        if moving {
            viewer.insert(*walk);
        }
    }
    for walk in lights.iter().filter(|_| lit) {
        let mut light =
            app.world_mut()
                .spawn((LightSource::new(LIGHT_RADIUS), walk.a, TilemapId(map)));
        if moving {
            light.insert(*walk);
        }
    }
    app.add_systems(Update, walk);
    // The first frames place every opaque tile and compute every view and light.
    app.update();
    app.update();
    app
}

fn light_benches(c: &mut Criterion) {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut group = c.benchmark_group(format!("lights/moving/{LIGHTS}"));
    group.sample_size(20);
    for (name, lit) in [("lit_viewers", true), ("viewers_only", false)] {
        let mut app = lights_app(&grid, lit, true);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| app.update());
        });
    }
    group.finish();
    let mut group = c.benchmark_group(format!("lights/idle/{LIGHTS}"));
    let mut app = lights_app(&grid, true, false);
    group.bench_function(BenchmarkId::from_parameter("lit_viewers"), |b| {
        b.iter(|| app.update());
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = light_benches
}
criterion_main!(benches);
