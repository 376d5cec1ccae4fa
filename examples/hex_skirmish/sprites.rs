//! Drawing from the hexagonal tileset: its cell indices, the map's tilemap geometry, the units'
//! sprites, and where hexagons are in the world and on the screen.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use crate::geometry::Geometry;
use crate::map::{COORDS, MAP_SIZE};

/// Tileset indices (see assets/make_hex_tileset.py).
pub mod tiles {
    pub const GRASS: u32 = 0;
    pub const FOREST: u32 = 1;
    pub const ROCK: u32 = 2;
    pub const BLUE_UNIT: usize = 3;
    pub const RED_UNIT: usize = 4;
}

/// The tileset's file under assets/.
pub const TILESET: &str = "hex_tiles.png";
/// One cell of the tileset: a pointy-top hexagon 28 pixels wide and 32 high.
const CELL: UVec2 = UVec2::new(28, 32);
const TILE_SIZE: TilemapTileSize = TilemapTileSize::new(CELL.x as f32, CELL.y as f32);
pub const MAP_TYPE: TilemapType = TilemapType::Hexagon(COORDS);
/// The window, and where the camera looks (the map is centred at the world's origin).
const WINDOW: Vec2 = Vec2::new(1280.0, 720.0);
const CAMERA: Vec2 = Vec2::new(0.0, 8.0);

/// The units' sprite sheet: the tileset cut into its cells.
#[derive(Resource)]
pub struct UnitSprites {
    pub image: Handle<Image>,
    layout: Handle<TextureAtlasLayout>,
}

impl UnitSprites {
    pub fn new(image: Handle<Image>, layouts: &mut Assets<TextureAtlasLayout>) -> Self {
        let layout = TextureAtlasLayout::from_grid(CELL, 5, 1, None, None);
        Self {
            image,
            layout: layouts.add(layout),
        }
    }

    /// A unit's look: its sprite above the map (`place_sprites` moves it onto its hexagon).
    pub fn unit(&self, index: usize) -> (Sprite, Transform) {
        let atlas = TextureAtlas {
            layout: self.layout.clone(),
            index,
        };
        (
            Sprite::from_atlas_image(self.image.clone(), atlas),
            Transform::from_xyz(0.0, 0.0, 2.0),
        )
    }
}

/// The camera, placed so that the map sits below the HUD line.
pub fn camera() -> impl Bundle {
    (Camera2d, Transform::from_translation(CAMERA.extend(0.0)))
}

/// How the map is drawn: the tileset's hexagons on the map's grid, centred.
const GEOMETRY: Geometry = Geometry {
    size: MAP_SIZE,
    tile_size: TILE_SIZE,
    map_type: MAP_TYPE,
};

/// The map-sized hexagonal tilemap of the tileset's hexagons, centred.
pub fn tilemap(storage: TileStorage, texture: &Handle<Image>) -> TilemapBundle {
    GEOMETRY.tilemap(storage, texture)
}

/// The tileset as the tilemap's array texture.
pub fn array_texture(texture: &Handle<Image>) -> TilemapArrayTexture {
    GEOMETRY.array_texture(texture)
}

/// Where a hexagon's centre is in the world.
pub fn tile_center(tile: TilePos) -> Vec2 {
    GEOMETRY.tile_center(tile)
}

/// Where a hexagon's centre is in the window, in pixels from its top-left corner.
pub fn tile_pixel(tile: TilePos) -> Vec2 {
    let world = tile_center(tile) - CAMERA;
    Vec2::new(WINDOW.x / 2.0 + world.x, WINDOW.y / 2.0 - world.y)
}

/// Keeps unit sprites on their hexagons.
pub fn place_sprites(
    mut units: Query<(&TilePos, &mut Transform), (Changed<TilePos>, With<Sprite>)>,
) {
    for (tile, mut transform) in &mut units {
        let center = tile_center(*tile);
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
}
