//! The README's quick start is `examples/quick_start.rs`, word for word, and it draws what it
//! says: played under Xvfb, whose screen is read from its frame-buffer file (`-fbdir`, in X's
//! XWD format) so that the example stays the README's code and nothing more, the window shows
//! exactly the tiles the player sees, by the core's field of view on the same room, and nothing
//! of the rest of the room.
//!
//! The screenshot part runs when `BEVY_VIEWSHED_SCREENSHOT_TEST=1` (see `tests/common_screenshot`).

mod common_screenshot;

use std::process::Command;

use bevy_viewshed::{FovOptions, OpacityGrid, field_of_view};
use common_screenshot::{build_example, enabled, luminance};

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
fn the_quick_start_shows_exactly_what_its_player_sees() {
    if !enabled("quick start screenshot test") {
        return;
    }
    assert!(
        EXAMPLE.contains("const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };")
            && EXAMPLE.contains("TilePos { x: 2, y: 2 }")
            && EXAMPLE.contains("Viewshed::new(8)"),
        "the room this test expects is the example's"
    );
    let binary = build_example("quick_start");
    let dir = common_screenshot::screenshot_dir().join("quick_start");
    std::fs::create_dir_all(&dir).unwrap();
    let mut game = Command::new("timeout")
        .args(["120", "xvfb-run", "-a", "-s"])
        .arg(format!("-screen 0 1280x720x24 -fbdir {}", dir.display()))
        .arg(&binary)
        .env("BEVY_ASSET_ROOT", env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("xvfb-run runs");
    // The same frame three reads in a row, with tiles drawn: the first frames are settled.
    let mut last: Option<Vec<bool>> = None;
    let mut same = 0;
    let mut image = None;
    for _ in 0..600 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let Some(frame) = read_xwd(&dir.join("Xvfb_screen0")) else {
            continue;
        };
        let shown = shown_tiles(&frame);
        if shown.iter().any(|&s| s) && last.as_ref() == Some(&shown) {
            same += 1;
        } else {
            same = 0;
        }
        last = Some(shown);
        if same == 2 {
            image = Some(frame);
            break;
        }
    }
    // SIGTERM to `timeout` reaches xvfb-run, which stops its X server; the example goes with
    // its display.
    let _ = Command::new("kill")
        .args(["-TERM", &game.id().to_string()])
        .status();
    let _ = game.wait();
    let image = image.expect("the quick start drew a steady frame within two minutes");
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

/// Which tiles of the room are drawn (their mean luminance differs from the background's),
/// row after row. The map is centred in the 1280x720 window: tile (0, 0) is centred 15.5 and
/// 8.5 tiles left of and below the window's centre, 16 pixels a tile.
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
            let cx = 640.0 + (f64::from(x) - 15.5) * 16.0;
            let cy = 360.0 - (f64::from(y) - 8.5) * 16.0;
            shown.push((mean(cx, cy) - background).abs() > 10.0);
        }
    }
    shown
}

/// The screen in Xvfb's frame-buffer file: an XWD image (a header of 25 big-endian 32-bit
/// fields, the window name, the colour map, then the pixels), 32 bits a pixel at depth 24.
fn read_xwd(path: &std::path::Path) -> Option<image::RgbaImage> {
    let bytes = std::fs::read(path).ok()?;
    let field = |i: usize| -> Option<u32> {
        let b = bytes.get(i * 4..i * 4 + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (header, width, height) = (field(0)?, field(4)?, field(5)?);
    let (byte_order, bits_per_pixel, bytes_per_line) = (field(7)?, field(11)?, field(12)?);
    let (red_mask, ncolors) = (field(14)?, field(19)?);
    if bits_per_pixel != 32 {
        return None;
    }
    let start = header as usize + ncolors as usize * 12;
    let mut image = image::RgbaImage::new(width, height);
    for y in 0..height {
        for x in 0..width {
            let at = start + (y * bytes_per_line + x * 4) as usize;
            let p = bytes.get(at..at + 4)?;
            let value = if byte_order == 0 {
                u32::from_le_bytes([p[0], p[1], p[2], p[3]])
            } else {
                u32::from_be_bytes([p[0], p[1], p[2], p[3]])
            };
            let (r, g, b) = if red_mask == 0xff0000 {
                (value >> 16, value >> 8, value)
            } else {
                (value, value >> 8, value >> 16)
            };
            image.put_pixel(x, y, image::Rgba([r as u8, g as u8, b as u8, 255]));
        }
    }
    Some(image)
}
