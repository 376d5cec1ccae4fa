//! The bench's field of view (`count_instructions`' maps, viewers and radii) followed by
//! `DensityGrid::thin`, many times inside one `#[inline(never)]` function, for callgrind to
//! count what partial opacity costs per computation. `DENSITY` says where the density is:
//! `clear` (a grid with no dense cell), `far` (a 5x5 patch of density 0.5 in the map's corner,
//! outside the view's window at radius 16 and below) or `near` (the same patch two cells east
//! of the viewer).
//!
//! ```text
//! cargo build --release --example count_density -p viewshed_core
//! DENSITY=near valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     --toggle-collect='*count_density*thinned*' \
//!     target/release/examples/count_density dungeon 16 1000
//! # "Collected : N"  ->  N / 1000 instructions per computation and thinning;
//! # count_instructions on the same map and radius is the scan alone
//! ```

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::process::ExitCode;

use support::{central_floor, count_args};
use viewshed_core::{DensityGrid, Fov, FovOptions, OpacityGrid, VisibleSet};

const USAGE: &str = "usage: DENSITY=clear|far|near count_density MAP RADIUS|unlimited COUNT \
                     (MAP: open, forest, pillars20, cave, dungeon)";

/// The measured part: `count` computations, each thinned, with warm scratch buffers.
#[inline(never)]
fn thinned(
    fov: &mut Fov,
    (grid, density): (&OpacityGrid, &DensityGrid),
    viewer: (u32, u32),
    options: FovOptions,
    visible: &mut VisibleSet,
    count: u32,
) {
    for _ in 0..count {
        fov.compute(grid, black_box(viewer), options, visible)
            .expect("the viewer stands on the map");
        density.thin(black_box(viewer), visible);
        black_box(&*visible);
    }
}

fn main() -> ExitCode {
    let Some((kind, radius, count)) = count_args(USAGE) else {
        return ExitCode::FAILURE;
    };
    let grid = kind.generate(128, 128, 42);
    let viewer = central_floor(&grid);
    let patch = match std::env::var("DENSITY").as_deref() {
        Ok("clear") | Err(_) => None,
        Ok("far") => Some((1, 1)),
        Ok("near") => Some((viewer.0 + 2, viewer.1.saturating_sub(2))),
        Ok(other) => {
            eprintln!("unknown DENSITY {other:?}\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let density = DensityGrid::from_fn(128, 128, |x, y| match patch {
        Some((px, py)) if (px..px + 5).contains(&x) && (py..py + 5).contains(&y) => 0.5,
        _ => 0.0,
    });
    let options = FovOptions::unlimited().with_radius(radius);
    let (mut fov, mut visible) = (Fov::new(), VisibleSet::new());
    fov.compute(&grid, viewer, options, &mut visible)
        .expect("the viewer stands on the map");
    thinned(
        &mut fov,
        (&grid, &density),
        viewer,
        options,
        &mut visible,
        count,
    );
    println!(
        "{} r={radius}: {} visible cells",
        kind.name(),
        visible.count()
    );
    ExitCode::SUCCESS
}
