//! High ground (`viewshed_core::elevation`): reference cases drawn by hand, then every entry
//! point (square, hexagonal, staggered) held on random maps to the rule as its docs state it
//! ("a cell higher than the viewer's eye blocks sight beyond it, the way a wall does; cells at
//! or below the eye do not; walls stay walls at any height"), written here cell by cell, and
//! `SightLevels` after random edits held to a plain model rebuilt from scratch. Bad input
//! gives errors, never a panic.

mod common;

use std::collections::BTreeSet;

use common::{oracle_with, radius, random_grid, scene};
use proptest::prelude::*;
use viewshed_core::ascii::AsciiMap;
use viewshed_core::elevation::MAX_LEVEL;
use viewshed_core::staggered::{diamond_grid, to_diamond, view_to_tiles};
use viewshed_core::{
    CliffFaces, DistanceShape, ElevationError, ElevationGrid, ElevationOptions, EyeLevels,
    FovError, FovMode, FovOptions, HexCoords, OpacityGrid, SightLevels, VisibleSet, VisionCone,
    field_of_view, field_of_view_with_elevation, hex_field_of_view,
    hex_field_of_view_with_elevation, staggered_field_of_view_with_elevation,
};

// ---------------------------------------------------------------------------------------------
// Reference cases
// ---------------------------------------------------------------------------------------------

/// A hand-drawn map with levels: optional lines `eye N` (the eye height), `on N` (the level
/// of the viewer's cell) and `hidden` (cliff faces hidden), then the rows: `.` a floor at
/// level 0, a digit a floor at that level, `#` a wall (level 0), `@` the viewer.
struct Case {
    rows: Vec<Vec<u8>>,
    walls: OpacityGrid,
    levels: ElevationGrid,
    viewer: (u32, u32),
    elevation: ElevationOptions,
}

impl Case {
    fn parse(text: &str) -> Self {
        let mut lines = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .peekable();
        let (mut elevation, mut on) = (ElevationOptions::default(), 0);
        while let Some(line) = lines.next_if(|l| l.starts_with(char::is_alphabetic)) {
            match line.split_once(' ') {
                Some(("eye", n)) => elevation.eye_height = n.parse().unwrap(),
                Some(("on", n)) => on = n.parse().unwrap(),
                _ if line == "hidden" => elevation.cliff_faces = CliffFaces::Hidden,
                _ => panic!("unknown line {line:?}"),
            }
        }
        let rows: Vec<Vec<u8>> = lines.map(|l| l.bytes().collect()).collect();
        let flat: String = rows
            .iter()
            .map(|row| {
                let cells = row
                    .iter()
                    .map(|&c| if c.is_ascii_digit() { '.' } else { c as char });
                cells.chain(['\n']).collect::<String>()
            })
            .collect();
        let map = AsciiMap::parse(&flat).unwrap();
        let levels = ElevationGrid::from_fn(map.grid.width(), map.grid.height(), |x, y| {
            let cell = rows[y as usize][x as usize];
            match cell {
                b'@' => on,
                b'0'..=b'9' => cell - b'0',
                _ => 0,
            }
        });
        Self {
            rows,
            walls: map.grid,
            levels,
            viewer: map.viewer,
            elevation,
        }
    }

    /// The rows with the cells the viewer does not see as spaces, trailing spaces cut.
    fn draw(&self, options: FovOptions) -> Vec<String> {
        let view = field_of_view_with_elevation(
            &self.walls,
            &self.levels,
            self.viewer,
            self.elevation,
            options,
        )
        .unwrap();
        (0..)
            .zip(&self.rows)
            .map(|(y, row)| {
                let cells = (0..).zip(row).map(|(x, &cell)| {
                    if view.contains(x, y) {
                        cell as char
                    } else {
                        ' '
                    }
                });
                cells.collect::<String>().trim_end().to_string()
            })
            .collect()
    }
}

/// What the viewer of `map` sees, with unlimited sight, is `expected`.
fn assert_sees(map: &str, expected: &[&str]) {
    assert_sees_with(map, FovOptions::unlimited(), expected);
}

fn assert_sees_with(map: &str, options: FovOptions, expected: &[&str]) {
    assert_eq!(Case::parse(map).draw(options), expected, "map:\n{map}");
}

