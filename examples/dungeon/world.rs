//! The game state the modules share: the map's size, the level, the turn, the player, the doors.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use crate::map::Dungeon;

/// Map size in tiles: 16-pixel tiles fill a 1280x720 window below the HUD line.
pub const MAP_WIDTH: u32 = 80;
pub const MAP_HEIGHT: u32 = 43;
pub const TILE: f32 = 16.0;

/// Every tile of the map, row by row from the bottom.
pub fn map_tiles() -> impl Iterator<Item = TilePos> {
    (0..MAP_HEIGHT).flat_map(|y| (0..MAP_WIDTH).map(move |x| TilePos { x, y }))
}

/// The dungeon's layout and its tilemaps.
#[derive(Resource)]
pub struct Level {
    pub dungeon: Dungeon,
    pub terrain: Entity,
    pub overlay: Entity,
    /// The glow layer: the light's colour over the tiles the player sees.
    pub glow: Entity,
    /// The door tile entities by position.
    pub door_tiles: HashMap<(u32, u32), Entity>,
}

/// The turn counter: one turn per player action.
#[derive(Resource, Default)]
pub struct Turn(pub u32);

/// Written when the player has acted: the monsters take their turn.
#[derive(Message)]
pub struct PlayerActed;

#[derive(Component)]
pub struct Player;

/// A door tile; closed doors are `Opaque`.
#[derive(Component)]
pub struct Door {
    pub open: bool,
}
