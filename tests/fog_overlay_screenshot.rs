//! The fog_overlay example draws what it says: played under Xvfb (its screen read from the
//! frame buffer, so the example carries no test code), once the player has walked east, the
//! tiles the player sees show the game's own tints, the tiles it saw on the way show them
//! darkened by the overlay, and the tiles never seen are black; each by the core's field of
//! view on the same room. The map's tiles are never written by the fog: what darkens them is
//! the overlay alone.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`. The frame is
//! saved as `fog_overlay/fog_overlay.png` in the screenshots folder; `docs/fog_overlay.png` is
//! a copy of it.

mod common_screenshot;

use bevy_viewshed::{FovOptions, OpacityGrid, VisibleSet, field_of_view};
use common_screenshot::{build_example, luminance, steady_frame};

const EXAMPLE: &str = include_str!("../examples/fog_overlay.rs");

// The example's room: 32x18, walls around and pillars, 16-pixel tiles drawn at twice their
// size; the player walks from (2, 4) to (16, 4) and sees 6 tiles around it.
const SIZE: (u32, u32) = (32, 18);
const TILE: f64 = 32.0;
const RADIUS: u32 = 6;

/// The luminance between remembered and seen tiles of each kind: seen floors are the tints
/// (orange, teal), near 175, seen walls the wall texture, near 134; remembered ones are those
/// under the overlay's 60% black, blended in linear light: floors near 115, walls near 87.
fn bright_from(x: u32, y: u32) -> f64 {
    if is_wall(x, y) { 110.0 } else { 145.0 }
}

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.0 - 1 || y == SIZE.1 - 1 || (x % 6 == 3 && y % 5 == 2)
}

/// Whether tile `(x, y)`'s tint is the orange one (else the teal one).
fn orange(x: u32, y: u32) -> bool {
    (x / 2 + y / 2).is_multiple_of(2)
}

/// The mean colour of the inner square of tile `(x, y)`: the map is centred in the 1280x720
/// window, tile (0, 0) 15.5 and 8.5 tiles left of and below its centre.
fn tile_rgb(image: &image::RgbaImage, x: u32, y: u32) -> [f64; 3] {
    let cx = 640.0 + (f64::from(x) - 15.5) * TILE;
    let cy = 360.0 - (f64::from(y) - 8.5) * TILE;
    let half = (TILE * 0.4) as i64;
    let mut sum = [0.0; 3];
    for dy in -half..half {
        for dx in -half..half {
            let p = image.get_pixel((cx as i64 + dx) as u32, (cy as i64 + dy) as u32);
            for (s, c) in sum.iter_mut().zip(p.0) {
                *s += f64::from(c);
            }
        }
    }
    sum.map(|s| s / (4 * half * half) as f64)
}

fn lum([r, g, b]: [f64; 3]) -> f64 {
    luminance(&image::Rgba([r as u8, g as u8, b as u8, 255]))
}

/// What the frame shows of each tile: 0 black, 1 dim, 2 bright (the key the test waits on
/// to be steady).
fn classes(image: &image::RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let l = lum(tile_rgb(image, x, y));
            out.push(if l < 3.0 {
                0
            } else if l < bright_from(x, y) {
                1
            } else {
                2
            });
        }
    }
    out
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_fog_overlay_darkens_the_tinted_map_and_keeps_its_tints() {
    assert!(
        EXAMPLE.contains("const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };")
            && EXAMPLE.contains("TilePos { x: 2, y: 4 }")
            && EXAMPLE.contains("tile.x < 16")
            && EXAMPLE.contains("Viewshed::new(6)")
            && EXAMPLE.contains("scale: 0.5"),
        "the room this test expects is the example's"
    );
    let binary = build_example("fog_overlay");
    let dir = common_screenshot::screenshot_dir().join("fog_overlay");
    // The player walks a step every 0.2 s: a frame the same for 1.2 s is the one after the
    // walk.
    let image = steady_frame((&binary, &[]), &dir, 7, |frame| {
        let shown = classes(frame);
        shown.contains(&2).then_some(shown)
    });
    let path = dir.join("fog_overlay.png");
    image.save(&path).expect("the frame is saved");

    // What the player sees at the end and saw on the way, by the core alone.
    let grid = OpacityGrid::from_fn(SIZE.0, SIZE.1, is_wall);
    let view = |x| field_of_view(&grid, (x, 4), FovOptions::radius(RADIUS)).unwrap();
    let sees: VisibleSet = view(16);
    let saw: Vec<VisibleSet> = (2..=16).map(view).collect();
    let (mut bright, mut dim, mut black) = (0, 0, 0);
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let rgb = tile_rgb(&image, x, y);
            let [r, _, b] = rgb;
            let at = format!("tile ({x}, {y}) is {rgb:.0?}");
            if sees.contains(x, y) {
                bright += 1;
                assert!(lum(rgb) >= bright_from(x, y), "{at}: seen, drawn bright");
            } else if saw.iter().any(|v| v.contains(x, y)) {
                dim += 1;
                let dimmed = (20.0..bright_from(x, y)).contains(&lum(rgb));
                assert!(dimmed, "{at}: remembered, dimmed");
            } else {
                black += 1;
                assert!(lum(rgb) < 3.0, "{at}: never seen, black");
                continue;
            }
            // Seen or remembered, a floor tile keeps the game's tint under the overlay (the
            // player's sprite stands on (16, 4)).
            if !is_wall(x, y) && (x, y) != (16, 4) {
                let tinted = if orange(x, y) {
                    r > b + 20.0
                } else {
                    b > r + 20.0
                };
                assert!(tinted, "{at}: its tint shows");
            }
        }
    }
    assert!(
        bright > 50 && dim > 50 && black > 100,
        "{bright} {dim} {black}"
    );
    println!(
        "{bright} tiles bright (seen), {dim} dimmed (remembered), {black} black; the frame is {}",
        path.display()
    );
}
