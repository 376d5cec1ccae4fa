//! [`WorldsPlugin`]: the worlds domain's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::prelude::*;

use super::chunks::{ChunkOf, ChunkPos, WorldChunks, WorldMap, join_chunks};
use super::layout::{ChunkChanges, ChunkWarnings, WorldsDirty, on_chunk_left, place_chunks};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Worlds: the tilemaps below a [`WorldMap`] (or with a [`ChunkOf`] naming it) are its chunks,
/// each placed in the world's tiles, in the step [`ViewshedStepSystems::Worlds`] (after the
/// importers, so that a Tiled world's maps join it in the frame they are loaded). Placement
/// reads it, so it cannot be left out.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorldsPlugin;

impl Plugin for WorldsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<WorldsDirty>()
            .init_resource::<ChunkChanges>()
            .init_resource::<ChunkWarnings>()
            .register_type::<WorldMap>()
            .register_type::<ChunkOf>()
            .register_type::<WorldChunks>()
            .register_type::<ChunkPos>();
        app.add_systems(
            ViewshedSchedule,
            (
                join_chunks.run_if(any_with_component::<WorldMap>),
                place_chunks,
            )
                .chain()
                .in_set(ViewshedStepSystems::Worlds),
        );
        // A chunk that leaves its world.
        app.add_observer(on_chunk_left);
    }
}
