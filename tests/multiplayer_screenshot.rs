//! Plays the multiplayer example (a server in a child process and a windowed client, over
//! replicon's example TCP transport) under Xvfb, lets the client save a screenshot, and checks
//! the frame tile by tile: black unexplored tiles, remembered tiles dimmer than visible ones,
//! and exactly as many bright tiles as the team's fog the client received says it sees; and
//! that every piece the client received that is not its team's own stands in that view.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`.
#![cfg(feature = "replicon")]

mod common_screenshot;

use common_screenshot::{
    Frame, assert_client_draws_its_team, build_example, field, map_size, pixel, play, tile_means,
};

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_multiplayer_client_draws_its_teams_fog_and_only_what_its_team_sees() {
    let binary = build_example("multiplayer");
    let path = common_screenshot::screenshot_dir().join("multiplayer.png");
    // A port of its own, so that it does not meet a server left running elsewhere.
    let args = ["--port", "5987", "--seed", "3", "--frames", "150"];
    let (image, line) = play(&binary, &args, &path);
    assert_eq!(image.dimensions(), (1280, 720));
    let origin: (f64, f64) = pixel(&line);
    let size: f64 = field(&line, "size ").parse().unwrap();
    let map = map_size(&line);
    let frame = Frame::of(tile_means(&image, origin, size, map), 70.0);
    println!("{frame:?}; screenshot in {}", path.display());
    assert_client_draws_its_team("the client", &line, &frame, (map.0 * map.1) as usize);
}
