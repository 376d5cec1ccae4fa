//! [`OpacityPlugin`]: the opacity domain's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::schedule::ScheduleConfigs;
use bevy::ecs::system::ScheduleSystem;
use bevy::prelude::*;
use bevy::reflect::{GetTypeRegistration, Typed};
use bevy::render::RenderApp;
use bevy_ecs_tilemap::TilemapPlugin;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use super::density::DensityCells;
use super::elevation::ElevationCells;
use super::log::OpacityLog;
use super::map_opacity::MapOpacity;
use super::maps::{
    MapsGiven, follow_tilemaps, follow_worlds, on_opacity_inserted, refill_replaced, track_maps,
};
use super::opaque::OpaqueCells;
use super::sources::{
    PaintedCells, PaintedOn, RemadeMaps, SourceIndex, Tallies, on_map_gone, on_source_gone,
    paint_cells, queue_source, sync_sources,
};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Opacity: which entities are maps ([`MapOpacity`]: root tilemaps and worlds) and what blocks
/// or thins sight on them (`Opaque` and `Density` entities, `OpaqueCells` and `DensityCells`;
/// high ground: `Elevation` and `ElevationCells`),
/// in the step [`ViewshedStepSystems::Opacity`]. Every later domain reads what it writes, so
/// it cannot be left out.
///
/// It adds bevy_ecs_tilemap's `TilemapPlugin` if the app has none and can render.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpacityPlugin;

impl Plugin for OpacityPlugin {
    fn build(&self, app: &mut App) {
        add_tilemap_plugin(app);
        app.init_resource::<MapsGiven>()
            .init_resource::<RemadeMaps>()
            .register_type::<MapOpacity>()
            .register_required_components::<MapOpacity, OpacityLog>();
        app.add_systems(
            ViewshedSchedule,
            (
                track_maps,
                refill_replaced.run_if(MapsGiven::any_replaced),
                follow_tilemaps,
                follow_worlds,
                kind_systems::<OpaqueCells>(),
                kind_systems::<DensityCells>(),
                kind_systems::<ElevationCells>(),
            )
                .chain()
                .in_set(ViewshedStepSystems::Opacity),
        );
        app.add_observer(on_opacity_inserted);
        add_kind::<OpaqueCells>(app);
        add_kind::<DensityCells>(app);
        add_kind::<ElevationCells>(app);
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

/// The systems of one kind of cell, whose painted grid is `P`: its sources placed, then its
/// grids painted (after the maps are laid out).
fn kind_systems<P: PaintedCells>() -> ScheduleConfigs<ScheduleSystem> {
    type S<P> = <P as PaintedCells>::Source;
    (
        sync_sources::<S<P>>.run_if(any_with_component::<S<P>>),
        paint_cells::<P>,
    )
        .chain()
}

/// One kind of cell, whose painted grid is `P`: its types, its resources, its tallies on
/// every map, and the observers that take a source away or queue it to be placed again.
fn add_kind<P: PaintedCells + GetTypeRegistration + Typed>(app: &mut App)
where
    P::Source: GetTypeRegistration + Typed,
{
    type S<P> = <P as PaintedCells>::Source;
    app.init_resource::<SourceIndex<S<P>>>()
        .init_resource::<PaintedOn<P>>()
        .register_type::<S<P>>()
        .register_type::<P>()
        .register_required_components::<MapOpacity, Tallies<S<P>>>();
    app.add_observer(on_map_gone::<S<P>>);
    // A source stops counting, or is placed again (enabled, or given the component).
    app.add_observer(on_source_gone::<S<P>, Remove, S<P>>)
        .add_observer(on_source_gone::<S<P>, Remove, TilePos>)
        .add_observer(on_source_gone::<S<P>, Remove, TilemapId>)
        .add_observer(on_source_gone::<S<P>, Add, Disabled>)
        .add_observer(queue_source::<S<P>, Remove, Disabled>)
        .add_observer(queue_source::<S<P>, Insert, S<P>>);
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
