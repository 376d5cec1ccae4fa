//! Plays the hex_skirmish example under Xvfb with Mesa's software Vulkan driver, lets it save a
//! screenshot, and checks the frame hexagon by hexagon: its size, black unexplored hexagons,
//! remembered hexagons dimmer than visible ones, and exactly as many bright hexagons as the
//! union of team 0's views that the example reports.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`.

mod common_screenshot;

use common_screenshot::{Frame, build_example, field, luminance, pixel, play};

/// The example's map in hexagons, and its hexagons' grid step in pixels: 28 across a row, rows
/// 24 apart, odd rows shifted right by half a hexagon (`HexCoordSystem::RowOdd`).
const MAP: (u32, u32) = (40, 24);
const STEP: (f64, f64) = (28.0, 24.0);

/// Mean luminance of a hexagon whose centre is at pixel `(cx, cy)`, read from two 3x12 strips
/// left and right of the centre: inside the hexagon, clear of its darker border, and clear of
/// the 16-pixel-wide unit sprites drawn on its middle.
fn hex_mean(image: &image::RgbaImage, (cx, cy): (f64, f64)) -> f64 {
    let (cx, cy) = (cx.round() as i64, cy.round() as i64);
    let (mut sum, mut n) = (0.0, 0.0);
    for dy in -6..6 {
        for dx in [-12, -11, -10, 9, 10, 11] {
            sum += luminance(image.get_pixel((cx + dx) as u32, (cy + dy) as u32));
            n += 1.0;
        }
    }
    sum / n
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn hex_screenshot_shows_fog_of_war() {
    let binary = build_example("hex_skirmish");
    let path = common_screenshot::screenshot_dir().join("hex_skirmish.png");
    // The fog in tile colours: the hexagons are counted one by one.
    let args = ["--seed", "7", "--autoplay", "40", "--fog", "tiles"];
    let (image, line) = play(&binary, &args, &path);
    assert_eq!(image.dimensions(), (1280, 720));
    // The centre of hexagon (0, 0) in the window, in pixels.
    let origin: (f64, f64) = pixel(&line);

    // Visible hexagons: the tileset's own colours, the darkest of which (forest) is over 85;
    // remembered ones: times the example's grey-blue tint, under 70 (the brightest, rock,
    // near 60).
    let hexes = (0..MAP.1).flat_map(|y| (0..MAP.0).map(move |x| (x, y)));
    let means = hexes.map(|(x, y)| {
        let shift = if y % 2 == 1 { 0.5 } else { 0.0 };
        let centre = (
            origin.0 + STEP.0 * (f64::from(x) + shift),
            origin.1 - STEP.1 * f64::from(y),
        );
        hex_mean(&image, centre)
    });
    let frame = Frame::of(means, 70.0);
    println!("{frame:?}; screenshot in {}", path.display());
    let count = (MAP.0 * MAP.1) as usize;
    // Exactly team 0's visible hexagons are drawn bright: the frame shows the union of views.
    let sees = field(&line, "team 0 sees ").parse().unwrap();
    frame.assert_fog_of_war(count, sees, count / 10, count / 5);
}
