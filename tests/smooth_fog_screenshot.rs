//! The smooth_fog example draws a smooth fog: played under Xvfb (its screen read from the frame
//! buffer, so the example carries no test code), once the player has walked east and the fades
//! are over, read against the core's field of view along the walk:
//!
//! - the edge of sight is a gradient, not a step: on the pixel row from the centre of a floor
//!   tile the player sees to the centre of the second of two never-seen floor tiles beyond it
//!   (the first with no other seen tile beside it, the second a tile from anything seen), the
//!   light falls from lit to dark through at least four pixels of values in between, and no
//!   pixel is more than a third of the way darker than the one before it (tile colours make it
//!   a one-pixel step);
//! - tiles seen now, away from the edge, are lit as drawn;
//! - never-seen tiles two tiles or more from anything seen stay black.
//!
//! The frame is saved as `smooth_fog/smooth_fog.png` in the screenshots folder.

mod common_screenshot;

use bevy_viewshed::{FovOptions, OpacityGrid, VisibleSet, field_of_view};
use common_screenshot::{build_example, luminance, steady_frame};

const EXAMPLE: &str = include_str!("../examples/smooth_fog.rs");

// The example's room: 32x18, walls around and pillars, 16-pixel tiles drawn at twice their
// size; the player walks from (2, 4) to (16, 4) and sees 6 tiles around it.
const SIZE: (u32, u32) = (32, 18);
const TILE: f64 = 32.0;
const RADIUS: u32 = 6;

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.0 - 1 || y == SIZE.1 - 1 || (x % 6 == 3 && y % 5 == 2)
}

/// The pixel of the centre of tile `(x, y)`: the map is centred in the 1280x720 window, tile
/// (0, 0) 15.5 and 8.5 tiles left of and below its centre.
fn centre(x: u32, y: u32) -> (i64, i64) {
    let cx = 640.0 + (f64::from(x) - 15.5) * TILE;
    let cy = 360.0 - (f64::from(y) - 8.5) * TILE;
    (cx as i64, cy as i64)
}

fn lum_at(image: &image::RgbaImage, (x, y): (i64, i64)) -> f64 {
    luminance(image.get_pixel(x as u32, y as u32))
}

/// The brightest pixel of the inner square of tile `(x, y)`.
fn tile_max(image: &image::RgbaImage, x: u32, y: u32) -> f64 {
    let (cx, cy) = centre(x, y);
    let half = (TILE * 0.4) as i64;
    let mut max: f64 = 0.0;
    for dy in -half..half {
        for dx in -half..half {
            max = max.max(lum_at(image, (cx + dx, cy + dy)));
        }
    }
    max
}

/// Each tile's brightest pixel, rounded: the key the test waits on to be steady.
fn key(image: &image::RgbaImage) -> Vec<u32> {
    let mut out = Vec::new();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            out.push(tile_max(image, x, y).round() as u32);
        }
    }
    out
}

/// Whether `f` holds for a tile within one tile of `tile` (itself included).
fn near_of(tile: (u32, u32), f: &dyn Fn(u32, u32) -> bool) -> bool {
    (-1i64..=1).any(|dy| {
        (-1i64..=1).any(|dx| {
            let (x, y) = (tile.0 as i64 + dx, tile.1 as i64 + dy);
            x >= 0 && y >= 0 && x < SIZE.0 as i64 && y < SIZE.1 as i64 && f(x as u32, y as u32)
        })
    })
}

/// What the player sees at the end of the walk, and has seen on it, by the core alone.
fn oracle() -> (VisibleSet, Vec<VisibleSet>) {
    let grid = OpacityGrid::from_fn(SIZE.0, SIZE.1, is_wall);
    let view = |x| field_of_view(&grid, (x, 4), FovOptions::radius(RADIUS)).unwrap();
    (view(16), (2..=16).map(view).collect())
}

