//! High ground in the plugin: on random maps of random walls and levels (set by `Elevation`
//! on tiles and by `ElevationCells`), every view equals the core's on the walls thresholded
//! at the viewer's eye (its tile's level plus its eye height), on square, hexagonal (all six
//! coordinate systems) and staggered isometric maps, and on a world across a chunk border;
//! after random changes of levels, moves and eye heights, every view still does. A change of
//! level recomputes only the views that reach it.

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    ChunkOf, ChunkPos, CliffFaces, Elevation, ElevationCells, FovOptions, WORLD_ORIGIN,
};
use common_app::{app, generation, hex_coords, seen, spawn_map, tile_entity};
use proptest::prelude::*;
use viewshed_core::elevation::{
    ElevationGrid, ElevationOptions, field_of_view_with_elevation,
    hex_field_of_view_with_elevation, staggered_field_of_view_with_elevation,
};
use viewshed_core::{OpacityGrid, staggered};

const W: u32 = 12;
const H: u32 = 10;

/// A map: its grid, walls and levels (row by row), and how each level is given.
#[derive(Clone, Debug)]
struct Ground {
    map_type: TilemapType,
    walls: Vec<bool>,
    levels: Vec<u8>,
    /// Per tile: the level by an `Elevation` on the tile entity (else by `ElevationCells`).
    by_entity: Vec<bool>,
}

impl Ground {
    fn wall(&self, x: u32, y: u32) -> bool {
        self.walls[(y * W + x) as usize]
    }

    fn level(&self, x: u32, y: u32) -> u8 {
        self.levels[(y * W + x) as usize]
    }

    /// The core's view from `origin` with this eye height and choice of cliff faces: the
    /// oracle.
    fn oracle(&self, origin: (u32, u32), eye: ElevationOptions, radius: u32) -> Vec<(u32, u32)> {
        let options = FovOptions::radius(radius);
        let view = match self.map_type {
            TilemapType::Isometric(IsoCoordSystem::Staggered) => {
                let mut walls = staggered::diamond_grid(W, H);
                let mut levels = ElevationGrid::new(walls.width(), walls.height());
                for (x, y) in tiles() {
                    let (dx, dy) = staggered::to_diamond((x, y));
                    walls.set_opaque(dx, dy, self.wall(x, y));
                    levels.set(dx, dy, self.level(x, y)).unwrap();
                }
                staggered_field_of_view_with_elevation(&walls, &levels, H, origin, eye, options)
            }
            map_type => {
                let walls = OpacityGrid::from_fn(W, H, |x, y| self.wall(x, y));
                let levels = ElevationGrid::from_fn(W, H, |x, y| self.level(x, y));
                match map_type {
                    TilemapType::Hexagon(system) => {
                        let coords = hex_coords(system);
                        hex_field_of_view_with_elevation(
                            &walls, &levels, coords, origin, eye, options,
                        )
                    }
                    _ => field_of_view_with_elevation(&walls, &levels, origin, eye, options),
                }
            }
        };
        let mut tiles: Vec<_> = view.unwrap().iter().collect();
        tiles.sort_unstable_by_key(|&(x, y)| (y, x));
        tiles
    }
}

fn tiles() -> impl Iterator<Item = (u32, u32)> {
    (0..H).flat_map(|y| (0..W).map(move |x| (x, y)))
}

fn map_types() -> impl Strategy<Value = TilemapType> {
    prop_oneof![
        Just(TilemapType::Square),
        Just(TilemapType::Isometric(IsoCoordSystem::Diamond)),
        Just(TilemapType::Isometric(IsoCoordSystem::Staggered)),
        Just(TilemapType::Hexagon(HexCoordSystem::Row)),
        Just(TilemapType::Hexagon(HexCoordSystem::Column)),
        Just(TilemapType::Hexagon(HexCoordSystem::RowEven)),
        Just(TilemapType::Hexagon(HexCoordSystem::RowOdd)),
        Just(TilemapType::Hexagon(HexCoordSystem::ColumnEven)),
        Just(TilemapType::Hexagon(HexCoordSystem::ColumnOdd)),
    ]
}

fn grounds() -> impl Strategy<Value = Ground> {
    let n = (W * H) as usize;
    (
        map_types(),
        proptest::collection::vec(proptest::bool::weighted(0.1), n),
        proptest::collection::vec(prop_oneof![4 => Just(0u8), 1 => 1u8..4, 1 => 4u8..16], n),
        proptest::collection::vec(any::<bool>(), n),
    )
        .prop_map(|(map_type, walls, levels, by_entity)| Ground {
            map_type,
            walls,
            levels,
            by_entity,
        })
}

