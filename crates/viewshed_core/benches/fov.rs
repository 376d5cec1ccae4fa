//! One field of view from the floor cell nearest the centre of each map, timed for
//! bevy_viewshed and for the Rust FOV crates on crates.io, in the same criterion groups.
//!
//! ```text
//! cargo bench --bench fov                  # all groups (about 6 minutes on 2 cores)
//! python3 benches/report.py                # the README table from target/criterion
//! ```
//!
//! Each group is one map and radius (`open/r8`, ...); each benchmark in it is one
//! implementation. Every implementation writes its visible cells where a game would read
//! them: ours into its reusable bit-packed `VisibleSet`; callback-style peers into a reusable
//! buffer stamped with the call's number (no clearing cost); bracket-pathfinding returns a
//! `Vec`; doryen-fov writes into its `MapData`, whose `fov` buffer must be cleared before each
//! call, as its API requires.

mod support;

use std::hint::black_box;
use std::time::Duration;

use bracket_pathfinding::prelude::{Algorithm2D, BaseMap, FieldOfViewAlg, Point};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use support::{MapKind, central_floor, embed};
use viewshed_core::{Fov, FovOptions, OpacityGrid, Radius, VisibleSet};

/// The radii of the 128x128 maps; `None` is unlimited.
const RADII: [Option<u32>; 5] = [Some(4), Some(8), Some(16), Some(32), None];

/// The same map in every peer's own representation.
struct Scene {
    grid: OpacityGrid,
    width: u32,
    height: u32,
    viewer: (u32, u32),
    /// Row-major, true = opaque.
    opaque: Vec<bool>,
    /// For shadowcast: 255 = opaque.
    opacity: Vec<u8>,
    doryen: doryen_fov::MapData,
}

impl Scene {
    fn new(grid: OpacityGrid) -> Self {
        let (width, height) = (grid.width(), grid.height());
        let viewer = central_floor(&grid);
        let opaque: Vec<bool> = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(|(x, y)| grid.is_opaque(x, y))
            .collect();
        let opacity = opaque.iter().map(|&o| if o { 255 } else { 0 }).collect();
        let mut doryen = doryen_fov::MapData::new(width as usize, height as usize);
        for (i, &o) in opaque.iter().enumerate() {
            doryen.transparent[i] = !o;
        }
        Self {
            grid,
            width,
            height,
            viewer,
            opaque,
            opacity,
            doryen,
        }
    }

    fn index(&self, x: i64, y: i64) -> Option<usize> {
        (x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height))
            .then(|| y as usize * self.width as usize + x as usize)
    }

    fn is_opaque(&self, x: i64, y: i64) -> bool {
        self.index(x, y).is_none_or(|i| self.opaque[i])
    }

    /// A radius that covers the whole map, for peers with no unlimited mode.
    fn covering_radius(&self) -> u32 {
        self.width + self.height
    }
}

/// Where callback-style peers mark visible cells: stamped, so nothing is cleared per call.
struct Marks {
    stamp: u32,
    cells: Vec<u32>,
}

impl Marks {
    fn new(len: usize) -> Self {
        Self {
            stamp: 0,
            cells: vec![0; len],
        }
    }

    fn next_call(&mut self) {
        self.stamp += 1;
    }
}

struct BracketMap<'a>(&'a Scene);

impl BaseMap for BracketMap<'_> {
    fn is_opaque(&self, idx: usize) -> bool {
        self.0.opaque[idx]
    }
}

impl Algorithm2D for BracketMap<'_> {
    fn dimensions(&self) -> Point {
        Point::new(self.0.width, self.0.height)
    }
}

struct ShadowcastInput;

impl shadowcast::InputGrid for ShadowcastInput {
    type Grid = Scene;
    type Opacity = u8;

    fn size(&self, scene: &Scene) -> coord_2d::UCoord {
        coord_2d::UCoord::new(scene.width, scene.height)
    }

    fn get_opacity(&self, scene: &Scene, coord: coord_2d::ICoord) -> u8 {
        scene.opacity[coord.y as usize * scene.width as usize + coord.x as usize]
    }
}

