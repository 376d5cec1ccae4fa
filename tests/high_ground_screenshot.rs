//! Plays the high_ground example under Xvfb: the scout walks from the valley up onto the
//! plateau. In the last frame every tile of the map is drawn lit exactly where the core's
//! field of view on the walls thresholded at the scout's eye (its tile's level) says it sees,
//! and the valley it left, seen over the terrace's edge, is among them: high ground sees
//! down. The example's map is this test's (its functions are repeated here and checked).
//!
//! It is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`); `.ci/run`
//! runs it with `--include-ignored`.

mod common_screenshot;

use common_screenshot::{build_example, play, tile_mean};
use viewshed_core::elevation::{ElevationGrid, ElevationOptions, field_of_view_with_elevation};
use viewshed_core::{FovOptions, OpacityGrid};

const EXAMPLE: &str = include_str!("../examples/high_ground.rs");
const SIZE: (u32, u32) = (32, 18);
const ROW: u32 = 9;

fn level(x: u32, y: u32) -> u8 {
    match x {
        0..12 => 0,
        12..16 => 1,
        _ if (21..24).contains(&x) && (4..7).contains(&y) => 3,
        _ => 2,
    }
}

fn is_wall(x: u32, y: u32) -> bool {
    let border = x == 0 || y == 0 || x == SIZE.0 - 1 || y == SIZE.1 - 1;
    let pillar = x < 12 && x % 4 == 2 && y % 5 == 3;
    let rock = x >= 18 && (x * 7 + y * 3).is_multiple_of(23) && y != ROW;
    border || pillar || rock
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_scout_on_the_plateau_sees_what_its_eye_level_allows() {
    for line in [
        "        0..12 => 0,",
        "        12..16 => 1,",
        "        _ if (21..24).contains(&x) && (4..7).contains(&y) => 3,",
        "    let rock = x >= 18 && (x * 7 + y * 3).is_multiple_of(23) && y != ROW;",
        "const ROW: u32 = 9;",
        "const TO: u32 = 17;",
        "        Viewshed::new(10),",
    ] {
        assert!(EXAMPLE.contains(line), "the example's map has {line:?}");
    }
    let binary = build_example("high_ground");
    let out = common_screenshot::screenshot_dir().join("high_ground.png");
    let (image, line) = play(&binary, &[], &out);
    assert!(line.contains("scout at (17, 9)"), "{line}");

    let walls = OpacityGrid::from_fn(SIZE.0, SIZE.1, is_wall);
    let levels = ElevationGrid::from_fn(SIZE.0, SIZE.1, level);
    let sees = field_of_view_with_elevation(
        &walls,
        &levels,
        (17, ROW),
        ElevationOptions::default(),
        FovOptions::radius(10),
    )
    .unwrap();
    let flat = viewshed_core::field_of_view(&walls, (17, ROW), FovOptions::radius(10)).unwrap();
    let mut lit = 0;
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            if (x, y) == (17, ROW) {
                continue; // the scout's sprite
            }
            let centre = (
                640.0 + (f64::from(x) - 15.5) * 40.0,
                360.0 - (f64::from(y) - 8.5) * 40.0,
            );
            let bright = tile_mean(&image, centre, 40.0) > 50.0;
            assert_eq!(
                bright,
                sees.contains(x, y),
                "tile ({x}, {y}) at level {} drawn lit: {bright}",
                level(x, y)
            );
            lit += usize::from(bright);
        }
    }
    // The outcrop (level 3) hides what lies behind it, as flat ground would not.
    let hidden_by_height = flat.iter().filter(|&(x, y)| !sees.contains(x, y)).count();
    assert!(hidden_by_height > 0, "the outcrop casts a shadow");
    assert!(sees.contains(14, ROW), "the terrace below is seen");
    assert!(sees.contains(9, ROW), "and the valley beyond it");
    println!(
        "{lit} tiles lit, {hidden_by_height} hidden by the outcrop; frame in {}",
        out.display()
    );
}
