//! Plays the lightyear multiplayer example (a server and two clients of two teams, each an `App`
//! in one process, over lightyear's crossbeam channels) under Xvfb, lets it save a screenshot,
//! and checks each client's half of the frame tile by tile: black unexplored tiles, remembered
//! tiles dimmer than visible ones, exactly as many bright tiles as the fog that client received
//! says its team sees; and that every piece the client holds that is not its team's own stands
//! in that view.
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`.
#![cfg(feature = "lightyear")]

mod common_screenshot;

use common_screenshot::{
    Frame, assert_client_draws_its_team, build_example, field, map_size, pixel, play, tile_means,
};

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn each_lightyear_client_draws_its_teams_fog_and_only_what_its_team_sees() {
    let binary = build_example("multiplayer_lightyear");
    let path = common_screenshot::screenshot_dir().join("multiplayer_lightyear.png");
    let (image, line) = play(&binary, &["--seed", "3", "--frames", "150"], &path);
    assert_eq!(image.dimensions(), (1280, 720));
    let size: f64 = field(&line, "size ").parse().unwrap();
    let map = map_size(&line);
    for i in 0..2 {
        let side = field_after(&line, &format!("client {i}: "));
        let frame = Frame::of(tile_means(&image, pixel(side), size, map), 70.0);
        println!("client {i}: {frame:?}; screenshot in {}", path.display());
        let who = format!("client {i}");
        assert_client_draws_its_team(&who, side, &frame, (map.0 * map.1) as usize);
    }
}

/// The report of one client: the line from `key` to the next client's.
fn field_after<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line
        .find(key)
        .unwrap_or_else(|| panic!("{key:?} in {line:?}"));
    let side = &line[start + key.len()..];
    side.split("; client").next().unwrap()
}
