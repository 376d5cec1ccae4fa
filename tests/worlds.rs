//! Worlds of many tilemaps: a view near a border is exactly the view the same viewer has on
//! one big map holding the same walls (the cells of missing chunks are walls that are never
//! seen), on random layouts of chunks (negative positions, holes), as chunks come and go and
//! viewers walk from one chunk to the next; fog, light, sightings and memory across borders.

mod common_app;

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{ChunkOf, ChunkPos, SpottedTargets};
use bevy_viewshed::{
    DistanceShape, FovOptions, HexCoords, Lighting, OpacityGrid, Placed, Team, WORLD_ORIGIN,
    WorldMemory, field_of_view, hex_field_of_view,
};
use common_app::app;
use proptest::prelude::*;

/// One chunk of a layout: its chunk position and its walls (row by row).
#[derive(Clone, Debug)]
struct ChunkSpec {
    pos: (i32, i32),
    walls: Vec<bool>,
}

/// A world: its chunks' size and chunks, and its grid.
#[derive(Clone, Debug)]
struct Layout {
    size: (u32, u32),
    chunks: Vec<ChunkSpec>,
    map_type: TilemapType,
}

impl Layout {
    /// The world tile of chunk `i`'s tile `(x, y)`.
    fn world_tile(&self, i: usize, (x, y): (u32, u32)) -> (u32, u32) {
        let (cx, cy) = self.chunks[i].pos;
        let (w, h) = self.size;
        (
            WORLD_ORIGIN.wrapping_add_signed(cx * w as i32) + x,
            WORLD_ORIGIN.wrapping_add_signed(cy * h as i32) + y,
        )
    }

    /// The chunk and its tile at world tile `tile`, if a chunk holds it.
    fn at(&self, (x, y): (u32, u32)) -> Option<(usize, (u32, u32))> {
        (0..self.chunks.len()).find_map(|i| {
            let (x0, y0) = self.world_tile(i, (0, 0));
            let (lx, ly) = (x.checked_sub(x0)?, y.checked_sub(y0)?);
            (lx < self.size.0 && ly < self.size.1).then_some((i, (lx, ly)))
        })
    }

    /// Whether world tile `tile` is a wall of a chunk.
    fn is_wall(&self, tile: (u32, u32)) -> bool {
        self.at(tile)
            .is_some_and(|(i, (x, y))| self.chunks[i].walls[(y * self.size.0 + x) as usize])
    }

    /// The rectangle around the chunks, its corner on even tiles (as the plugin lays out a
    /// hexagonal world's grid).
    fn bounds(&self) -> (u32, u32, u32, u32) {
        let corners: Vec<_> = (0..self.chunks.len())
            .map(|i| self.world_tile(i, (0, 0)))
            .collect();
        let x0 = corners.iter().map(|c| c.0).min().unwrap() & !1;
        let y0 = corners.iter().map(|c| c.1).min().unwrap() & !1;
        let x1 = corners.iter().map(|c| c.0).max().unwrap() + self.size.0;
        let y1 = corners.iter().map(|c| c.1).max().unwrap() + self.size.1;
        (x0, y0, x1 - x0, y1 - y0)
    }

    /// What a viewer at world tile `origin` sees on one big map holding the same walls, the
    /// cells of no chunk being walls that are never seen.
    fn reference(&self, origin: (u32, u32), options: FovOptions) -> BTreeSet<(u32, u32)> {
        let (x0, y0, w, h) = self.bounds();
        let grid = OpacityGrid::from_fn(w, h, |x, y| {
            let tile = (x0 + x, y0 + y);
            self.at(tile).is_none() || self.is_wall(tile)
        });
        let local = (origin.0 - x0, origin.1 - y0);
        let seen = match self.map_type {
            TilemapType::Hexagon(system) => {
                hex_field_of_view(&grid, hex_coords(system), local, options)
            }
            _ => field_of_view(&grid, local, options),
        };
        seen.unwrap()
            .iter()
            .map(|(x, y)| (x0 + x, y0 + y))
            .filter(|&tile| self.at(tile).is_some())
            .collect()
    }
}

fn hex_coords(system: HexCoordSystem) -> HexCoords {
    match system {
        HexCoordSystem::Row => HexCoords::Row,
        HexCoordSystem::Column => HexCoords::Column,
        HexCoordSystem::RowEven => HexCoords::RowEven,
        HexCoordSystem::RowOdd => HexCoords::RowOdd,
        HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
        HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
    }
}

