//! A square map of 16-pixel tiles from `tiles.png`, spawned tile by tile and centred on the
//! origin: the map of the single-file examples (the quick start spells the same out, so that
//! it can be pasted on its own).

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

/// Makes `map` a `size` tilemap drawn from `tiles`: tile `(x, y)` takes its texture index and
/// colour from `look(x, y)`, and is `Opaque` where `is_wall(x, y)`. The caller adds the fog's
/// look (and anything else) to `map`.
pub fn spawn_square_map(
    commands: &mut Commands,
    (map, size, tiles): (Entity, TilemapSize, Handle<Image>),
    look: impl Fn(u32, u32) -> (u32, Color),
    is_wall: impl Fn(u32, u32) -> bool,
) {
    let mut storage = TileStorage::empty(size);
    for x in 0..size.x {
        for y in 0..size.y {
            let position = TilePos { x, y };
            let (index, color) = look(x, y);
            let mut tile = commands.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(map),
                texture_index: TileTextureIndex(index),
                color: TileColor(color),
                ..default()
            });
            if is_wall(x, y) {
                tile.insert(Opaque);
            }
            storage.set(&position, tile.id());
        }
    }
    let tile_size = TilemapTileSize::new(16.0, 16.0);
    commands.entity(map).insert(TilemapBundle {
        grid_size: tile_size.into(),
        size,
        storage,
        texture: TilemapTexture::Single(tiles),
        tile_size,
        anchor: TilemapAnchor::Center,
        ..default()
    });
}
