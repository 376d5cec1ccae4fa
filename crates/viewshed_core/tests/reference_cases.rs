//! Every reference case in `tests/fov-cases/` (a copy of the project's shared cases, made by
//! an exact rational implementation of Albert Ford's rules) must come out cell for cell.

use std::path::PathBuf;

mod common;

use viewshed_core::ascii::AsciiMap;
use viewshed_core::{Fov, FovOptions, Radius, VisibleSet};

fn cases_dir() -> PathBuf {
    common::manifest_dir().join("tests/fov-cases")
}

fn case_ids() -> Vec<String> {
    let index = std::fs::read_to_string(cases_dir().join("INDEX.tsv")).expect("INDEX.tsv");
    index
        .lines()
        .skip(1)
        .map(|line| line.split('\t').next().unwrap().to_string())
        .collect()
}

fn trimmed_lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim_end).collect()
}

#[test]
fn all_reference_cases_match_exactly() {
    let ids = case_ids();
    assert_eq!(ids.len(), 200, "the index lists 200 cases");
    let mut fov = Fov::new();
    let mut visible = VisibleSet::new();
    let mut failures = Vec::new();
    for id in &ids {
        let map_text = std::fs::read_to_string(cases_dir().join(format!("{id}.map"))).unwrap();
        let expected = std::fs::read_to_string(cases_dir().join(format!("{id}.expected"))).unwrap();
        let map = AsciiMap::parse(&map_text).unwrap_or_else(|e| panic!("case {id}: {e}"));
        let options = FovOptions {
            radius: map.radius,
            light_walls: true,
            ..FovOptions::default()
        };
        fov.compute(&map.grid, map.viewer, options, &mut visible)
            .unwrap();
        let actual = map.draw_visible(&visible);
        if trimmed_lines(&actual) != trimmed_lines(&expected) {
            failures.push(format!(
                "case {id}:\n--- expected\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ; first:\n{}",
        failures.len(),
        ids.len(),
        failures[0]
    );
}

/// The index's numbers agree with the files, so the cases really cover what it says.
#[test]
fn index_matches_the_case_files() {
    let index = std::fs::read_to_string(cases_dir().join("INDEX.tsv")).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    let mut unlimited = 0;
    for line in index.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (id, kind, width, height, vx, vy, radius, count) =
            (f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
        kinds.insert(kind.to_string());
        let map = AsciiMap::parse(
            &std::fs::read_to_string(cases_dir().join(format!("{id}.map"))).unwrap(),
        )
        .unwrap();
        assert_eq!(map.grid.width().to_string(), width, "case {id}");
        assert_eq!(map.grid.height().to_string(), height, "case {id}");
        assert_eq!(
            map.viewer,
            (vx.parse().unwrap(), vy.parse().unwrap()),
            "case {id}"
        );
        match map.radius {
            Radius::Unlimited => {
                assert_eq!(radius, "unlimited", "case {id}");
                unlimited += 1;
            }
            Radius::Limited(r) => assert_eq!(r.to_string(), radius, "case {id}"),
        }
        let expected = std::fs::read_to_string(cases_dir().join(format!("{id}.expected"))).unwrap();
        let cells = expected.chars().filter(|c| !c.is_whitespace()).count();
        assert_eq!(cells.to_string(), count, "case {id}");
    }
    assert!(kinds.len() >= 9, "kinds: {kinds:?}");
    assert!(unlimited > 0);
}

/// With light walls off the result is exactly the reference result without its walls
/// (the viewer's own cell stays).
#[test]
fn reference_cases_without_light_walls_drop_only_the_walls() {
    let mut fov = Fov::new();
    let (mut lit, mut dark) = (VisibleSet::new(), VisibleSet::new());
    for id in case_ids() {
        let map_text = std::fs::read_to_string(cases_dir().join(format!("{id}.map"))).unwrap();
        let map = AsciiMap::parse(&map_text).unwrap();
        let options = FovOptions {
            radius: map.radius,
            light_walls: true,
            ..FovOptions::default()
        };
        fov.compute(&map.grid, map.viewer, options, &mut lit)
            .unwrap();
        fov.compute(
            &map.grid,
            map.viewer,
            options.with_light_walls(false),
            &mut dark,
        )
        .unwrap();
        let expected: Vec<_> = lit
            .iter()
            .filter(|&(x, y)| !map.grid.is_opaque(x, y) || (x, y) == map.viewer)
            .collect();
        assert_eq!(dark.iter().collect::<Vec<_>>(), expected, "case {id}");
    }
}