#[test]
fn low_ground_sees_the_cliffs_face_but_not_past_it() {
    assert_sees("@..222..", &["@..2"]);
    assert_sees(
        "...2...
         @..2...
         ...2...",
        &["...2", "@..2", "...2"],
    );
}

#[test]
fn high_ground_sees_down_into_the_valley() {
    assert_sees("on 3\n......33@", &["......33@"]);
    assert_sees(
        "on 3
         ......
         .333..
         .3@3..
         .333..
         ......",
        &["......", ".333..", ".3@3..", ".333..", "......"],
    );
}

#[test]
fn high_ground_is_not_symmetric() {
    let case = Case::parse("@..333.");
    let eye = ElevationOptions::eye_height(0);
    let sees = |from: (u32, u32), to: (u32, u32)| {
        let all = FovOptions::unlimited();
        field_of_view_with_elevation(&case.walls, &case.levels, from, eye, all)
            .unwrap()
            .contains(to.0, to.1)
    };
    assert!(sees((4, 0), (0, 0)), "the hill sees the valley");
    assert!(!sees((0, 0), (4, 0)), "the valley does not see the hill");
    assert!(sees((0, 0), (3, 0)), "only its face");
}

#[test]
fn walls_block_at_any_height() {
    assert_sees("on 9\neye 5\n..#..@", &["  #..@"]);
    assert_sees("eye 255\n@.#..", &["@.#"]);
    assert_sees("on 9\n@.#999.", &["@.#"]);
}

#[test]
fn equal_levels_do_not_block_and_one_level_more_does() {
    assert_sees("on 3\n@333..", &["@333.."]);
    assert_sees("on 3\n@334..", &["@334"]);
    assert_sees("on 2\n..2@2..", &["..2@2.."]);
}

#[test]
fn an_eye_height_lifts_the_eye() {
    assert_sees("@..2..", &["@..2"]);
    assert_sees("eye 1\n@..2..", &["@..2"]);
    assert_sees("eye 2\n@..2..", &["@..2.."]);
    assert_sees("on 1\neye 1\n@..2..", &["@..2.."]);
    assert_sees("on 15\neye 15\n@..9#.", &["@..9#"]);
}

#[test]
fn hidden_cliff_faces_take_out_what_is_above_the_eye() {
    assert_sees("hidden\n@..22..", &["@.."]);
    assert_sees(
        "hidden
         ...2...
         @..2...
         ...2...",
        &["...", "@..", "..."],
    );
    assert_sees("hidden\neye 2\n@..2..", &["@..2.."]);
    assert_sees("hidden\n@.#.2", &["@.#"]);
}

#[test]
fn without_light_walls_cliff_faces_are_not_reported_either() {
    let dark = FovOptions::unlimited().with_light_walls(false);
    assert_sees_with("@.#..", dark, &["@."]);
    assert_sees_with("@..2..", dark, &["@.."]);
}

// ---------------------------------------------------------------------------------------------
// The rule, written plainly
// ---------------------------------------------------------------------------------------------

/// The level of a cell, 0 off the grid.
fn level(levels: &ElevationGrid, x: u32, y: u32) -> u8 {
    levels.get(x, y).unwrap_or(0)
}

/// The viewer's eye: its cell's level plus the eye height, at most `MAX_LEVEL`.
fn eye_of(levels: &ElevationGrid, (x, y): (u32, u32), eye_height: u8) -> u8 {
    (u32::from(level(levels, x, y)) + u32::from(eye_height)).min(u32::from(MAX_LEVEL)) as u8
}

/// The rule, cell by cell: opaque where a wall stands or the level is above the eye.
fn thresholded(walls: &OpacityGrid, levels: &ElevationGrid, eye: u8) -> OpacityGrid {
    OpacityGrid::from_fn(walls.width(), walls.height(), |x, y| {
        walls.is_opaque(x, y) || level(levels, x, y) > eye
    })
}

/// `view` with the cells above `eye` taken out when the faces are hidden.
fn faces(mut view: VisibleSet, levels: &ElevationGrid, eye: u8, cliffs: CliffFaces) -> VisibleSet {
    if cliffs == CliffFaces::Hidden {
        view.retain(|x, y| level(levels, x, y) <= eye);
    }
    view
}

fn cells(view: &VisibleSet) -> BTreeSet<(u32, u32)> {
    view.iter().collect()
}

