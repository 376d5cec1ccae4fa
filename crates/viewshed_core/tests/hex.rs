//! The hexagonal field of view (`viewshed_core::hex`) against the brute-force oracle of
//! `common/hex_oracle.rs` on random maps of every coordinate system, and its properties:
//! floor symmetry, the twelve symmetries of the hexagonal grid, radius, no panic.

mod common;

use std::collections::BTreeSet;
use std::f64::consts::TAU;

use common::hex_oracle::{distance, hex_oracle};
use common::random_grid;
use proptest::prelude::*;
use viewshed_core::{
    FovError, FovMode, FovOptions, HexCoords, HexFov, OpacityGrid, Radius, VisibleSet, VisionCone,
    hex_distance, hex_line_of_sight,
};

fn ours(
    grid: &OpacityGrid,
    coords: HexCoords,
    viewer: (u32, u32),
    options: FovOptions,
) -> BTreeSet<(u32, u32)> {
    let mut visible = VisibleSet::new();
    HexFov::new()
        .compute(grid, coords, viewer, options, &mut visible)
        .unwrap();
    let cells: BTreeSet<_> = visible.iter().collect();
    assert_eq!(cells.len(), visible.count());
    cells
}

/// A map of axial offsets to axial offsets (a symmetry of the grid).
type Offset = fn((i64, i64)) -> (i64, i64);

fn coords() -> impl Strategy<Value = HexCoords> {
    prop::sample::select(HexCoords::ALL.to_vec())
}

/// A random map of `1..=max_side` cells a side and a viewer on it (corners and edges often).
fn hex_scene(max_side: u32) -> impl Strategy<Value = (OpacityGrid, (u32, u32))> {
    (
        1..=max_side,
        1..=max_side,
        common::density(),
        any::<u64>(),
        0u8..4,
        any::<(u32, u32)>(),
    )
        .prop_map(|(w, h, density, seed, place, (px, py))| {
            let viewer = match place {
                0 => (0, 0),
                1 => (w - 1, h - 1),
                _ => (px % w, py % h),
            };
            (random_grid(w, h, density, seed), viewer)
        })
}