/// Spawns the map of `ground`: walls `Opaque`, levels on the tile entities or in the map's
/// `ElevationCells`.
fn spawn_ground(app: &mut App, ground: &Ground) -> Entity {
    let map = spawn_map(app, W, H, |x, y| ground.wall(x, y));
    let mut cells = ElevationCells::from_fn(W, H, |_, _| 0);
    for (x, y) in tiles() {
        let i = (y * W + x) as usize;
        if ground.by_entity[i] {
            let tile = tile_entity(app, map, x, y);
            app.world_mut()
                .entity_mut(tile)
                .insert(Elevation(ground.levels[i]));
        } else {
            cells.set(TilePos::new(x, y), ground.levels[i]);
        }
    }
    app.world_mut()
        .entity_mut(map)
        .insert((ground.map_type, cells));
    map
}

/// What the game does between two updates.
#[derive(Clone, Debug)]
enum Op {
    /// Sets a tile's level (by its entity's `Elevation`, or the map's cells).
    Level { tile: (u32, u32), level: u8 },
    /// Moves viewer `i`.
    Move { i: usize, to: (u32, u32) },
    /// Sets viewer `i`'s eye height.
    Eye { i: usize, height: u8 },
    /// Sets what viewer `i` sees of the tiles above its eye.
    Faces { i: usize, faces: CliffFaces },
}

fn cliff_faces() -> impl Strategy<Value = CliffFaces> {
    prop_oneof![Just(CliffFaces::Seen), Just(CliffFaces::Hidden)]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let tile = (0..W, 0..H);
    let op = prop_oneof![
        (tile.clone(), 0u8..8).prop_map(|(tile, level)| Op::Level { tile, level }),
        (0..3usize, tile).prop_map(|(i, to)| Op::Move { i, to }),
        (0..3usize, 0u8..4).prop_map(|(i, height)| Op::Eye { i, height }),
        (0..3usize, cliff_faces()).prop_map(|(i, faces)| Op::Faces { i, faces }),
    ];
    proptest::collection::vec(op, 1..12)
}

