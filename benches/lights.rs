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

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::SIZE;
use scene::lights::{LIGHTS, VIEWERS, lights_app};
use scene::support::MapKind;

fn light_benches(c: &mut Criterion) {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut group = c.benchmark_group(format!("lights/moving/{LIGHTS}"));
    group.sample_size(20);
    for (name, lit) in [("lit_viewers", true), ("viewers_only", false)] {
        let mut app = lights_app(&grid, VIEWERS, lit, true);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| app.update());
        });
    }
    group.finish();
    let mut group = c.benchmark_group(format!("lights/idle/{LIGHTS}"));
    let mut app = lights_app(&grid, VIEWERS, true, false);
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
