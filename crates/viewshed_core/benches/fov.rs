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

    /// The cells marked by the last call.
    fn count(&self) -> usize {
        self.cells.iter().filter(|&&c| c == self.stamp).count()
    }
}

/// The number of cells each implementation reported in each group, written next to
/// criterion's results as `fov-cells.tsv` for `benches/report.py`.
#[derive(Default)]
struct CellCounts(Vec<String>);

impl CellCounts {
    fn record(&mut self, group: &str, id: &str, cells: usize) {
        self.0.push(format!("{group}\t{id}\t{cells}\n"));
    }

    /// Where criterion writes (its own order: `CRITERION_HOME`, `CARGO_TARGET_DIR`, the
    /// workspace's `target`).
    fn write(&self) {
        let dir = std::env::var_os("CRITERION_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("CARGO_TARGET_DIR")
                    .map(|t| std::path::Path::new(&t).join("criterion"))
            })
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion")
            });
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("fov-cells.tsv"), self.0.concat()))
            .expect("the criterion directory is writable");
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

fn bench_scene(
    c: &mut Criterion,
    counts: &mut CellCounts,
    map: &str,
    scene: &mut Scene,
    radii: &[Option<u32>],
) {
    let (vx, vy) = scene.viewer;
    let mut marks = Marks::new(scene.opaque.len());
    for &radius in radii {
        let label = radius.map_or("unlimited".to_string(), |r| format!("r{r}"));
        let name = format!("{map}/{label}");
        let mut group = c.benchmark_group(format!("fov/{name}"));
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
        counts.record(&name, "bevy_viewshed", visible.count());

        // adam_fov_rs keeps cells at float distance <= its integer range, a smaller disk than
        // ours (dx*dx + dy*dy <= r*(r+1)); at r+1 its disk holds all of ours.
        let adam_ranges = [("adam_fov_rs", r)]
            .into_iter()
            .chain(radius.map(|r| ("adam_fov_rs_r+1", r + 1)));
        for (id, range) in adam_ranges {
            group.bench_function(BenchmarkId::from_parameter(id), |b| {
                b.iter(|| {
                    marks.next_call();
                    let stamp = marks.stamp;
                    let cells = &mut marks.cells;
                    adam_fov_rs::compute_fov(
                        black_box([vx as i32, vy as i32]),
                        range as usize,
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
            counts.record(&name, id, marks.count());
        }

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
        counts.record(&name, "shadowcast", marks.count());

        let bracket_map = BracketMap(scene);
        let distinct = |points: Vec<Point>| {
            let cells: std::collections::BTreeSet<_> = points
                .into_iter()
                .filter_map(|p| scene.index(i64::from(p.x), i64::from(p.y)))
                .collect();
            cells.len()
        };
        group.bench_function(BenchmarkId::from_parameter("bracket_recursive"), |b| {
            b.iter(|| {
                black_box(bracket_pathfinding::prelude::field_of_view(
                    black_box(Point::new(vx, vy)),
                    r as i32,
                    &bracket_map,
                ))
            })
        });
        let seen =
            bracket_pathfinding::prelude::field_of_view(Point::new(vx, vy), r as i32, &bracket_map);
        counts.record(&name, "bracket_recursive", distinct(seen));
        group.bench_function(BenchmarkId::from_parameter("bracket_symmetric"), |b| {
            b.iter(|| {
                black_box(FieldOfViewAlg::SymmetricShadowcasting.field_of_view(
                    black_box(Point::new(vx, vy)),
                    r as i32,
                    &bracket_map,
                ))
            })
        });
        let seen = FieldOfViewAlg::SymmetricShadowcasting.field_of_view(
            Point::new(vx, vy),
            r as i32,
            &bracket_map,
        );
        counts.record(&name, "bracket_symmetric", distinct(seen));

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
        counts.record(&name, "symmetric_shadowcasting", marks.count());

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
        let doryen_cells = scene.doryen.fov.iter().filter(|&&seen| seen).count();
        counts.record(&name, "doryen_fov", doryen_cells);
        group.finish();
    }
}

fn fov_benches(c: &mut Criterion) {
    let mut counts = CellCounts::default();
    for kind in MapKind::ALL {
        let mut scene = Scene::new(kind.generate(128, 128, 42));
        bench_scene(c, &mut counts, kind.name(), &mut scene, &RADII);
    }
    // A map 64 times larger, with the 128x128 pillar map in its centre so the viewer's
    // surroundings are the same: the cost must not grow with the map.
    let mut grid = MapKind::Pillars.generate(1024, 1024, 7);
    embed(&mut grid, &MapKind::Pillars.generate(128, 128, 42), 448);
    let mut big = Scene::new(grid);
    bench_scene(c, &mut counts, "pillars20-1024", &mut big, &[Some(16)]);
    counts.write();
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