fn bench_scene(c: &mut Criterion, map: &str, scene: &mut Scene, radii: &[Option<u32>]) {
    let (vx, vy) = scene.viewer;
    let mut marks = Marks::new(scene.opaque.len());
    for &radius in radii {
        let label = radius.map_or("unlimited".to_string(), |r| format!("r{r}"));
        let mut group = c.benchmark_group(format!("fov/{map}/{label}"));
        let r = radius.unwrap_or(scene.covering_radius());

        let mut fov = Fov::new();
        let mut visible = VisibleSet::new();
        let options = FovOptions {
            radius: radius.map_or(Radius::Unlimited, Radius::Limited),
            light_walls: true,
            ..FovOptions::default()
        };
        group.bench_function(BenchmarkId::from_parameter("bevy_viewshed"), |b| {
            b.iter(|| {
                fov.compute(&scene.grid, black_box(scene.viewer), options, &mut visible)
                    .unwrap();
                black_box(&visible);
            })
        });

        group.bench_function(BenchmarkId::from_parameter("adam_fov_rs"), |b| {
            b.iter(|| {
                marks.next_call();
                let stamp = marks.stamp;
                let cells = &mut marks.cells;
                adam_fov_rs::compute_fov(
                    black_box([vx as i32, vy as i32]),
                    r as usize,
                    [scene.width, scene.height],
                    |p| scene.is_opaque(i64::from(p.x), i64::from(p.y)),
                    |p| {
                        if let Some(i) = scene.index(i64::from(p.x), i64::from(p.y)) {
                            cells[i] = stamp;
                        }
                    },
                );
                black_box(&marks.cells);
            })
        });

        let mut context = shadowcast::Context::<u8>::default();
        let distance = shadowcast::vision_distance::Circle::new_squared(r * (r + 1));
        group.bench_function(BenchmarkId::from_parameter("shadowcast"), |b| {
            b.iter(|| {
                marks.next_call();
                let stamp = marks.stamp;
                let cells = &mut marks.cells;
                let width = scene.width as usize;
                context.for_each_visible(
                    black_box(coord_2d::ICoord::new(vx as i32, vy as i32)),
                    &ShadowcastInput,
                    scene,
                    distance,
                    255,
                    |coord, _, _| cells[coord.y as usize * width + coord.x as usize] = stamp,
                );
                black_box(&marks.cells);
            })
        });

        let bracket_map = BracketMap(scene);
        group.bench_function(BenchmarkId::from_parameter("bracket_recursive"), |b| {
            b.iter(|| {
                black_box(bracket_pathfinding::prelude::field_of_view(
                    black_box(Point::new(vx, vy)),
                    r as i32,
                    &bracket_map,
                ))
            })
        });
        group.bench_function(BenchmarkId::from_parameter("bracket_symmetric"), |b| {
            b.iter(|| {
                black_box(FieldOfViewAlg::SymmetricShadowcasting.field_of_view(
                    black_box(Point::new(vx, vy)),
                    r as i32,
                    &bracket_map,
                ))
            })
        });

        // symmetric-shadowcasting has no radius: cells beyond it are made to block, and only
        // cells inside it are kept, which is how a game would use it.
        let limit = radius.map(|r| i64::from(r) * (i64::from(r) + 1));
        let in_reach = |x: isize, y: isize| {
            let (dx, dy) = (x as i64 - i64::from(vx), y as i64 - i64::from(vy));
            limit.is_none_or(|l| dx * dx + dy * dy <= l)
        };
        group.bench_function(
            BenchmarkId::from_parameter("symmetric_shadowcasting"),
            |b| {
                b.iter(|| {
                    marks.next_call();
                    let stamp = marks.stamp;
                    let cells = &mut marks.cells;
                    symmetric_shadowcasting::compute_fov(
                        black_box((vx as isize, vy as isize)),
                        &mut |(x, y)| !in_reach(x, y) || scene.is_opaque(x as i64, y as i64),
                        &mut |(x, y)| {
                            if in_reach(x, y)
                                && let Some(i) = scene.index(x as i64, y as i64)
                            {
                                cells[i] = stamp;
                            }
                        },
                    );
                    black_box(&marks.cells);
                })
            },
        );

        let mut doryen = doryen_fov::FovRecursiveShadowCasting::new();
        let doryen_radius = radius.unwrap_or(0) as usize; // 0 is its unlimited
        group.bench_function(BenchmarkId::from_parameter("doryen_fov"), |b| {
            b.iter(|| {
                scene.doryen.clear_fov();
                doryen_fov::FovAlgorithm::compute_fov(
                    &mut doryen,
                    &mut scene.doryen,
                    black_box(vx as usize),
                    vy as usize,
                    doryen_radius,
                    true,
                );
                black_box(&scene.doryen.fov);
            })
        });
        group.finish();
    }
}

fn fov_benches(c: &mut Criterion) {
    for kind in MapKind::ALL {
        let mut scene = Scene::new(kind.generate(128, 128, 42));
        bench_scene(c, kind.name(), &mut scene, &RADII);
    }
    // A map 64 times larger, with the 128x128 pillar map in its centre so the viewer's
    // surroundings are the same: the cost must not grow with the map.
    let mut grid = MapKind::Pillars.generate(1024, 1024, 7);
    embed(&mut grid, &MapKind::Pillars.generate(128, 128, 42), 448);
    let mut big = Scene::new(grid);
    bench_scene(c, "pillars20-1024", &mut big, &[Some(16)]);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(400))
        .measurement_time(Duration::from_millis(1200))
        .sample_size(40);
    targets = fov_benches
}
criterion_main!(benches);
