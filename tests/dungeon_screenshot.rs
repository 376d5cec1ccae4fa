//! Plays the dungeon example under Xvfb with Mesa's software Vulkan driver, lets it save a
//! screenshot, and checks the frame: its size, bright tiles around the player, black
//! unexplored regions, dimmer remembered tiles, and fewer bright tiles at radius 3 than at 10.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`.

mod common_screenshot;

use std::path::Path;

use common_screenshot::{build_example, field, luminance, pixel, play};

/// What the example reported at the end of its scripted game, and the frame it saved.
struct Game {
    image: image::RgbaImage,
    /// The centre pixel of the player's tile.
    pixel: (u32, u32),
    /// How many tiles the player's `Viewshed` held.
    sees: usize,
}

/// Runs a scripted game and returns its screenshot and report.
fn play_radius(binary: &Path, radius: u32, out: &Path) -> Game {
    let radius = radius.to_string();
    // The fog in tile colours and the whole map on screen: the tiles are counted one by one.
    let args = [
        "--seed",
        "7",
        "--autoplay",
        "45",
        "--radius",
        &radius,
        "--fog",
        "tiles",
        "--zoom",
        "1",
    ];
    let (image, line) = play(binary, &args, out);
    Game {
        image,
        pixel: pixel(&line),
        sees: field(&line, "sees ").parse().unwrap(),
    }
}

/// Mean luminance and mean red, green, blue of the 16x16 tile whose top-left pixel is `(x, y)`.
fn tile_mean(image: &image::RgbaImage, x: u32, y: u32) -> f64 {
    tile_stats(image, x, y).0
}

fn tile_stats(image: &image::RgbaImage, x: u32, y: u32) -> (f64, [f64; 3]) {
    let (mut sum, mut rgb) = (0.0, [0.0; 3]);
    for dy in 0..16 {
        for dx in 0..16 {
            let p = image.get_pixel(x + dx, y + dy);
            sum += luminance(p);
            for c in 0..3 {
                rgb[c] += f64::from(p[c]);
            }
        }
    }
    (sum / 256.0, rgb.map(|c| c / 256.0))
}

/// What the map area (below the HUD lines) shows, tile by tile.
struct Frame {
    /// Unexplored tiles: black.
    black: usize,
    /// Remembered tiles: the tileset times the example's dark cold grey-blue tint, so darker
    /// than any visible tile (luminance under 60).
    dim: usize,
    /// Visible tiles: drawn in the tileset's own colours, the darkest of which (the floor) has
    /// a luminance over 90, with a monster, a guard or the player on some of them.
    bright: usize,
    dim_mean: f64,
    bright_mean: f64,
    /// Mean red and blue of the remembered tiles.
    dim_red: f64,
    dim_blue: f64,
}

/// The minimap over the map's top right corner (`examples/dungeon/minimap.rs`: 10 pixels
/// from the right edge, 40 from the top, 80x43 tiles of 3 pixels with its border inside):
/// left, top, right, bottom.
const MINIMAP: (u32, u32, u32, u32) = (1280 - 10 - 240, 40, 1280 - 10, 40 + 129);

/// Whether the 16x16 tile at `(x, y)` lies under the minimap (in part).
fn under_minimap(x: u32, y: u32) -> bool {
    let (left, top, right, bottom) = MINIMAP;
    x + 16 > left && x < right && y + 16 > top && y < bottom
}

/// The map's tiles, minimap aside.
fn classify(image: &image::RgbaImage) -> Frame {
    let (mut black, mut dim, mut bright) = (0, 0, 0);
    let (mut dim_sum, mut bright_sum, mut dim_red, mut dim_blue) = (0.0, 0.0, 0.0, 0.0);
    for y in (32..720).step_by(16) {
        for x in (0..1280).step_by(16).filter(|&x| !under_minimap(x, y)) {
            let (mean, [r, _, b]) = tile_stats(image, x, y);
            if mean < 3.0 {
                black += 1;
            } else if mean < 60.0 {
                dim += 1;
                dim_sum += mean;
                dim_red += r;
                dim_blue += b;
            } else {
                bright += 1;
                bright_sum += mean;
            }
        }
    }
    let per = |sum: f64, n: usize| sum / n.max(1) as f64;
    Frame {
        black,
        dim,
        bright,
        dim_mean: per(dim_sum, dim),
        bright_mean: per(bright_sum, bright),
        dim_red: per(dim_red, dim),
        dim_blue: per(dim_blue, dim),
    }
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn dungeon_screenshot_shows_fog_of_war() {
    let binary = build_example("dungeon");
    let dir = common_screenshot::screenshot_dir();

    let wide_path = dir.join("dungeon-radius10.png");
    let wide = play_radius(&binary, 10, &wide_path);
    assert_eq!(wide.image.dimensions(), (1280, 720));
    let Frame {
        black,
        dim,
        bright,
        dim_mean,
        bright_mean,
        dim_red,
        dim_blue,
    } = classify(&wide.image);
    println!(
        "radius 10: {black} black, {dim} dim (mean {dim_mean:.1}), {bright} bright (mean {bright_mean:.1}) tiles"
    );
    // The tiles around the player are visible, so drawn bright.
    let (px, py) = wide.pixel;
    let mut around = Vec::new();
    for (dx, dy) in [
        (-1i32, 0i32),
        (1, 0),
        (0, -1),
        (0, 1),
        (-1, -1),
        (1, 1),
        (-1, 1),
        (1, -1),
    ] {
        let (x, y) = (
            (px as i32 - 8 + dx * 16) as u32,
            (py as i32 - 8 + dy * 16) as u32,
        );
        around.push(tile_mean(&wide.image, x, y));
    }
    assert!(
        around.iter().all(|&mean| mean > 50.0),
        "tiles around the player are bright: {around:?}"
    );
    // Exactly the player's visible tiles are drawn bright: the frame shows the viewshed (all
    // of it on the map's tiles, none under the minimap).
    let reach = 16 * 11;
    assert!(
        px + reach < MINIMAP.0 || py.saturating_sub(reach) >= MINIMAP.3,
        "the scripted game's view stays clear of the minimap"
    );
    assert_eq!(
        bright, wide.sees,
        "bright tiles = tiles in the player's viewshed"
    );
    assert!(
        black > 500,
        "unexplored regions are black ({black} black tiles)"
    );
    assert!(
        dim > 20,
        "remembered tiles are shown dimmed ({dim} dim tiles)"
    );
    assert!(
        dim_blue > 1.25 * dim_red,
        "remembered tiles are tinted grey-blue (red {dim_red:.1}, blue {dim_blue:.1})"
    );
    assert!(
        dim_mean < 0.6 * bright_mean,
        "remembered tiles ({dim_mean:.1}) are dimmer than visible ones ({bright_mean:.1})"
    );

    let narrow_path = dir.join("dungeon-radius3.png");
    let narrow = play_radius(&binary, 3, &narrow_path);
    let narrow_bright = classify(&narrow.image).bright;
    println!(
        "radius 3: {narrow_bright} bright tiles; screenshots in {}",
        dir.display()
    );
    assert_eq!(
        narrow_bright, narrow.sees,
        "bright tiles = tiles in the player's viewshed"
    );
    assert!(
        narrow_bright < bright,
        "radius 3 shows fewer bright tiles ({narrow_bright}) than radius 10 ({bright})"
    );
}