/// Spawns chunk `spec` of `layout` in `world`: a tilemap of tile entities, its walls `Opaque`
/// (or painted as `OpaqueCells` when `painted`), a fog layer.
fn spawn_chunk(
    app: &mut App,
    world: Entity,
    layout: &Layout,
    spec: &ChunkSpec,
    painted: bool,
) -> Entity {
    let size = TilemapSize::new(layout.size.0, layout.size.1);
    let w = app.world_mut();
    let chunk = w.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let pos = TilePos { x, y };
            let mut tile = w.spawn((
                pos,
                TilemapId(chunk),
                TileVisible(true),
                TileColor(Color::WHITE),
            ));
            if !painted && spec.walls[(y * size.x + x) as usize] {
                tile.insert(Opaque);
            }
            storage.set(&pos, tile.id());
        }
    }
    let mut entity = w.entity_mut(chunk);
    entity.insert((
        size,
        storage,
        TilemapGridSize::new(16.0, 16.0),
        TilemapTileSize::new(16.0, 16.0),
        layout.map_type,
        ChunkOf(world),
        ChunkPos(IVec2::new(spec.pos.0, spec.pos.1)),
        FogStyle::default(),
    ));
    if painted {
        let walls = spec.walls.clone();
        entity.insert(OpaqueCells::from_fn(size.x, size.y, move |x, y| {
            walls[(y * size.x + x) as usize]
        }));
    }
    chunk
}

/// A world entity and its chunks.
fn spawn_world(app: &mut App, layout: &Layout, painted: bool) -> (Entity, Vec<Entity>) {
    let world = app.world_mut().spawn(WorldMap).id();
    let chunks = layout
        .chunks
        .iter()
        .map(|spec| spawn_chunk(app, world, layout, spec, painted))
        .collect();
    (world, chunks)
}

fn seen(app: &App, viewer: Entity) -> BTreeSet<(u32, u32)> {
    let viewshed = app.world().get::<Viewshed>(viewer).unwrap();
    viewshed.iter().map(|t| (t.x, t.y)).collect()
}

fn options(radius: Option<u32>, shape: DistanceShape) -> FovOptions {
    let options = match radius {
        Some(r) => FovOptions::radius(r),
        None => FovOptions::unlimited(),
    };
    options.with_shape(shape)
}

fn layout_strategy(map_types: Vec<TilemapType>) -> impl Strategy<Value = Layout> {
    let positions = proptest::collection::btree_set((-2..2i32, -2..2i32), 1..7);
    (
        3..9u32,
        2..9u32,
        positions,
        proptest::sample::select(map_types),
    )
        .prop_flat_map(|(w, h, positions, map_type)| {
            // Hexagonal offset coordinates keep their parity across chunks of even size.
            let (w, h) = match map_type {
                TilemapType::Hexagon(_) => ((w + 1) & !1, (h + 1) & !1),
                _ => (w, h),
            };
            let n = positions.len();
            let walls = proptest::collection::vec(
                proptest::collection::vec(proptest::bool::weighted(0.25), (w * h) as usize),
                n,
            );
            (Just((w, h)), Just(positions), walls, Just(map_type))
        })
        .prop_map(|(size, positions, walls, map_type)| Layout {
            size,
            chunks: positions
                .into_iter()
                .zip(walls)
                .map(|(pos, walls)| ChunkSpec { pos, walls })
                .collect(),
            map_type,
        })
}

/// A viewer: which chunk, its tile there (taken modulo the chunk's size), radius, shape.
type ViewerSpec = (usize, u32, u32, Option<u32>, DistanceShape);

fn viewers_strategy() -> impl Strategy<Value = Vec<ViewerSpec>> {
    let shape = proptest::sample::select(vec![
        DistanceShape::Euclidean,
        DistanceShape::Chebyshev,
        DistanceShape::Manhattan,
    ]);
    let viewer = (
        0..8usize,
        0..16u32,
        0..16u32,
        proptest::option::of(0..14u32),
        shape,
    );
    proptest::collection::vec(viewer, 1..5)
}

