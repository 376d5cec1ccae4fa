//! [`PlacementPlugin`]: the placement domain's system, observers and resources.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use super::placed::{
    PlaceAgain, Placed, PlacedMoves, on_placed_discarded, place_again, place_entities,
};
use super::residents::Residents;
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Placement: where every placed entity stands ([`Placed`]), in the step
/// [`ViewshedStepSystems::Placement`]. Every later domain reads it, so it cannot be left out.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlacementPlugin;

impl Plugin for PlacementPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Residents>()
            .init_resource::<PlaceAgain>()
            .init_resource::<PlacedMoves>()
            .register_type::<Placed>();
        app.add_systems(
            ViewshedSchedule,
            place_entities.in_set(ViewshedStepSystems::Placement),
        );
        // Placed entities are placed again when re-enabled or when they lose their tile or
        // tilemap; a world's residents follow them.
        app.add_observer(on_placed_discarded)
            .add_observer(place_again::<Insert, Placed>)
            .add_observer(place_again::<Remove, Disabled>)
            .add_observer(place_again::<Remove, TilePos>)
            .add_observer(place_again::<Remove, TilemapId>);
    }
}