// ---------------------------------------------------------------------------------------------
// Random maps
// ---------------------------------------------------------------------------------------------

/// Deterministic levels: plateaus `block` cells wide at random levels up to `top` (levels above
/// `MAX_LEVEL` included: `from_fn` cuts them).
fn random_levels(width: u32, height: u32, top: u8, block: u32, seed: u64) -> ElevationGrid {
    ElevationGrid::from_fn(width, height, |x, y| {
        let key = (u64::from(x / block) << 32 | u64::from(y / block)) ^ seed;
        let mixed = mix(key);
        (mixed % (u64::from(top) + 1)) as u8
    })
}

/// splitmix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Levels for a `width` x `height` map: flat, low, high or past `MAX_LEVEL`, in plateaus.
fn levels_for(width: u32, height: u32) -> impl Strategy<Value = ElevationGrid> {
    (
        prop_oneof![Just(0u8), 1u8..=3, 4u8..=15, 16u8..=40],
        1u32..=4,
        any::<u64>(),
    )
        .prop_map(move |(top, block, seed)| random_levels(width, height, top, block, seed))
}

fn eye_height() -> impl Strategy<Value = u8> {
    prop_oneof![4 => 0u8..=3, 1 => 4u8..=16, 1 => Just(u8::MAX)]
}

fn cliff_faces() -> impl Strategy<Value = CliffFaces> {
    prop_oneof![Just(CliffFaces::Seen), Just(CliffFaces::Hidden)]
}

fn elevation_options() -> impl Strategy<Value = ElevationOptions> {
    (eye_height(), cliff_faces())
        .prop_map(|(h, c)| ElevationOptions::eye_height(h).with_cliff_faces(c))
}

fn options() -> impl Strategy<Value = FovOptions> {
    let shape = prop::sample::select(vec![
        DistanceShape::Euclidean,
        DistanceShape::Chebyshev,
        DistanceShape::Manhattan,
    ]);
    let cone = (-7.0f64..7.0, 0.0f64..7.0).prop_map(|(f, w)| VisionCone::new(f, w));
    let mode = prop_oneof![3 => Just(FovMode::Symmetric), 1 => Just(FovMode::Permissive)];
    (
        radius(),
        shape,
        any::<bool>(),
        prop::option::weighted(0.2, cone),
        mode,
    )
        .prop_map(|(radius, shape, light_walls, cone, mode)| FovOptions {
            radius,
            shape,
            light_walls,
            cone,
            mode,
        })
}

/// A square map: walls, levels of its size and a viewer on it.
fn square_scene(max_side: u32) -> impl Strategy<Value = (OpacityGrid, ElevationGrid, (u32, u32))> {
    scene(max_side).prop_flat_map(|s| {
        let (w, h) = (s.grid.width(), s.grid.height());
        levels_for(w, h).prop_map(move |levels| (s.grid.clone(), levels, s.viewer))
    })
}

/// A staggered map `w` x `h` tiles on its diamond grid: tile walls, levels on the diamond
/// cells, and a viewer's tile.
fn staggered_scene() -> impl Strategy<Value = (OpacityGrid, ElevationGrid, u32, (u32, u32))> {
    (
        1u32..=16,
        1u32..=16,
        common::density(),
        any::<u64>(),
        any::<(u32, u32)>(),
    )
        .prop_flat_map(|(w, h, density, seed, (px, py))| {
            let mut walls = diamond_grid(w, h);
            let tiles = random_grid(w, h, density, seed);
            for (x, y) in tiles.opaque_cells() {
                let (u, v) = to_diamond((x, y));
                walls.set_opaque(u, v, true);
            }
            let viewer = (px % w, py % h);
            levels_for(walls.width(), walls.height())
                .prop_map(move |levels| (walls.clone(), levels, h, viewer))
        })
}

