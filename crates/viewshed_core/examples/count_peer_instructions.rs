//! The peer of `count_instructions`: the same field of view (the bench's 128x128 maps, seed 42,
//! the floor cell nearest the centre, the disk `dx*dx + dy*dy <= r*(r+1)`) computed by
//! gridbugs' `shadowcast`, the one peer that is faster than us on some bench rows, many times
//! inside one `#[inline(never)]` function, so that callgrind counts its instructions per
//! computation the way it counts ours.
//!
//! ```text
//! cargo build --release --example count_peer_instructions -p viewshed_core
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     --toggle-collect='*count_peer_instructions*computations*' \
//!     target/release/examples/count_peer_instructions pillars20 unlimited 1000
//! # "Collected : N"  ->  N / 1000 instructions per computation
//! ```
//!
//! Arguments: `MAP` (open, forest, pillars20, cave, dungeon), `RADIUS` (a number or
//! `unlimited`, which is a radius covering the map) and how many computations to run.

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::process::ExitCode;

use support::{central_floor, count_args};
use viewshed_core::Radius;

const USAGE: &str = "usage: count_peer_instructions MAP RADIUS|unlimited COUNT \
                     (MAP: open, forest, pillars20, cave, dungeon)";

/// The map as `shadowcast` reads it: 255 = opaque.
struct Map {
    width: u32,
    height: u32,
    opacity: Vec<u8>,
}

struct Input;

impl shadowcast::InputGrid for Input {
    type Grid = Map;
    type Opacity = u8;

    fn size(&self, map: &Map) -> coord_2d::UCoord {
        coord_2d::UCoord::new(map.width, map.height)
    }

    fn get_opacity(&self, map: &Map, coord: coord_2d::ICoord) -> u8 {
        map.opacity[coord.y as usize * map.width as usize + coord.x as usize]
    }
}

/// The measured part: `count` computations, each stamping the cells it sees.
#[inline(never)]
fn computations(
    context: &mut shadowcast::Context<u8>,
    map: &Map,
    viewer: (u32, u32),
    radius: u32,
    cells: &mut [u32],
    count: u32,
) {
    let width = map.width as usize;
    for call in 0..count {
        context.for_each_visible(
            black_box(coord_2d::ICoord::new(viewer.0 as i32, viewer.1 as i32)),
            &Input,
            map,
            shadowcast::vision_distance::Circle::new_squared(radius * (radius + 1)),
            255,
            |coord, _, _| cells[coord.y as usize * width + coord.x as usize] = call,
        );
        black_box(&*cells);
    }
}

fn main() -> ExitCode {
    let Some((kind, radius, count)) = count_args(USAGE) else {
        return ExitCode::FAILURE;
    };
    let map = kind.name();
    let radius = match radius {
        // As in the bench: a radius whose disk covers the 128x128 map.
        Radius::Unlimited => 256,
        Radius::Limited(r) => r,
    };
    let grid = kind.generate(128, 128, 42);
    let viewer = central_floor(&grid);
    let scene = Map {
        width: grid.width(),
        height: grid.height(),
        opacity: (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .map(|(x, y)| if grid.is_opaque(x, y) { 255 } else { 0 })
            .collect(),
    };
    let mut context = shadowcast::Context::default();
    let mut cells = vec![u32::MAX; (scene.width * scene.height) as usize];
    // Warm the context outside the measured function.
    computations(&mut context, &scene, viewer, radius, &mut cells, 1);
    computations(&mut context, &scene, viewer, radius, &mut cells, count);
    let seen = cells
        .iter()
        .filter(|&&call| call == count.saturating_sub(1))
        .count();
    println!("{map} r={radius}: {seen} visible cells (shadowcast)");
    ExitCode::SUCCESS
}