/// Spawns the viewers on the layout's chunks; returns each with its world tile and options.
fn spawn_viewers(
    app: &mut App,
    layout: &Layout,
    chunks: &[Entity],
    specs: &[ViewerSpec],
) -> Vec<(Entity, (u32, u32), FovOptions)> {
    specs
        .iter()
        .map(|&(i, x, y, radius, shape)| {
            let i = i % chunks.len();
            let local = (x % layout.size.0, y % layout.size.1);
            let options = options(radius, shape);
            let viewer = app
                .world_mut()
                .spawn((
                    Viewshed::with_options(options),
                    RevealsFog,
                    TilePos::new(local.0, local.1),
                    TilemapId(chunks[i]),
                ))
                .id();
            (viewer, layout.world_tile(i, local), options)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every view on a random world is the view on one big map holding the same walls, and the
    /// world's fog is their union, on square, diamond and hexagonal grids.
    #[test]
    fn views_across_borders_are_the_big_map_views(
        layout in layout_strategy(vec![
            TilemapType::Square,
            TilemapType::Isometric(IsoCoordSystem::Diamond),
            TilemapType::Hexagon(HexCoordSystem::Row),
            TilemapType::Hexagon(HexCoordSystem::RowOdd),
            TilemapType::Hexagon(HexCoordSystem::ColumnEven),
        ]),
        specs in viewers_strategy(),
        painted in any::<bool>(),
    ) {
        let mut app = app();
        let (world, chunks) = spawn_world(&mut app, &layout, painted);
        let viewers = spawn_viewers(&mut app, &layout, &chunks, &specs);
        app.update();
        let mut union = BTreeSet::new();
        for &(viewer, origin, options) in &viewers {
            let want = layout.reference(origin, options);
            prop_assert_eq!(seen(&app, viewer), want.clone(), "viewer at {:?} {:?}", origin, options);
            union.extend(want);
        }
        let fog = app.world().get::<FogOfWar>(world).unwrap();
        let fogged: BTreeSet<_> = fog.visible_tiles().map(|t| (t.x, t.y)).collect();
        prop_assert_eq!(fogged, union);
    }

    /// Chunks that come and go: every view is still the big map's view of what is loaded,
    /// and a viewer that walks from one chunk to the next sees from its new tile.
    #[test]
    fn chunks_come_and_go_and_viewers_walk_across(
        layout in layout_strategy(vec![TilemapType::Square]),
        specs in viewers_strategy(),
        gone in 0..8usize,
        new in (-3..3i32, -3..3i32),
        step in 0..8usize,
    ) {
        let mut app = app();
        let (world, mut chunks) = spawn_world(&mut app, &layout, false);
        let viewers = spawn_viewers(&mut app, &layout, &chunks, &specs);
        app.update();
        let mut layout = layout;
        // A chunk goes (its tiles with it), another comes where none is.
        let (count, gone) = (chunks.len(), gone % chunks.len());
        let tiles: Vec<Entity> = app.world().get::<TileStorage>(chunks[gone]).unwrap().iter().flatten().copied().collect();
        for tile in tiles {
            app.world_mut().despawn(tile);
        }
        app.world_mut().despawn(chunks[gone]);
        chunks.remove(gone);
        layout.chunks.remove(gone);
        if !layout.chunks.iter().any(|c| c.pos == new) {
            let spec = ChunkSpec { pos: new, walls: (0..layout.size.0 * layout.size.1).map(|i| i % 5 == 0).collect() };
            chunks.push(spawn_chunk(&mut app, world, &layout, &spec, false));
            layout.chunks.push(spec);
        }
        app.update();
        if layout.chunks.is_empty() {
            return Ok(());
        }
        for (&(viewer, origin, options), spec) in viewers.iter().zip(&specs) {
            // A viewer on the chunk that went stands on no tilemap: it sees nothing.
            let on_gone = spec.0 % count == gone;
            let want = if on_gone { BTreeSet::new() } else { layout.reference(origin, options) };
            prop_assert_eq!(seen(&app, viewer), want, "viewer at {:?} after chunks came and went", origin);
        }
        // One viewer walks onto another chunk (its TilePos and TilemapId there).
        let (viewer, _, options) = viewers[step % viewers.len()];
        let i = step % chunks.len();
        app.world_mut().entity_mut(viewer).insert((TilePos::new(0, 0), TilemapId(chunks[i])));
        app.update();
        prop_assert_eq!(seen(&app, viewer), layout.reference(layout.world_tile(i, (0, 0)), options));
    }
}

/// A square world of 2x2 chunks of 8x8 tiles at chunk positions -1 and 0, walls nowhere.
fn open_layout() -> Layout {
    let chunks = [(-1, -1), (0, -1), (-1, 0), (0, 0)]
        .into_iter()
        .map(|pos| ChunkSpec {
            pos,
            walls: vec![false; 64],
        })
        .collect();
    Layout {
        size: (8, 8),
        chunks,
        map_type: TilemapType::Square,
    }
}

/// The fog is written into every chunk's tiles: a viewer near a corner of four chunks shows
/// tiles on all four, in their own tile coordinates.
#[test]
fn the_fog_is_written_across_chunks() {
    let layout = open_layout();
    let mut app = app();
    let (_, chunks) = spawn_world(&mut app, &layout, false);
    // Chunk 3 is (0, 0): its tile (0, 0) is at the corner.
    app.world_mut().spawn((
        Viewshed::new(2),
        RevealsFog,
        TilePos::new(0, 0),
        TilemapId(chunks[3]),
    ));
    app.update();
    let visible = |chunk: Entity, x: u32, y: u32| {
        let storage = app.world().get::<TileStorage>(chunk).unwrap();
        let tile = storage.get(&TilePos::new(x, y)).unwrap();
        app.world().get::<TileVisible>(tile).unwrap().0
    };
    // The corner tiles of each chunk, all seen.
    assert!(visible(chunks[3], 0, 0) && visible(chunks[2], 7, 0));
    assert!(visible(chunks[1], 0, 7) && visible(chunks[0], 7, 7));
    // Far tiles of each, never seen: hidden by the default style.
    assert!(!visible(chunks[0], 0, 0) && !visible(chunks[3], 7, 7));
}

/// A target on the next chunk is spotted, lights across the border light, a monster that
/// leaves view on the other chunk leaves a ghost, and one that hides outside view is hidden.
#[test]
fn sightings_light_ghosts_and_hiding_cross_borders() {
    let layout = open_layout();
    let mut app = app();
    let (world, chunks) = spawn_world(&mut app, &layout, false);
    let viewer = app
        .world_mut()
        .spawn((
            Viewshed::new(4),
            RevealsFog,
            TilePos::new(1, 1),
            TilemapId(chunks[3]),
        ))
        .id();
    let goblin = app
        .world_mut()
        .spawn((
            CanBeSpotted,
            LeavesGhost,
            HidesOutsideView,
            TilePos::new(5, 1),
            TilemapId(chunks[2]),
        ))
        .id();
    app.world_mut().spawn((
        LightSource::new(3),
        TilePos::new(7, 7),
        TilemapId(chunks[0]),
    ));
    app.update();
    let spotted: Vec<Entity> = app
        .world()
        .get::<SpottedTargets>(viewer)
        .unwrap()
        .iter()
        .collect();
    assert_eq!(spotted, vec![goblin]);
    assert_eq!(
        app.world().get::<Visibility>(goblin),
        Some(&Visibility::Inherited)
    );
    let lighting = app.world().get::<Lighting>(world).unwrap();
    let (x, y) = layout.world_tile(3, (1, 1));
    assert!(
        lighting.is_lit(TilePos::new(x, y)),
        "the light on chunk (-1, -1) lights (0, 0)"
    );
    // The goblin steps out of view: a ghost on the tile it stepped to.
    *app.world_mut().get_mut::<TilePos>(goblin).unwrap() = TilePos::new(4, 1);
    app.update();
    let last_seen = app.world().get::<LastSeen>(world).unwrap();
    let ghost = last_seen.ghost(Team(0), goblin);
    let (gx, gy) = layout.world_tile(2, (4, 1));
    assert_eq!(ghost.map(|g| (g.tile.x, g.tile.y)), Some((gx, gy)));
    assert_eq!(
        app.world().get::<Visibility>(goblin),
        Some(&Visibility::Hidden)
    );
    assert!(
        app.world()
            .get::<SpottedTargets>(viewer)
            .unwrap()
            .is_empty()
    );
}

/// A viewer placed by `Transform` on a world of chunks placed by their transforms walks across
/// the border and keeps seeing, with no chunk position given.
#[test]
fn a_viewer_carried_by_transform_walks_from_chunk_to_chunk() {
    let mut app = app();
    let world = app
        .world_mut()
        .spawn((WorldMap, Transform::default(), GlobalTransform::default()))
        .id();
    let size = TilemapSize::new(8, 8);
    for cx in [-1.0f32, 0.0] {
        let at = Transform::from_xyz(cx * 8.0 * 16.0, 0.0, 0.0);
        app.world_mut().spawn((
            TileStorage::empty(size),
            size,
            TilemapGridSize::new(16.0, 16.0),
            TilemapTileSize::new(16.0, 16.0),
            TilemapType::Square,
            at,
            GlobalTransform::from(at),
            ChildOf(world),
        ));
    }
    let walker = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            Transform::from_xyz(-16.0, 0.0, 0.0),
            GlobalTransform::from_xyz(-16.0, 0.0, 0.0),
            TilemapId(world),
        ))
        .id();
    app.update();
    let origin = |app: &App| app.world().get::<Viewshed>(walker).unwrap().origin();
    assert_eq!(
        origin(&app),
        Some((world, TilePos::new(WORLD_ORIGIN - 1, WORLD_ORIGIN)))
    );
    // One tile east: on the chunk at 0.
    app.world_mut().entity_mut(walker).insert((
        Transform::from_xyz(0.0, 0.0, 0.0),
        GlobalTransform::default(),
    ));
    app.update();
    assert_eq!(
        origin(&app),
        Some((world, TilePos::new(WORLD_ORIGIN, WORLD_ORIGIN)))
    );
    let viewshed = app.world().get::<Viewshed>(walker).unwrap();
    assert!(viewshed.is_visible(TilePos::new(WORLD_ORIGIN - 3, WORLD_ORIGIN)));
    assert!(viewshed.is_visible(TilePos::new(WORLD_ORIGIN + 3, WORLD_ORIGIN)));
}