fn options() -> impl Strategy<Value = FovOptions> {
    let radius = prop_oneof![
        Just(Radius::Unlimited),
        (0u32..=14).prop_map(Radius::Limited)
    ];
    let cone = prop::option::weighted(
        0.3,
        (0.0..TAU, 0.0..TAU).prop_map(|(f, w)| VisionCone::new(f, w)),
    );
    let mode = prop_oneof![4 => Just(FovMode::Symmetric), 1 => Just(FovMode::Permissive)];
    (radius, any::<bool>(), cone, mode).prop_map(|(radius, light_walls, cone, mode)| FovOptions {
        radius,
        light_walls,
        cone,
        mode,
        ..FovOptions::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every option, walls lit or not, maps up to 48 cells a side.
    #[test]
    fn agrees_with_the_oracle((grid, viewer) in hex_scene(48), coords in coords(), options in options()) {
        prop_assert_eq!(ours(&grid, coords, viewer, options), hex_oracle(&grid, coords, viewer, options));
    }

    /// Large maps (floors only: the oracle's search over a wall's directions is slow there).
    #[test]
    fn agrees_with_the_oracle_on_large_maps((grid, viewer) in hex_scene(130), coords in coords(), options in options()) {
        let options = options.with_light_walls(false).with_mode(FovMode::Symmetric);
        prop_assert_eq!(ours(&grid, coords, viewer, options), hex_oracle(&grid, coords, viewer, options));
    }

    /// If floor A sees floor B, B sees A; `hex_line_of_sight` says the same both ways.
    #[test]
    fn floors_see_each_other_both_ways((grid, viewer) in hex_scene(60), coords in coords(), picks in prop::collection::vec(any::<(u32, u32)>(), 16)) {
        let mut grid = grid;
        grid.set_opaque(viewer.0, viewer.1, false);
        let from_a = ours(&grid, coords, viewer, FovOptions::unlimited());
        let (w, h) = (grid.width(), grid.height());
        let targets = picks.iter().map(|&(x, y)| (x % w, y % h)).chain(from_a.iter().copied().take(16));
        let mut fov = HexFov::new();
        for b in targets.filter(|&(x, y)| !grid.is_opaque(x, y)) {
            let from_b = ours(&grid, coords, b, FovOptions::unlimited());
            prop_assert_eq!(from_a.contains(&b), from_b.contains(&viewer), "{:?} {:?}", viewer, b);
            prop_assert_eq!(fov.line_of_sight(&grid, coords, viewer, b), from_a.contains(&b));
            prop_assert_eq!(fov.line_of_sight(&grid, coords, b, viewer), from_a.contains(&b));
        }
    }

    /// Radius r is the unlimited view cut to the hexagon of radius r.
    #[test]
    fn radius_cuts_the_unlimited_view((grid, viewer) in hex_scene(80), coords in coords(), r in 0u32..=40, light_walls: bool) {
        let all = ours(&grid, coords, viewer, FovOptions::unlimited().with_light_walls(light_walls));
        let cut: BTreeSet<_> = all.into_iter().filter(|&t| hex_distance(coords, viewer, t) <= u64::from(r)).collect();
        prop_assert_eq!(ours(&grid, coords, viewer, FovOptions::radius(r).with_light_walls(light_walls)), cut);
    }

    /// The twelve rotations and mirrors of the grid around the viewer change nothing (a map
    /// built in axial coordinates, walled off beyond radius `reach`).
    #[test]
    fn twelve_symmetries(reach in 1i64..=12, seed: u64, density in 0u32..=45, coords in coords(), light_walls: bool) {
        let noise = random_grid(64, 64, density, seed);
        let walls = |(a, b): (i64, i64)| distance((a, b)) > reach as u64 || noise.is_opaque((a + 30) as u32, (b + 30) as u32);
        let symmetries: Vec<Offset> = vec![|(a, b)| (a, b), |(a, b)| (b, a)];
        let turn = |(a, b): (i64, i64)| (-b, a + b);
        let base = view_of(&walls, coords, reach, light_walls);
        for mirror in symmetries {
            for turns in 0..6 {
                let g = |h: (i64, i64)| (0..turns).fold(mirror(h), |h, _| turn(h));
                let unturn = |h: (i64, i64)| (0..(6 - turns) % 6).fold(h, |h, _| turn(h));
                let moved = |h: (i64, i64)| walls(mirror(unturn(h)));
                let expected: BTreeSet<_> = base.iter().map(|&h| g(h)).collect();
                prop_assert_eq!(view_of(&moved, coords, reach, light_walls), expected, "turns {}", turns);
            }
        }
    }
}

/// The view (as axial offsets from the viewer) on a map whose walls are `walls(offset)`.
fn view_of(
    walls: &dyn Fn((i64, i64)) -> bool,
    coords: HexCoords,
    reach: i64,
    light_walls: bool,
) -> BTreeSet<(i64, i64)> {
    let side = 4 * reach as u32 + 8;
    let centre = coords.to_axial((side / 2, side / 2));
    let grid = OpacityGrid::from_fn(side, side, |x, y| {
        let (q, r) = coords.to_axial((x, y));
        walls((q - centre.0, r - centre.1))
    });
    ours(
        &grid,
        coords,
        (side / 2, side / 2),
        FovOptions::unlimited().with_light_walls(light_walls),
    )
    .into_iter()
    .map(|t| {
        let (q, r) = coords.to_axial(t);
        (q - centre.0, r - centre.1)
    })
    .collect()
}

#[test]
fn no_panic_on_any_input() {
    let mut fov = HexFov::new();
    let mut visible = VisibleSet::new();
    let maps = [
        OpacityGrid::new(0, 0),
        OpacityGrid::new(1, 1),
        OpacityGrid::new(3, 0),
        random_grid(5, 4, 30, 1),
    ];
    let radii = [
        Radius::Limited(0),
        Radius::Limited(1),
        Radius::Limited(u32::MAX),
        Radius::Unlimited,
    ];
    let origins = [
        (0, 0),
        (2, 3),
        (4, 3),
        (5, 0),
        (u32::MAX, u32::MAX),
        (0, u32::MAX),
    ];
    for grid in &maps {
        for coords in HexCoords::ALL {
            for origin in origins {
                for radius in radii {
                    let options = FovOptions::unlimited()
                        .with_radius(radius)
                        .with_cone(VisionCone::new(f64::NAN, 1.0));
                    let result = fov.compute(grid, coords, origin, options, &mut visible);
                    if grid.contains(origin.0, origin.1) {
                        assert!(result.is_ok() && visible.contains(origin.0, origin.1));
                    } else {
                        let expected = FovError::OriginOutsideMap {
                            origin,
                            width: grid.width(),
                            height: grid.height(),
                        };
                        assert_eq!(result, Err(expected));
                        assert!(visible.is_empty());
                    }
                    for target in origins {
                        let seen = hex_line_of_sight(grid, coords, origin, target);
                        assert_eq!(seen, hex_line_of_sight(grid, coords, target, origin));
                    }
                }
            }
        }
    }
}

#[test]
fn tile_positions_match_bevy_ecs_tilemap() {
    // Values worked out by hand from bevy_ecs_tilemap 0.19's formulas.
    let cases = [
        (HexCoords::Row, (3, 5), (3, 5)),
        (HexCoords::Column, (3, 5), (3, 5)),
        (HexCoords::RowOdd, (3, 5), (1, 5)),
        (HexCoords::RowEven, (3, 5), (0, 5)),
        (HexCoords::ColumnOdd, (5, 3), (5, 1)),
        (HexCoords::ColumnEven, (5, 3), (5, 0)),
    ];
    for (coords, tile, axial) in cases {
        assert_eq!(coords.to_axial(tile), axial, "{coords:?}");
        assert_eq!(coords.from_axial(axial), Some(tile), "{coords:?}");
    }
    for coords in HexCoords::ALL {
        for x in 0..20 {
            for y in 0..20 {
                assert_eq!(coords.from_axial(coords.to_axial((x, y))), Some((x, y)));
            }
        }
        // The six neighbours of every tile are at distance 1.
        assert_eq!(
            (0..6)
                .filter(|&x| hex_distance(coords, (2, 2), (x, 2)) == 1)
                .count(),
            2
        );
    }
}

#[test]
fn walls_sharing_an_edge_stop_sight_one_wall_does_not() {
    // Pointy-top axial map, viewer at axial (2, 2): the bisector toward (3, 3) runs along the
    // edge between (3, 2) and (2, 3).
    let build = |walls: &[(u32, u32)]| OpacityGrid::from_fn(8, 8, |x, y| walls.contains(&(x, y)));
    let seen = |grid: &OpacityGrid| ours(grid, HexCoords::Row, (2, 2), FovOptions::unlimited());
    assert!(
        seen(&build(&[(3, 2)])).contains(&(4, 4)),
        "grazing one wall's edge"
    );
    assert!(
        !seen(&build(&[(3, 2), (2, 3)])).contains(&(4, 4)),
        "not between two walls"
    );
    let pair = seen(&build(&[(3, 2), (2, 3)]));
    assert!(
        pair.contains(&(3, 2)) && pair.contains(&(2, 3)),
        "the walls are lit"
    );
    assert!(
        !pair.contains(&(3, 3)),
        "the hexagon at the end of their edge is not"
    );
    assert!(
        !seen(&build(&[(3, 2), (2, 3), (3, 3)])).contains(&(3, 3)),
        "nor a wall there"
    );
}
