//! [`SightingsPlugin`]: the sightings domain's system, observers and resources.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use super::judge::notify_sightings;
use super::{
    CanBeSpotted, LostSight, SightingsIndex, Spotted, SpottedTargets, on_spotted_inserted,
    on_target_gone, on_viewer_gone, on_viewshed_replaced,
};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};
use crate::viewshed::Viewshed;

/// Sightings: [`Spotted`] and [`LostSight`] for the [`CanBeSpotted`] entities viewers start or
/// stop seeing, in [`ViewshedStepSystems::Sightings`], from the views that
/// [`ViewshedUpdated`](crate::ViewshedUpdated) names and the targets whose `Placed` changed.
/// A game that never reads sightings can leave it out of
/// [`ViewshedPlugins`](crate::ViewshedPlugins).
#[derive(Debug, Clone, Copy, Default)]
pub struct SightingsPlugin;

impl Plugin for SightingsPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<Spotted>()
            .add_message::<LostSight>()
            .init_resource::<SightingsIndex>()
            .register_type::<CanBeSpotted>()
            .register_required_components::<Viewshed, SpottedTargets>();
        app.add_systems(
            ViewshedSchedule,
            notify_sightings.in_set(ViewshedStepSystems::Sightings),
        );
        // Targets and viewers that stop standing anywhere; a view replaced leaves the index.
        app.add_observer(on_target_gone::<Remove, CanBeSpotted>)
            .add_observer(on_target_gone::<Remove, TilePos>)
            .add_observer(on_target_gone::<Remove, TilemapId>)
            .add_observer(on_target_gone::<Add, Disabled>)
            .add_observer(on_viewer_gone::<Remove, Viewshed>)
            .add_observer(on_viewer_gone::<Add, Disabled>)
            .add_observer(on_viewshed_replaced)
            .add_observer(on_spotted_inserted);
    }
}
