//! The options beyond the defaults, on random maps: distance shapes (Euclidean, Chebyshev,
//! Manhattan), the permissive floor rule, vision cones, and line-of-sight queries. Each is
//! held to the plain reading of the rules (`common::oracle_with`) and to the properties it
//! promises.

mod common;

use std::collections::BTreeSet;
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI, TAU};

use common::{Symmetry, oracle_with, radius, scene};
use proptest::prelude::*;
use viewshed_core::{
    DistanceShape, Fov, FovMode, FovOptions, LineOfSight, OpacityGrid, Radius, VisibleSet,
    VisionCone, line_of_sight,
};

fn shape() -> impl Strategy<Value = DistanceShape> {
    prop_oneof![
        Just(DistanceShape::Euclidean),
        Just(DistanceShape::Chebyshev),
        Just(DistanceShape::Manhattan),
    ]
}

fn mode() -> impl Strategy<Value = FovMode> {
    prop_oneof![Just(FovMode::Symmetric), Just(FovMode::Permissive)]
}

/// Angles that are not ordinary numbers: NaN, the infinities, -0.0.
fn odd_angle() -> impl Strategy<Value = f64> {
    proptest::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0])
}

/// Cones of every kind: facing a grid direction or any angle, narrow to all around, and
/// now and then an angle that is not a number.
fn cone() -> impl Strategy<Value = VisionCone> {
    let width = prop_oneof![
        2 => Just(0.0),
        2 => Just(FRAC_PI_2),
        2 => Just(PI),
        2 => Just(TAU),
        8 => 0.0..TAU + 1.0,
        1 => -1.0..0.0f64,
        1 => odd_angle(),
    ];
    let facing = prop_oneof![
        8 => (0i32..8).prop_map(|i| f64::from(i) * FRAC_PI_4),
        8 => -10.0..10.0f64,
        1 => odd_angle(),
    ];
    (facing, width).prop_map(|(facing, width)| VisionCone::new(facing, width))
}

fn options() -> impl Strategy<Value = FovOptions> {
    (
        radius(),
        shape(),
        any::<bool>(),
        proptest::option::of(cone()),
        mode(),
    )
        .prop_map(|(radius, shape, light_walls, cone, mode)| FovOptions {
            radius,
            shape,
            light_walls,
            cone,
            mode,
        })
}

fn fov(grid: &OpacityGrid, viewer: (u32, u32), options: FovOptions) -> BTreeSet<(u32, u32)> {
    let mut visible = VisibleSet::new();
    Fov::new()
        .compute(grid, viewer, options, &mut visible)
        .expect("viewer on the map");
    let cells: BTreeSet<_> = visible.iter().collect();
    assert_eq!(cells.len(), visible.count());
    cells
}

