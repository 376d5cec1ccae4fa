//! One hexagonal field of view from the floor nearest the centre of 128x128 maps (tiles in
//! bevy_ecs_tilemap's `RowOdd` system), timed for bevy_viewshed and for hexx 0.25's
//! `range_fov` in the same criterion groups, so the report is a ratio.
//!
//! ```text
//! cargo bench -p viewshed_core --bench hex       # about a minute on 2 cores
//! ```
//!
//! Each group is one map and radius (`hex/open/r8`, ...). The peers do not follow the same
//! rules: hexx casts one line (rounded floats) to every hexagon of the outer ring and keeps
//! the hexagons before the first wall, so its view is neither exact nor symmetric and never
//! holds a wall; ours is exact and lights walls. Both return where a game would read them:
//! ours its reusable bit-packed `VisibleSet`, hexx a new `HashSet<Hex>`. The cells each sees
//! are printed once per group (`cells: ours N (floors F), hexx H`).

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hexx::Hex;
use support::{MapKind, central_floor};
use viewshed_core::{FovOptions, HexCoords, HexFov, OpacityGrid, VisibleSet};

const COORDS: HexCoords = HexCoords::RowOdd;

/// Whether axial `hex` blocks sight (off the map: yes).
fn blocks(grid: &OpacityGrid, hex: Hex) -> bool {
    COORDS
        .from_axial((i64::from(hex.x), i64::from(hex.y)))
        .is_none_or(|(x, y)| grid.is_opaque(x, y))
}

fn bench_map(c: &mut Criterion, kind: MapKind) {
    let grid = kind.generate(128, 128, 7);
    let viewer = central_floor(&grid);
    let (q, r) = COORDS.to_axial(viewer);
    let centre = Hex::new(q as i32, r as i32);
    for radius in [4u32, 8, 16] {
        let mut group = c.benchmark_group(format!("hex/{}/r{radius}", kind.name()));
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(2));
        let (mut fov, mut visible) = (HexFov::new(), VisibleSet::new());
        let options = FovOptions::radius(radius);
        fov.compute(&grid, COORDS, viewer, options, &mut visible)
            .unwrap();
        let floors = visible
            .iter()
            .filter(|&(x, y)| !grid.is_opaque(x, y))
            .count();
        let theirs = hexx::algorithms::range_fov(centre, radius, |h| blocks(&grid, h)).len();
        eprintln!(
            "hex/{}/r{radius} cells: ours {} (floors {floors}), hexx {theirs}",
            kind.name(),
            visible.count()
        );
        group.bench_function(BenchmarkId::new("bevy_viewshed", radius), |b| {
            b.iter(|| {
                fov.compute(&grid, COORDS, viewer, black_box(options), &mut visible)
                    .unwrap();
                black_box(visible.count())
            })
        });
        group.bench_function(BenchmarkId::new("hexx", radius), |b| {
            b.iter(|| {
                black_box(
                    hexx::algorithms::range_fov(centre, black_box(radius), |h| blocks(&grid, h))
                        .len(),
                )
            })
        });
        group.finish();
    }
}

fn hex_fov(c: &mut Criterion) {
    for kind in [MapKind::Open, MapKind::Pillars, MapKind::Cave] {
        bench_map(c, kind);
    }
}

criterion_group!(benches, hex_fov);
criterion_main!(benches);
