//! Helpers shared by the core's test files: random maps and scenes (proptest strategies), a
//! slow but obviously faithful implementation of the FOV rules, and the eight symmetries of
//! the grid.
#![allow(dead_code)]

pub mod hex_oracle;

use std::collections::BTreeSet;

use proptest::prelude::*;
use viewshed_core::{DistanceShape, FovMode, FovOptions, OpacityGrid, Radius};

/// The crate's folder, for the test data: the one `cargo test` names when it runs the test
/// (so a test binary built in another checkout still reads this checkout's files), else the
/// one it was built in.
pub fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}

/// A deterministic random map: each cell opaque with probability `density_percent`%.
pub fn random_grid(width: u32, height: u32, density_percent: u32, seed: u64) -> OpacityGrid {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    OpacityGrid::from_fn(width, height, |_, _| {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        z % 100 < u64::from(density_percent)
    })
}

/// A random map and a viewer position on it.
#[derive(Clone, Debug)]
pub struct Scene {
    pub grid: OpacityGrid,
    pub viewer: (u32, u32),
}

pub fn scene(max_side: u32) -> impl Strategy<Value = Scene> {
    (
        1..=max_side,
        1..=max_side,
        density(),
        any::<u64>(),
        0u8..6,
        any::<(u32, u32)>(),
    )
        .prop_map(|(width, height, density, seed, place, (px, py))| {
            let grid = random_grid(width, height, density, seed);
            let viewer = place_viewer(width, height, place, (px, py));
            Scene { grid, viewer }
        })
}

/// A map of `min_side` to `max_side` cells a side, open but for a few walls anywhere on it,
/// and a viewer on it: wide lit intervals that a wall splits anywhere along them.
pub fn open_scene(min_side: u32, max_side: u32) -> impl Strategy<Value = Scene> {
    (
        min_side..=max_side,
        min_side..=max_side,
        prop::collection::vec(any::<(u32, u32)>(), 0..12),
        0u8..6,
        any::<(u32, u32)>(),
    )
        .prop_map(|(width, height, walls, place, (px, py))| {
            let walls: BTreeSet<_> = walls
                .iter()
                .map(|&(x, y)| (x % width, y % height))
                .collect();
            let grid = OpacityGrid::from_fn(width, height, |x, y| walls.contains(&(x, y)));
            let viewer = place_viewer(width, height, place, (px, py));
            Scene { grid, viewer }
        })
}

/// A viewer in a corner (`place` 0, 1), on an edge (2, 3) or anywhere (`(px, py)` cut to the
/// map).
fn place_viewer(width: u32, height: u32, place: u8, (px, py): (u32, u32)) -> (u32, u32) {
    let (right, bottom) = (width - 1, height - 1);
    match place {
        0 => (0, 0),
        1 => (right, bottom),
        2 => (px % width, 0),
        3 => (right, py % height),
        _ => (px % width, py % height),
    }
}

/// Opaque cells in percent, mostly sparse maps (long views) but dense ones too.
pub fn density() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), 1u32..=8, 9u32..=25, 26u32..=60]
}

pub fn radius() -> impl Strategy<Value = Radius> {
    prop_oneof![
        Just(Radius::Unlimited),
        (0u32..=48).prop_map(Radius::Limited),
        any::<u32>().prop_map(Radius::Limited),
        Just(Radius::Limited(u32::MAX)),
    ]
}

/// Maps (depth, column) of a quadrant to (dx, dy).
type QuadrantTransform = fn(i64, i64) -> (i64, i64);

/// Albert Ford's symmetric shadowcasting written plainly from the rules in
/// `tests/fov-cases/README.md`: recursive, one cell at a time, exact fractions. Slow; it is
/// the oracle the fast implementation is compared with on random maps.
pub fn oracle(
    grid: &OpacityGrid,
    origin: (u32, u32),
    radius: Radius,
    light_walls: bool,
) -> BTreeSet<(u32, u32)> {
    let options = FovOptions {
        radius,
        light_walls,
        ..FovOptions::default()
    };
    oracle_with(grid, origin, options)
}

