//! Plays the hex_skirmish example under Xvfb with Mesa's software Vulkan driver, lets it save a
//! screenshot, and checks the frame hexagon by hexagon: its size, black unexplored hexagons,
//! remembered hexagons dimmer than visible ones, and exactly as many bright hexagons as the
//! union of team 0's views that the example reports.
//!
//! It needs `xvfb-run` and Vulkan (Debian: `xvfb mesa-vulkan-drivers libvulkan1`), so it runs
//! when `BEVY_VIEWSHED_SCREENSHOT_TEST=1`, which `.ci/run` sets after installing them.

use std::path::{Path, PathBuf};
use std::process::Command;

const ENABLE: &str = "BEVY_VIEWSHED_SCREENSHOT_TEST";
/// The example's map in hexagons, and its hexagons' grid step in pixels: 28 across a row, rows
/// 24 apart, odd rows shifted right by half a hexagon (`HexCoordSystem::RowOdd`).
const MAP: (u32, u32) = (40, 24);
const STEP: (f64, f64) = (28.0, 24.0);

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Builds the example as the README's test command (`cargo test --workspace --all-features`) already has,
/// so that this is a no-op there.
fn build_example() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--workspace",
            "--example",
            "hex_skirmish",
            "--all-features",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the hex_skirmish example builds");
    target_dir().join("debug/examples/hex_skirmish")
}

/// The word after `key` in `line`, e.g. `field(line, "sees ")`.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(key)
        .nth(1)
        .unwrap_or_else(|| panic!("{key:?} in {line:?}"))
        .split([' ', ')', ','])
        .next()
        .unwrap()
}

/// What the example reported at the end of its scripted game, and the frame it saved.
struct Game {
    image: image::RgbaImage,
    /// The centre of hexagon (0, 0) in the window, in pixels.
    origin: (f64, f64),
    /// How many hexagons team 0's views hold together.
    sees: usize,
}

/// Runs a scripted game and returns its screenshot and report.
fn play(binary: &Path, out: &Path) -> Game {
    let output = Command::new("timeout")
        .arg("600")
        .arg("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(binary)
        .args(["--seed", "7", "--autoplay", "40", "--screenshot"])
        .arg(out)
        .arg("--exit")
        .env("BEVY_ASSET_ROOT", env!("CARGO_MANIFEST_DIR"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("xvfb-run runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the example exits cleanly\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("autoplay done"))
        .expect("the example reports the end of its scripted game");
    let px = field(line, "pixel (");
    let py = field(line, &format!("pixel ({px}, "));
    Game {
        image: image::open(out)
            .expect("the screenshot is a PNG")
            .to_rgba8(),
        origin: (px.parse().unwrap(), py.parse().unwrap()),
        sees: field(line, "team 0 sees ").parse().unwrap(),
    }
}

fn luminance(p: &image::Rgba<u8>) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

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

/// What the map shows, hexagon by hexagon.
#[derive(Debug)]
struct Frame {
    /// Unexplored hexagons: black.
    black: usize,
    /// Remembered hexagons: the tileset times the example's grey-blue tint (luminance under 70,
    /// the brightest, rock, near 60).
    dim: usize,
    /// Visible hexagons: the tileset's own colours, the darkest of which (forest) is over 85.
    bright: usize,
    dim_mean: f64,
    bright_mean: f64,
    /// The brightest remembered and the darkest visible hexagon: how far both are from the
    /// threshold between them.
    dim_max: f64,
    bright_min: f64,
}

fn classify(game: &Game) -> Frame {
    let (mut black, mut dim, mut bright) = (0, 0, 0);
    let (mut dim_sum, mut bright_sum) = (0.0, 0.0);
    let (mut dim_max, mut bright_min) = (0.0f64, f64::MAX);
    for y in 0..MAP.1 {
        for x in 0..MAP.0 {
            let shift = if y % 2 == 1 { 0.5 } else { 0.0 };
            let centre = (
                game.origin.0 + STEP.0 * (f64::from(x) + shift),
                game.origin.1 - STEP.1 * f64::from(y),
            );
            let mean = hex_mean(&game.image, centre);
            if mean < 3.0 {
                black += 1;
            } else if mean < 70.0 {
                dim += 1;
                dim_sum += mean;
                dim_max = dim_max.max(mean);
            } else {
                bright += 1;
                bright_sum += mean;
                bright_min = bright_min.min(mean);
            }
        }
    }
    Frame {
        black,
        dim,
        bright,
        dim_mean: dim_sum / dim.max(1) as f64,
        bright_mean: bright_sum / bright.max(1) as f64,
        dim_max,
        bright_min,
    }
}

#[test]
fn hex_screenshot_shows_fog_of_war() {
    if std::env::var(ENABLE).as_deref() != Ok("1") {
        eprintln!("hex screenshot test not run: set {ENABLE}=1 (needs xvfb-run and Vulkan)");
        return;
    }
    let binary = build_example();
    let dir = target_dir().join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hex_skirmish.png");
    let game = play(&binary, &path);
    assert_eq!(game.image.dimensions(), (1280, 720));

    let frame = classify(&game);
    println!("{frame:?}; screenshot in {}", path.display());
    let hexes = (MAP.0 * MAP.1) as usize;
    assert_eq!(frame.black + frame.dim + frame.bright, hexes);
    // Exactly team 0's visible hexagons are drawn bright: the frame shows the union of views.
    assert_eq!(
        frame.bright, game.sees,
        "bright hexagons = hexagons in team 0's views"
    );
    assert!(
        frame.black > hexes / 10,
        "unexplored hexagons are black ({} of {hexes})",
        frame.black
    );
    assert!(
        frame.dim > hexes / 5,
        "remembered hexagons are shown dimmed ({} of {hexes})",
        frame.dim
    );
    assert!(
        frame.dim_max + 20.0 < frame.bright_min,
        "a clear gap between the brightest remembered hexagon ({:.1}) and the darkest visible \
         one ({:.1})",
        frame.dim_max,
        frame.bright_min
    );
    assert!(
        frame.dim_mean < 0.6 * frame.bright_mean,
        "remembered hexagons ({:.1}) are dimmer than visible ones ({:.1})",
        frame.dim_mean,
        frame.bright_mean
    );
}