proptest! {
    // 192 cases, or PROPTEST_CASES.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(192),
        ..ProptestConfig::default()
    })]

    /// `sight_grid` is the rule, and the square entry point is `field_of_view` on it (and the
    /// plain reading of the shadowcasting rules on it), then the faces.
    #[test]
    fn square_views_are_the_plain_view_of_the_thresholded_grid(
        (walls, levels, viewer) in square_scene(40),
        elevation in elevation_options(),
        options in options(),
    ) {
        let eye = eye_of(&levels, viewer, elevation.eye_height);
        prop_assert_eq!(levels.eye_level(viewer.0, viewer.1, elevation.eye_height), eye);
        let sight = thresholded(&walls, &levels, eye);
        prop_assert_eq!(&levels.sight_grid(&walls, eye), &sight);
        let ours =
            field_of_view_with_elevation(&walls, &levels, viewer, elevation, options).unwrap();
        let base = field_of_view(&sight, viewer, options).unwrap();
        let expected = faces(base, &levels, eye, elevation.cliff_faces);
        prop_assert_eq!(cells(&ours), cells(&expected));
        let mut plain = oracle_with(&sight, viewer, options);
        if elevation.cliff_faces == CliffFaces::Hidden {
            plain.retain(|&(x, y)| level(&levels, x, y) <= eye);
        }
        prop_assert_eq!(cells(&ours), plain);
    }

    /// The hexagonal entry point is `hex_field_of_view` on the thresholded grid, then the faces.
    #[test]
    fn hex_views_are_the_plain_view_of_the_thresholded_grid(
        (walls, levels, viewer) in square_scene(40),
        coords in prop::sample::select(HexCoords::ALL.to_vec()),
        elevation in elevation_options(),
        options in options(),
    ) {
        let eye = eye_of(&levels, viewer, elevation.eye_height);
        let ours =
            hex_field_of_view_with_elevation(&walls, &levels, coords, viewer, elevation, options)
                .unwrap();
        let sight = thresholded(&walls, &levels, eye);
        let base = hex_field_of_view(&sight, coords, viewer, options).unwrap();
        prop_assert_eq!(cells(&ours), cells(&faces(base, &levels, eye, elevation.cliff_faces)));
    }

    /// The staggered entry point is `field_of_view` on the thresholded diamond grid from the
    /// viewer's diamond cell, then the faces, brought back to tiles.
    #[test]
    fn staggered_views_are_the_plain_view_of_the_thresholded_diamond_grid(
        (walls, levels, tiles_high, viewer) in staggered_scene(),
        elevation in elevation_options(),
        options in options(),
    ) {
        let ours = staggered_field_of_view_with_elevation(
            &walls, &levels, tiles_high, viewer, elevation, options,
        )
        .unwrap();
        let diamond = to_diamond(viewer);
        let eye = eye_of(&levels, diamond, elevation.eye_height);
        let base = field_of_view(&thresholded(&walls, &levels, eye), diamond, options).unwrap();
        let mut tiles = VisibleSet::new();
        view_to_tiles(&faces(base, &levels, eye, elevation.cliff_faces), tiles_high, &mut tiles);
        prop_assert_eq!(cells(&ours), cells(&tiles));
        prop_assert!(ours.contains(viewer.0, viewer.1));
    }

    /// On flat ground (every level 0) every entry point is the plain one, whatever the eye
    /// height and the faces.
    #[test]
    fn flat_ground_is_the_plain_view(
        (walls, _, viewer) in square_scene(40),
        (stagger_walls, _, tiles_high, tile) in staggered_scene(),
        coords in prop::sample::select(HexCoords::ALL.to_vec()),
        elevation in elevation_options(),
        options in options(),
    ) {
        let flat = ElevationGrid::new(walls.width(), walls.height());
        let square =
            field_of_view_with_elevation(&walls, &flat, viewer, elevation, options).unwrap();
        prop_assert_eq!(square, field_of_view(&walls, viewer, options).unwrap());
        let hex =
            hex_field_of_view_with_elevation(&walls, &flat, coords, viewer, elevation, options)
                .unwrap();
        prop_assert_eq!(hex, hex_field_of_view(&walls, coords, viewer, options).unwrap());
        let flat = ElevationGrid::new(stagger_walls.width(), stagger_walls.height());
        let staggered = staggered_field_of_view_with_elevation(
            &stagger_walls, &flat, tiles_high, tile, elevation, options,
        )
        .unwrap();
        let mut tiles = VisibleSet::new();
        let base = field_of_view(&stagger_walls, to_diamond(tile), options).unwrap();
        view_to_tiles(&base, tiles_high, &mut tiles);
        prop_assert_eq!(staggered, tiles);
    }

    /// Viewers with the same eye level look through one grid: between floors, who sees whom
    /// is symmetric.
    #[test]
    fn the_same_eye_level_sees_both_ways(
        (mut walls, levels, viewer) in square_scene(24),
        eye_height in 0u8..=3,
    ) {
        walls.set_opaque(viewer.0, viewer.1, false);
        let elevation = ElevationOptions::eye_height(eye_height);
        let all = FovOptions::unlimited();
        let eye = levels.eye_level(viewer.0, viewer.1, eye_height);
        let seen = field_of_view_with_elevation(&walls, &levels, viewer, elevation, all).unwrap();
        for (x, y) in seen.iter() {
            if !walls.is_opaque(x, y) && levels.eye_level(x, y, eye_height) == eye {
                let back = field_of_view_with_elevation(&walls, &levels, (x, y), elevation, all)
                    .unwrap();
                let seen_back = back.contains(viewer.0, viewer.1);
                prop_assert!(seen_back, "{:?} sees {:?} but not back", viewer, (x, y));
            }
        }
    }

    /// Walls and levels of different sizes: the thresholded grid is the walls' size, cells
    /// off the levels at level 0.
    #[test]
    fn sizes_need_not_agree(
        walls in common::scene(20).prop_map(|s| s.grid),
        (w, h) in (0u32..=24, 0u32..=24),
        seed: u64,
        eye in 0u8..=20,
    ) {
        let levels = random_levels(w, h, 15, 2, seed);
        let eye = eye.min(MAX_LEVEL);
        prop_assert_eq!(levels.sight_grid(&walls, eye), thresholded(&walls, &levels, eye));
    }
}