/// The oracle for any options: the radius in its shape, the permissive floor rule (floors
/// the scan covers, like walls), and a cone (cells whose centre `VisionCone::contains`).
pub fn oracle_with(
    grid: &OpacityGrid,
    origin: (u32, u32),
    options: FovOptions,
) -> BTreeSet<(u32, u32)> {
    let light_walls = options.light_walls;
    let permissive = options.mode == FovMode::Permissive;
    let mut seen = BTreeSet::new();
    seen.insert(origin);
    let (ox, oy) = (i64::from(origin.0), i64::from(origin.1));
    // (depth, col) -> (dx, dy) for the four quadrants.
    let quadrants: [QuadrantTransform; 4] =
        [|d, c| (c, -d), |d, c| (c, d), |d, c| (d, c), |d, c| (-d, c)];
    let opaque = |dx: i64, dy: i64| {
        let (x, y) = (ox + dx, oy + dy);
        x < 0 || y < 0 || grid.is_opaque(x as u32, y as u32)
    };
    for transform in quadrants {
        let mut stack = vec![(1i64, (-1i64, 1i64), (1i64, 1i64))];
        while let Some((depth, mut start, end)) = stack.pop() {
            // Columns: round depth*start half up, depth*end half down.
            let min_col = (2 * depth * start.0 + start.1).div_euclid(2 * start.1);
            let max_col = -(-(2 * depth * end.0 - end.1)).div_euclid(2 * end.1);
            let mut prev: Option<bool> = None; // Some(true) = wall
            for col in min_col..=max_col {
                let (dx, dy) = transform(depth, col);
                let wall = opaque(dx, dy);
                // d*start <= col <= d*end, cross-multiplied (denominators are positive).
                let symmetric = col * start.1 >= depth * start.0 && col * end.1 <= depth * end.0;
                let (x, y) = (ox + dx, oy + dy);
                let on_map = x >= 0 && y >= 0 && grid.contains(x as u32, y as u32);
                if on_map && ((wall && light_walls) || (!wall && (symmetric || permissive))) {
                    seen.insert((x as u32, y as u32));
                }
                let slope = (2 * col - 1, 2 * depth);
                if prev == Some(true) && !wall {
                    start = slope;
                }
                if prev == Some(false) && wall {
                    stack.push((depth + 1, start, slope));
                }
                prev = Some(wall);
            }
            if prev == Some(false) {
                stack.push((depth + 1, start, end));
            }
        }
    }
    if let Radius::Limited(r) = options.radius {
        let r = i128::from(r);
        seen.retain(|&(x, y)| {
            let dx = (i128::from(x) - i128::from(origin.0)).abs();
            let dy = (i128::from(y) - i128::from(origin.1)).abs();
            match options.shape {
                DistanceShape::Euclidean => dx * dx + dy * dy <= r * (r + 1),
                DistanceShape::Chebyshev => dx.max(dy) <= r,
                DistanceShape::Manhattan => dx + dy <= r,
            }
        });
    }
    if let Some(cone) = options.cone {
        seen.retain(|&(x, y)| {
            cone.contains(
                i64::from(x) - i64::from(origin.0),
                i64::from(y) - i64::from(origin.1),
            )
        });
    }
    seen
}

/// One of the eight symmetries of a `width` x `height` grid (rotations and mirrors).
#[derive(Clone, Copy, Debug)]
pub struct Symmetry {
    pub transpose: bool,
    pub flip_x: bool,
    pub flip_y: bool,
}

impl Symmetry {
    pub fn all() -> impl Iterator<Item = Symmetry> {
        (0..8).map(|i| Symmetry {
            transpose: i & 1 != 0,
            flip_x: i & 2 != 0,
            flip_y: i & 4 != 0,
        })
    }

    /// Where cell `(x, y)` of a `width` x `height` grid goes.
    pub fn apply(self, (x, y): (u32, u32), width: u32, height: u32) -> (u32, u32) {
        let x = if self.flip_x { width - 1 - x } else { x };
        let y = if self.flip_y { height - 1 - y } else { y };
        if self.transpose { (y, x) } else { (x, y) }
    }

    pub fn grid(self, grid: &OpacityGrid) -> OpacityGrid {
        let (w, h) = (grid.width(), grid.height());
        let (nw, nh) = if self.transpose { (h, w) } else { (w, h) };
        let mut out = OpacityGrid::new(nw, nh);
        for (x, y) in grid.opaque_cells() {
            let (tx, ty) = self.apply((x, y), w, h);
            out.set_opaque(tx, ty, true);
        }
        out
    }
}
