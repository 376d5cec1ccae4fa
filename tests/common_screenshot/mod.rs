//! What the examples' screenshot tests share: the switch that turns them on, building an
//! example, playing its scripted game under Xvfb, reading its report line or, for an example
//! with no test code, its screen from Xvfb's frame buffer, and sorting a frame's tiles into
//! black, dim and bright by their mean luminance.
//!
//! They need `xvfb-run` and Vulkan (Debian: `xvfb mesa-vulkan-drivers libvulkan1`), so they are
//! `#[ignore]`d: `cargo test` lists them as ignored, and `.ci/run`, after installing those
//! packages, runs them with `-- --include-ignored`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The checkout, read when the test runs: a test binary built in another clone that shares
/// the target directory must not look in that clone.
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("target"))
}

/// The folder the screenshots are saved in (created).
pub fn screenshot_dir() -> PathBuf {
    let dir = target_dir().join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds the example as the README's test command (`cargo test --workspace --all-features`)
/// already has, so that this is a no-op there, and returns its binary.
pub fn build_example(name: &str) -> PathBuf {
    let status = Command::new(std::env::var_os("CARGO").expect("cargo sets CARGO"))
        .args(["build", "--workspace", "--example", name, "--all-features"])
        .current_dir(manifest_dir())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the {name} example builds");
    target_dir().join("debug/examples").join(name)
}

/// Plays a scripted game (`args`, then `--screenshot out --exit`) under Xvfb and returns the
/// screenshot and the line of the example's report that starts with `autoplay done`.
pub fn play(binary: &Path, args: &[&str], out: &Path) -> (image::RgbaImage, String) {
    let output = Command::new("timeout")
        .arg("600")
        .arg("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(binary)
        .args(args)
        .arg("--screenshot")
        .arg(out)
        .arg("--exit")
        .env("BEVY_ASSET_ROOT", manifest_dir())
        .current_dir(manifest_dir())
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
    let image = image::open(out)
        .expect("the screenshot is a PNG")
        .to_rgba8();
    (image, line.to_string())
}

/// Runs an example with no test code of its own (with `args`) under Xvfb, its screen written to `dir`'s
/// frame-buffer file (`-fbdir`, in X's XWD format), and returns the first frame whose `key`
/// (what the test reads of it; `None`: not drawn yet) is the same `reads` reads in a row,
/// 200 ms apart: the frame it settled on. The example is then stopped.
pub fn steady_frame<K: PartialEq>(
    game: (&Path, &[&str]),
    dir: &Path,
    reads: usize,
    key: impl Fn(&image::RgbaImage) -> Option<K>,
) -> image::RgbaImage {
    steady_frame_after_keys(game, &[], dir, reads, key)
}

/// [`steady_frame`], with `keys` (xdotool's names: `Up`, `Right`...) pressed a quarter of a
/// second apart once the first frame is drawn, as a player would; the frame returned is the
/// one the game settles on after the last.
pub fn steady_frame_after_keys<K: PartialEq>(
    (binary, args): (&Path, &[&str]),
    keys: &[&str],
    dir: &Path,
    reads: usize,
    key: impl Fn(&image::RgbaImage) -> Option<K>,
) -> image::RgbaImage {
    std::fs::create_dir_all(dir).unwrap();
    // The display xvfb-run picked, for xdotool: written by the shell that then becomes the game.
    let display = dir.join("display");
    let _ = std::fs::remove_file(&display);
    let mut game = Command::new("timeout")
        .args(["120", "xvfb-run", "-a", "-s"])
        .arg(format!("-screen 0 1280x720x24 -fbdir {}", dir.display()))
        .args([
            "sh",
            "-c",
            r#"echo "$DISPLAY $XAUTHORITY" > "$0"; exec "$@""#,
        ])
        .arg(&display)
        .arg(binary)
        .args(args)
        .env("BEVY_ASSET_ROOT", manifest_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("xvfb-run runs");
    let (mut last, mut same, mut image, mut pressed) = (None, 0, None, keys.is_empty());
    for _ in 0..600 {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let Some(frame) = read_xwd(&dir.join("Xvfb_screen0")) else {
            continue;
        };
        let now = key(&frame);
        if !pressed && now.is_some() {
            press(&display, keys);
            (pressed, last, same) = (true, None, 0);
            continue;
        }
        same = if now.is_some() && last == now {
            same + 1
        } else {
            0
        };
        last = now;
        if same + 1 == reads {
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
    image.expect("the example drew a steady frame within two minutes")
}

/// Presses `keys` on the display named in the file `display`: xdotool gives the game's window
/// the keyboard (there is no window manager to), then presses them as a keyboard would.
fn press(display: &Path, keys: &[&str]) {
    let named = std::fs::read_to_string(display).expect("xvfb-run named its display");
    let (name, auth) = named.trim().split_once(' ').unwrap_or((named.trim(), ""));
    let xdotool = |args: &[&str]| {
        let status = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", name)
            .env("XAUTHORITY", auth)
            .status()
            .expect("xdotool runs (Debian: xdotool)");
        assert!(status.success(), "xdotool {args:?}");
    };
    xdotool(&[
        "search",
        "--sync",
        "--onlyvisible",
        "--name",
        ".",
        "windowfocus",
        "--sync",
    ]);
    xdotool(&[&["key", "--delay", "250"], keys].concat());
}

/// The screen in Xvfb's frame-buffer file: an XWD image (a header of 25 big-endian 32-bit
/// fields, the window name, the colour map, then the pixels), 32 bits a pixel at depth 24.
fn read_xwd(path: &Path) -> Option<image::RgbaImage> {
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

/// The word after `key` in `line`, e.g. `field(line, "sees ")`.
pub fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(key)
        .nth(1)
        .unwrap_or_else(|| panic!("{key:?} in {line:?}"))
        .split([' ', ')', ',', ';'])
        .next()
        .unwrap()
}

/// The pixel `(x, y)` the report gives after `pixel (`, as in `pixel (20.0, 620.0)`.
pub fn pixel<T: std::str::FromStr<Err: std::fmt::Debug>>(line: &str) -> (T, T) {
    let x = field(line, "pixel (");
    let y = field(line, &format!("pixel ({x}, "));
    (x.parse().unwrap(), y.parse().unwrap())
}

/// The map's size in tiles, as a report gives it: `map WxH`.
pub fn map_size(line: &str) -> (u32, u32) {
    let map = field(line, "map ");
    let (width, height) = map
        .split_once('x')
        .unwrap_or_else(|| panic!("a map size in {line:?}"));
    (width.parse().unwrap(), height.parse().unwrap())
}

/// Each tile's mean luminance ([`tile_mean`]), row after row, on a square map of `(width,
/// height)` tiles of `size` pixels whose tile (0, 0) is centred at pixel `origin` (the map's y
/// grows up the window).
pub fn tile_means(
    image: &image::RgbaImage,
    origin: (f64, f64),
    size: f64,
    (width, height): (u32, u32),
) -> Vec<f64> {
    let tiles = (0..height).flat_map(|y| (0..width).map(move |x| (x, y)));
    tiles
        .map(|(x, y)| {
            let centre = (
                origin.0 + size * f64::from(x),
                origin.1 - size * f64::from(y),
            );
            tile_mean(image, centre, size)
        })
        .collect()
}

/// A multiplayer client's part of the frame against its report (`sees n`, `pieces p`,
/// `foreign pieces outside the view f`): its team's fog drawn tile for tile (of `tiles`), its
/// own units among the pieces it holds, and no foreign piece outside its team's view.
pub fn assert_client_draws_its_team(who: &str, report: &str, frame: &Frame, tiles: usize) {
    let sees: usize = field(report, " sees ").parse().unwrap();
    frame.assert_fog_of_war(tiles, sees, tiles / 5, 20);
    let pieces: usize = field(report, "pieces ").parse().unwrap();
    assert!(pieces > 0, "{who} holds its team's units");
    let outside: usize = field(report, "outside the view ").parse().unwrap();
    assert_eq!(
        outside, 0,
        "{who}: every foreign piece held stands where its team sees"
    );
}

/// Mean luminance of the inner square of the tile centred at pixel `(cx, cy)` (a tenth of the
/// tile's size in from each edge).
pub fn tile_mean(image: &image::RgbaImage, (cx, cy): (f64, f64), size: f64) -> f64 {
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

pub fn luminance(p: &image::Rgba<u8>) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

/// What a map shows, tile by tile (or hexagon by hexagon), from each one's mean luminance.
#[derive(Debug)]
pub struct Frame {
    /// Unexplored tiles: black (mean under 3).
    pub black: usize,
    /// Remembered tiles: the tileset times a dimming tint.
    pub dim: usize,
    /// Visible tiles: the tileset's own colours.
    pub bright: usize,
    pub dim_mean: f64,
    pub bright_mean: f64,
    /// The brightest remembered and the darkest visible tile: how far both are from the
    /// threshold between them.
    pub dim_max: f64,
    pub bright_min: f64,
}

impl Frame {
    /// Sorts tiles by their mean luminance: black under 3, dim under `bright_from`, else
    /// bright.
    pub fn of(means: impl IntoIterator<Item = f64>, bright_from: f64) -> Self {
        let mut frame = Frame {
            black: 0,
            dim: 0,
            bright: 0,
            dim_mean: 0.0,
            bright_mean: 0.0,
            dim_max: 0.0,
            bright_min: f64::MAX,
        };
        for mean in means {
            if mean < 3.0 {
                frame.black += 1;
            } else if mean < bright_from {
                frame.dim += 1;
                frame.dim_mean += mean;
                frame.dim_max = frame.dim_max.max(mean);
            } else {
                frame.bright += 1;
                frame.bright_mean += mean;
                frame.bright_min = frame.bright_min.min(mean);
            }
        }
        frame.dim_mean /= frame.dim.max(1) as f64;
        frame.bright_mean /= frame.bright.max(1) as f64;
        frame
    }

    /// Asserts what every fogged frame shows: `tiles` tiles in all, exactly `sees` of them
    /// bright, more than `min_black` black and `min_dim` dim, and remembered tiles clearly
    /// dimmer than visible ones.
    pub fn assert_fog_of_war(&self, tiles: usize, sees: usize, min_black: usize, min_dim: usize) {
        assert_eq!(self.black + self.dim + self.bright, tiles);
        assert_eq!(self.bright, sees, "bright tiles = tiles the team sees");
        assert!(
            self.black > min_black,
            "unexplored tiles are black ({} of {tiles})",
            self.black
        );
        assert!(
            self.dim > min_dim,
            "remembered tiles are shown dimmed ({} of {tiles})",
            self.dim
        );
        assert!(
            self.dim_max + 20.0 < self.bright_min,
            "a clear gap between the brightest remembered tile ({:.1}) and the darkest visible \
             one ({:.1})",
            self.dim_max,
            self.bright_min
        );
        assert!(
            self.dim_mean < 0.6 * self.bright_mean,
            "remembered tiles ({:.1}) are dimmer than visible ones ({:.1})",
            self.dim_mean,
            self.bright_mean
        );
    }
}
