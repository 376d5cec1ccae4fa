//! Computes the bench's field of view (`benches/fov.rs`: the 128x128 maps, seed 42, the floor
//! cell nearest the centre, walls lit) many times inside one `#[inline(never)]` function, so
//! that callgrind can count the instructions of exactly those computations. Instruction
//! counts repeat to the instruction from run to run, where times on a busy machine do not:
//! they are how a change to the scan is checked for a slowdown.
//!
//! ```text
//! cargo build --release --example count_instructions -p viewshed_core
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     --toggle-collect='*count_instructions*computations*' \
//!     target/release/examples/count_instructions cave 16 1000
//! # "Collected : N"  ->  N / 1000 instructions per computation
//! bash crates/viewshed_core/benches/count_instructions.sh   # every map and radius
//! ```
//!
//! Arguments: `MAP` (open, forest, pillars20, cave, dungeon), `RADIUS` (a number or
//! `unlimited`) and how many computations to run. Without valgrind it prints the number of
//! visible cells, a check that both sides of a comparison computed the same thing.

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::process::ExitCode;

use support::{central_floor, count_args};
use viewshed_core::{Fov, FovOptions, OpacityGrid, VisibleSet};

const USAGE: &str = "usage: count_instructions MAP RADIUS|unlimited COUNT \
                     (MAP: open, forest, pillars20, cave, dungeon)";

/// The measured part: `count` computations with warm scratch buffers.
#[inline(never)]
fn computations(
    fov: &mut Fov,
    grid: &OpacityGrid,
    viewer: (u32, u32),
    options: FovOptions,
    visible: &mut VisibleSet,
    count: u32,
) {
    for _ in 0..count {
        fov.compute(grid, black_box(viewer), options, visible)
            .expect("the viewer stands on the map");
        black_box(&*visible);
    }
}

fn main() -> ExitCode {
    let Some((kind, radius, count)) = count_args(USAGE) else {
        return ExitCode::FAILURE;
    };
    let map = kind.name();

    let grid = kind.generate(128, 128, 42);
    let viewer = central_floor(&grid);
    let options = FovOptions::unlimited().with_radius(radius);
    let (mut fov, mut visible) = (Fov::new(), VisibleSet::new());
    // Warm the scratch buffers outside the measured function.
    fov.compute(&grid, viewer, options, &mut visible)
        .expect("the viewer stands on the map");
    computations(&mut fov, &grid, viewer, options, &mut visible, count);
    println!("{map} r={radius}: {} visible cells", visible.count());
    ExitCode::SUCCESS
}
