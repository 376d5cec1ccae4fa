//! LDtk levels as maps: each level entity is a [`LayerGroup`] (its tile layers are one map),
//! and its tile layers get the [`LdtkFog`] style.

use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::Type;
use bevy_ecs_ldtk::{IntGridRendering, LayerMetadata, LdtkSettings, LevelIid};
use bevy_ecs_tilemap::tiles::TileStorage;

use crate::editors::ldtk::config::LdtkFog;
use crate::layers::groups::LayerGroup;

/// A level entity was spawned: its tilemaps are the layers of one map.
pub(super) fn group_level(event: On<Add, LevelIid>, mut commands: Commands) {
    commands
        .entity(event.event_target())
        .try_insert_if_new(LayerGroup::default());
}

/// Tilemaps of a level's layers spawned since the last update.
type NewLayers = (Added<LayerMetadata>, With<TileStorage>);

/// Puts the [`LdtkFog`] style on the tile layers spawned since the last update.
pub(super) fn style_level_layers(
    fog: Res<LdtkFog>,
    settings: Option<Res<LdtkSettings>>,
    layers: Query<(Entity, &LayerMetadata), NewLayers>,
    mut commands: Commands,
) {
    let Some(style) = fog.0 else {
        return;
    };
    let invisible_int_grid =
        settings.is_some_and(|settings| settings.int_grid_rendering == IntGridRendering::Invisible);
    for (layer, meta) in &layers {
        let drawn_invisible = meta.layer_instance_type == Type::IntGrid
            && meta.tileset_def_uid.is_none()
            && invisible_int_grid;
        if !drawn_invisible {
            commands.entity(layer).try_insert_if_new(style);
        }
    }
}