fn offset(viewer: (u32, u32), cell: (u32, u32)) -> (i64, i64) {
    (
        i64::from(cell.0) - i64::from(viewer.0),
        i64::from(cell.1) - i64::from(viewer.1),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Every combination of options agrees with the plain reading of the rules.
    #[test]
    fn every_option_agrees_with_the_plain_rules(s in scene(120), options in options()) {
        prop_assert_eq!(fov(&s.grid, s.viewer, options), oracle_with(&s.grid, s.viewer, options));
    }

    /// In every shape, radius r is the unlimited view cut to the shape, and r sees no more
    /// than r + 1.
    #[test]
    fn a_radius_only_cuts_the_view_to_its_shape(
        s in scene(150), shape in shape(), mode in mode(), r in 0u32..60,
    ) {
        let base = FovOptions::unlimited().with_shape(shape).with_mode(mode);
        let unlimited = fov(&s.grid, s.viewer, base);
        let limited = fov(&s.grid, s.viewer, base.with_radius(Radius::Limited(r)));
        let cut: BTreeSet<_> = unlimited
            .iter()
            .copied()
            .filter(|&c| {
                let (dx, dy) = offset(s.viewer, c);
                shape.contains(dx, dy, r)
            })
            .collect();
        prop_assert_eq!(&limited, &cut);
        let wider = fov(&s.grid, s.viewer, base.with_radius(Radius::Limited(r + 1)));
        prop_assert!(limited.is_subset(&wider));
    }

    /// With any shape, the symmetric rule keeps floor-to-floor symmetry.
    #[test]
    fn every_shape_is_symmetric_between_floors(s in scene(80), shape in shape(), r in 0u32..30) {
        let options = FovOptions::radius(r).with_shape(shape);
        let seen = fov(&s.grid, s.viewer, options);
        if !s.grid.is_opaque(s.viewer.0, s.viewer.1) {
            for &cell in seen.iter().filter(|&&(x, y)| !s.grid.is_opaque(x, y)) {
                prop_assert!(
                    fov(&s.grid, cell, options).contains(&s.viewer),
                    "{:?} sees {:?} but not back", s.viewer, cell
                );
            }
        }
    }

    /// The permissive rule sees everything the symmetric one does, plus floors only; walls
    /// are the same in both.
    #[test]
    fn permissive_adds_floors_only(s in scene(200), r in radius(), shape in shape()) {
        let symmetric = FovOptions::unlimited().with_radius(r).with_shape(shape);
        let strict = fov(&s.grid, s.viewer, symmetric);
        let loose = fov(&s.grid, s.viewer, symmetric.with_mode(FovMode::Permissive));
        prop_assert!(strict.is_subset(&loose));
        for &(x, y) in loose.difference(&strict) {
            prop_assert!(!s.grid.is_opaque(x, y), "permissive added the wall ({}, {})", x, y);
        }
        let walls = |set: &BTreeSet<(u32, u32)>| -> BTreeSet<(u32, u32)> {
            set.iter().copied().filter(|&(x, y)| s.grid.is_opaque(x, y)).collect()
        };
        prop_assert_eq!(walls(&strict), walls(&loose));
    }

    /// The permissive view (and every shape) turns with the grid: the 8 rotations and mirrors.
    #[test]
    fn permissive_and_shapes_turn_with_the_grid(
        s in scene(90), r in radius(), shape in shape(), mode in mode(),
    ) {
        let options = FovOptions::unlimited().with_radius(r).with_shape(shape).with_mode(mode);
        let (w, h) = (s.grid.width(), s.grid.height());
        let seen = fov(&s.grid, s.viewer, options);
        for symmetry in Symmetry::all() {
            let turned = symmetry.grid(&s.grid);
            let expected: BTreeSet<_> = seen.iter().map(|&c| symmetry.apply(c, w, h)).collect();
            prop_assert_eq!(
                fov(&turned, symmetry.apply(s.viewer, w, h), options),
                expected,
                "{:?}", symmetry
            );
        }
    }

    /// A cone only takes cells away: its view is the view without it, cut to the cone, and
    /// the viewer always sees its own cell.
    #[test]
    fn a_cone_cuts_the_view_and_nothing_else(
        s in scene(200), r in radius(), shape in shape(), mode in mode(), cone in cone(),
    ) {
        let all_around = FovOptions::unlimited().with_radius(r).with_shape(shape).with_mode(mode);
        let full = fov(&s.grid, s.viewer, all_around);
        let coned = fov(&s.grid, s.viewer, all_around.with_cone(cone));
        let cut: BTreeSet<_> = full
            .iter()
            .copied()
            .filter(|&c| {
                let (dx, dy) = offset(s.viewer, c);
                cone.contains(dx, dy)
            })
            .collect();
        prop_assert_eq!(&coned, &cut);
        prop_assert!(coned.contains(&s.viewer));
    }

    /// `line_of_sight(a, b)` is exactly "b is in a's unlimited view", and symmetric between
    /// floors.
    #[test]
    fn line_of_sight_is_the_unlimited_view(s in scene(100), targets in proptest::collection::vec(any::<(u32, u32)>(), 12)) {
        let view = fov(&s.grid, s.viewer, FovOptions::unlimited());
        let (w, h) = (s.grid.width(), s.grid.height());
        let mut los = LineOfSight::new();
        for (tx, ty) in targets {
            let target = (tx % w, ty % h);
            let sees = los.check(&s.grid, s.viewer, target).unwrap();
            prop_assert_eq!(sees, view.contains(&target), "{:?} -> {:?}", s.viewer, target);
            let floors = !s.grid.is_opaque(s.viewer.0, s.viewer.1) && !s.grid.is_opaque(target.0, target.1);
            if floors {
                prop_assert_eq!(sees, los.check(&s.grid, target, s.viewer).unwrap());
            }
        }
    }
}

proptest! {
    /// The cone test (cosines, no trigonometry per cell) agrees with the angle itself,
    /// wherever the cell is not within a hair of the cone's edge.
    #[test]
    fn the_cone_test_is_the_angle_test(cone in cone(), dx in -300i64..=300, dy in -300i64..=300) {
        prop_assume!((dx, dy) != (0, 0));
        // The documented normalisation: odd angles are tested as `facing()` and `width()`.
        let half = (cone.width() / 2.0).clamp(0.0, PI);
        let diff = ((dy as f64).atan2(dx as f64) - cone.facing()).rem_euclid(TAU);
        let off_axis = diff.min(TAU - diff);
        prop_assume!((off_axis - half).abs() > 1e-7);
        let inside = cone.width() >= TAU || off_axis <= half;
        prop_assert_eq!(cone.contains(dx, dy), inside);
    }
}

/// A 90-degree cone facing each grid direction is exactly the integer wedge it should be,
/// edges included.
#[test]
fn grid_aligned_cones_are_exact_wedges() {
    type Wedge = fn(i64, i64) -> bool;
    let wedges: [((i32, i32), Wedge); 8] = [
        ((1, 0), |dx, dy| dx >= dy.abs()),
        ((1, 1), |dx, dy| dx >= 0 && dy >= 0),
        ((0, 1), |dx, dy| dy >= dx.abs()),
        ((-1, 1), |dx, dy| dx <= 0 && dy >= 0),
        ((-1, 0), |dx, dy| -dx >= dy.abs()),
        ((-1, -1), |dx, dy| dx <= 0 && dy <= 0),
        ((0, -1), |dx, dy| -dy >= dx.abs()),
        ((1, -1), |dx, dy| dx >= 0 && dy <= 0),
    ];
    for ((fx, fy), wedge) in wedges {
        let cone = VisionCone::toward_radians(fx, fy, FRAC_PI_2);
        let degrees = VisionCone::degrees(f64::from(fy).atan2(f64::from(fx)).to_degrees(), 90.0);
        for dx in -40..=40 {
            for dy in -40..=40 {
                let expected = wedge(dx, dy) || (dx, dy) == (0, 0);
                assert_eq!(
                    cone.contains(dx, dy),
                    expected,
                    "toward ({fx}, {fy}): ({dx}, {dy})"
                );
                assert_eq!(degrees.contains(dx, dy), expected, "degrees: ({dx}, {dy})");
            }
        }
    }
}

/// A viewer in an open room with a 90-degree cone facing +x sees the wedge in front of it,
/// not behind.
#[test]
fn a_guard_sees_in_front_only() {
    let grid = OpacityGrid::new(21, 21);
    let options = FovOptions::radius(6).with_cone(VisionCone::toward_radians(1, 0, FRAC_PI_2));
    let seen = fov(&grid, (10, 10), options);
    assert!(seen.contains(&(16, 10)));
    assert!(seen.contains(&(14, 14)), "the diagonal edge is inside");
    assert!(!seen.contains(&(13, 14)));
    assert!(!seen.contains(&(9, 10)), "nothing behind");
    assert!(seen.contains(&(10, 10)), "its own cell");
    assert!(
        seen.iter()
            .all(|&(x, y)| x >= 10 && (y as i64 - 10).abs() <= x as i64 - 10)
    );
}

/// The three shapes at radius 2 in the open, as the docs draw them.
#[test]
fn shapes_at_radius_two() {
    let grid = OpacityGrid::new(9, 9);
    let count = |shape| fov(&grid, (4, 4), FovOptions::radius(2).with_shape(shape)).len();
    assert_eq!(count(DistanceShape::Euclidean), 21);
    assert_eq!(count(DistanceShape::Chebyshev), 25);
    assert_eq!(count(DistanceShape::Manhattan), 13);
}

/// Line of sight from outside the map is an error, to outside the map is false.
#[test]
fn line_of_sight_off_the_map() {
    let grid = OpacityGrid::new(4, 4);
    assert!(line_of_sight(&grid, (9, 0), (1, 1)).is_err());
    assert_eq!(line_of_sight(&grid, (1, 1), (9, 0)), Ok(false));
    assert_eq!(line_of_sight(&grid, (1, 1), (1, 1)), Ok(true));
}

fn hash<T: std::hash::Hash>(value: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A cone is its normalised form (facing and width as `facing()` and `width()` give
    /// them): equal, with the same hash, in options too, and seeing the same cells.
    #[test]
    fn a_cone_is_its_normalised_form(s in scene(60), r in radius(), cone in cone()) {
        let normal = VisionCone::new(cone.facing(), cone.width());
        prop_assert!(normal.facing().is_finite());
        prop_assert!((0.0..=TAU).contains(&normal.width()));
        prop_assert_eq!(cone, normal);
        prop_assert_eq!(hash(&cone), hash(&normal));
        let options = FovOptions::unlimited().with_radius(r);
        prop_assert_eq!(options.with_cone(cone), options.with_cone(normal));
        prop_assert_eq!(hash(&options.with_cone(cone)), hash(&options.with_cone(normal)));
        prop_assert_eq!(
            fov(&s.grid, s.viewer, options.with_cone(cone)),
            fov(&s.grid, s.viewer, options.with_cone(normal))
        );
    }
}

/// What each kind of odd angle sees, on an open map: a non-finite facing faces +x, a NaN or
/// negative width is a single ray, +infinity is all around.
#[test]
fn what_odd_cones_see() {
    let grid = OpacityGrid::new(9, 9);
    let options = FovOptions::radius(3);
    let all_around = fov(&grid, (4, 4), options);
    let ray: BTreeSet<(u32, u32)> = (4..=7).map(|x| (x, 4)).collect();
    for facing in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0] {
        for width in [f64::NAN, f64::NEG_INFINITY, -1.0, -0.0, 0.0] {
            let cone = VisionCone::new(facing, width);
            assert_eq!(fov(&grid, (4, 4), options.with_cone(cone)), ray, "{cone:?}");
        }
        let cone = VisionCone::new(facing, f64::INFINITY);
        assert_eq!(
            fov(&grid, (4, 4), options.with_cone(cone)),
            all_around,
            "{cone:?}"
        );
        let half = VisionCone::new(facing, PI);
        let east: BTreeSet<_> = all_around
            .iter()
            .copied()
            .filter(|&(x, _)| x >= 4)
            .collect();
        assert_eq!(
            fov(&grid, (4, 4), options.with_cone(half)),
            east,
            "{half:?}"
        );
    }
}

#[test]
fn cones_that_are_not_numbers_are_normalised_and_hash_like_they_compare() {
    let nan = VisionCone::new(f64::NAN, f64::NAN);
    assert_eq!(nan, nan, "a NaN cone equals itself");
    assert_eq!(hash(&nan), hash(&VisionCone::new(f64::NAN, f64::NAN)));
    let (zero, minus_zero) = (VisionCone::new(0.0, 1.0), VisionCone::new(-0.0, 1.0));
    assert_eq!(zero, minus_zero);
    assert_eq!(hash(&zero), hash(&minus_zero));
    assert_eq!(VisionCone::new(f64::INFINITY, 1.0).facing(), 0.0);
    assert!(VisionCone::new(0.0, f64::INFINITY).is_full());
    assert_eq!(VisionCone::new(0.0, -3.0).width(), 0.0);

    // A NaN cone sees its own cell and the ray it faces (+x), nothing else.
    let grid = OpacityGrid::new(9, 9);
    let seen = fov(&grid, (4, 4), FovOptions::radius(3).with_cone(nan));
    let expected: BTreeSet<(u32, u32)> = (4..=7).map(|x| (x, 4)).collect();
    assert_eq!(seen, expected);
}
