//! [`LayersPlugin`]: the layers domain's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::TileStorage;

use super::groups::{
    GroupsDirty, LayerGroup, group_layers, groups_dirty, on_group_or_tilemap,
    on_grouped_layer_changed, on_reparented,
};
use super::layer_of::{
    LayerEpoch, LayerOf, LayerWarnings, Layers, check_layers, on_layers_changed,
};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Layers: which tilemaps form one map (`LayerOf`, `LayerGroup`), in the step
/// [`ViewshedStepSystems::Layers`]. Every other domain finds a tilemap's map through it, so it
/// cannot be left out.
#[derive(Debug, Clone, Copy, Default)]
pub struct LayersPlugin;

impl Plugin for LayersPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<LayerEpoch>()
            .init_resource::<LayerWarnings>()
            .init_resource::<GroupsDirty>()
            .register_type::<LayerOf>()
            .register_type::<Layers>()
            .register_type::<LayerGroup>();
        app.add_systems(
            ViewshedSchedule,
            (
                group_layers.run_if(groups_dirty),
                check_layers.run_if(
                    any_match_filter::<(
                        With<LayerOf>,
                        Or<(Changed<LayerOf>, Changed<TilemapSize>)>,
                    )>,
                ),
            )
                .chain()
                .in_set(ViewshedStepSystems::Layers),
        );
        // Layer groups: tilemaps below a group may have changed.
        app.add_observer(on_group_or_tilemap::<Add, LayerGroup>)
            .add_observer(on_group_or_tilemap::<Remove, LayerGroup>)
            .add_observer(on_group_or_tilemap::<Add, TileStorage>)
            .add_observer(on_group_or_tilemap::<Remove, TileStorage>)
            .add_observer(on_reparented::<Insert>)
            .add_observer(on_reparented::<Remove>)
            .add_observer(on_grouped_layer_changed::<Insert>)
            .add_observer(on_grouped_layer_changed::<Remove>);
        // Layers: every root lookup may change.
        app.add_observer(on_layers_changed::<Insert>)
            .add_observer(on_layers_changed::<Remove>);
    }
}
