//! The fog of war drawn smooth on the GPU: `SmoothFog`, one component on the map, blurs the
//! edge of what is seen into a soft curve and fades tiles in the shader. The player walks east
//! through a room of pillars, leaving remembered tiles behind. `tests/smooth_fog_screenshot.rs`
//! plays it under Xvfb.
//!
//! With `--chunks` the same room is a `WorldMap` of eight 8x9-tile chunks, the `SmoothFog` on
//! the world: the fog is drawn over each chunk from a texture of its own, and flows on across
//! their borders as over one map (the test compares the two frames).
//!
//! ```text
//! cargo run --example smooth_fog
//! cargo run --example smooth_fog -- --chunks
//! ```

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{ChunkOf, ChunkPos};

const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };
/// A chunk's size with `--chunks`: the room is 4x2 chunks.
const CHUNK: TilemapSize = TilemapSize { x: 8, y: 9 };
const TILE: f32 = 16.0;

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.x - 1 || y == SIZE.y - 1 || (x % 6 == 3 && y % 5 == 2)
}

/// The player's column: it walks east from x = 2.
#[derive(Component)]
struct Walker(u32);

fn main() {
    let chunks = std::env::args().any(|arg| arg == "--chunks");
    App::new()
        .add_plugins(DefaultPlugins.set(ImagePlugin::default_nearest()))
        .add_plugins(ViewshedPlugins::default())
        .add_systems(
            Startup,
            move |commands: Commands, assets: Res<AssetServer>| setup(commands, assets, chunks),
        )
        .add_systems(Update, walk)
        .run();
}

fn setup(mut commands: Commands, assets: Res<AssetServer>, chunks: bool) {
    let zoom = OrthographicProjection {
        scale: 0.5,
        ..OrthographicProjection::default_2d()
    };
    commands.spawn((Camera2d, Projection::Orthographic(zoom)));
    let tiles = assets.load("tiles.png");
    // The fog of war over the whole map, blurred and faded on the GPU.
    let fog = SmoothFog::default();
    let map = if chunks {
        // A world's frame has the centre of chunk (0, 0)'s tile (0, 0) at its origin: the
        // player's `Transform` is read there.
        let frame = Transform::from_translation(tile_centre(0, 0).extend(0.0));
        let world = commands.spawn((WorldMap, fog, frame)).id();
        for cy in 0..(SIZE.y / CHUNK.y) as i32 {
            for cx in 0..(SIZE.x / CHUNK.x) as i32 {
                let first = UVec2::new(cx as u32 * CHUNK.x, cy as u32 * CHUNK.y);
                let chunk = spawn_tilemap(&mut commands, &tiles, CHUNK, first);
                let place = (ChunkOf(world), ChunkPos(IVec2::new(cx, cy)));
                commands.entity(chunk).insert(place);
            }
        }
        world
    } else {
        let map = spawn_tilemap(&mut commands, &tiles, SIZE, UVec2::ZERO);
        commands.entity(map).insert(fog);
        map
    };
    // The player (tile 4 of the tileset, drawn above the fog) sees 6 tiles around it; it
    // stands on the tile under its `Transform`, on the map or on whichever chunk is there.
    let figure = Rect::new(64.0, 0.0, 80.0, 16.0);
    commands.spawn((
        Walker(2),
        Viewshed::new(6),
        RevealsFog,
        TilemapId(map),
        Sprite {
            image: tiles,
            rect: Some(figure),
            ..default()
        },
        Transform::from_translation(tile_centre(2, 4).extend(10.0)),
    ));
}

/// Where tile `(x, y)` of the room is drawn: the room is centred on the window, tile (0, 0)
/// 15.5 and 8.5 tiles from its centre.
fn tile_centre(x: u32, y: u32) -> Vec2 {
    Vec2::new(x as f32 - 15.5, y as f32 - 8.5) * TILE
}

/// Spawns a tilemap of `size` holding the room's tiles from `first` on: walls, and plain white
/// floor tiles in a pale stone colour; drawn where they lie in the room, under the smooth fog
/// (drawn where they were seen and in the ring the blur spreads over, hidden elsewhere).
fn spawn_tilemap(
    commands: &mut Commands,
    tiles: &Handle<Image>,
    size: TilemapSize,
    first: UVec2,
) -> Entity {
    let map = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for x in 0..size.x {
        for y in 0..size.y {
            let position = TilePos { x, y };
            let (rx, ry) = (first.x + x, first.y + y);
            let (index, color) = match is_wall(rx, ry) {
                true => (1, Color::WHITE),
                false => (7, Color::srgb(0.78, 0.74, 0.66)),
            };
            let mut tile = commands.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(map),
                texture_index: TileTextureIndex(index),
                color: TileColor(color),
                ..default()
            });
            if is_wall(rx, ry) {
                tile.insert(Opaque);
            }
            storage.set(&position, tile.id());
        }
    }
    let tile_size = TilemapTileSize::new(TILE, TILE);
    let at = tile_centre(first.x, first.y).extend(0.0);
    commands.entity(map).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            size,
            storage,
            texture: TilemapTexture::Single(tiles.clone()),
            tile_size,
            transform: Transform::from_translation(at),
            ..default()
        },
        FogStyle::under_smooth_fog(),
    ));
    map
}

/// One tile east every 0.2 s, from x = 2 to x = 16 (the view and the fog follow in that
/// frame); z = 10 is above the map and its fog.
fn walk(time: Res<Time>, player: Single<(&mut Walker, &mut Transform)>) {
    let (mut walker, mut transform) = player.into_inner();
    if walker.0 < 16 && time.elapsed_secs() > 0.2 * walker.0 as f32 {
        walker.0 += 1;
        transform.translation = tile_centre(walker.0, 4).extend(10.0);
    }
}
