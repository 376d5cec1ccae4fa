//! The README's quick start is `examples/quick_start.rs`, word for word, and it draws what it
//! says: played under Xvfb, whose screen is read from its frame-buffer file (`-fbdir`, in X's
//! XWD format) so that the example stays the README's code and nothing more, and walked with
//! the arrow keys (xdotool), the window shows the tiles the player sees lit, the ones it saw
//! on its way dimmed and the rest black, tile by tile as the core's field of view gives them.
//!
//! And the README takes an empty folder there: its install commands make a new project (with
//! this checkout in place of the registry's bevy_viewshed), its quick start pasted into
//! `src/main.rs` builds, and the program shows the same.
//!
//! Those tests are `#[ignore]`d: they need Xvfb, xdotool and Vulkan (see
//! `tests/common_screenshot`); `.ci/run` runs them with `--include-ignored`.

mod common_screenshot;

use bevy_viewshed::{FovOptions, OpacityGrid, field_of_view};
use common_screenshot::{build_example, steady_frame_after_keys};
use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLE: &str = include_str!("../examples/quick_start.rs");
const README: &str = include_str!("../README.md");

/// The first block fenced as `fence` in the README's section `title`.
fn readme_block(title: &str, fence: &str) -> &'static str {
    let section = &README[README.find(title).expect("the README has the section")..];
    let start = section.find(fence).expect("the section has the block");
    let code = &section[start..];
    let code = &code[code.find('\n').unwrap() + 1..];
    &code[..code.find("```").expect("the block ends")]
}

/// The Rust block of the README's "Quick start" section.
fn readme_quick_start() -> &'static str {
    readme_block("## Quick start", "```rust")
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

/// The walk the tests play: up one tile, then eight to the right, past the first pillars.
const KEYS: [&str; 9] = [
    "Up", "Right", "Right", "Right", "Right", "Right", "Right", "Right", "Right",
];

#[test]
#[ignore = "needs a display: run under Xvfb with --include-ignored (.ci/run does)"]
fn the_quick_start_shows_what_its_player_sees_and_saw() {
    let binary = build_example("quick_start");
    let dir = common_screenshot::screenshot_dir().join("quick_start");
    assert_walk_shows_the_fog(&binary, &dir);
}

#[test]
#[ignore = "builds a new project and needs a display: .ci/run runs it with --include-ignored"]
fn the_readme_takes_an_empty_folder_to_a_fogged_room() {
    let binary = fresh_project();
    let dir = common_screenshot::screenshot_dir().join("fresh_project");
    assert_walk_shows_the_fog(&binary, &dir);
}

/// Follows the README's "Install" commands in an empty folder (`cargo add bevy_viewshed`
/// takes this checkout), pastes its quick start into `src/main.rs` and builds it: the new
/// project's program.
fn fresh_project() -> PathBuf {
    assert!(
        EXAMPLE.contains("const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };"),
        "the room this test expects is the example's"
    );
    let root = common_screenshot::target_dir().join("fresh_project");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let mut dir = root.clone();
    let install = readme_block("## Install", "```sh");
    for command in install.lines().flat_map(|line| line.split("&&")) {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["cd", to] => dir = dir.join(to),
            ["cargo", args @ ..] => cargo(&dir, &with_checkout(args)),
            _ => panic!("the README's install runs only cargo and cd: {command}"),
        }
    }
    std::fs::write(dir.join("src/main.rs"), readme_quick_start()).expect("main.rs is written");
    cargo(&dir, &["build".to_string()]);
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    fresh_target().join("debug").join(name)
}

/// `cargo add ... bevy_viewshed` with this checkout in place of the registry's crate.
fn with_checkout(args: &[&str]) -> Vec<String> {
    args.iter()
        .flat_map(|&arg| match arg {
            "bevy_viewshed" => vec![
                "--path".into(),
                std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
            ],
            _ => vec![arg.to_string()],
        })
        .collect()
}

/// Runs cargo in `dir`, with the fresh project's own target folder.
fn cargo(dir: &Path, args: &[String]) {
    let status = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", fresh_target())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo {args:?} in {}", dir.display());
}

/// Where the fresh project's builds are kept, from one run to the next.
fn fresh_target() -> PathBuf {
    common_screenshot::target_dir().join("fresh_project_target")
}

/// Plays the walk under Xvfb and holds every tile of the settled frame to the core's field of
/// view: lit where the player sees from where it stands, dimmed where it saw on its way,
/// black elsewhere, with the player drawn on its tile.
fn assert_walk_shows_the_fog(binary: &Path, dir: &Path) {
    let image = steady_frame_after_keys((binary, &[]), &KEYS, dir, 3, |frame| {
        let looks = tile_looks(frame);
        looks.contains(&Look::Lit).then_some(looks)
    });
    image
        .save(dir.join("walked.png"))
        .expect("the frame is saved");
    let grid = OpacityGrid::from_fn(SIZE.0, SIZE.1, is_wall);
    let view = |at| field_of_view(&grid, at, FovOptions::radius(8)).unwrap();
    let path: Vec<(u32, u32)> = [(2, 2)]
        .into_iter()
        .chain((2..=10).map(|x| (x, 3)))
        .collect();
    let sees = view(*path.last().unwrap());
    let saw: Vec<_> = path.iter().map(|&at| view(at)).collect();
    let looks = tile_looks(&image);
    let mut counts = [0; 3];
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let expected = if sees.contains(x, y) {
                Look::Lit
            } else if saw.iter().any(|view| view.contains(x, y)) {
                Look::Dimmed
            } else {
                Look::Black
            };
            let drawn = looks[(y * SIZE.0 + x) as usize];
            assert_eq!(drawn, expected, "tile ({x}, {y}) in {}", dir.display());
            counts[expected as usize] += 1;
        }
    }
    assert!(
        counts.iter().all(|&n| n > 0),
        "lit, dimmed and black: {counts:?}"
    );
    assert!(
        player_drawn(&image, (10, 3)),
        "the player is drawn on (10, 3)"
    );
    println!(
        "lit, dimmed, black tiles: {counts:?}; the frame is in {}",
        dir.display()
    );
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Look {
    Lit,
    Dimmed,
    Black,
}

/// The centre of a tile on the screen: the room fills the 1280x720 window, tile (0, 0) centred
/// 15.5 and 8.5 tiles left of and below the window's centre, 40 pixels a tile (16 pixels drawn
/// 2.5 times).
fn centre((x, y): (u32, u32)) -> (f64, f64) {
    (
        640.0 + (f64::from(x) - 15.5) * 40.0,
        360.0 - (f64::from(y) - 8.5) * 40.0,
    )
}

/// How each tile of the room is drawn, row after row, by the mean luminance of its middle:
/// black (under 12), dimmed (the remembered tint, under 60) or lit.
fn tile_looks(image: &image::RgbaImage) -> Vec<Look> {
    let mut looks = Vec::new();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let mean = common_screenshot::tile_mean(image, centre((x, y)), 25.0);
            looks.push(match mean {
                m if m < 12.0 => Look::Black,
                m if m < 60.0 => Look::Dimmed,
                _ => Look::Lit,
            });
        }
    }
    looks
}

/// Whether the player's yellow figure is drawn on `tile`.
fn player_drawn(image: &image::RgbaImage, tile: (u32, u32)) -> bool {
    let (cx, cy) = centre(tile);
    let p = image.get_pixel(cx as u32, cy as u32);
    p[0] > 200 && p[1] > 170 && p[2] < 120
}
