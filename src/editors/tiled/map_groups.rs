//! Tiled maps and worlds as the plugin's maps: each `TiledMap` entity is a
//! [`LayerGroup`] (its tilemaps, one per tileset of each tile layer, in group layers or not,
//! are layers of one map rooted at its first), each `TiledWorld` entity a [`WorldMap`] whose
//! maps are its chunks (placed by their transforms, as bevy_ecs_tiled places them) and which
//! keeps the teams' memory of the maps that go ([`WorldMemory`]); and the [`TiledFog`] style
//! on every tilemap of a tile layer.

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMap, TiledTilemap, TiledWorld};

use crate::editors::tiled::config::TiledFog;
use crate::fog::WorldMemory;
use crate::layers::groups::LayerGroup;
use crate::worlds::chunks::WorldMap;

/// Makes each Tiled map entity a layer group as it is spawned.
pub(super) fn group_map(event: On<Add, TiledMap>, mut commands: Commands) {
    commands
        .entity(event.entity)
        .try_insert_if_new(LayerGroup::default());
}

/// Makes each Tiled world entity a world that keeps what the teams explored of its maps.
pub(super) fn world_of_maps(event: On<Add, TiledWorld>, mut commands: Commands) {
    commands
        .entity(event.entity)
        .try_insert_if_new((WorldMap, WorldMemory::default()));
}

/// Puts the [`TiledFog`] style on the tilemaps spawned since the last update.
pub(super) fn style_tilemaps(
    fog: Res<TiledFog>,
    tilemaps: Query<Entity, Added<TiledTilemap>>,
    mut commands: Commands,
) {
    let Some(style) = fog.0 else {
        return;
    };
    for tilemap in &tilemaps {
        commands.entity(tilemap).try_insert_if_new(style);
    }
}
