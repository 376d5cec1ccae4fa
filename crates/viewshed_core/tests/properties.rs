//! Properties of the FOV on random maps of 1x1 to 300x300 cells, viewers anywhere (edges and
//! corners included), radii from 0 to `u32::MAX`.

mod common;

use std::collections::BTreeSet;

use common::{Symmetry, open_scene, oracle, radius, scene};
use proptest::prelude::*;
use viewshed_core::{Fov, FovError, FovOptions, OpacityGrid, Radius, VisibleSet};

fn fov(grid: &OpacityGrid, viewer: (u32, u32), radius: Radius) -> BTreeSet<(u32, u32)> {
    let options = FovOptions::unlimited().with_radius(radius);
    let mut visible = VisibleSet::new();
    Fov::new()
        .compute(grid, viewer, options, &mut visible)
        .expect("viewer on the map");
    visible.iter().collect()
}

fn in_disk(viewer: (u32, u32), cell: (u32, u32), r: u32) -> bool {
    let dx = u64::from(viewer.0.abs_diff(cell.0));
    let dy = u64::from(viewer.1.abs_diff(cell.1));
    u128::from(dx * dx + dy * dy) <= u128::from(r) * (u128::from(r) + 1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The fast implementation agrees with a plain cell-by-cell reading of the rules.
    #[test]
    fn agrees_with_the_plain_rules(s in scene(300), radius in radius(), light_walls: bool) {
        let mut visible = VisibleSet::new();
        let options = FovOptions { radius, light_walls, ..FovOptions::default() };
        Fov::new().compute(&s.grid, s.viewer, options, &mut visible).unwrap();
        let ours: BTreeSet<_> = visible.iter().collect();
        prop_assert_eq!(ours.len(), visible.count());
        prop_assert_eq!(ours, oracle(&s.grid, s.viewer, radius, light_walls));
    }

    /// The same on wide maps with a few walls: lit intervals then cover more than a word of
    /// cells (64), and walls split them in any of those words.
    #[test]
    fn agrees_with_the_plain_rules_on_wide_open_maps(
        s in open_scene(65, 220),
        radius in prop_oneof![Just(Radius::Unlimited), (44u32..=150).prop_map(Radius::Limited)],
        light_walls: bool,
    ) {
        let mut visible = VisibleSet::new();
        let options = FovOptions { radius, light_walls, ..FovOptions::default() };
        Fov::new().compute(&s.grid, s.viewer, options, &mut visible).unwrap();
        let ours: BTreeSet<_> = visible.iter().collect();
        prop_assert_eq!(ours, oracle(&s.grid, s.viewer, radius, light_walls));
    }

    /// If floor A sees floor B, B sees A (and if not, not), at any radius.
    #[test]
    fn floor_to_floor_symmetry(s in scene(300), radius in radius(), picks in prop::collection::vec(any::<(u32, u32)>(), 24)) {
        let mut grid = s.grid.clone();
        grid.set_opaque(s.viewer.0, s.viewer.1, false);
        let from_a = fov(&grid, s.viewer, radius);
        // Check some cells A sees and some arbitrary cells of the map.
        let seen: Vec<_> = from_a.iter().copied().collect();
        let mut targets: Vec<(u32, u32)> = picks
            .iter()
            .map(|&(i, j)| (i % grid.width(), j % grid.height()))
            .collect();
        targets.extend(picks.iter().map(|&(i, _)| seen[i as usize % seen.len()]));
        for b in targets {
            if grid.is_opaque(b.0, b.1) {
                continue;
            }
            let from_b = fov(&grid, b, radius);
            prop_assert_eq!(
                from_a.contains(&b),
                from_b.contains(&s.viewer),
                "A={:?} B={:?}", s.viewer, b
            );
        }
    }

    /// Rotating or mirroring the map rotates or mirrors the view, for all 8 symmetries.
    #[test]
    fn invariant_under_the_eight_symmetries(s in scene(120), radius in radius()) {
        let (w, h) = (s.grid.width(), s.grid.height());
        let base = fov(&s.grid, s.viewer, radius);
        for symmetry in Symmetry::all() {
            let grid = symmetry.grid(&s.grid);
            let viewer = symmetry.apply(s.viewer, w, h);
            let expected: BTreeSet<_> = base.iter().map(|&c| symmetry.apply(c, w, h)).collect();
            prop_assert_eq!(fov(&grid, viewer, radius), expected, "{:?}", symmetry);
        }
    }

    /// Radius r is the unlimited view cut to the disk, and grows with r.
    #[test]
    fn radius_cuts_the_unlimited_view(s in scene(200), r in 0u32..=60) {
        let unlimited = fov(&s.grid, s.viewer, Radius::Unlimited);
        let limited = fov(&s.grid, s.viewer, Radius::Limited(r));
        let cut: BTreeSet<_> = unlimited.iter().copied().filter(|&c| in_disk(s.viewer, c, r)).collect();
        prop_assert_eq!(&limited, &cut);
        let wider = fov(&s.grid, s.viewer, Radius::Limited(r + 1));
        prop_assert!(limited.is_subset(&wider));
        if r == 0 {
            prop_assert_eq!(limited, BTreeSet::from([s.viewer]));
        }
    }

    /// Huge radii never panic and equal the unlimited view; the window stays on the map.
    #[test]
    fn huge_radius_is_unlimited(s in scene(300), r in prop_oneof![Just(u32::MAX), Just(u32::MAX - 1), (1u32 << 16)..]) {
        let mut visible = VisibleSet::new();
        Fov::new().compute(&s.grid, s.viewer, FovOptions::radius(r), &mut visible).unwrap();
        let window = visible.window();
        prop_assert!(window.x + window.width <= s.grid.width());
        prop_assert!(window.y + window.height <= s.grid.height());
        prop_assert_eq!(visible.iter().collect::<BTreeSet<_>>(), fov(&s.grid, s.viewer, Radius::Unlimited));
    }

    /// A viewer standing on an opaque cell sees out of it, exactly as from a floor.
    #[test]
    fn opaque_viewer_cell_does_not_block(s in scene(100), radius in radius()) {
        let mut open = s.grid.clone();
        open.set_opaque(s.viewer.0, s.viewer.1, false);
        let mut closed = s.grid.clone();
        closed.set_opaque(s.viewer.0, s.viewer.1, true);
        prop_assert_eq!(fov(&closed, s.viewer, radius), fov(&open, s.viewer, radius));
    }

    /// A viewer off the map is an error value, and the output is left empty.
    #[test]
    fn viewer_off_the_map_is_an_error(s in scene(50), dx in 0u32..1000, dy in 0u32..1000, radius in radius()) {
        let (w, h) = (s.grid.width(), s.grid.height());
        let origin = (w.saturating_add(dx), dy % (h + 1));
        let mut visible = fov_nonempty(&s.grid);
        let result = Fov::new().compute(&s.grid, origin, FovOptions::unlimited().with_radius(radius), &mut visible);
        prop_assert_eq!(result, Err(FovError::OriginOutsideMap { origin, width: w, height: h }));
        prop_assert!(visible.is_empty());
        prop_assert_eq!(visible.count(), 0);
    }

    /// A reused `Fov` and `VisibleSet` give the same answers as fresh ones, whatever came before.
    #[test]
    fn reuse_does_not_leak_state(a in scene(80), b in scene(80), ra in radius(), rb in radius()) {
        let mut fov_state = Fov::new();
        let mut visible = VisibleSet::new();
        fov_state.compute(&a.grid, a.viewer, FovOptions::unlimited().with_radius(ra), &mut visible).unwrap();
        fov_state.compute(&b.grid, b.viewer, FovOptions::unlimited().with_radius(rb), &mut visible).unwrap();
        prop_assert_eq!(visible.iter().collect::<BTreeSet<_>>(), fov(&b.grid, b.viewer, rb));
    }
}

fn fov_nonempty(grid: &OpacityGrid) -> VisibleSet {
    let mut visible = VisibleSet::new();
    Fov::new()
        .compute(grid, (0, 0), FovOptions::unlimited(), &mut visible)
        .unwrap();
    assert!(!visible.is_empty());
    visible
}

#[test]
fn one_by_one_map() {
    for opaque in [false, true] {
        let grid = OpacityGrid::from_fn(1, 1, |_, _| opaque);
        for radius in [Radius::Limited(0), Radius::Limited(5), Radius::Unlimited] {
            assert_eq!(fov(&grid, (0, 0), radius), BTreeSet::from([(0, 0)]));
        }
    }
}

#[test]
fn open_room_radius_two_is_a_disk_of_21_cells() {
    let grid = OpacityGrid::new(9, 9);
    let seen = fov(&grid, (4, 4), Radius::Limited(2));
    assert_eq!(seen.len(), 21);
    assert!(seen.contains(&(5, 6)) && !seen.contains(&(6, 6)));
}

/// A wall in the last row of a quadrant splits the light there; the parts wait for a row
/// past the map's edge, which must end them quietly (a debug build once overflowed here).
#[test]
fn wall_splitting_the_last_row_of_every_side() {
    for side in [5u32, 9, 40, 130] {
        let (mid, last) = (side / 2, side - 1);
        let walls = [(mid, 0), (mid, last), (0, mid), (last, mid)];
        let grid = OpacityGrid::from_fn(side, side, |x, y| walls.contains(&(x, y)));
        for radius in [Radius::Limited(side), Radius::Unlimited] {
            let seen = fov(&grid, (mid, mid), radius);
            let expected = oracle(&grid, (mid, mid), radius, true);
            assert_eq!(seen, expected, "side {side}, {radius:?}");
        }
    }
}
