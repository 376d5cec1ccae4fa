//! The plugin bench's dungeon cut into chunks of a [`WorldMap`]: the same walls and the same
//! walkers as `plugin_app`'s moving scene, so a frame on the world and a frame on the one
//! map do the same views, most of them across chunk borders; and a world that streams a
//! chunk out and in again every frame, for what a chunk that comes and goes costs.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::OpacityGrid;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{ChunkOf, ChunkPos};

use super::{RADIUS, SIZE, minimal_plugins, walks};

/// The side of a chunk, in tiles: a radius-8 view crosses a border from three quarters of
/// the tiles.
pub const CHUNK: u32 = 32;

/// Where a walker walks, in chunks: back and forth between two tiles (maybe on two chunks).
#[derive(Component, Clone, Copy)]
pub struct ChunkWalk {
    a: (Entity, TilePos),
    b: (Entity, TilePos),
}

fn walk_chunks(mut walkers: Query<(&ChunkWalk, &mut TilePos, &mut TilemapId)>) {
    for (walk, mut pos, mut map) in &mut walkers {
        let (chunk, tile) = if (map.0, *pos) == walk.a {
            walk.b
        } else {
            walk.a
        };
        *pos = tile;
        map.set_if_neq(TilemapId(chunk));
    }
}

/// Spawns the chunk at chunk position `(cx, cy)` of the dungeon `grid` into `world`: tile
/// entities, walls `Opaque`.
pub fn spawn_chunk(
    w: &mut World,
    world: Entity,
    grid: &OpacityGrid,
    (cx, cy): (u32, u32),
) -> Entity {
    let size = TilemapSize::new(CHUNK, CHUNK);
    let chunk = w.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..CHUNK {
        for x in 0..CHUNK {
            let pos = TilePos { x, y };
            let mut tile = w.spawn((
                pos,
                TilemapId(chunk),
                TileVisible(true),
                TileColor::default(),
            ));
            if grid.is_opaque(cx * CHUNK + x, cy * CHUNK + y) {
                tile.insert(Opaque);
            }
            storage.set(&pos, tile.id());
        }
    }
    w.entity_mut(chunk).insert((
        size,
        storage,
        TilemapGridSize::new(16.0, 16.0),
        TilemapTileSize::new(16.0, 16.0),
        TilemapType::Square,
        ChunkOf(world),
        ChunkPos(IVec2::new(cx as i32, cy as i32)),
    ));
    chunk
}

/// The dungeon as a world of `(SIZE / CHUNK)²` chunks with `viewers` walkers of radius 8 (the
/// walks of `plugin_app`), all moving every frame.
pub fn world_app(grid: &OpacityGrid, viewers: usize) -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    let world = app.world_mut().spawn(WorldMap).id();
    let side = SIZE / CHUNK;
    let mut chunks = Vec::new();
    for cy in 0..side {
        for cx in 0..side {
            chunks.push(spawn_chunk(app.world_mut(), world, grid, (cx, cy)));
        }
    }
    let on_chunk = |tile: TilePos| {
        let (cx, cy) = (tile.x / CHUNK, tile.y / CHUNK);
        let local = TilePos::new(tile.x % CHUNK, tile.y % CHUNK);
        (chunks[(cy * side + cx) as usize], local)
    };
    for walk in walks(grid, viewers) {
        let (a, b) = (on_chunk(walk.a), on_chunk(walk.b));
        let walker = ChunkWalk { a, b };
        app.world_mut()
            .spawn((Viewshed::new(RADIUS), a.1, TilemapId(a.0), walker));
    }
    app.add_systems(Update, walk_chunks);
    app.update();
    app.update();
    app
}

/// The chunk a streaming world takes out and puts back every frame.
#[derive(Resource)]
struct Streamed {
    world: Entity,
    at: (u32, u32),
    chunk: Option<Entity>,
    grid: OpacityGrid,
}

/// Takes the streamed chunk out (its tiles with it), or puts it back.
fn stream(w: &mut World) {
    let (world, at, chunk) = {
        let streamed = w.resource::<Streamed>();
        (streamed.world, streamed.at, streamed.chunk)
    };
    match chunk {
        Some(chunk) => {
            let tiles: Vec<Entity> = w
                .get::<TileStorage>(chunk)
                .map(|storage| storage.iter().flatten().copied().collect())
                .unwrap_or_default();
            for tile in tiles {
                w.despawn(tile);
            }
            w.despawn(chunk);
            w.resource_mut::<Streamed>().chunk = None;
        }
        None => {
            let grid = w.resource::<Streamed>().grid.clone();
            let chunk = spawn_chunk(w, world, &grid, at);
            w.resource_mut::<Streamed>().chunk = Some(chunk);
        }
    }
}

/// A world of `side` x `side` loaded chunks of the dungeon, `per_chunk` still viewers on each,
/// whose chunk `(0, 0)` is taken out and put back every frame if `streams`: what a chunk that
/// comes and goes costs (less the same world's frame without it), which should not grow with
/// the chunks loaded.
pub fn streaming_app(grid: &OpacityGrid, side: u32, per_chunk: usize, streams: bool) -> App {
    streaming_app_with(grid, (side, per_chunk, streams), |_, _| {})
}

/// [`streaming_app`], with `extra` run on the app and its world entity before the first frame
/// (more plugins, a look on the world).
pub fn streaming_app_with(
    grid: &OpacityGrid,
    (side, per_chunk, streams): (u32, usize, bool),
    extra: impl FnOnce(&mut App, Entity),
) -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    let world = app.world_mut().spawn(WorldMap).id();
    extra(&mut app, world);
    let mut chunks = Vec::new();
    for cy in 0..side {
        for cx in 0..side {
            chunks.push(spawn_chunk(app.world_mut(), world, grid, (cx, cy)));
        }
    }
    // Viewers on floor tiles of each chunk but the streamed one (which would take them).
    let floors = walks(grid, SIZE as usize * 4);
    for (i, &chunk) in chunks.iter().enumerate().skip(1) {
        let (cx, cy) = (i as u32 % side, i as u32 / side);
        let on = |w: &&super::Walk| w.a.x / CHUNK == cx && w.a.y / CHUNK == cy;
        for walk in floors.iter().filter(on).take(per_chunk) {
            let local = TilePos::new(walk.a.x % CHUNK, walk.a.y % CHUNK);
            app.world_mut()
                .spawn((Viewshed::new(RADIUS), local, TilemapId(chunk)));
        }
    }
    let streamed = Streamed {
        world,
        at: (0, 0),
        chunk: Some(chunks[0]),
        grid: grid.clone(),
    };
    app.insert_resource(streamed);
    if streams {
        app.add_systems(Update, stream);
    }
    app.update();
    app.update();
    app
}
