//! [`ViewshedPlugin`]: wires the opacity, recomputation and fog systems into a schedule, in
//! the public [`ViewshedSystems`] set.

use bevy::app::{App, Plugin, PostUpdate};
use bevy::camera::visibility::VisibilitySystems;
use bevy::ecs::query::QueryFilter;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::transform::TransformSystems;
use bevy_ecs_tilemap::TilemapPlugin;

use crate::components::{HideOutsideView, LayerOf, Layers, Opaque, RevealsFog, Team, Viewshed};
use crate::fog::{
    FogState, FogStyle, FogTeam, TileLook, hide_outside_view, style_new_tiles, track_fog,
    update_fog,
};
use crate::opacity::{
    OpaqueIndex, on_layer_change, on_layer_removed, on_remove_opaque, on_remove_tile_pos,
    on_remove_tilemap_id, sync_opaque, track_maps,
};
use crate::recompute::{FogDirty, ViewshedUpdated, recompute_viewsheds};
use crate::sightings::{
    LostSight, Spottable, Spotted, notify_sightings, on_remove_spottable, on_remove_viewer,
};

/// Adds field of view to an app: every entity with a [`Viewshed`] sees, [`Opaque`] entities
/// block sight, and fog of war is written into tilemap layers with a [`FogStyle`].
///
/// Adds bevy_ecs_tilemap's `TilemapPlugin` if the app does not have it yet (add this plugin
/// after `DefaultPlugins`). In a headless app (no render sub-app, e.g. `MinimalPlugins` on a
/// server or in tests) the tilemap renderer cannot run, so only the tilemap components are
/// used and `TilemapPlugin` is not added.
///
/// By default the systems run in [`PostUpdate`], after transform propagation and before
/// visibility propagation: a viewer moved in `Update` sees from its new tile in the same
/// frame, and fog and hidden monsters are right in the frame that renders them. A game that
/// moves its viewers in a fixed timestep can pick its schedule instead:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// App::new().add_plugins(ViewshedPlugin::default().in_schedule(FixedPostUpdate));
/// ```
#[derive(Debug, Clone)]
pub struct ViewshedPlugin {
    schedule: InternedScheduleLabel,
}

impl Default for ViewshedPlugin {
    fn default() -> Self {
        Self {
            schedule: PostUpdate.intern(),
        }
    }
}

impl ViewshedPlugin {
    /// Runs the [`ViewshedSystems`] in `schedule` instead of `PostUpdate`.
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

/// The phases of the plugin's work, chained in this order in the plugin's schedule. Order
/// your systems against them, e.g. `.after(ViewshedSystems::Recompute)` to read fresh views.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewshedSystems {
    /// Opacity grids follow `Opaque` entities and tilemap sizes.
    SyncOpacity,
    /// Viewsheds that need it are recomputed (in parallel); `ViewshedUpdated` is written.
    Recompute,
    /// `Spotted` and `LostSight` are sent for the `Spottable` entities viewers started or
    /// stopped seeing.
    Notify,
    /// Fog of war and `HideOutsideView` visibility are brought up to date.
    Fog,
}

impl Plugin for ViewshedPlugin {
    fn finish(&self, app: &mut App) {
        Self::check_tilemap_plugin(app);
    }

    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<TilemapPlugin>() {
            if cfg!(feature = "render") && app.get_sub_app(RenderApp).is_none() {
                // bevy_ecs_tilemap's renderer needs a render sub-app: in a headless app (or one
                // whose rendering is added later) only its components are used. `finish` says
                // so if rendering turns up after all.
                debug!("bevy_viewshed: no RenderApp, TilemapPlugin not added (headless app)");
            } else {
                app.add_plugins(TilemapPlugin);
            }
        }
        app.add_message::<ViewshedUpdated>()
            .add_message::<Spotted>()
            .add_message::<LostSight>()
            .init_resource::<OpaqueIndex>()
            .init_resource::<FogDirty>()
            .init_resource::<FogTeam>()
            .register_type::<Viewshed>()
            .register_type::<Team>()
            .register_type::<FogTeam>()
            .register_type::<Opaque>()
            .register_type::<RevealsFog>()
            .register_type::<Spottable>()
            .register_type::<HideOutsideView>()
            .register_type::<LayerOf>()
            .register_type::<Layers>()
            .register_type::<FogStyle>()
            .register_type::<TileLook>()
            .register_type::<FogState>();

        let schedule = self.schedule;
        app.configure_sets(
            schedule,
            (
                ViewshedSystems::SyncOpacity,
                ViewshedSystems::Recompute,
                ViewshedSystems::Notify,
                ViewshedSystems::Fog,
            )
                .chain(),
        );
        if schedule == PostUpdate.intern() {
            app.configure_sets(
                PostUpdate,
                (
                    ViewshedSystems::SyncOpacity.after(TransformSystems::Propagate),
                    ViewshedSystems::Fog.before(VisibilitySystems::VisibilityPropagate),
                ),
            );
        }
        app.add_systems(
            schedule,
            (
                (track_maps, track_fog, sync_opaque)
                    .chain()
                    .in_set(ViewshedSystems::SyncOpacity),
                recompute_viewsheds.in_set(ViewshedSystems::Recompute),
                notify_sightings.in_set(ViewshedSystems::Notify),
                (update_fog, style_new_tiles, hide_outside_view)
                    .chain()
                    .in_set(ViewshedSystems::Fog),
            ),
        );
        app.add_observer(on_remove_opaque)
            .add_observer(on_remove_tile_pos)
            .add_observer(on_remove_tilemap_id)
            .add_observer(on_layer_change)
            .add_observer(on_layer_removed)
            .add_observer(rebuild_team_views::<Remove, RevealsFog, ()>)
            .add_observer(rebuild_team_views::<Remove, Viewshed, With<RevealsFog>>)
            .add_observer(rebuild_team_views::<Add, RevealsFog, ()>)
            .add_observer(rebuild_team_views::<Insert, Team, With<RevealsFog>>)
            .add_observer(rebuild_team_views::<Remove, Team, With<RevealsFog>>)
            .add_observer(on_remove_spottable)
            .add_observer(on_remove_viewer);
    }
}

impl ViewshedPlugin {
    fn check_tilemap_plugin(app: &App) {
        if !app.is_plugin_added::<TilemapPlugin>() && app.get_sub_app(RenderApp).is_some() {
            error!(
                "bevy_viewshed: ViewshedPlugin was added before rendering, so it did not add \
                 bevy_ecs_tilemap's TilemapPlugin and tilemaps will not be drawn: add \
                 ViewshedPlugin after DefaultPlugins, or add TilemapPlugin yourself"
            );
        }
    }
}

/// Team membership changed for the entity of a lifecycle event `E` on `C` (a revealing viewer
/// left, lost its viewshed, started revealing, changed or lost its `Team`): the map its view is
/// on has its team views rebuilt. `F` says which viewers count.
fn rebuild_team_views<E: EntityEvent, C: Component, F: QueryFilter>(
    event: On<E, C>,
    viewers: Query<&Viewshed, F>,
    mut dirty: ResMut<FogDirty>,
) {
    if let Ok(viewshed) = viewers.get(event.event_target()) {
        dirty.0.extend(viewshed.computed.map(|key| key.map));
    }
}
