//! The hexagonal field of view against the brute-force oracle (`common/hex_oracle.rs`) and
//! its properties: symmetry, the twelve symmetries of the hexagonal grid, radius, cones,
//! no panic.

mod common;

use std::collections::BTreeSet;

use common::hex_oracle::hex_oracle;
use common::random_grid;
use proptest::prelude::*;
use viewshed_core::{FovOptions, HexCoords, HexFov, OpacityGrid, VisibleSet};

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
    visible.iter().collect()
}

#[test]
fn explore() {
    let mut bad = 0;
    for seed in 0..300u64 {
        let size = 3 + (seed % 14) as u32;
        let grid = random_grid(size, size, [0, 10, 25, 40][seed as usize % 4], seed);
        let coords = HexCoords::ALL[seed as usize % 6];
        let viewer = ((seed as u32 * 7) % size, (seed as u32 * 3) % size);
        for light_walls in [false, true] {
            let options = FovOptions::unlimited().with_light_walls(light_walls);
            let a = ours(&grid, coords, viewer, options);
            let b = hex_oracle(&grid, coords, viewer, options);
            if a != b && bad < 5 {
                bad += 1;
                println!(
                    "seed {seed} {coords:?} {size} viewer {viewer:?} lw {light_walls}\n{grid:?}\nscan only {:?}\noracle only {:?}",
                    a.difference(&b).collect::<Vec<_>>(),
                    b.difference(&a).collect::<Vec<_>>()
                );
            }
        }
    }
    assert_eq!(bad, 0);
}
