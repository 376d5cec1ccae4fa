//! Drawing from the tileset: its tile indices, map-sized tilemaps, the actors' sprites, and
//! where tiles are in the world.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use crate::geometry::Geometry;
use crate::world::{MAP_HEIGHT, MAP_WIDTH, TILE};

/// Tileset indices (see assets/make_tileset.py).
pub mod tiles {
    pub const FLOOR: u32 = 0;
    pub const WALL: u32 = 1;
    pub const DOOR_CLOSED: u32 = 2;
    pub const DOOR_OPEN: u32 = 3;
    pub const PLAYER: usize = 4;
    pub const MONSTER: usize = 5;
    pub const GUARD: usize = 6;
    pub const PLAIN: u32 = 7;
}

/// The tileset's file under assets/.
pub const TILESET: &str = "tiles.png";

pub const MAP_SIZE: TilemapSize = TilemapSize::new(MAP_WIDTH, MAP_HEIGHT);
const TILE_SIZE: TilemapTileSize = TilemapTileSize::new(TILE, TILE);

/// The actors' sprite sheet.
#[derive(Resource)]
pub struct ActorSprites {
    pub image: Handle<Image>,
    pub layout: Handle<TextureAtlasLayout>,
}

impl ActorSprites {
    /// The tileset cut into its row of eight 16-pixel sprites.
    pub fn new(image: Handle<Image>, layouts: &mut Assets<TextureAtlasLayout>) -> Self {
        let layout = TextureAtlasLayout::from_grid(UVec2::splat(16), 8, 1, None, None);
        Self {
            image,
            layout: layouts.add(layout),
        }
    }

    /// The sprite at `index` of the sheet.
    pub fn sprite(&self, index: usize) -> Sprite {
        Sprite::from_atlas_image(
            self.image.clone(),
            TextureAtlas {
                layout: self.layout.clone(),
                index,
            },
        )
    }

    /// An actor's look: its sprite, drawn above both tilemaps (`place_sprites` moves it onto
    /// its tile).
    pub fn actor(&self, index: usize) -> (Sprite, Transform) {
        (self.sprite(index), Transform::from_xyz(0.0, 0.0, 2.0))
    }
}

/// How the dungeon is drawn: map-sized tilemaps of 16-pixel tiles, centred.
const GEOMETRY: Geometry = Geometry {
    size: MAP_SIZE,
    tile_size: TILE_SIZE,
    map_type: TilemapType::Square,
};

/// A map-sized tilemap of 16-pixel tiles from the tileset, centred, drawn at depth `z`.
pub fn tilemap(storage: TileStorage, texture: &Handle<Image>, z: f32) -> TilemapBundle {
    TilemapBundle {
        transform: Transform::from_xyz(0.0, 0.0, z),
        ..GEOMETRY.tilemap(storage, texture)
    }
}

/// The tileset as the tilemaps' array texture.
pub fn array_texture(texture: &Handle<Image>) -> TilemapArrayTexture {
    GEOMETRY.array_texture(texture)
}

/// Where a tile's centre is in the world.
pub fn tile_center(tile: TilePos) -> Vec2 {
    GEOMETRY.tile_center(tile)
}

/// Keeps actor sprites on their tiles.
pub fn place_sprites(
    mut actors: Query<(&TilePos, &mut Transform), (Changed<TilePos>, With<Sprite>)>,
) {
    for (tile, mut transform) in &mut actors {
        let center = tile_center(*tile);
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
}
