//! The open_world example draws one fog across its chunks: played under Xvfb, after its
//! scripted walk west and south into negative chunks (streaming chunks in and out on the way),
//! every tile on screen looks as one big map holding the same walls says: seen now bright,
//! seen on the way dim, never seen black, whichever chunk it lies on; and the view takes in
//! tiles of several chunks.
//!
//! The frame is saved as `open_world/open_world.png` in the screenshots folder
//! (`docs/open_world.png` is the smooth fog's, closer: `scripts/pictures.sh`).

mod common_screenshot;

use std::collections::BTreeSet;

use bevy_viewshed::{FovOptions, OpacityGrid, field_of_view};
use common_screenshot::{build_example, play, screenshot_dir, tile_mean};

const EXAMPLE: &str = include_str!("../examples/open_world.rs");

/// The example's world: walls of rooms with doorways and pillars, chunks of 12 tiles, tiles
/// of 16 pixels drawn at twice their size, the camera on the player, who sees 7 tiles around
/// it; the walk: 8 steps west, 16 south from (4, 4).
const CHUNK: i32 = 12;
const TILE: f64 = 32.0;
const RADIUS: u32 = 7;
const WALK: [((i32, i32), usize); 2] = [((-1, 0), 8), ((0, -1), 16)];

fn is_wall(x: i32, y: i32) -> bool {
    let (rx, ry) = (x.rem_euclid(8), y.rem_euclid(8));
    let door = rx == 4 || ry == 4;
    let h = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) as u32;
    !door && (rx == 0 || ry == 0 || h.is_multiple_of(17))
}

/// The tiles around `(x, y)` (world tiles) a viewer there sees, on a big map of the walls.
fn sees((x, y): (i32, i32)) -> BTreeSet<(i32, i32)> {
    const HALF: i32 = 40;
    let grid = OpacityGrid::from_fn(2 * HALF as u32 + 1, 2 * HALF as u32 + 1, |gx, gy| {
        is_wall(x - HALF + gx as i32, y - HALF + gy as i32)
    });
    let view = field_of_view(
        &grid,
        (HALF as u32, HALF as u32),
        FovOptions::radius(RADIUS),
    );
    view.unwrap()
        .iter()
        .map(|(gx, gy)| (x - HALF + gx as i32, y - HALF + gy as i32))
        .collect()
}

/// Every tile the player stood on, from the start to the end of the walk.
fn path() -> Vec<(i32, i32)> {
    let mut at = (4, 4);
    let mut path = vec![at];
    for ((dx, dy), steps) in WALK {
        for _ in 0..steps {
            let to = (at.0 + dx, at.1 + dy);
            if !is_wall(to.0, to.1) {
                at = to;
                path.push(at);
            }
        }
    }
    path
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_fog_is_one_across_the_chunks_of_a_streamed_world() {
    assert!(
        EXAMPLE.contains("const CHUNK: i32 = 12;")
            && EXAMPLE.contains("Viewshed::new(7)")
            && EXAMPLE
                .contains("const WALK: [((i32, i32), usize); 2] = [((-1, 0), 8), ((0, -1), 16)];")
            && EXAMPLE.contains("let (mut size, mut zoom) = ((1280, 720), 2.0);"),
        "the world this test expects is the example's"
    );
    let binary = build_example("open_world");
    let dir = screenshot_dir().join("open_world");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("open_world.png");
    let (image, line) = play(&binary, &["--fog", "tiles"], &out);
    let walked = path();
    let end = *walked.last().unwrap();
    assert!(
        line.contains(&format!("player ({}, {})", end.0, end.1)),
        "{line}"
    );
    let now = sees(end);
    let before: BTreeSet<_> = walked.iter().flat_map(|&at| sees(at)).collect();
    let chunk_of = |(x, y): (i32, i32)| (x.div_euclid(CHUNK), y.div_euclid(CHUNK));
    let mut chunks_seen = BTreeSet::new();
    let (mut bright, mut dim, mut black) = (0, 0, 0);
    // The tiles on screen around the player (at the centre), which the loaded chunks hold.
    for dy in -10..=10 {
        for dx in -18..=18 {
            let tile = (end.0 + dx, end.1 + dy);
            let centre = (640.0 + f64::from(dx) * TILE, 360.0 - f64::from(dy) * TILE);
            let lum = tile_mean(&image, centre, TILE);
            let at = format!(
                "tile {tile:?} (chunk {:?}) has luminance {lum:.1}",
                chunk_of(tile)
            );
            if (dx, dy) == (0, 0) || under_minimap(centre) {
                continue; // the player's sprite, the minimap in the corner
            }
            // Seen floors are near 85 and walls near 122, both dimmed by the overlay to about
            // 54 and 78 when remembered.
            let bright_from = if is_wall(tile.0, tile.1) { 100.0 } else { 70.0 };
            if now.contains(&tile) {
                bright += 1;
                chunks_seen.insert(chunk_of(tile));
                assert!(lum > bright_from, "{at}: seen now, bright");
            } else if before.contains(&tile) {
                dim += 1;
                assert!((20.0..bright_from).contains(&lum), "{at}: seen before, dim");
            } else {
                black += 1;
                assert!(lum < 3.0, "{at}: never seen, black");
            }
        }
    }
    assert!(
        chunks_seen.len() >= 3,
        "the view spans chunks {chunks_seen:?}"
    );
    assert!(
        bright > 40 && dim > 40 && black > 200,
        "{bright} {dim} {black}"
    );
    println!(
        "{bright} tiles seen on {} chunks, {dim} remembered, {black} black; the frame is {}",
        chunks_seen.len(),
        out.display()
    );
}

/// Whether a tile centred at `centre` lies (in part) under the minimap: the example's corner
/// minimap (`examples/shared/minimap.rs`) hangs 10 pixels from the top and right edges, 3
/// pixels a world tile, at most 260 pixels wide and tall on this walk.
fn under_minimap((x, y): (f64, f64)) -> bool {
    x + TILE / 2.0 > 1280.0 - 10.0 - 260.0 && y - TILE / 2.0 < 10.0 + 260.0
}
