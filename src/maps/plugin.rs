//! [`LayersPlugin`] and [`MapsPlugin`]: the maps domain's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy_ecs_tilemap::TilemapPlugin;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use super::layer_groups::{
    GroupsDirty, LayerGroup, group_layers, groups_dirty, on_group_or_tilemap,
    on_grouped_layer_changed, on_reparented,
};
use super::layers::{LayerEpoch, LayerOf, LayerWarnings, Layers, check_layers, on_layers_changed};
use super::map_opacity::MapOpacity;
use super::opacity::{
    Opaque, OpaqueIndex, follow_map_types, on_opaque_gone, queue_placement, sync_opaque, track_maps,
};
use super::painted::{OpaqueCells, PaintedOn, paint_cells};
use super::placed::{
    Findable, PlaceAgain, Placed, PlacedIndex, PlacedMoves, on_findable_placed,
    on_placed_discarded, place_again, place_entities,
};
use super::worlds::{
    ChunkOf, ChunkPos, ChunkWarnings, WorldChunks, WorldMap, WorldsDirty, join_chunks,
    on_chunk_left, place_chunks,
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
            .register_type::<LayerGroup>()
            .register_type::<WorldMap>()
            .register_type::<ChunkOf>()
            .register_type::<WorldChunks>()
            .register_type::<ChunkPos>();
        app.add_systems(
            ViewshedSchedule,
            (
                group_layers.run_if(groups_dirty),
                join_chunks.run_if(any_with_component::<WorldMap>),
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
        add_layer_observers(app);
    }
}

/// Maps and placement: which entities are maps ([`MapOpacity`]: root tilemaps), where every
/// placed entity stands ([`Placed`]) and what blocks sight ([`MapOpacity`] from `Opaque`
/// entities and `OpaqueCells`), in the step [`ViewshedStepSystems::Maps`]. Every other domain
/// reads what it writes, so it cannot be left out.
///
/// It adds bevy_ecs_tilemap's `TilemapPlugin` if the app has none and can render.
#[derive(Debug, Clone, Copy, Default)]
pub struct MapsPlugin;

impl Plugin for MapsPlugin {
    fn build(&self, app: &mut App) {
        add_tilemap_plugin(app);
        app.init_resource::<OpaqueIndex>()
            .init_resource::<WorldsDirty>()
            .init_resource::<ChunkWarnings>()
            .init_resource::<PaintedOn>()
            .init_resource::<PlacedIndex>()
            .init_resource::<PlaceAgain>()
            .init_resource::<PlacedMoves>()
            .register_type::<Placed>()
            .register_type::<MapOpacity>()
            .register_type::<Opaque>()
            .register_type::<OpaqueCells>();
        app.add_systems(
            ViewshedSchedule,
            (
                place_chunks.run_if(any_with_component::<WorldMap>),
                place_entities,
                track_maps,
                follow_map_types.run_if(
                    any_match_filter::<(
                        With<TilemapType>,
                        With<MapOpacity>,
                        Or<(Changed<TilemapType>, Added<MapOpacity>)>,
                    )>,
                ),
                sync_opaque,
                paint_cells,
            )
                .chain()
                .in_set(ViewshedStepSystems::Maps),
        );
        add_map_observers(app);
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<TilemapPlugin>() && app.get_sub_app(RenderApp).is_some() {
            error!(
                "bevy_viewshed: ViewshedPlugins was added before rendering, so it did not add \
                 bevy_ecs_tilemap's TilemapPlugin and tilemaps will not be drawn: add \
                 ViewshedPlugins after DefaultPlugins, or add TilemapPlugin yourself"
            );
        }
    }
}

/// bevy_ecs_tilemap's `TilemapPlugin`, unless the app has it or cannot render.
fn add_tilemap_plugin(app: &mut App) {
    if app.is_plugin_added::<TilemapPlugin>() {
        return;
    }
    if cfg!(feature = "render") && app.get_sub_app(RenderApp).is_none() {
        // bevy_ecs_tilemap's renderer needs a render sub-app: in a headless app (or one whose
        // rendering is added later) only its components are used. `finish` says so if
        // rendering turns up after all.
        debug!("bevy_viewshed: no RenderApp, TilemapPlugin not added (headless app)");
    } else {
        app.add_plugins(TilemapPlugin);
    }
}

fn add_layer_observers(app: &mut App) {
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

fn add_map_observers(app: &mut App) {
    // Worlds: a chunk that leaves its world.
    app.add_observer(on_chunk_left);
    // Opacity: an opaque entity stops counting, or is placed again (enabled, made opaque).
    app.add_observer(on_opaque_gone::<Remove, Opaque>)
        .add_observer(on_opaque_gone::<Remove, TilePos>)
        .add_observer(on_opaque_gone::<Remove, TilemapId>)
        .add_observer(on_opaque_gone::<Add, Disabled>)
        .add_observer(queue_placement::<Remove, Disabled>)
        .add_observer(queue_placement::<Insert, Opaque>);
    // Placement: placed entities are placed again when re-enabled or when they lose their
    // tile or tilemap; those that others look for are filed where they stand.
    app.add_observer(on_findable_placed::<Insert, Placed>)
        .add_observer(on_findable_placed::<Add, Findable>)
        .add_observer(on_placed_discarded)
        .add_observer(place_again::<Add, Placed>)
        .add_observer(place_again::<Remove, Disabled>)
        .add_observer(place_again::<Remove, TilePos>)
        .add_observer(place_again::<Remove, TilemapId>);
}
