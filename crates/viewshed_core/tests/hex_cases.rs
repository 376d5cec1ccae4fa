//! The hexagonal reference cases in `tests/hex-cases/`: maps and the views the brute-force
//! ORACLE (`common/hex_oracle.rs`) computed for them, which the scan must match exactly.
//! `the_cases_are_the_oracles` checks that the files are what the oracle makes of the scenes;
//! with `VIEWSHED_WRITE_HEX_CASES=1` it writes them again first (see `tests/hex-cases/README.md`).

mod common;

use std::path::PathBuf;

use common::hex_oracle::hex_oracle;
use common::random_grid;
use viewshed_core::ascii::AsciiMap;
use viewshed_core::{FovOptions, HexCoords, HexFov, OpacityGrid, Radius, VisibleSet, Window};

fn cases_dir() -> PathBuf {
    common::manifest_dir().join("tests/hex-cases")
}

/// A case file: `hex SYSTEM`, then an ordinary text map (optional `radius N` line).
fn read_case(text: &str) -> (HexCoords, AsciiMap) {
    let (first, map) = text.split_once('\n').expect("a first line");
    let coords = first
        .strip_prefix("hex ")
        .expect("hex SYSTEM")
        .parse()
        .unwrap();
    (coords, AsciiMap::parse(map).unwrap())
}

fn options(map: &AsciiMap) -> FovOptions {
    FovOptions::unlimited().with_radius(map.radius)
}

#[test]
fn hex_reference_cases_match() {
    let mut fov = HexFov::new();
    let mut visible = VisibleSet::new();
    let mut ids: Vec<_> = std::fs::read_dir(cases_dir())
        .unwrap()
        .filter_map(|e| {
            e.unwrap()
                .file_name()
                .to_str()?
                .strip_suffix(".map")
                .map(str::to_owned)
        })
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 14, "the cases are there");
    for id in ids {
        let text = std::fs::read_to_string(cases_dir().join(format!("{id}.map"))).unwrap();
        let expected = std::fs::read_to_string(cases_dir().join(format!("{id}.expected"))).unwrap();
        let (coords, map) = read_case(&text);
        fov.compute(&map.grid, coords, map.viewer, options(&map), &mut visible)
            .unwrap();
        assert_eq!(
            map.draw_visible_hex(&visible, coords),
            expected,
            "case {id}"
        );
    }
}

/// The floor nearest the middle of the map, for the viewer.
fn middle_floor(grid: &OpacityGrid) -> (u32, u32) {
    let (cx, cy) = (grid.width() / 2, grid.height() / 2);
    let floors = (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| (x, y)));
    floors
        .filter(|&(x, y)| !grid.is_opaque(x, y))
        .min_by_key(|&(x, y)| x.abs_diff(cx).pow(2) + y.abs_diff(cy).pow(2))
        .unwrap_or((cx, cy))
}

fn case_text(coords: HexCoords, grid: &OpacityGrid, viewer: (u32, u32), radius: Radius) -> String {
    let mut text = format!("hex {}\n", coords.name());
    if let Radius::Limited(r) = radius {
        text += &format!("radius {r}\n");
    }
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            text.push(match ((x, y) == viewer, grid.is_opaque(x, y)) {
                (true, _) => '@',
                (_, true) => '#',
                _ => '.',
            });
        }
        text.push('\n');
    }
    text
}

/// The cases on file are the oracle's views of the scenes below, each file byte for byte; with
/// `VIEWSHED_WRITE_HEX_CASES=1` they are written from the oracle first.
#[test]
fn the_cases_are_the_oracles() {
    let write = std::env::var("VIEWSHED_WRITE_HEX_CASES").as_deref() == Ok("1");
    let mut id = 0;
    for (i, coords) in HexCoords::ALL.into_iter().enumerate() {
        let scenes = [
            (24, 16, 15, Radius::Unlimited),
            (30, 20, 30, Radius::Limited(9)),
        ];
        for (width, height, density, radius) in scenes {
            let grid = random_grid(width, height, density, 100 + id);
            check_case(id, coords, &grid, middle_floor(&grid), radius, write);
            id += 1;
        }
        // Two walls sharing an edge along the viewer's diagonal, and one wall alone.
        if i < 2 {
            let grid =
                OpacityGrid::from_fn(9, 9, |x, y| [(5, 4), (4, 5), (2, 6)].contains(&(x, y)));
            check_case(id, coords, &grid, (4, 4), Radius::Unlimited, write);
            id += 1;
        }
    }
    assert_eq!(id, 14, "every case on file has a scene");
}

/// Compares case `id`'s files with the oracle's view of the scene (writes them first if `write`).
fn check_case(
    id: u64,
    coords: HexCoords,
    grid: &OpacityGrid,
    viewer: (u32, u32),
    radius: Radius,
    write: bool,
) {
    let text = case_text(coords, grid, viewer, radius);
    let (_, map) = read_case(&text);
    let seen = hex_oracle(&map.grid, coords, map.viewer, options(&map));
    // The oracle's cells as a set over the whole map, drawn as the test draws the scan's.
    let (width, height) = (grid.width(), grid.height());
    let stride = width.div_ceil(64) as usize;
    let mut words = vec![0u64; stride * height as usize];
    for (x, y) in seen {
        words[y as usize * stride + x as usize / 64] |= 1 << (x % 64);
    }
    let window = Window {
        x: 0,
        y: 0,
        width,
        height,
    };
    let visible = VisibleSet::from_words(window, words).unwrap();
    let expected = map.draw_visible_hex(&visible, coords);
    let (map_file, expected_file) = (
        cases_dir().join(format!("{id:03}.map")),
        cases_dir().join(format!("{id:03}.expected")),
    );
    if write {
        std::fs::write(&map_file, &text).unwrap();
        std::fs::write(&expected_file, &expected).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(map_file).unwrap(),
        text,
        "case {id}'s map"
    );
    assert_eq!(
        std::fs::read_to_string(expected_file).unwrap(),
        expected,
        "case {id}'s view is the oracle's"
    );
}
