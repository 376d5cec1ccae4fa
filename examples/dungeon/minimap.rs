//! The minimap's look (drawn in the top right corner by `shared/minimap.rs`): `FogMinimap`'s
//! image of the terrain, walls, floors and doors in colours of their own.

use bevy::prelude::*;
use bevy_viewshed::prelude::*;

use crate::sprites::tiles;

/// The minimap's look: each tile kind in a colour, remembered ones dimmed, unexplored ones
/// dark.
pub fn fog_minimap() -> FogMinimap {
    FogMinimap::default()
        .with_unexplored(Color::srgba(0.0, 0.0, 0.0, 0.85))
        .with_kind(tiles::FLOOR, Color::srgb(0.62, 0.6, 0.55))
        .with_kind(tiles::WALL, Color::srgb(0.3, 0.3, 0.36))
        .with_kind(tiles::DOOR_CLOSED, Color::srgb(0.72, 0.4, 0.15))
        .with_kind(tiles::DOOR_OPEN, Color::srgb(0.9, 0.62, 0.3))
}
