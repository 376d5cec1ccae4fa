//! Entities placed by `Transform` on worlds of hexagonal chunks placed by their transforms:
//! on all six coordinate systems, with chunks at negative positions, an entity whose
//! `Transform` lies where a chunk draws a tile stands on that tile, whether its `TilemapId`
//! names the world or any chunk; and when the world entity moves (its chunks are not its
//! children), the chunks and the entities on them take their new places in it.
//!
//! The tile drawn under a point is read off bevy_ecs_tilemap's own `center_in_world` on tile
//! positions that are not negative: a chunk at chunk position `(cx, cy)` draws its tile
//! `(x, y)` where a large map draws tile `(K + cx * w + x, K + cy * h + y)`, less where it
//! draws `(K, K)` (`K` a multiple of the chunk's size, so rows and columns keep their parity).

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::WORLD_ORIGIN;
use bevy_viewshed::prelude::*;
use common_app::app;
use proptest::prelude::*;

/// Chunks are 4x4 tiles (even: offset grids keep their parity from chunk to chunk).
const CHUNK: u32 = 4;
/// The shift to tile positions that are never negative.
const K: u32 = 64;

const SYSTEMS: [HexCoordSystem; 6] = [
    HexCoordSystem::Row,
    HexCoordSystem::Column,
    HexCoordSystem::RowEven,
    HexCoordSystem::RowOdd,
    HexCoordSystem::ColumnEven,
    HexCoordSystem::ColumnOdd,
];

fn grid() -> TilemapGridSize {
    TilemapGridSize::new(16.0, 18.0)
}

/// Where an endless grid of `system` draws its tile `(x, y)`, tile `(0, 0)` at the origin.
fn drawn(system: HexCoordSystem, (x, y): (i32, i32)) -> Vec2 {
    let big = TilemapSize::new(4 * K, 4 * K);
    let map_type = TilemapType::Hexagon(system);
    let centre = |x: i32, y: i32| {
        let tile = TilePos::new((K as i32 + x) as u32, (K as i32 + y) as u32);
        let tile_size = TilemapTileSize::new(16.0, 18.0);
        tile.center_in_world(&big, &grid(), &tile_size, &map_type, &TilemapAnchor::None)
    };
    centre(x, y) - centre(0, 0)
}

/// A world of chunks of `system` at `positions`, placed by their transforms and not children
/// of the world entity, which stands at `world_at`.
fn spawn_world(
    app: &mut App,
    system: HexCoordSystem,
    positions: &[(i32, i32)],
    world_at: Vec2,
) -> (Entity, Vec<Entity>) {
    let at = Transform::from_translation(world_at.extend(0.0));
    let world = app
        .world_mut()
        .spawn((WorldMap, at, GlobalTransform::from(at)))
        .id();
    let size = TilemapSize::new(CHUNK, CHUNK);
    let chunks = positions
        .iter()
        .map(|&(cx, cy)| {
            let origin = world_at + drawn(system, (cx * CHUNK as i32, cy * CHUNK as i32));
            let at = Transform::from_translation(origin.extend(0.0));
            app.world_mut()
                .spawn((
                    TileStorage::empty(size),
                    size,
                    grid(),
                    TilemapTileSize::new(16.0, 18.0),
                    TilemapType::Hexagon(system),
                    at,
                    GlobalTransform::from(at),
                    bevy_viewshed::ChunkOf(world),
                ))
                .id()
        })
        .collect();
    (world, chunks)
}

/// A walker: which chunk it stands on, its tile there, and which map its `TilemapId` names
/// (`None`: the world; `Some(i)`: chunk `i`, which may be another than the one it stands on).
#[derive(Clone, Debug)]
struct Walker {
    chunk: usize,
    tile: (u32, u32),
    named: Option<usize>,
}

fn positions() -> impl Strategy<Value = Vec<(i32, i32)>> {
    proptest::collection::btree_set((-2i32..2, -2i32..2), 1..6)
        .prop_map(|set| set.into_iter().collect())
}

