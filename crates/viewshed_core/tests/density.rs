//! Partial opacity (`DensityGrid::thin`) against a brute-force oracle written from the rule in
//! `density.rs`'s docs alone: for each cell the plain rules show (`common::oracle_with`), the
//! cells strictly between it and the viewer are found by testing every cell of the box
//! around them for an exact, rational intersection of the segment between the two centres
//! with the cell's open square; their units are summed; the cell stays seen below 1,024.
//! Random maps of walls and densities, every distance shape, cones, radii, unlimited views,
//! both floor rules; and symmetry between floors.

mod common;

use std::collections::BTreeSet;

use common::{oracle_with, radius, scene};
use proptest::prelude::*;
use viewshed_core::density::{DENSITY_UNITS, DensityGrid, units_of};
use viewshed_core::{
    DistanceShape, Fov, FovMode, FovOptions, OpacityGrid, Radius, VisibleSet, VisionCone,
};

/// A fraction `num / den` with `den > 0`.
#[derive(Clone, Copy)]
struct Frac(i128, i128);

impl Frac {
    fn less(self, other: Frac) -> bool {
        self.0 * other.1 < other.0 * self.1
    }
}

/// Whether the segment between the centres of `a` and `b` meets the open square of cell `c`,
/// exactly. In coordinates doubled and taken from `a`'s centre, the segment is `t (2dx, 2dy)`
/// for `t` in `[0, 1]` and the square is `(2cx - 1, 2cx + 1) x (2cy - 1, 2cy + 1)`: the `t`
/// inside each open slab form an open interval, and they must overlap each other and `(0, 1)`.
fn meets(a: (u32, u32), b: (u32, u32), c: (u32, u32)) -> bool {
    let rel = |p: (u32, u32)| {
        (
            i128::from(p.0) - i128::from(a.0),
            i128::from(p.1) - i128::from(a.1),
        )
    };
    let (d, c) = (rel(b), rel(c));
    let mut low = Frac(0, 1);
    let mut high = Frac(1, 1);
    for (dir, at) in [(d.0, c.0), (d.1, c.1)] {
        if dir == 0 {
            // The segment stays on the cell's centre line along this axis: inside the slab
            // exactly when the cell is on that line.
            if at != 0 {
                return false;
            }
            continue;
        }
        // 2at - 1 < 2 dir t < 2at + 1.
        let (mut from, mut to) = (Frac(2 * at - 1, 2 * dir), Frac(2 * at + 1, 2 * dir));
        if dir < 0 {
            (from, to) = (Frac(-(2 * at + 1), -2 * dir), Frac(-(2 * at - 1), -2 * dir));
        }
        if low.less(from) {
            low = from;
        }
        if to.less(high) {
            high = to;
        }
    }
    low.less(high)
}

/// The units strictly between `a` and `b`, by [`meets`] over the box around them.
fn units_between(density: &DensityGrid, a: (u32, u32), b: (u32, u32)) -> u32 {
    let mut sum = 0;
    for y in a.1.min(b.1)..=a.1.max(b.1) {
        for x in a.0.min(b.0)..=a.0.max(b.0) {
            if (x, y) != a && (x, y) != b && meets(a, b, (x, y)) {
                sum += u32::from(density.units(x, y));
            }
        }
    }
    sum
}

/// The rule: the plain view, less the cells the units between hide.
fn oracle(
    grid: &OpacityGrid,
    density: &DensityGrid,
    viewer: (u32, u32),
    options: FovOptions,
) -> BTreeSet<(u32, u32)> {
    let mut seen = oracle_with(grid, viewer, options);
    seen.retain(|&c| units_between(density, viewer, c) < DENSITY_UNITS);
    seen
}

fn thinned(
    grid: &OpacityGrid,
    density: &DensityGrid,
    viewer: (u32, u32),
    options: FovOptions,
) -> BTreeSet<(u32, u32)> {
    let mut visible = VisibleSet::new();
    Fov::new()
        .compute(grid, viewer, options, &mut visible)
        .expect("viewer on the map");
    density.thin(viewer, &mut visible);
    visible.iter().collect()
}