/// Applies `op` to the app and to `ground`.
fn apply(app: &mut App, map: Entity, viewers: &[Entity], ground: &mut Ground, op: &Op) {
    match *op {
        Op::Level {
            tile: (x, y),
            level,
        } => {
            let i = (y * W + x) as usize;
            ground.levels[i] = level;
            if ground.by_entity[i] {
                let tile = tile_entity(app, map, x, y);
                app.world_mut().entity_mut(tile).insert(Elevation(level));
            } else {
                let mut cells = app.world_mut().get_mut::<ElevationCells>(map).unwrap();
                cells.set(TilePos::new(x, y), level);
            }
        }
        Op::Move { i, to } => {
            let at = TilePos::new(to.0, to.1);
            app.world_mut().entity_mut(viewers[i]).insert(at);
        }
        Op::Eye { i, height } => {
            app.world_mut()
                .get_mut::<Viewshed>(viewers[i])
                .unwrap()
                .eye_height = height;
        }
        Op::Faces { i, faces } => {
            app.world_mut()
                .get_mut::<Viewshed>(viewers[i])
                .unwrap()
                .cliff_faces = faces;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every view equals the oracle, at first and after every random change.
    #[test]
    fn views_on_high_ground_are_the_cores_on_the_thresholded_walls(
        mut ground in grounds(),
        starts in proptest::collection::vec(((0..W, 0..H), 0u8..4, cliff_faces()), 3),
        ops in ops(),
    ) {
        let mut app = app();
        let map = spawn_ground(&mut app, &ground);
        let viewers: Vec<Entity> = starts
            .iter()
            .map(|&((x, y), height, faces)| {
                let sight = Viewshed::new(6).with_eye_height(height).with_cliff_faces(faces);
                app.world_mut().spawn((sight, TilePos::new(x, y), TilemapId(map))).id()
            })
            .collect();
        let mut at: Vec<((u32, u32), ElevationOptions)> = starts
            .iter()
            .map(|&(tile, height, faces)| (tile, ElevationOptions::eye_height(height).with_cliff_faces(faces)))
            .collect();
        app.update();
        for op in std::iter::once(None).chain(ops.iter().map(Some)) {
            if let Some(op) = op {
                apply(&mut app, map, &viewers, &mut ground, op);
                match *op {
                    Op::Move { i, to } => at[i].0 = to,
                    Op::Eye { i, height } => at[i].1.eye_height = height,
                    Op::Faces { i, faces } => at[i].1.cliff_faces = faces,
                    Op::Level { .. } => {}
                }
                app.update();
            }
            for (i, &viewer) in viewers.iter().enumerate() {
                let (origin, eye) = at[i];
                prop_assert_eq!(
                    seen(&app, viewer),
                    ground.oracle(origin, eye, 6),
                    "viewer {} at {:?} ({:?}) on {:?} after {:?}",
                    i, origin, eye, ground.map_type, op
                );
            }
        }
    }
}

/// A hill and its valley, by hand: the unit on the hill sees the valley floor beyond the
/// ridge, the unit in the valley sees the ridge's face but not the hill behind it; raising the
/// valley unit's eye (a tower) lets it see over the ridge; a level raised far away leaves its
/// view alone (not recomputed), one raised in its reach recomputes it.
#[test]
fn the_hill_sees_the_valley_and_the_valley_sees_only_the_cliff() {
    // Columns 0-3 the valley (level 0), column 4 a ridge (level 2), 5-11 a hill (level 2).
    let mut app = app();
    let map = spawn_map(&mut app, W, H, |_, _| false);
    let cells = ElevationCells::from_fn(W, H, |x, _| if x >= 4 { 2 } else { 0 });
    app.world_mut().entity_mut(map).insert(cells);
    let spawn = |app: &mut App, x, y, height| {
        let viewer = (
            Viewshed::new(20).with_eye_height(height),
            TilePos::new(x, y),
            TilemapId(map),
        );
        app.world_mut().spawn(viewer).id()
    };
    let valley = spawn(&mut app, 1, 5, 0);
    let hill = spawn(&mut app, 8, 5, 0);
    app.update();
    let sees = |app: &App, viewer: Entity, tile: (u32, u32)| seen(app, viewer).contains(&tile);
    assert!(
        sees(&app, hill, (1, 5)) && sees(&app, hill, (0, 0)),
        "the hill sees the valley"
    );
    assert!(
        sees(&app, valley, (4, 5)),
        "the valley sees the cliff's face"
    );
    assert!(!sees(&app, valley, (8, 5)), "but not the hill behind it");
    assert!(sees(&app, valley, (3, 9)), "and all of the valley floor");

    // The valley unit climbs a tower: its eye at level 2 sees over the ridge.
    app.world_mut()
        .get_mut::<Viewshed>(valley)
        .unwrap()
        .eye_height = 2;
    app.update();
    assert!(sees(&app, valley, (8, 5)), "from a tower it sees the hill");

    // A far viewer, and a level raised out of its reach: its view is left alone.
    let far = app
        .world_mut()
        .spawn((Viewshed::new(2), TilePos::new(10, 9), TilemapId(map)))
        .id();
    app.update();
    let before = generation(&app, far);
    let mut cells = app.world_mut().get_mut::<ElevationCells>(map).unwrap();
    cells.set(TilePos::new(0, 0), 5);
    app.update();
    assert_eq!(
        generation(&app, far),
        before,
        "a change out of reach recomputes nothing"
    );
    let mut cells = app.world_mut().get_mut::<ElevationCells>(map).unwrap();
    cells.set(TilePos::new(10, 8), 5);
    app.update();
    assert!(
        generation(&app, far) > before,
        "a change in reach recomputes it"
    );
    assert!(
        sees(&app, far, (10, 8)) && !sees(&app, far, (10, 7)),
        "the new rock hides what is behind"
    );
}

/// On a world of two chunks, a unit on a plateau in one chunk sees down across the border
/// into the other, whose low ground does not see back up: the world's levels are its
/// chunks', in world tiles.
#[test]
fn high_ground_reaches_across_a_chunk_border() {
    let mut app = app();
    let world = app.world_mut().spawn(WorldMap).id();
    let mut chunks = Vec::new();
    for cx in 0..2 {
        let chunk = spawn_map(&mut app, 6, 5, |_, _| false);
        let level = if cx == 0 { 3 } else { 0 };
        // A ridge of level 1 on the low chunk's first column.
        let cells = ElevationCells::from_fn(6, 5, |x, _| if cx == 1 && x == 0 { 1 } else { level });
        app.world_mut().entity_mut(chunk).insert((
            ChunkOf(world),
            ChunkPos(IVec2::new(cx, 0)),
            cells,
        ));
        chunks.push(chunk);
    }
    let on = |x: u32, y: u32| TilePos::new(WORLD_ORIGIN + x, WORLD_ORIGIN + y);
    let high = app
        .world_mut()
        .spawn((Viewshed::new(12), on(2, 2), TilemapId(world)))
        .id();
    let low = app
        .world_mut()
        .spawn((Viewshed::new(12), on(9, 2), TilemapId(world)))
        .id();
    app.update();
    let sees = |viewer: Entity, tile: TilePos| {
        app.world()
            .get::<Viewshed>(viewer)
            .unwrap()
            .is_visible(tile)
    };
    assert!(
        sees(high, on(10, 2)),
        "the plateau sees over the ridge into the low chunk"
    );
    assert!(sees(low, on(6, 2)), "the low ground sees the ridge");
    assert!(!sees(low, on(2, 2)), "but not the plateau");
}

/// A world's chunk side, in tiles (chunks of 5x4).
const CW: u32 = 5;
const CH: u32 = 4;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On random worlds of 2x2 square chunks at negative and positive chunk positions, each
    /// with random walls and levels (`ElevationCells` on the chunk), every view of viewers with
    /// random eye heights and cliff faces is the core's on the whole world's walls thresholded
    /// at the viewer's eye, across the chunk borders; and again after a chunk's levels change.
    #[test]
    fn views_on_high_ground_across_chunk_borders_are_the_cores(
        walls in proptest::collection::vec(proptest::bool::weighted(0.2), (4 * CW * CH) as usize),
        levels in proptest::collection::vec(0u8..5, (4 * CW * CH) as usize),
        origin in (-1i32..=0, -1i32..=0),
        viewers in proptest::collection::vec(((0..2 * CW, 0..2 * CH), 0u8..3, cliff_faces()), 3),
        raised in (0..4usize, 0u8..6),
    ) {
        let (w, h) = (2 * CW, 2 * CH);
        let at = |x: u32, y: u32| (y * w + x) as usize;
        let mut levels = levels;
        let mut app = app();
        let world = app.world_mut().spawn(WorldMap).id();
        let mut chunks = Vec::new();
        for (i, (cx, cy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            let (x0, y0) = (cx * CW, cy * CH);
            let chunk = spawn_map(&mut app, CW, CH, |x, y| walls[at(x0 + x, y0 + y)]);
            let cells = ElevationCells::from_fn(CW, CH, |x, y| levels[at(x0 + x, y0 + y)]);
            let pos = ChunkPos(IVec2::new(origin.0 + cx as i32, origin.1 + cy as i32));
            app.world_mut().entity_mut(chunk).insert((ChunkOf(world), pos, cells));
            chunks.push((chunk, (x0, y0), i));
        }
        // World tile of the oracle's cell (x, y): the chunk at `origin` starts the grid.
        let first = |v: i32, side: u32| (WORLD_ORIGIN as i64 + i64::from(v) * i64::from(side)) as u32;
        let (fx, fy) = (first(origin.0, CW), first(origin.1, CH));
        let spawned: Vec<Entity> = viewers
            .iter()
            .map(|&((x, y), height, faces)| {
                let sight = Viewshed::new(6).with_eye_height(height).with_cliff_faces(faces);
                app.world_mut().spawn((sight, TilePos::new(fx + x, fy + y), TilemapId(world))).id()
            })
            .collect();
        app.update();
        for round in 0..2 {
            if round == 1 {
                // One chunk's levels change: every one of its tiles to `raised.1`.
                let (chunk, (x0, y0), _) = chunks[raised.0];
                for y in 0..CH {
                    for x in 0..CW {
                        levels[at(x0 + x, y0 + y)] = raised.1;
                    }
                }
                app.world_mut().entity_mut(chunk).insert(ElevationCells::from_fn(CW, CH, |_, _| raised.1));
                app.update();
            }
            let grid = OpacityGrid::from_fn(w, h, |x, y| walls[at(x, y)]);
            let heights = ElevationGrid::from_fn(w, h, |x, y| levels[at(x, y)]);
            for (viewer, &((x, y), height, faces)) in spawned.iter().zip(&viewers) {
                let eye = ElevationOptions::eye_height(height).with_cliff_faces(faces);
                let expected = if walls[at(x, y)] {
                    None
                } else {
                    let view = field_of_view_with_elevation(&grid, &heights, (x, y), eye, FovOptions::radius(6));
                    let mut tiles: Vec<(u32, u32)> = view.unwrap().iter().map(|(x, y)| (fx + x, fy + y)).collect();
                    tiles.sort_unstable_by_key(|&(x, y)| (y, x));
                    Some(tiles)
                };
                if let Some(expected) = expected {
                    prop_assert_eq!(seen(&app, *viewer), expected, "viewer at ({}, {}) {:?}, round {}", x, y, eye, round);
                }
            }
        }
    }
}