// ---------------------------------------------------------------------------------------------
// SightLevels against a plain model
// ---------------------------------------------------------------------------------------------

/// One thing done to a `SightLevels`; cells and levels may be off the grid or too high.
#[derive(Clone, Debug)]
enum Op {
    Level((u32, u32), u8),
    Wall((u32, u32), bool),
    Ask(u8),
    Forget(Vec<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    let cell = any::<(u32, u32)>();
    prop_oneof![
        6 => (cell, prop_oneof![8 => 0u8..=15, 1 => 16u8..=255]).prop_map(|(c, l)| Op::Level(c, l)),
        3 => (cell, any::<bool>()).prop_map(|(c, o)| Op::Wall(c, o)),
        3 => (0u8..=17).prop_map(Op::Ask),
        1 => prop::collection::vec(0u8..=17, 0..4).prop_map(Op::Forget),
    ]
}

/// The map as plain vectors.
#[derive(Clone, Debug)]
struct Model {
    width: u32,
    height: u32,
    walls: Vec<bool>,
    levels: Vec<u8>,
}

impl Model {
    fn of(walls: &OpacityGrid, levels: &ElevationGrid) -> Self {
        let cells: Vec<(u32, u32)> = (0..walls.height())
            .flat_map(|y| (0..walls.width()).map(move |x| (x, y)))
            .collect();
        Self {
            width: walls.width(),
            height: walls.height(),
            walls: cells.iter().map(|&(x, y)| walls.is_opaque(x, y)).collect(),
            levels: cells.iter().map(|&(x, y)| level(levels, x, y)).collect(),
        }
    }

    fn index(&self, (x, y): (u32, u32)) -> Option<usize> {
        (x < self.width && y < self.height).then(|| (y * self.width + x) as usize)
    }

    fn blocks(&self, i: usize, eye: u8) -> bool {
        self.walls[i] || self.levels[i] > eye
    }

    /// The eye levels whose views a change of cell `i` from `before` can reach: those at
    /// which the cell blocks differently, or is above the eye in one and not the other
    /// (`CliffFaces::Hidden` takes it out there).
    fn changed_since(&self, before: &Model, i: usize) -> EyeLevels {
        (0..=MAX_LEVEL)
            .filter(|&eye| {
                self.blocks(i, eye) != before.blocks(i, eye)
                    || (self.levels[i] > eye) != (before.levels[i] > eye)
            })
            .fold(EyeLevels::NONE, EyeLevels::with)
    }

    fn grid(&self, eye: u8) -> OpacityGrid {
        let eye = eye.min(MAX_LEVEL);
        OpacityGrid::from_fn(self.width, self.height, |x, y| {
            self.blocks((y * self.width + x) as usize, eye)
        })
    }

