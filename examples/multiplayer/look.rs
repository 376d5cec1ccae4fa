//! How both multiplayer examples draw: the dungeon example's tileset and its indices (see
//! assets/make_tileset.py), the terrain tilemap whose tiles a team's fog shows (seen: bright,
//! remembered: dimmed, unexplored: not drawn), each piece's sprite, and where a cell's centre
//! lies.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FogState;

use crate::map::{Cell as MapCell, Dungeon};
use crate::protocol::{Cell, MAP_HEIGHT, MAP_WIDTH, Piece};

/// A tile's size in the tileset and in the world, before any zoom.
pub const TILE: f32 = 16.0;
pub const MAP_SIZE: TilemapSize = TilemapSize::new(MAP_WIDTH, MAP_HEIGHT);
pub const TILESET: &str = "tiles.png";
const FLOOR: u32 = 0;
const WALL: u32 = 1;
const PLAYER: usize = 4;
const MONSTER: usize = 5;
const GUARD: usize = 6;

/// The tileset as a sprite sheet: its eight 16x16 images in a row.
pub fn sprite_layout() -> TextureAtlasLayout {
    TextureAtlasLayout::from_grid(UVec2::splat(16), 8, 1, None, None)
}

/// The dungeon's terrain at `transform`, every tile hidden until a team's fog says otherwise.
pub fn spawn_terrain(
    commands: &mut Commands,
    dungeon: &Dungeon,
    texture: &Handle<Image>,
    transform: Transform,
) -> Entity {
    let terrain = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(MAP_SIZE);
    for y in 0..MAP_HEIGHT {
        for x in 0..MAP_WIDTH {
            let position = TilePos { x, y };
            let wall = dungeon.cell(x, y) == MapCell::Wall;
            let tile = commands.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(terrain),
                texture_index: TileTextureIndex(if wall { WALL } else { FLOOR }),
                visible: TileVisible(false),
                ..default()
            });
            storage.set(&position, tile.id());
        }
    }
    let tile_size = TilemapTileSize::new(TILE, TILE);
    commands.entity(terrain).insert(TilemapBundle {
        grid_size: tile_size.into(),
        size: MAP_SIZE,
        storage,
        texture: TilemapTexture::Single(texture.clone()),
        tile_size,
        anchor: TilemapAnchor::Center,
        transform,
        ..default()
    });
    terrain
}

/// Each terrain tile drawn as `state` says (`None`: nothing known, not drawn).
pub fn paint_terrain(
    storage: &TileStorage,
    tiles: &mut Query<(&mut TileVisible, &mut TileColor)>,
    state: impl Fn(TilePos) -> Option<FogState>,
) {
    for (position, tile) in storage.iter().enumerate() {
        let Some(Ok((mut visible, mut color))) = tile.map(|tile| tiles.get_mut(tile)) else {
            continue;
        };
        let (x, y) = (position as u32 % MAP_WIDTH, position as u32 / MAP_WIDTH);
        let (shown, tint) = match state(TilePos { x, y }) {
            Some(FogState::Visible) => (true, Color::WHITE),
            Some(FogState::Remembered) => (true, Color::srgb(0.36, 0.38, 0.62)),
            Some(FogState::Unexplored) | None => (false, Color::WHITE),
        };
        visible.set_if_neq(TileVisible(shown));
        if color.0 != tint {
            color.0 = tint;
        }
    }
}

/// A piece's sprite for the players of team `own`: their units as the player, the others'
/// as guards.
pub fn piece_sprite(piece: Piece, own: Option<u32>) -> usize {
    match piece {
        Piece::Unit(team) if Some(team) == own => PLAYER,
        Piece::Unit(_) => GUARD,
        Piece::Monster => MONSTER,
    }
}

/// The centre of `cell` in the terrain's own space (before its transform).
pub fn cell_centre(cell: Cell) -> Vec2 {
    let tile_size = TilemapTileSize::new(TILE, TILE);
    let tile = TilePos {
        x: cell.x,
        y: cell.y,
    };
    tile.center_in_world(
        &MAP_SIZE,
        &tile_size.into(),
        &tile_size,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    )
}
