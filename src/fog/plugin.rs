//! [`FogPlugin`]: the fog domain's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;

use super::fade::{FadingTiles, advance_fades, on_fog_style_removed};
use super::ghosts::{DisabledRemembered, LastSeen, on_remembered_disabled, remember_seen};
use super::hide::hide_outside_view;
use super::layers::style_new_tiles;
use super::maps::{FogChunks, track_fog};
use super::minimap::{FogMinimap, draw_minimaps};
use super::overlay::{FogOverlay, FogOverlayLayer, keep_fog_overlays, on_fog_overlay_removed};
use super::shown::FogShown;
use super::team::rebuild_team_views;
use super::terrain::{TerrainMemory, on_terrain_memory_removed, remember_terrain};
use super::union::TeamUnion;
use super::update::{FogChanges, update_fog};
use super::{
    DrawnTeam, DrawnTeamOverride, FogDirty, FogFade, FogOfWar, FogState, FogStyle,
    HidesOutsideView, LeavesGhost, RevealsFog, SoftEdge, Team, TileLook,
};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};
use crate::viewshed::Viewshed;

/// Fog of war: a [`FogOfWar`] on every map with each team's view and memory, written into the
/// tile layers with a [`FogStyle`] (fades, soft edges) and the overlay layers of
/// [`FogOverlay`] maps (and drawn on the GPU over [`SmoothFog`](crate::SmoothFog) maps, feature
/// `render`); [`TerrainMemory`] layers drawn as each team last saw them; [`FogMinimap`] images;
/// [`HidesOutsideView`] entities shown or hidden; [`LeavesGhost`] ghosts in each map's
/// `LastSeen`. Its systems run in
/// [`ViewshedStepSystems::Fog`], from the views that [`ViewshedUpdated`](crate::ViewshedUpdated)
/// names and what the maps step placed. A game without fog of war can leave it out of
/// [`ViewshedPlugins`](crate::ViewshedPlugins); the replicon integration needs it.
#[derive(Debug, Clone, Copy, Default)]
pub struct FogPlugin;

impl Plugin for FogPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FogChanges>()
            .init_resource::<DisabledRemembered>()
            .init_resource::<FogDirty>()
            .init_resource::<TeamUnion>()
            .init_resource::<DrawnTeam>()
            .register_type::<Team>()
            .register_type::<DrawnTeam>()
            .register_type::<DrawnTeamOverride>()
            .register_type::<FogOfWar>()
            .register_type::<LastSeen>()
            .register_type::<RevealsFog>()
            .register_type::<HidesOutsideView>()
            .register_type::<LeavesGhost>()
            .register_type::<FogFade>()
            .register_type::<SoftEdge>()
            .register_type::<FogStyle>()
            .register_type::<FogOverlay>()
            .register_type::<FogOverlayLayer>()
            .register_type::<TileLook>()
            .register_type::<TerrainMemory>()
            .register_type::<FogMinimap>()
            .register_type::<FogState>();
        // Every fog layer keeps its tiles in transition; every map's fog, its ghosts.
        app.register_required_components::<FogStyle, FadingTiles>()
            .register_required_components::<FogOfWar, LastSeen>()
            .register_required_components::<FogOfWar, FogShown>()
            .register_required_components::<FogOfWar, FogChunks>()
            .register_type::<super::WorldMemory>();
        app.add_systems(
            ViewshedSchedule,
            (
                keep_fog_overlays.run_if(any_with_component::<FogOverlay>),
                track_fog,
                update_fog,
                remember_terrain.run_if(any_with_component::<TerrainMemory>),
                style_new_tiles,
                advance_fades.run_if(any_with_component::<FadingTiles>),
                hide_outside_view.run_if(any_with_component::<HidesOutsideView>),
                remember_seen,
                draw_minimaps.run_if(any_with_component::<FogMinimap>),
            )
                .chain()
                .in_set(ViewshedStepSystems::Fog),
        );
        add_fog_observers(app);
        #[cfg(feature = "render")]
        super::smooth::add_smooth_fog(app);
    }
}

fn add_fog_observers(app: &mut App) {
    // Overlays: a FogOverlay removed, or its map despawned, takes its layer with it.
    app.add_observer(on_fog_overlay_removed);
    // Remembered terrain: a layer that loses its memory is drawn as it is.
    app.add_observer(on_terrain_memory_removed);
    // Fades: a layer that loses its style stops fading.
    app.add_observer(on_fog_style_removed);
    // Ghosts: a remembered entity disabled vanishes.
    app.add_observer(on_remembered_disabled);
    // Team membership changes rebuild the team views of the map concerned.
    app.add_observer(rebuild_team_views::<Remove, RevealsFog, ()>)
        .add_observer(rebuild_team_views::<Discard, Viewshed, With<RevealsFog>>)
        .add_observer(rebuild_team_views::<Add, RevealsFog, ()>)
        .add_observer(rebuild_team_views::<Insert, Team, With<RevealsFog>>)
        .add_observer(rebuild_team_views::<Remove, Team, With<RevealsFog>>)
        .add_observer(rebuild_team_views::<Add, Disabled, With<RevealsFog>>);
}
