//! The minimap in the top right corner: `FogMinimap`'s image of the terrain, one pixel per
//! tile drawn 3x3, walls, floors and doors in colours of their own, and a dot where the player
//! stands.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

use crate::sprites::tiles;
use crate::world::{Level, MAP_HEIGHT, MAP_WIDTH, Player};

/// Window pixels per tile.
const SCALE: f32 = 3.0;

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

#[derive(Component)]
pub struct MinimapView;

#[derive(Component)]
pub struct PlayerDot;

/// The minimap's frame in the top right corner, below the HUD, and the player's dot on it.
pub fn spawn(mut commands: Commands) {
    let (width, height) = (MAP_WIDTH as f32 * SCALE, MAP_HEIGHT as f32 * SCALE);
    commands
        .spawn((
            MinimapView,
            ImageNode::default(),
            Node {
                position_type: PositionType::Absolute,
                top: Val::Px(40.0),
                right: Val::Px(10.0),
                width: Val::Px(width),
                height: Val::Px(height),
                border: UiRect::all(Val::Px(1.0)),
                ..default()
            },
            BorderColor::all(Color::srgba(0.8, 0.8, 0.9, 0.5)),
        ))
        .with_child((
            PlayerDot,
            Node {
                position_type: PositionType::Absolute,
                width: Val::Px(SCALE),
                height: Val::Px(SCALE),
                ..default()
            },
            BackgroundColor(Color::srgb(1.0, 0.9, 0.2)),
        ));
}

/// Shows the terrain's minimap image (once the plugin has made it) and puts the dot on the
/// player's tile.
pub fn show_minimap(
    level: Res<Level>,
    maps: Query<&FogMinimap>,
    mut view: Single<&mut ImageNode, With<MinimapView>>,
    player: Single<&TilePos, With<Player>>,
    mut dot: Single<&mut Node, With<PlayerDot>>,
) {
    if let Some(image) = maps.get(level.terrain).ok().and_then(FogMinimap::image)
        && view.image != *image
    {
        view.image = image.clone();
    }
    let (left, top) = (
        Val::Px(player.x as f32 * SCALE),
        Val::Px((MAP_HEIGHT - 1 - player.y) as f32 * SCALE),
    );
    if dot.left != left || dot.top != top {
        dot.left = left;
        dot.top = top;
    }
}