/// A world with a `WorldMemory` keeps what its teams explored of a chunk that goes, and gives
/// it back when a chunk is loaded at the same place; without it, a chunk that goes is
/// forgotten. The memory survives a save.
#[test]
fn explored_memory_of_a_chunk_survives_its_despawn_and_respawn() {
    for keep in [true, false] {
        let layout = open_layout();
        let mut app = app();
        let (world, chunks) = spawn_world(&mut app, &layout, false);
        if keep {
            app.world_mut()
                .entity_mut(world)
                .insert(WorldMemory::default());
        }
        let player = app
            .world_mut()
            .spawn((
                Viewshed::new(3),
                RevealsFog,
                TilePos::new(1, 1),
                TilemapId(chunks[3]),
            ))
            .id();
        app.update();
        let seen_tile = {
            let (x, y) = layout.world_tile(2, (6, 1));
            TilePos::new(x, y)
        };
        let fog = |app: &App| app.world().get::<FogOfWar>(world).unwrap().clone();
        assert!(fog(&app).is_explored(seen_tile));
        // The player leaves for chunk 1; chunk 2 is streamed out.
        app.world_mut()
            .entity_mut(player)
            .insert(TilePos::new(5, 5));
        app.world_mut()
            .entity_mut(player)
            .insert(TilemapId(chunks[1]));
        app.world_mut().despawn(chunks[2]);
        app.update();
        assert!(
            !fog(&app).is_explored(seen_tile),
            "not loaded: not on the map"
        );
        if keep {
            let memory = app.world().get::<WorldMemory>(world).unwrap();
            assert_eq!(memory.len(), 1);
            #[cfg(feature = "serde")]
            {
                let json = serde_json::to_string(memory).unwrap();
                let back: WorldMemory = serde_json::from_str(&json).unwrap();
                assert_eq!(&back, memory);
            }
        }
        // Streamed in again at the same place.
        spawn_chunk(&mut app, world, &layout, &layout.chunks[2], false);
        app.update();
        assert_eq!(fog(&app).is_explored(seen_tile), keep);
        if keep {
            assert!(app.world().get::<WorldMemory>(world).unwrap().is_empty());
        }
    }
}