/// Densities a game gives: mostly none, the halves and thirds of smoke, little wisps,
/// whole blocks, and odd values.
fn density_value() -> impl Strategy<Value = f32> {
    prop_oneof![
        12 => Just(0.0f32),
        3 => Just(0.5f32),
        2 => Just(1.0f32 / 3.0),
        2 => Just(0.25f32),
        2 => 0.0f32..1.2,
        1 => Just(1.0f32),
        1 => prop::sample::select(vec![f32::NAN, -1.0, f32::INFINITY, 3.0, 1e-6]),
    ]
}

/// A random density for every cell of a `width` x `height` map, from a list cycled over it.
fn densities(grid: &OpacityGrid, values: &[f32]) -> DensityGrid {
    let width = grid.width();
    DensityGrid::from_fn(width, grid.height(), |x, y| {
        values[(y * width + x) as usize % values.len()]
    })
}

fn shape() -> impl Strategy<Value = DistanceShape> {
    prop_oneof![
        Just(DistanceShape::Euclidean),
        Just(DistanceShape::Chebyshev),
        Just(DistanceShape::Manhattan),
    ]
}

fn options() -> impl Strategy<Value = FovOptions> {
    let cone =
        (-7.0f64..7.0, 0.0f64..7.0).prop_map(|(facing, width)| VisionCone::new(facing, width));
    (
        radius(),
        shape(),
        any::<bool>(),
        proptest::option::weighted(0.3, cone),
        prop_oneof![Just(FovMode::Symmetric), Just(FovMode::Permissive)],
    )
        .prop_map(|(radius, shape, light_walls, cone, mode)| FovOptions {
            radius,
            shape,
            light_walls,
            cone,
            mode,
        })
}

proptest! {
    // 256 cases, or PROPTEST_CASES.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    /// Every option, on random walls and densities: the thinned view is the oracle's.
    #[test]
    fn thinning_agrees_with_the_oracle(
        s in scene(40),
        values in prop::collection::vec(density_value(), 1..97),
        options in options(),
    ) {
        let density = densities(&s.grid, &values);
        prop_assert_eq!(
            thinned(&s.grid, &density, s.viewer, options),
            oracle(&s.grid, &density, s.viewer, options)
        );
    }

    /// Between floors, who sees whom through the density is symmetric, in every shape.
    #[test]
    fn thinning_is_symmetric_between_floors(
        s in scene(30),
        values in prop::collection::vec(density_value(), 1..61),
        shape in shape(),
        r in prop_oneof![Just(Radius::Unlimited), (0u32..20).prop_map(Radius::Limited)],
    ) {
        let density = densities(&s.grid, &values);
        let options = FovOptions::unlimited().with_radius(r).with_shape(shape);
        let floor = |(x, y): (u32, u32)| !s.grid.is_opaque(x, y);
        prop_assume!(floor(s.viewer));
        for other in thinned(&s.grid, &density, s.viewer, options) {
            if floor(other) {
                let back = thinned(&s.grid, &density, other, options);
                prop_assert!(back.contains(&s.viewer), "{:?} sees {:?} but not back", s.viewer, other);
            }
        }
    }

    /// The walk over the cells between two cells is the oracle's set, both ways.
    #[test]
    fn units_between_are_the_oracles(
        a in (0u32..24, 0u32..24),
        b in (0u32..24, 0u32..24),
        values in prop::collection::vec(density_value(), 1..40),
    ) {
        let grid = OpacityGrid::new(24, 24);
        let density = densities(&grid, &values);
        let want = units_between(&density, a, b).min(DENSITY_UNITS);
        prop_assert_eq!(density.units_between(a, b), want);
        prop_assert_eq!(density.units_between(b, a), want);
    }
}