fn walkers(chunks: usize) -> impl Strategy<Value = Vec<Walker>> {
    let walker = (
        0..chunks,
        (0..CHUNK, 0..CHUNK),
        proptest::option::of(0..chunks),
    )
        .prop_map(|(chunk, tile, named)| Walker { chunk, tile, named });
    proptest::collection::vec(walker, 1..6)
}

/// A random case: the grid, the chunks' positions, the walkers' steps, and how far (in
/// chunks) the world entity then moves.
type WorldCase = (
    HexCoordSystem,
    Vec<(i32, i32)>,
    Vec<Vec<Walker>>,
    (i32, i32),
);

/// Where the chunks are drawn: the grid, the chunks' positions, the world entity's place, and
/// how many chunks the world entity moved.
type Drawn<'a> = (HexCoordSystem, &'a [(i32, i32)], Vec2, (i32, i32));

fn world_case() -> impl Strategy<Value = WorldCase> {
    (0..6usize, positions(), (-1i32..=1, -1i32..=1)).prop_flat_map(|(system, positions, shift)| {
        let n = positions.len();
        (
            Just(SYSTEMS[system]),
            Just(positions),
            proptest::collection::vec(walkers(n), 1..4),
            Just(shift),
        )
    })
}

/// Puts every walker where its chunk draws its tile, named as it says; checks that each
/// stands, in the world, on the tile its chunk (at `positions`, less `shift` chunks) has
/// there.
fn walk_and_check(
    app: &mut App,
    (system, positions, world_at, shift): Drawn,
    (world, chunks): (Entity, &[Entity]),
    entities: &[Entity],
    walkers: &[Walker],
) -> Result<(), TestCaseError> {
    for (&entity, walker) in entities.iter().zip(walkers) {
        let (cx, cy) = positions[walker.chunk];
        let (x, y) = walker.tile;
        let local = (cx * CHUNK as i32 + x as i32, cy * CHUNK as i32 + y as i32);
        let at = world_at + drawn(system, local);
        let named = walker.named.map_or(world, |i| chunks[i]);
        let at = Transform::from_translation(at.extend(1.0));
        app.world_mut().entity_mut(entity).insert((
            at,
            GlobalTransform::from(at),
            TilemapId(named),
        ));
    }
    app.update();
    for (&entity, walker) in entities.iter().zip(walkers) {
        let (cx, cy) = positions[walker.chunk];
        let (x, y) = walker.tile;
        let expected = TilePos::new(
            (WORLD_ORIGIN as i32 + (cx - shift.0) * CHUNK as i32) as u32 + x,
            (WORLD_ORIGIN as i32 + (cy - shift.1) * CHUNK as i32) as u32 + y,
        );
        let origin = app.world().get::<Viewshed>(entity).unwrap().origin();
        prop_assert_eq!(
            origin,
            Some((world, expected)),
            "{:?} on {:?}",
            walker,
            system
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn an_entity_stands_on_the_hex_tile_drawn_under_it((system, positions, steps, shift) in world_case()) {
        let mut app = app();
        let (world, chunks) = spawn_world(&mut app, system, &positions, Vec2::ZERO);
        let n = steps.iter().map(Vec::len).max().unwrap_or(0);
        let entities: Vec<Entity> = (0..n)
            .map(|_| app.world_mut().spawn(Viewshed::new(2)).id())
            .collect();
        for walkers in &steps {
            let entities = &entities[..walkers.len()];
            walk_and_check(&mut app, (system, &positions, Vec2::ZERO, (0, 0)), (world, &chunks), entities, walkers)?;
        }
        // The world entity moves by whole chunks; its chunks stay where they are drawn, so
        // they lie `shift` chunks nearer its origin, and the walkers with them.
        let world_at = drawn(system, (shift.0 * CHUNK as i32, shift.1 * CHUNK as i32));
        let at = Transform::from_translation(world_at.extend(0.0));
        app.world_mut().entity_mut(world).insert((at, GlobalTransform::from(at)));
        let walkers = steps.last().unwrap();
        let entities = &entities[..walkers.len()];
        walk_and_check(&mut app, (system, &positions, Vec2::ZERO, shift), (world, &chunks), entities, walkers)?;
    }
}
