//! Plays the ldtk_level example under Xvfb with Mesa's software Vulkan driver, lets it save a
//! screenshot, and checks the frame tile by tile: its size, black unexplored tiles, remembered
//! tiles dimmer than visible ones, and exactly as many bright tiles as the player sees by the
//! example's report (so the LDtk layers are drawn as one map under one fog of war).
//!
//! It needs `xvfb-run` and Vulkan (Debian: `xvfb mesa-vulkan-drivers libvulkan1`), so it runs
//! when `BEVY_VIEWSHED_SCREENSHOT_TEST=1`, which `.ci/run` sets after installing them.

use std::path::{Path, PathBuf};
use std::process::Command;

const ENABLE: &str = "BEVY_VIEWSHED_SCREENSHOT_TEST";
/// The level in tiles (assets/make_ldtk_level.py).
const MAP: (u32, u32) = (32, 14);

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Builds the example as the README's test command (`cargo test --workspace --all-features`)
/// already has, so that this is a no-op there.
fn build_example() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--workspace",
            "--example",
            "ldtk_level",
            "--all-features",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the ldtk_level example builds");
    target_dir().join("debug/examples/ldtk_level")
}

/// The word after `key` in `line`, e.g. `field(line, "sees ")`.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(key)
        .nth(1)
        .unwrap_or_else(|| panic!("{key:?} in {line:?}"))
        .split([' ', ')', ',', ';'])
        .next()
        .unwrap()
}

/// What the example reported at the end of its scripted walk, and the frame it saved.
struct Game {
    image: image::RgbaImage,
    /// The centre of tile (0, 0) in the window, and a tile's size, in pixels.
    origin: (f64, f64),
    size: f64,
    /// How many tiles the player sees.
    sees: usize,
    doors_opened: u32,
}

/// Runs a scripted walk and returns its screenshot and report.
fn play(binary: &Path, out: &Path) -> Game {
    let output = Command::new("timeout")
        .arg("600")
        .arg("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(binary)
        .args(["--seed", "7", "--autoplay", "28", "--screenshot"])
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
        .expect("the example reports the end of its scripted walk");
    let px = field(line, "pixel (");
    let py = field(line, &format!("pixel ({px}, "));
    Game {
        image: image::open(out)
            .expect("the screenshot is a PNG")
            .to_rgba8(),
        origin: (px.parse().unwrap(), py.parse().unwrap()),
        size: field(line, "size ").parse().unwrap(),
        sees: field(line, " sees ").parse().unwrap(),
        doors_opened: field(line, "doors opened ").parse().unwrap(),
    }
}

fn luminance(p: &image::Rgba<u8>) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

/// Mean luminance of the inner square of the tile centred at pixel `(cx, cy)` (a tenth of the
/// tile's size in from each edge).
fn tile_mean(image: &image::RgbaImage, (cx, cy): (f64, f64), size: f64) -> f64 {
    let half = (size * 0.4).round() as i64;
    let (cx, cy) = (cx.round() as i64, cy.round() as i64);
    let (mut sum, mut n) = (0.0, 0.0);
    for dy in -half..half {
        for dx in -half..half {
            sum += luminance(image.get_pixel((cx + dx) as u32, (cy + dy) as u32));
            n += 1.0;
        }
    }
    sum / n
}

/// What the level shows, tile by tile.
#[derive(Debug)]
struct Frame {
    /// Unexplored tiles: black.
    black: usize,
    /// Remembered tiles: the tileset times the example's grey-blue tint (luminance under 70).
    dim: usize,
    /// Visible tiles: the tileset's own colours, the darkest of which (floor) is over 85.
    bright: usize,
    dim_mean: f64,
    bright_mean: f64,
    /// The brightest remembered and the darkest visible tile.
    dim_max: f64,
    bright_min: f64,
}

fn classify(game: &Game) -> Frame {
    let (mut black, mut dim, mut bright) = (0, 0, 0);
    let (mut dim_sum, mut bright_sum) = (0.0, 0.0);
    let (mut dim_max, mut bright_min) = (0.0f64, f64::MAX);
    for y in 0..MAP.1 {
        for x in 0..MAP.0 {
            let centre = (
                game.origin.0 + game.size * f64::from(x),
                game.origin.1 - game.size * f64::from(y),
            );
            let mean = tile_mean(&game.image, centre, game.size);
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
fn ldtk_screenshot_shows_fog_of_war() {
    if std::env::var(ENABLE).as_deref() != Ok("1") {
        eprintln!("ldtk screenshot test not run: set {ENABLE}=1 (needs xvfb-run and Vulkan)");
        return;
    }
    let binary = build_example();
    let dir = target_dir().join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ldtk_level.png");
    let game = play(&binary, &path);
    assert_eq!(game.image.dimensions(), (1280, 720));

    let frame = classify(&game);
    println!("{frame:?}; screenshot in {}", path.display());
    let tiles = (MAP.0 * MAP.1) as usize;
    assert_eq!(frame.black + frame.dim + frame.bright, tiles);
    // Exactly the player's visible tiles are drawn bright, on every layer at once.
    assert_eq!(
        frame.bright, game.sees,
        "bright tiles = tiles the player sees"
    );
    assert!(game.doors_opened >= 1, "the walk opened a door on the way");
    assert!(
        frame.black > tiles / 5,
        "unexplored tiles are black ({} of {tiles})",
        frame.black
    );
    assert!(
        frame.dim > tiles / 5,
        "remembered tiles are shown dimmed ({} of {tiles})",
        frame.dim
    );
    assert!(
        frame.dim_max + 20.0 < frame.bright_min,
        "a clear gap between the brightest remembered tile ({:.1}) and the darkest visible one \
         ({:.1})",
        frame.dim_max,
        frame.bright_min
    );
    assert!(
        frame.dim_mean < 0.6 * frame.bright_mean,
        "remembered tiles ({:.1}) are dimmer than visible ones ({:.1})",
        frame.dim_mean,
        frame.bright_mean
    );
}
