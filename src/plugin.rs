//! [`ViewshedPlugin`]: wires the layers, opacity, viewshed, light, sightings and fog modules into a
//! schedule: one [`ViewshedSchedule`] per phase, run in the phase's public [`ViewshedSystems`]
//! set. It decides nothing itself.

use bevy::app::{App, Plugin, PostUpdate};
use bevy::camera::visibility::VisibilitySystems;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::transform::TransformSystems;
use bevy_ecs_tilemap::TilemapPlugin;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::fog::fade::{FadingTiles, advance_fades, on_fog_style_removed};
use crate::fog::ghosts::{DisabledRemembered, on_remembered_disabled, remember_seen};
use crate::fog::hide::hide_outside_view;
use crate::fog::systems::{FogChanges, style_new_tiles, track_fog, update_fog};
use crate::fog::team::rebuild_team_views;
use crate::fog::union::TeamUnion;
use crate::fog::{
    FogDirty, FogFade, FogState, FogStyle, FogTeam, HideOutsideView, RememberWhenSeen, RevealsFog,
    SoftEdge, Team, TileLook,
};
use crate::layer_groups::{
    GroupsDirty, LayerGroup, group_layers, groups_dirty, on_group_or_tilemap,
    on_grouped_layer_changed, on_reparented,
};
use crate::layers::{LayerEpoch, LayerOf, LayerWarnings, Layers, check_layers, on_layers_changed};
use crate::light::filter::{filter_by_light, on_light_rule_inserted, on_needs_light_removed};
use crate::light::lighting::track_lighting;
use crate::light::source::{
    apply_lights, on_light_gone, on_light_inserted, on_light_moved, recompute_lights,
};
use crate::light::{LightSource, NeedsLight};
use crate::opacity::{
    MapOpacity, Opaque, OpaqueIndex, follow_map_types, on_opaque_gone, queue_placement,
    sync_opaque, track_maps,
};
use crate::placed::{
    PlaceAgain, Placed, PlacedIndex, on_placed_discarded, on_placed_inserted, place_again,
    place_entities,
};
use crate::sightings::{
    LostSight, ReplacedSightings, Spottable, Spotted, TargetsJudged, ViewerIndex, notify_sightings,
    on_target_gone, on_viewer_back, on_viewer_gone, on_viewshed_inserted, on_viewshed_replaced,
};
use crate::viewshed::Viewshed;
use crate::viewshed::recompute::{ViewshedUpdated, recompute_viewsheds};

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
/// moves its viewers in a fixed timestep can pick its schedule instead (entities placed by
/// `Transform` are then seen at the `GlobalTransform` of the last propagation, i.e. last
/// frame's, unless the game propagates transforms in its fixed schedule too):
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
///
/// Each set holds one exclusive system that runs the phase's own [`ViewshedSchedule`], where
/// the plugin's systems for that phase are.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewshedSystems {
    /// Layer groups put `LayerOf` on their tilemaps; opacity grids follow `Opaque` entities
    /// and tilemap sizes; layers are checked.
    SyncOpacity,
    /// Light sources and viewsheds that need it are recomputed (in parallel), each map's
    /// `Lighting` follows its lights, views of viewers that `NeedsLight` are filtered by it;
    /// `ViewshedUpdated` is written.
    Recompute,
    /// `Spotted` and `LostSight` are sent for the `Spottable` entities viewers started or
    /// stopped seeing.
    Notify,
    /// Fog of war (fading tiles moved on), `HideOutsideView` visibility and the `LastSeen`
    /// ghosts are brought up to date.
    Fog,
}

impl ViewshedSystems {
    /// Every phase, in the order they run.
    pub const PHASES: [Self; 4] = [Self::SyncOpacity, Self::Recompute, Self::Notify, Self::Fog];
}

