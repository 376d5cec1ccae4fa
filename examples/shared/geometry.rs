//! A map's drawing geometry (its size, its tiles' size and its grid), centred on the world's
//! origin: the map-sized tilemap of a tileset, the tileset as an array texture, where a
//! tile's centre is, and the system that keeps sprites on their tiles.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

/// How a map is drawn: `size` tiles of `tile_size` pixels on a grid of `map_type`.
pub struct Geometry {
    pub size: TilemapSize,
    pub tile_size: TilemapTileSize,
    pub map_type: TilemapType,
}

impl Geometry {
    /// The map-sized tilemap of the tiles of `texture`, centred.
    pub fn tilemap(&self, storage: TileStorage, texture: &Handle<Image>) -> TilemapBundle {
        TilemapBundle {
            grid_size: self.tile_size.into(),
            size: self.size,
            storage,
            texture: TilemapTexture::Single(texture.clone()),
            tile_size: self.tile_size,
            map_type: self.map_type,
            anchor: TilemapAnchor::Center,
            ..default()
        }
    }

    /// The tileset as the tilemaps' array texture.
    pub fn array_texture(&self, texture: &Handle<Image>) -> TilemapArrayTexture {
        TilemapArrayTexture {
            texture: TilemapTexture::Single(texture.clone()),
            tile_size: self.tile_size,
            ..default()
        }
    }

    /// Where a tile's centre is in the world.
    pub fn tile_center(&self, tile: TilePos) -> Vec2 {
        tile.center_in_world(
            &self.size,
            &self.tile_size.into(),
            &self.tile_size,
            &self.map_type,
            &TilemapAnchor::Center,
        )
    }
}
