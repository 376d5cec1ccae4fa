//! Plays the rts_skirmish example under Xvfb and checks what the player sees, tile by tile:
//! the spectator's view (every team's sight at once, blue and green allied, a scan) drawn
//! exactly as the example reports it (as many bright tiles as the tiles seen), unexplored
//! ground black, remembered ground dimmed; then blue's view, with the radar's red blips on the
//! minimap, one per contact the example reports.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`. `docs/rts_skirmish.png` is a crop of the
//! spectator's frame.

mod common_screenshot;

use common_screenshot::{Frame, build_example, field, map_size, pixel, play, tile_means};

/// Window pixels per tile.
const TILE: f64 = 16.0;
/// Between remembered tiles (grass and rock under the overlay's dimming, 85 to 100) and
/// visible ones (grass near 145, rock near 130, a unit's square on some: 110 and up).
const BRIGHT_FROM: f64 = 105.0;

/// The fog as the overlay draws it: exactly `sees` tiles bright, more than `min_black` black
/// and `min_dim` dimmed, every remembered tile darker than every visible one (the overlay's
/// dimming is lighter than the tile colours' of `Frame::assert_fog_of_war`).
fn assert_fog(frame: &Frame, tiles: usize, sees: usize, (min_black, min_dim): (usize, usize)) {
    assert_eq!(frame.black + frame.dim + frame.bright, tiles);
    assert_eq!(
        frame.bright, sees,
        "bright tiles = tiles the view sees: {frame:?}"
    );
    assert!(
        frame.black > min_black,
        "unexplored tiles are black: {frame:?}"
    );
    assert!(
        frame.dim > min_dim,
        "remembered tiles are dimmed: {frame:?}"
    );
    assert!(frame.dim_max < frame.bright_min, "a gap: {frame:?}");
    assert!(
        frame.dim_mean < 0.75 * frame.bright_mean,
        "dimmer: {frame:?}"
    );
}

/// Plays `view` for 90 frames with seed 7; the frame, its report and its tiles' classes.
fn played(view: &str) -> (image::RgbaImage, String, Frame) {
    let binary = build_example("rts_skirmish");
    let path = common_screenshot::screenshot_dir().join(format!("rts_skirmish_{view}.png"));
    let args = ["--seed", "7", "--autoplay", "90", "--view", view];
    let (image, line) = play(&binary, &args, &path);
    assert_eq!(image.dimensions(), (1280, 720));
    let means = tile_means(&image, pixel(&line), TILE, map_size(&line));
    let frame = Frame::of(means, BRIGHT_FROM);
    (image, line, frame)
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_spectator_sees_every_team_at_once() {
    let (_, line, frame) = played("spectator");
    let (width, height) = map_size(&line);
    let sees: usize = field(&line, "sees ").parse().unwrap();
    let tiles = (width * height) as usize;
    assert!(
        sees > tiles / 8,
        "four teams' sight covers much of the map: {line}"
    );
    assert_fog(&frame, tiles, sees, (tiles / 10, tiles / 20));
}

/// The red blips in the minimap's part of the window: 5x5-pixel squares of pure red.
fn blips(image: &image::RgbaImage) -> usize {
    let is_blip = |x: u32, y: u32| {
        let p = image.get_pixel(x, y);
        p[0] > 200 && p[1] < 80 && p[2] < 80
    };
    let mut count = 0;
    for y in 10..140 {
        for x in 1070..1279 {
            // A blip's top-left pixel: red, with no red left of it or above it.
            if is_blip(x, y) && !is_blip(x - 1, y) && !is_blip(x, y - 1) {
                count += 1;
            }
        }
    }
    count
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn blue_sees_its_own_fog_and_its_radar_contacts() {
    let (image, line, frame) = played("0");
    let (width, height) = map_size(&line);
    let tiles = (width * height) as usize;
    let sees: usize = field(&line, "sees ").parse().unwrap();
    assert_fog(&frame, tiles, sees, (tiles / 5, tiles / 50));
    let contacts: usize = field(&line, "contacts ").parse().unwrap();
    assert!(contacts > 0, "the radar finds enemies: {line}");
    // Blips may overlap where contacts stand side by side: at least one, at most one each.
    let drawn = blips(&image);
    assert!(
        (1..=contacts).contains(&drawn),
        "{drawn} blips for {contacts} contacts"
    );
}