    /// What `op` returns on a cell op, and the model after it.
    fn apply(&mut self, op: &Op) -> Option<Result<EyeLevels, ElevationError>> {
        let cell = match *op {
            Op::Level(cell, _) | Op::Wall(cell, _) => cell,
            Op::Ask(_) | Op::Forget(_) => return None,
        };
        let Some(i) = self.index(cell) else {
            let (width, height) = (self.width, self.height);
            return Some(Err(ElevationError::OutsideGrid {
                cell,
                width,
                height,
            }));
        };
        let before = self.clone();
        match *op {
            Op::Level(_, level) if level > MAX_LEVEL => {
                return Some(Err(ElevationError::LevelTooHigh { level }));
            }
            Op::Level(_, level) => self.levels[i] = level,
            Op::Wall(_, opaque) => self.walls[i] = opaque,
            Op::Ask(_) | Op::Forget(_) => {}
        }
        Some(Ok(self.changed_since(&before, i)))
    }
}

/// Runs `op` on `levels`: what a cell op returned (`None` for the others).
fn run(levels: &mut SightLevels, op: &Op) -> Option<Result<EyeLevels, ElevationError>> {
    match op {
        Op::Level((x, y), l) => Some(levels.set_elevation(*x, *y, *l)),
        Op::Wall((x, y), o) => Some(levels.set_wall(*x, *y, *o)),
        Op::Ask(eye) => {
            levels.grid_for_eye(*eye);
            None
        }
        Op::Forget(eyes) => {
            levels.forget(eyes.iter().fold(EyeLevels::NONE, |set, &e| set.with(e)));
            None
        }
    }
}

/// Cells mostly on a `width` x `height` grid, some just off it, some far off.
fn near(op: Op, width: u32, height: u32) -> Op {
    let place = |(x, y): (u32, u32)| match x % 8 {
        0 => (x, y),
        _ => (x % (width + 1), y % (height + 1)),
    };
    match op {
        Op::Level(c, l) => Op::Level(place(c), l),
        Op::Wall(c, o) => Op::Wall(place(c), o),
        other => other,
    }
}

proptest! {
    // 256 cases, or PROPTEST_CASES.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    /// After every op, each kept grid is the model's; each cell op returns the model's answer
    /// (the eye levels whose views it can reach, or the error); at the end every eye level's grid
    /// is `ElevationGrid::sight_grid` rebuilt from scratch.
    #[test]
    fn sight_levels_follow_every_change(
        (walls, levels, _) in square_scene(12),
        ops in prop::collection::vec(op(), 0..80),
    ) {
        let mut model = Model::of(&walls, &levels);
        let mut ours = SightLevels::new(walls, levels).unwrap();
        for op in ops {
            let op = near(op, model.width, model.height);
            let want = model.apply(&op);
            prop_assert_eq!(run(&mut ours, &op), want, "{:?}", op);
            for eye in ours.cached_levels().iter() {
                let kept = ours.cached_grid(eye);
                prop_assert_eq!(kept, Some(&model.grid(eye)), "eye {} after {:?}", eye, op);
            }
        }
        prop_assert_eq!(ours.walls(), &model.grid(MAX_LEVEL));
        for eye in 0..=MAX_LEVEL + 2 {
            let rebuilt = ours.elevations().sight_grid(ours.walls(), eye);
            prop_assert_eq!(&rebuilt, &model.grid(eye));
            prop_assert_eq!(ours.grid_for_eye(eye), &rebuilt);
        }
        prop_assert_eq!(ours.cached_levels(), EyeLevels::ALL);
    }

    /// A change leaves every view at an eye level it does not return as it was, cliff faces
    /// seen or hidden (unless it moved the viewer's own eye).
    #[test]
    fn changes_reach_only_the_eye_levels_they_return(
        (walls, levels, viewer) in square_scene(16),
        change in op(),
        elevation in elevation_options(),
    ) {
        let mut sight = SightLevels::new(walls, levels).unwrap();
        let change = near(change, sight.walls().width(), sight.walls().height());
        let view = |sight: &mut SightLevels| {
            let eye = sight.eye_level(viewer.0, viewer.1, elevation.eye_height);
            let grid = sight.grid_for_eye(eye);
            let mut view = field_of_view(grid, viewer, FovOptions::unlimited()).unwrap();
            elevation.cliff_faces.apply(&mut view, sight.elevations(), eye);
            (eye, view)
        };
        let (eye, before) = view(&mut sight);
        if let Some(Ok(changed)) = run(&mut sight, &change) {
            let (eye_after, after) = view(&mut sight);
            if eye_after == eye && !changed.contains(eye) {
                prop_assert_eq!(after, before, "{:?} changed {:?}", change, changed);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_levels_and_cells_are_errors() {
    let mut grid = ElevationGrid::new(3, 2);
    assert_eq!(grid.set(1, 1, MAX_LEVEL), Ok(0));
    assert_eq!(
        grid.set(1, 1, MAX_LEVEL + 1),
        Err(ElevationError::LevelTooHigh { level: 16 })
    );
    let outside = ElevationError::OutsideGrid {
        cell: (3, 0),
        width: 3,
        height: 2,
    };
    assert_eq!(grid.set(3, 0, 1), Err(outside));
    assert_eq!(
        grid.set(3, 0, 200),
        Err(outside),
        "the cell is checked first"
    );
    assert_eq!(grid.get(1, 1), Some(MAX_LEVEL));
    assert_eq!(grid.get(u32::MAX, u32::MAX), None);
    assert_eq!(grid.eye_level(u32::MAX, 0, u8::MAX), MAX_LEVEL);
    assert_eq!(
        ElevationGrid::from_fn(2, 1, |_, _| 99).get(1, 0),
        Some(MAX_LEVEL)
    );
    for error in [outside, ElevationError::LevelTooHigh { level: 16 }] {
        assert!(!error.to_string().is_empty());
    }

    let walls = OpacityGrid::new(3, 2);
    let mismatch = SightLevels::new(walls.clone(), ElevationGrid::new(2, 3)).unwrap_err();
    assert_eq!(
        mismatch,
        ElevationError::SizeMismatch {
            walls: (3, 2),
            elevations: (2, 3)
        }
    );
    assert_eq!(
        mismatch.to_string(),
        "the walls are 3x2 cells, the elevations 2x3"
    );
    let mut levels = SightLevels::new(walls, grid).unwrap();
    assert_eq!(
        levels.set_wall(0, 2, true),
        Err(ElevationError::OutsideGrid {
            cell: (0, 2),
            width: 3,
            height: 2
        })
    );
    assert!(levels.set_elevation(9, 9, 1).is_err());
    assert!(levels.set_elevation(0, 0, 16).is_err());
    assert_eq!(
        levels.set_wall(0, 0, false),
        Ok(EyeLevels::NONE),
        "no change"
    );
    let walls = levels.walls().clone();
    assert_eq!(levels.grid_for_eye(u8::MAX), &walls);
}

#[test]
fn viewers_off_the_map_are_errors() {
    let maps = [
        (OpacityGrid::new(0, 0), ElevationGrid::new(0, 0)),
        (
            OpacityGrid::new(4, 3),
            ElevationGrid::from_fn(4, 3, |x, _| x as u8),
        ),
        (OpacityGrid::new(4, 3), ElevationGrid::new(1, 1)),
    ];
    let origins = [(4, 0), (0, 3), (u32::MAX, u32::MAX)];
    let elevation = ElevationOptions::eye_height(u8::MAX).with_cliff_faces(CliffFaces::Hidden);
    let all = FovOptions::unlimited();
    for (walls, levels) in &maps {
        for origin in origins {
            let error = Err(FovError::OriginOutsideMap {
                origin,
                width: walls.width(),
                height: walls.height(),
            });
            assert_eq!(
                field_of_view_with_elevation(walls, levels, origin, elevation, all),
                error
            );
            for coords in HexCoords::ALL {
                let hex =
                    hex_field_of_view_with_elevation(walls, levels, coords, origin, elevation, all);
                assert_eq!(hex, error);
            }
        }
    }
    let walls = diamond_grid(3, 2);
    let levels = ElevationGrid::new(walls.width(), walls.height());
    for origin in [(3, 0), (0, 2), (u32::MAX, 1)] {
        let view =
            staggered_field_of_view_with_elevation(&walls, &levels, 2, origin, elevation, all);
        assert_eq!(
            view,
            Err(FovError::OriginOutsideMap {
                origin,
                width: 3,
                height: 2
            })
        );
    }
}