/// The schedule that holds the plugin's systems for one phase, e.g.
/// `ViewshedSchedule(ViewshedSystems::Fog)`; it runs inside the phase's [`ViewshedSystems`] set.
///
/// The systems of a phase form a chain (each needs what the one before it wrote), so a
/// multi-threaded executor could not run two of them at once: it would only hand each one to
/// a worker thread and wait for it, which costs more than most of them take in a frame in
/// which little changes. These schedules therefore use Bevy's single-threaded executor; the
/// parallel work inside a system (the recompute of views and of lights, the team views of the
/// fog) still runs on every core of the compute task pool.
///
/// A game can change that like any schedule's executor:
///
/// ```
/// use bevy::ecs::schedule::MultiThreadedExecutor;
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugin::default()));
/// app.edit_schedule(ViewshedSchedule(ViewshedSystems::Recompute), |schedule| {
///     schedule.set_executor(MultiThreadedExecutor::new());
/// });
/// app.update();
/// ```
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ViewshedSchedule(pub ViewshedSystems);

impl Plugin for ViewshedPlugin {
    fn build(&self, app: &mut App) {
        add_tilemap_plugin(app);
        add_resources_and_types(app);
        self.add_systems(app);
        add_observers(app);
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<TilemapPlugin>() && app.get_sub_app(RenderApp).is_some() {
            error!(
                "bevy_viewshed: ViewshedPlugin was added before rendering, so it did not add \
                 bevy_ecs_tilemap's TilemapPlugin and tilemaps will not be drawn: add \
                 ViewshedPlugin after DefaultPlugins, or add TilemapPlugin yourself"
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

fn add_resources_and_types(app: &mut App) {
    app.add_message::<ViewshedUpdated>()
        .add_message::<Spotted>()
        .add_message::<LostSight>()
        .init_resource::<OpaqueIndex>()
        .init_resource::<LayerEpoch>()
        .init_resource::<LayerWarnings>()
        .init_resource::<GroupsDirty>()
        .init_resource::<PlacedIndex>()
        .init_resource::<PlaceAgain>()
        .init_resource::<ViewerIndex>()
        .init_resource::<TargetsJudged>()
        .init_resource::<FogChanges>()
        .init_resource::<DisabledRemembered>()
        .init_resource::<ReplacedSightings>()
        .init_resource::<FogDirty>()
        .init_resource::<TeamUnion>()
        .init_resource::<FogTeam>()
        .register_type::<Viewshed>()
        .register_type::<Placed>()
        .register_type::<LightSource>()
        .register_type::<NeedsLight>()
        .register_type::<Team>()
        .register_type::<FogTeam>()
        .register_type::<crate::fog::DrawnTeam>()
        .register_type::<crate::FogOfWar>()
        .register_type::<crate::MapOpacity>()
        .register_type::<Opaque>()
        .register_type::<RevealsFog>()
        .register_type::<Spottable>()
        .register_type::<HideOutsideView>()
        .register_type::<RememberWhenSeen>()
        .register_type::<FogFade>()
        .register_type::<SoftEdge>()
        .register_type::<LayerOf>()
        .register_type::<Layers>()
        .register_type::<LayerGroup>()
        .register_type::<FogStyle>()
        .register_type::<TileLook>()
        .register_type::<FogState>();
}

impl ViewshedPlugin {
    fn add_systems(&self, app: &mut App) {
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
        for phase in ViewshedSystems::PHASES {
            // Edited, not replaced: a plugin added before this one (LDtk) may have put its
            // systems there already.
            app.edit_schedule(ViewshedSchedule(phase), |phase_schedule| {
                phase_schedule.set_executor(SingleThreadedExecutor::new());
            })
            .add_systems(schedule, run_phase(phase).in_set(phase));
        }
        add_phase_systems(app);
    }
}

/// The systems of each phase, chained, in the phase's [`ViewshedSchedule`].
fn add_phase_systems(app: &mut App) {
    app.add_systems(
        ViewshedSchedule(ViewshedSystems::SyncOpacity),
        (
            group_layers.run_if(groups_dirty),
            check_layers.run_if(
                any_match_filter::<(With<LayerOf>, Or<(Changed<LayerOf>, Changed<TilemapSize>)>)>,
            ),
            place_entities,
            track_maps,
            follow_map_types.run_if(
                any_match_filter::<(
                    With<TilemapType>,
                    With<MapOpacity>,
                    Or<(Changed<TilemapType>, Added<MapOpacity>)>,
                )>,
            ),
            track_lighting,
            track_fog,
            sync_opaque,
        )
            .chain(),
    )
    .add_systems(
        ViewshedSchedule(ViewshedSystems::Recompute),
        (
            recompute_lights,
            apply_lights.run_if(any_with_component::<LightSource>),
            recompute_viewsheds,
            filter_by_light.run_if(any_with_component::<NeedsLight>),
        )
            .chain(),
    )
    .add_systems(ViewshedSchedule(ViewshedSystems::Notify), notify_sightings)
    .add_systems(
        ViewshedSchedule(ViewshedSystems::Fog),
        (
            update_fog,
            style_new_tiles,
            advance_fades.run_if(any_with_component::<FadingTiles>),
            hide_outside_view.run_if(any_with_component::<HideOutsideView>),
            remember_seen,
        )
            .chain(),
    );
}

/// The exclusive system that runs `phase`'s [`ViewshedSchedule`]. If a game removed that
/// schedule, it says so once (the phase's work is then not done).
fn run_phase(phase: ViewshedSystems) -> impl FnMut(&mut World) {
    let mut reported = false;
    move |world: &mut World| match world.try_run_schedule(ViewshedSchedule(phase)) {
        Ok(()) => reported = false,
        Err(missing) if !reported => {
            error!("bevy_viewshed: {missing}; the {phase:?} phase does not run without it");
            reported = true;
        }
        Err(_) => {}
    }
}

fn add_observers(app: &mut App) {
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
    // Opacity: an opaque entity stops counting, or is placed again (enabled, made opaque).
    app.add_observer(on_opaque_gone::<Remove, Opaque>)
        .add_observer(on_opaque_gone::<Remove, TilePos>)
        .add_observer(on_opaque_gone::<Remove, TilemapId>)
        .add_observer(on_opaque_gone::<Add, Disabled>)
        .add_observer(queue_placement::<Remove, Disabled>)
        .add_observer(queue_placement::<Insert, Opaque>);
    // Placement: entities that others look for, filed where they stand, placed again when
    // re-enabled or when they lose their tile or tilemap.
    app.add_observer(on_placed_inserted)
        .add_observer(on_placed_discarded)
        .add_observer(place_again::<Remove, Disabled>)
        .add_observer(place_again::<Remove, TilePos>)
        .add_observer(place_again::<Remove, TilemapId>);
    // Fades: a layer that loses its style stops fading.
    app.add_observer(on_fog_style_removed);
    // Ghosts: a remembered entity disabled vanishes.
    app.add_observer(on_remembered_disabled);
    // Sightings: targets and viewers that stop standing anywhere.
    app.add_observer(on_target_gone::<Remove, Spottable>)
        .add_observer(on_target_gone::<Remove, TilePos>)
        .add_observer(on_target_gone::<Remove, TilemapId>)
        .add_observer(on_target_gone::<Add, Disabled>)
        .add_observer(on_viewer_gone::<Remove, Viewshed>)
        .add_observer(on_viewer_gone::<Add, Disabled>)
        .add_observer(on_viewer_back)
        .add_observer(crate::viewshed::on_viewer_unmapped)
        .add_observer(on_viewshed_replaced)
        .add_observer(on_viewshed_inserted);
    // Light: a light that goes out, comes back or loses its tilemap; a viewer that stops
    // needing light.
    app.add_observer(on_light_gone::<Discard, LightSource>)
        .add_observer(on_light_inserted)
        .add_observer(on_light_gone::<Add, Disabled>)
        .add_observer(on_light_moved::<Remove, Disabled>)
        .add_observer(on_light_moved::<Remove, TilemapId>)
        .add_observer(on_needs_light_removed)
        .add_observer(on_light_rule_inserted::<Viewshed>)
        .add_observer(on_light_rule_inserted::<NeedsLight>);
    // Fog: team membership changes rebuild the team views of the map concerned.
    app.add_observer(rebuild_team_views::<Remove, RevealsFog, ()>)
        .add_observer(rebuild_team_views::<Discard, Viewshed, With<RevealsFog>>)
        .add_observer(rebuild_team_views::<Add, RevealsFog, ()>)
        .add_observer(rebuild_team_views::<Insert, Team, With<RevealsFog>>)
        .add_observer(rebuild_team_views::<Remove, Team, With<RevealsFog>>)
        .add_observer(rebuild_team_views::<Add, Disabled, With<RevealsFog>>);
}