/// Dungeon Crawl Stone Soup's clouds: density 0.5 each, two in a row block what is behind
/// both, one does not; the clouds themselves are seen; a viewer inside smoke sees out.
#[test]
fn two_half_clouds_block_and_one_does_not() {
    let walls = OpacityGrid::new(12, 5);
    let clouds = [(4, 2), (5, 2)];
    let density = DensityGrid::from_fn(
        12,
        5,
        |x, y| {
            if clouds.contains(&(x, y)) { 0.5 } else { 0.0 }
        },
    );
    let seen = thinned(&walls, &density, (2, 2), FovOptions::unlimited());
    assert!(
        seen.contains(&(4, 2)) && seen.contains(&(5, 2)),
        "the clouds are seen"
    );
    assert!(!seen.contains(&(6, 2)) && !seen.contains(&(11, 2)));
    // y = 2 + (x - 2)/7 stays in row 2 up to x = 5.5: it meets both clouds.
    assert!(!seen.contains(&(9, 3)));
    // y = 2 + 2(x - 2)/7 leaves row 2 at x = 3.75, inside (4, 2): it meets one cloud only.
    assert!(seen.contains(&(9, 4)));
    // From inside the first cloud: only one cloud lies between.
    let inside = thinned(&walls, &density, (4, 2), FovOptions::unlimited());
    assert!(inside.contains(&(11, 2)));
}

/// A cell of density 1 hides what is behind it but is seen itself; neighbours see each other
/// whatever stands around them.
#[test]
fn a_dense_cell_hides_only_behind_it() {
    let walls = OpacityGrid::new(9, 9);
    let density = DensityGrid::from_fn(9, 9, |x, y| if (x, y) == (4, 4) { 1.0 } else { 0.0 });
    let from = |viewer| thinned(&walls, &density, viewer, FovOptions::unlimited());
    let seen = from((2, 2));
    assert!(seen.contains(&(4, 4)));
    assert!(!seen.contains(&(6, 6)) && !seen.contains(&(8, 8)));
    // y = 2 + 3(x - 2)/4 crosses y = 3.5 at x = 4, inside the side below (4, 4): it enters it.
    assert!(!seen.contains(&(6, 5)));
    // Through (4, 4)'s centre, along a row and along a diagonal.
    assert!(!from((3, 4)).contains(&(5, 4)));
    assert!(!from((3, 5)).contains(&(5, 3)));
    // Diagonal neighbours beside it: nothing between them.
    assert!(from((4, 5)).contains(&(5, 4)) && from((4, 5)).contains(&(3, 4)));
    // y = 4 + 2(x - 2)/3 goes through (3, 4), (3, 5), (4, 5), (4, 6), never (4, 4).
    assert!(from((2, 4)).contains(&(5, 6)));
}

/// Thirds: three cells of a third hide (units are rounded up), two do not.
#[test]
fn three_thirds_hide() {
    assert_eq!(units_of(1.0 / 3.0), 342);
    let walls = OpacityGrid::new(10, 1);
    let thirds = |n: u32| {
        DensityGrid::from_fn(10, 1, move |x, _| {
            if (2..2 + n).contains(&x) {
                1.0 / 3.0
            } else {
                0.0
            }
        })
    };
    assert!(thinned(&walls, &thirds(2), (0, 0), FovOptions::unlimited()).contains(&(9, 0)));
    assert!(!thinned(&walls, &thirds(3), (0, 0), FovOptions::unlimited()).contains(&(9, 0)));
}

/// With no dense cell in the view's window, a view is left as it is.
#[test]
fn density_out_of_reach_changes_nothing() {
    let walls = OpacityGrid::new(40, 5);
    let density = DensityGrid::from_fn(40, 5, |x, _| if x > 30 { 1.0 } else { 0.0 });
    let options = FovOptions::radius(6);
    let mut visible = VisibleSet::new();
    Fov::new()
        .compute(&walls, (3, 2), options, &mut visible)
        .unwrap();
    let before = visible.clone();
    assert!(!density.any_dense_in(visible.window()));
    density.thin((3, 2), &mut visible);
    assert_eq!(visible, before);
}
