//! The README's quick start is `examples/quick_start.rs`, word for word, and it draws what it
//! says: played under Xvfb, whose screen is read from its frame-buffer file (`-fbdir`, in X's
//! XWD format) so that the example stays the README's code and nothing more, the window shows
//! exactly the tiles the player sees, by the core's field of view on the same room, and nothing
//! of the rest of the room.
//!
//! The screenshot test is `#[ignore]`d: it needs Xvfb and Vulkan (see `tests/common_screenshot`);
//! `.ci/run` runs it with `--include-ignored`.

mod common_screenshot;

use bevy_viewshed::{FovOptions, OpacityGrid, field_of_view};
use common_screenshot::{build_example, luminance, steady_frame};

const EXAMPLE: &str = include_str!("../examples/quick_start.rs");
const README: &str = include_str!("../README.md");

/// The Rust block of the README's "Quick start" section.
fn readme_quick_start() -> &'static str {
    let section = &README[README
        .find("## Quick start")
        .expect("a quick start section")..];
    let start = section.find("```rust").expect("a Rust block");
    let code = &section[start..];
    let code = &code[code.find('\n').unwrap() + 1..];
    &code[..code.find("```").expect("the block ends")]
}

#[test]
fn the_quick_start_example_is_the_readmes_quick_start() {
    let code = readme_quick_start();
    let body = EXAMPLE
        .find(code.lines().next().unwrap())
        .map(|at| &EXAMPLE[at..])
        .expect("the example holds the README's code");
    assert_eq!(
        body, code,
        "examples/quick_start.rs and the README's quick start differ"
    );
}

// The quick start's room: 32x18, walls around and pillars; the player at (2, 2), radius 8.
const SIZE: (u32, u32) = (32, 18);

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.0 - 1 || y == SIZE.1 - 1 || (x % 6 == 3 && y % 5 == 2)
}

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_quick_start_shows_exactly_what_its_player_sees() {
    assert!(
        EXAMPLE.contains("const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };")
            && EXAMPLE.contains("TilePos { x: 2, y: 2 }")
            && EXAMPLE.contains("Viewshed::new(8)")
            && EXAMPLE.contains("min_width: 512.0"),
        "the room this test expects is the example's"
    );
    let binary = build_example("quick_start");
    let dir = common_screenshot::screenshot_dir().join("quick_start");
    // The same frame three reads in a row, with tiles drawn: the first frames are settled.
    let image = steady_frame(&binary, &dir, 3, |frame| {
        let shown = shown_tiles(frame);
        shown.iter().any(|&s| s).then_some(shown)
    });
    image
        .save(dir.join("quick_start.png"))
        .expect("the frame is saved");
    let shown = shown_tiles(&image);

    // The tiles the player sees, by the core alone.
    let grid = OpacityGrid::from_fn(SIZE.0, SIZE.1, is_wall);
    let sees = field_of_view(&grid, (2, 2), FovOptions::radius(8)).unwrap();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let drawn = shown[(y * SIZE.0 + x) as usize];
            assert_eq!(drawn, sees.contains(x, y), "tile ({x}, {y}) drawn: {drawn}");
        }
    }
    println!(
        "{} tiles drawn, the ones the player sees; the frame is {}",
        sees.count(),
        dir.join("quick_start.png").display()
    );
}

/// Which tiles of the room are drawn (their mean luminance differs from the background's, read
/// on the top left tile, a wall never seen), row after row. The room fills the 1280x720
/// window: tile (0, 0) is centred 15.5 and 8.5 tiles left of and below the window's centre,
/// 40 pixels a tile (16 pixels drawn 2.5 times).
fn shown_tiles(image: &image::RgbaImage) -> Vec<bool> {
    let mean = |cx: f64, cy: f64| {
        let (mut sum, mut n) = (0.0, 0.0);
        for dy in -5..5 {
            for dx in -5..5 {
                let p = image.get_pixel((cx as i64 + dx) as u32, (cy as i64 + dy) as u32);
                sum += luminance(p);
                n += 1.0;
            }
        }
        sum / n
    };
    let background = mean(20.0, 20.0);
    let mut shown = Vec::new();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let cx = 640.0 + (f64::from(x) - 15.5) * 40.0;
            let cy = 360.0 - (f64::from(y) - 8.5) * 40.0;
            shown.push((mean(cx, cy) - background).abs() > 10.0);
        }
    }
    shown
}