/// A tilemap that joins a world later puts its viewers on the world, where they see across
/// its borders, and one that leaves it takes its viewers back to itself.
#[test]
fn a_tilemap_that_joins_or_leaves_a_world_takes_its_viewers_along() {
    let layout = open_layout();
    let mut app = app();
    let (world, chunks) = spawn_world(&mut app, &layout, false);
    app.world_mut().entity_mut(chunks[0]).remove::<ChunkOf>();
    let options = options(Some(6), DistanceShape::Euclidean);
    let specs = [(0, 7, 7, Some(6), DistanceShape::Euclidean)];
    let viewer = spawn_viewers(&mut app, &layout, &chunks, &specs)[0].0;
    app.update();
    let placed = *app.world().get::<Placed>(viewer).unwrap();
    assert_eq!(
        placed.map(),
        Some(chunks[0]),
        "alone, the tilemap is its own map"
    );
    app.world_mut().entity_mut(chunks[0]).insert(ChunkOf(world));
    app.update();
    let origin = layout.world_tile(0, (7, 7));
    assert_eq!(seen(&app, viewer), layout.reference(origin, options));
    app.world_mut().entity_mut(chunks[0]).remove::<ChunkOf>();
    app.update();
    let placed = *app.world().get::<Placed>(viewer).unwrap();
    assert_eq!(placed.get(), Some((chunks[0], TilePos::new(7, 7))));
    let alone = field_of_view(&OpacityGrid::new(8, 8), (7, 7), options).unwrap();
    let alone: BTreeSet<_> = alone.iter().collect();
    assert_eq!(seen(&app, viewer), alone, "the view on the tilemap alone");
}
