//! The camera: at `--zoom 1` it shows the whole map, still; zoomed in (2 by default) it follows
//! the player, gliding after it, and stays over the map.

use bevy::prelude::*;

use crate::args::Options;
use crate::world::{MAP_HEIGHT, MAP_WIDTH, Player, TILE};

/// The HUD's height in window pixels: the map may slide under it.
const HUD: f32 = 32.0;
/// How quickly the camera catches up with the player: the share of the way left per second is
/// `exp(-CATCH_UP)`.
const CATCH_UP: f32 = 7.0;

/// The camera, one tile above the map's centre at zoom 1 (leaving the top rows to the HUD),
/// on the player when zoomed in.
pub fn spawn_camera(commands: &mut Commands, zoom: f32, player: Vec2) {
    let at = if zoom > 1.0 {
        clamp_to_map(player, zoom)
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

/// Moves the camera towards the player's sprite when zoomed in.
pub fn follow_player(
    options: Res<Options>,
    time: Res<Time>,
    player: Single<&Transform, (With<Player>, Without<Camera2d>)>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    if options.zoom <= 1.0 {
        return;
    }
    let target = clamp_to_map(player.translation.truncate(), options.zoom);
    let now = camera.translation.truncate();
    let step = 1.0 - (-CATCH_UP * time.delta_secs()).exp();
    let next = now.lerp(target, step);
    camera.translation = next.extend(camera.translation.z);
}

/// The nearest point to `at` where a camera at `zoom` shows only the map (and the HUD above
/// its top row).
fn clamp_to_map(at: Vec2, zoom: f32) -> Vec2 {
    let half_view = Vec2::new(1280.0, 720.0) / zoom / 2.0;
    let half_map = Vec2::new(MAP_WIDTH as f32, MAP_HEIGHT as f32) * TILE / 2.0;
    let room = (half_map - half_view).max(Vec2::ZERO);
    let hud = HUD / zoom;
    Vec2::new(
        at.x.clamp(-room.x, room.x),
        at.y.clamp(-room.y, room.y + hud),
    )
}
