//! bevy_ecs_tiled 0.13's world chunking, kept from unloading a world under a still camera: it
//! spawns the maps of a `.world` near the cameras whose `Transform` changed since it last ran,
//! and despawns every other map, so in a frame in which no camera moved it despawns them all
//! (and spawns them again when the camera next moves: each map reloaded, its views and fog
//! drawn anew). Marking the cameras' transforms changed before it runs, while a chunked world
//! exists, keeps the maps around a still camera loaded. The cost is the cameras' transform
//! propagation each frame, and a game's own `Changed<Transform>` filters see its cameras
//! changed every frame then (docs/tiled.md, "bevy_ecs_tiled's quirks").

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::TiledWorldChunking;

/// Marks every camera's `Transform` changed while a Tiled world with chunking is loaded.
pub(super) fn keep_still_cameras_seen(
    worlds: Query<&TiledWorldChunking>,
    mut cameras: Query<&mut Transform, With<Camera>>,
) {
    if worlds.iter().any(|chunking| chunking.0.is_some()) {
        for mut transform in &mut cameras {
            transform.set_changed();
        }
    }
}
