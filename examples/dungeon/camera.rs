//! The camera: at `--zoom 1` it shows the whole map, still; zoomed in (2 by default) it follows
//! the player, gliding after it once it walks a few tiles from the middle (beyond the map's
//! edge, it shows black, as the unexplored map).

use bevy::prelude::*;

use crate::args::Options;
use crate::world::{Player, TILE};
/// How quickly the camera catches up with the player: the share of the way left per second is
/// `exp(-CATCH_UP)`.
const CATCH_UP: f32 = 7.0;

/// The camera, one tile above the map's centre at zoom 1 (leaving the top rows to the HUD),
/// on the player when zoomed in.
pub fn spawn_camera(commands: &mut Commands, zoom: f32, player: Vec2) {
    let at = if zoom > 1.0 {
        player
    } else {
        Vec2::new(0.0, TILE)
    };
    let projection = OrthographicProjection {
        scale: 1.0 / zoom,
        ..OrthographicProjection::default_2d()
    };
    commands.spawn((
        Camera2d,
        Projection::Orthographic(projection),
        Transform::from_translation(at.extend(0.0)),
    ));
}

/// How far the player may walk from the middle of the view, in tiles along each axis, before
/// the camera follows: it stays still while the player crosses a room.
const FREE: Vec2 = Vec2::new(6.0, 3.0);

/// Moves the camera, when zoomed in, towards the nearest place that keeps the player's sprite
/// within `FREE` of the middle of the view.
pub fn follow_player(
    options: Res<Options>,
    time: Res<Time>,
    player: Single<&Transform, (With<Player>, Without<Camera2d>)>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    if options.zoom <= 1.0 {
        return;
    }
    let now = camera.translation.truncate();
    let player = player.translation.truncate();
    let free = FREE * TILE;
    let target = now.clamp(player - free, player + free);
    let step = 1.0 - (-CATCH_UP * time.delta_secs()).exp();
    let next = now.lerp(target, step);
    camera.translation = next.extend(camera.translation.z);
}
