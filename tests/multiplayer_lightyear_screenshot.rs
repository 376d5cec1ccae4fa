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

use common_screenshot::{Frame, build_example, field, pixel, play, tile_mean};

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn each_lightyear_client_draws_its_teams_fog_and_only_what_its_team_sees() {
    let binary = build_example("multiplayer_lightyear");
    let path = common_screenshot::screenshot_dir().join("multiplayer_lightyear.png");
    let (image, line) = play(&binary, &["--seed", "3", "--frames", "150"], &path);
    assert_eq!(image.dimensions(), (1280, 720));
    let size: f64 = field(&line, "size ").parse().unwrap();
    let map = field(&line, "map ");
    let (width, height): (u32, u32) = match map.split_once('x') {
        Some((w, h)) => (w.parse().unwrap(), h.parse().unwrap()),
        None => panic!("a map size in {line:?}"),
    };
    let tiles = (width * height) as usize;
    for i in 0..2 {
        let side = field_after(&line, &format!("client {i}: "));
        let origin: (f64, f64) = pixel(side);
        let means = (0..height).flat_map(|y| (0..width).map(move |x| (x, y)));
        let means = means.map(|(x, y)| {
            let centre = (
                origin.0 + size * f64::from(x),
                origin.1 - size * f64::from(y),
            );
            tile_mean(&image, centre, size)
        });
        let frame = Frame::of(means, 70.0);
        println!("client {i}: {frame:?}; screenshot in {}", path.display());
        let sees: usize = field(side, " sees ").parse().unwrap();
        frame.assert_fog_of_war(tiles, sees, tiles / 5, 20);
        let pieces: usize = field(side, "pieces ").parse().unwrap();
        assert!(pieces > 0, "client {i} holds its team's units");
        let outside: usize = field(side, "outside the view ").parse().unwrap();
        assert_eq!(
            outside, 0,
            "client {i}: every foreign piece held stands where its team sees"
        );
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
