//! High ground on a 256x256 map (5% pillars) with hills of 8 levels, a viewer on the floor
//! nearest the centre, its eye one level up.
//!
//! ```text
//! cargo bench -p viewshed_core --bench elevation     # about half a minute
//! ```
//!
//! `elevation/256/r16` and `elevation/256/unlimited` time, in the same group so the report is a
//! ratio: `flat`, the plain field of view on the walls alone; `sight_levels`, the same viewer
//! on the grid that `SightLevels` keeps for its eye level (what every viewer at that level
//! shares); and `threshold_each_call`, `field_of_view_with_elevation`, which thresholds the
//! map again for each call. The cells each sees are printed once per group.
//! `elevation/256/update` times a change with every eye level's grid kept: a cell's level
//! (updating the grids of the levels it crosses), a wall, and, for comparison, one level's
//! grid rebuilt from scratch.

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use support::{MapKind, Rng, central_floor};
use viewshed_core::elevation::MAX_LEVEL;
use viewshed_core::{
    ElevationGrid, ElevationOptions, Fov, FovOptions, OpacityGrid, SightLevels, VisibleSet,
    field_of_view_with_elevation,
};

const SIDE: u32 = 256;
/// Levels `0 .. LEVELS`.
const LEVELS: u8 = 8;
const EYE_HEIGHT: u8 = 1;

/// Round hills stepping up to their tops: each of 24 hills rises from level 0 at its radius
/// to `LEVELS - 1` at its centre; a cell takes the highest hill it stands on.
fn hills(side: u32, seed: u64) -> ElevationGrid {
    let mut rng = Rng(seed);
    let tops: Vec<(f64, f64, f64)> = (0..24)
        .map(|_| {
            let (x, y) = (rng.below(side), rng.below(side));
            (f64::from(x), f64::from(y), f64::from(8 + rng.below(32)))
        })
        .collect();
    ElevationGrid::from_fn(side, side, |x, y| {
        let height = |&(cx, cy, r): &(f64, f64, f64)| {
            let d = (f64::from(x) - cx).hypot(f64::from(y) - cy);
            ((r - d) / r * f64::from(LEVELS)).max(0.0)
        };
        let top = tops.iter().map(height).fold(0.0, f64::max);
        (top as u8).min(LEVELS - 1)
    })
}

struct Scene {
    walls: OpacityGrid,
    levels: SightLevels,
    viewer: (u32, u32),
    eye: u8,
}

impl Scene {
    fn new() -> Self {
        let walls = MapKind::Forest.generate(SIDE, SIDE, 42);
        let viewer = central_floor(&walls);
        let mut levels = SightLevels::new(walls.clone(), hills(SIDE, 7)).expect("same size");
        for eye in 0..=MAX_LEVEL {
            levels.grid_for_eye(eye);
        }
        let eye = levels.eye_level(viewer.0, viewer.1, EYE_HEIGHT);
        Self {
            walls,
            levels,
            viewer,
            eye,
        }
    }
}

fn views(c: &mut Criterion, scene: &mut Scene) {
    for (label, options) in [
        ("r16", FovOptions::radius(16)),
        ("unlimited", FovOptions::unlimited()),
    ] {
        let mut group = c.benchmark_group(format!("elevation/{SIDE}/{label}"));
        let (mut fov, mut visible) = (Fov::new(), VisibleSet::new());
        let viewer = scene.viewer;
        group.bench_function(BenchmarkId::from_parameter("flat"), |b| {
            b.iter(|| {
                fov.compute(&scene.walls, black_box(viewer), options, &mut visible)
                    .unwrap();
                black_box(&visible);
            })
        });
        let flat = visible.count();
        group.bench_function(BenchmarkId::from_parameter("sight_levels"), |b| {
            b.iter(|| {
                let grid = scene.levels.grid_for_eye(black_box(scene.eye));
                fov.compute(grid, black_box(viewer), options, &mut visible)
                    .unwrap();
                black_box(&visible);
            })
        });
        eprintln!(
            "elevation/{SIDE}/{label} cells: flat {flat}, eye level {} {}",
            scene.eye,
            visible.count()
        );
        let (walls, elevations) = (scene.levels.walls(), scene.levels.elevations());
        let eye = ElevationOptions::eye_height(EYE_HEIGHT);
        group.bench_function(BenchmarkId::from_parameter("threshold_each_call"), |b| {
            b.iter(|| {
                black_box(
                    field_of_view_with_elevation(
                        walls,
                        elevations,
                        black_box(viewer),
                        eye,
                        options,
                    )
                    .unwrap(),
                )
            })
        });
        group.finish();
    }
}

fn updates(c: &mut Criterion, scene: &mut Scene) {
    let mut group = c.benchmark_group(format!("elevation/{SIDE}/update"));
    // A floor cell east of the viewer, raised and lowered across half the levels.
    let y = scene.viewer.1;
    let x = (scene.viewer.0 + 5..SIDE)
        .find(|&x| !scene.walls.is_opaque(x, y))
        .expect("a floor east of the viewer");
    let mut up = false;
    group.bench_function(BenchmarkId::from_parameter("set_elevation"), |b| {
        b.iter(|| {
            up = !up;
            let level = if up { 6 } else { 2 };
            black_box(scene.levels.set_elevation(black_box(x), y, level).unwrap())
        })
    });
    group.bench_function(BenchmarkId::from_parameter("set_wall"), |b| {
        b.iter(|| {
            up = !up;
            black_box(scene.levels.set_wall(black_box(x), y, up).unwrap())
        })
    });
    let (walls, elevations) = (scene.levels.walls(), scene.levels.elevations());
    group.bench_function(BenchmarkId::from_parameter("rebuild_one_level"), |b| {
        b.iter(|| black_box(elevations.sight_grid(walls, black_box(3))))
    });
    group.finish();
}

fn elevation(c: &mut Criterion) {
    let mut scene = Scene::new();
    views(c, &mut scene);
    updates(c, &mut scene);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000))
        .sample_size(30);
    targets = elevation
}
criterion_main!(benches);
