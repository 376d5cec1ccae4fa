//! Plays the ldtk_level example under Xvfb with Mesa's software Vulkan driver, lets it save a
//! screenshot, and checks the frame tile by tile: its size, black unexplored tiles, remembered
//! tiles dimmer than visible ones, and exactly as many bright tiles as the player sees by the
//! example's report (so the LDtk layers are drawn as one map under one fog of war), and no
//! more drawn tiles than the player explored: the level's entities drawn as sprites (its doors,
//! chests and goblins) never show on a tile the player has not seen.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`.

mod common_screenshot;

use common_screenshot::{Frame, build_example, field, pixel, play, tile_means};

/// The level in tiles (assets/make_ldtk_level.py).
const MAP: (u32, u32) = (32, 14);

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn ldtk_screenshot_shows_fog_of_war() {
    let binary = build_example("ldtk_level");
    let path = common_screenshot::screenshot_dir().join("ldtk_level.png");
    let args = ["--seed", "7", "--autoplay", "28", "--fog", "tiles"];
    let (image, line) = play(&binary, &args, &path);
    assert_eq!(image.dimensions(), (1280, 720));
    // The centre of tile (0, 0) in the window and a tile's size, in pixels.
    let origin: (f64, f64) = pixel(&line);
    let size: f64 = field(&line, "size ").parse().unwrap();

    // Visible tiles: the tileset's own colours, the darkest of which (floor) is over 85;
    // remembered ones: times the example's grey-blue tint, under 70.
    let frame = Frame::of(tile_means(&image, origin, size, MAP), 70.0);
    println!("{frame:?}; screenshot in {}", path.display());
    let tiles = (MAP.0 * MAP.1) as usize;
    // Exactly the player's visible tiles are drawn bright, on every layer at once.
    let sees = field(&line, " sees ").parse().unwrap();
    frame.assert_fog_of_war(tiles, sees, tiles / 5, tiles / 5);
    // A sprite on an unexplored tile would make it more than black: the tiles drawn are the
    // explored ones, no more.
    let explored: usize = field(&line, "explored ").parse().unwrap();
    assert_eq!(
        frame.bright + frame.dim,
        explored,
        "every explored tile and no other is drawn, sprites included"
    );
    let doors_opened: u32 = field(&line, "doors opened ").parse().unwrap();
    assert!(doors_opened >= 1, "the walk opened a door on the way");
}