/// Asserts the light falls gradually along the pixels from the centre of the lit tile `seen`
/// to the centre of the never-seen tile `dark` (on the same row); returns how many pixels are
/// between lit and dark.
fn assert_gradient(image: &image::RgbaImage, seen: (u32, u32), dark: (u32, u32)) -> usize {
    let (from, to) = (centre(seen.0, seen.1), centre(dark.0, dark.1));
    let step = (to.0 - from.0).signum();
    let row: Vec<f64> = (0..=(to.0 - from.0).abs())
        .map(|i| lum_at(image, (from.0 + i * step, from.1)))
        .collect();
    let (lit, last) = (row[0], row[row.len() - 1]);
    let at = format!("from {seen:?} to {dark:?}: {row:.0?}");
    assert!(lit > 100.0, "{at}: the seen tile is lit");
    assert!(last < 0.1 * lit, "{at}: the never-seen tile is dark");
    let between = row
        .iter()
        .filter(|&&l| l > 0.1 * lit && l < 0.9 * lit)
        .count();
    assert!(between >= 4, "{at}: {between} pixels between lit and dark");
    for pair in row.windows(2) {
        assert!(
            pair[0] - pair[1] < lit / 3.0,
            "{at}: a step, not a gradient"
        );
    }
    between
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_smooth_fog_has_a_soft_edge_and_black_unexplored_tiles() {
    assert!(
        EXAMPLE.contains("const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };")
            && EXAMPLE.contains("tile_centre(2, 4)")
            && EXAMPLE.contains("walker.0 < 16")
            && EXAMPLE.contains("Viewshed::new(6)")
            && EXAMPLE.contains("scale: 0.5")
            && EXAMPLE.contains("SmoothFog::default()"),
        "the room this test expects is the example's"
    );
    let binary = build_example("smooth_fog");
    let dir = common_screenshot::screenshot_dir().join("smooth_fog");
    // A step every 0.2 s, fades of 0.4 s at most: a frame the same for 1.2 s is the one after
    // the walk, its fades over.
    let image = steady_frame((&binary, &[]), &dir, 7, |frame| {
        let key = key(frame);
        key.iter().any(|&l| l > 100).then_some(key)
    });
    let path = dir.join("smooth_fog.png");
    image.save(&path).expect("the frame is saved");

    let (sees, saw) = oracle();
    let seen_ever = |x: u32, y: u32| saw.iter().any(|v| v.contains(x, y));
    let (mut edges, mut black, mut lit) = (0, 0, 0);
    for y in 1..SIZE.1 - 1 {
        for x in 1..SIZE.0 - 1 {
            let around = |r: i64| {
                (-r..=r).flat_map(move |dy| (-r..=r).map(move |dx| (x as i64 + dx, y as i64 + dy)))
            };
            let on_map = |&(x, y): &(i64, i64)| x >= 0 && y >= 0 && x < 32 && y < 18;
            let near = |r, f: &dyn Fn(u32, u32) -> bool| {
                around(r).filter(on_map).any(|(x, y)| f(x as u32, y as u32))
            };
            if !near(2, &seen_ever) {
                black += 1;
                let max = tile_max(&image, x, y);
                assert!(max < 2.0, "never-seen tile ({x}, {y}) is black: {max:.1}");
            }
            let all_seen = !near(1, &|x, y| !sees.contains(x, y));
            if all_seen && !is_wall(x, y) && (x, y) != (16, 4) {
                lit += 1;
                let l = lum_at(&image, centre(x, y));
                assert!(l > 150.0, "seen floor ({x}, {y}) is lit: {l:.1}");
            }
            // The edge of sight towards a never-seen floor tile on the same row, the tiles
            // around it never seen but this one (and the floor tile beyond it, a tile from
            // anything seen, is where the profile ends).
            for dx in [-1i64, 1] {
                let row = [1, 2].map(|i| ((x as i64 + i * dx) as u32, y));
                let floor = row.iter().all(|&(x, y)| !is_wall(x, y)) && !is_wall(x, y);
                let next = row[0];
                let lone = [-1i64, 0, 1]
                    .iter()
                    .flat_map(|&dy| [0, dx].map(move |ex| (next.0 as i64 + ex, next.1 as i64 + dy)))
                    .filter(|&(tx, ty)| (tx, ty) != (next.0 as i64, next.1 as i64))
                    .all(|(tx, ty)| !seen_ever(tx as u32, ty as u32));
                let beyond = !near_of(row[1], &seen_ever);
                if floor && lone && beyond && !seen_ever(next.0, next.1) && sees.contains(x, y) {
                    assert_gradient(&image, (x, y), row[1]);
                    edges += 1;
                }
            }
        }
    }
    assert!(
        edges >= 3 && black > 100 && lit > 30,
        "{edges} {black} {lit}"
    );
    println!(
        "{edges} edges of sight graded, {black} far never-seen tiles black, {lit} seen tiles \
         lit; the frame is {}",
        path.display()
    );
}

/// The same room and walk drawn on one map and on a world of eight chunks (`--chunks`, 8x9
/// tiles each): the smooth fog's pixels continue across the chunk borders as over one map.
/// Within two tiles of every border the two frames match: no pixel differs by more than 12 of
/// 255 in a channel but for one in a thousand, and they differ by less than 1 on average.
#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_smooth_fog_on_chunks_matches_one_map_across_the_borders() {
    assert!(
        EXAMPLE.contains("const CHUNK: TilemapSize = TilemapSize { x: 8, y: 9 };"),
        "the chunks this test expects are the example's"
    );
    let binary = build_example("smooth_fog");
    let dir = common_screenshot::screenshot_dir().join("smooth_fog");
    let frame = |args: &[&str], sub: &str| {
        steady_frame((&binary, args), &dir.join(sub), 7, |frame| {
            let key = key(frame);
            key.iter().any(|&l| l > 100).then_some(key)
        })
    };
    let one = frame(&[], "one_map");
    let chunked = frame(&["--chunks"], "chunks");
    chunked
        .save(dir.join("smooth_fog_chunks.png"))
        .expect("the frame is saved");
    // The borders: between room columns 7|8, 15|16, 23|24 and rows 8|9.
    let border_x = [8u32, 16, 24].map(|x| centre(x, 0).0 - TILE as i64 / 2);
    let border_y = centre(0, 9).1 + TILE as i64 / 2;
    let near = |p: i64, b: i64| (p - b).abs() <= 2 * TILE as i64;
    let (mut compared, mut off, mut total) = (0usize, 0usize, 0f64);
    for y in 0..720i64 {
        for x in 0..1280i64 {
            if !(border_x.iter().any(|&b| near(x, b)) || near(y, border_y)) {
                continue;
            }
            let (a, b) = (
                one.get_pixel(x as u32, y as u32),
                chunked.get_pixel(x as u32, y as u32),
            );
            let diff = (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap();
            compared += 1;
            off += usize::from(diff > 12);
            total += f64::from(diff);
        }
    }
    let mean = total / compared as f64;
    assert!(
        off * 1000 <= compared && mean < 1.0,
        "{off} of {compared} pixels near the borders differ by more than 12; {mean:.2} on average"
    );
    let lit = (0..SIZE.1)
        .flat_map(|y| (0..SIZE.0).map(move |x| (x, y)))
        .filter(|&(x, y)| tile_max(&chunked, x, y) > 100.0)
        .count();
    assert!(lit > 40, "the chunks are drawn ({lit} lit tiles)");
    println!("{compared} pixels near the chunk borders compared: {off} off, {mean:.2} mean");
}
