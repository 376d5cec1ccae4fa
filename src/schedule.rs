//! The plugin's schedule and its sets: [`ViewshedSchedule`] holds every system of the plugin,
//! in the chained steps of [`ViewshedStepSystems`]; one exclusive system, in the set
//! [`ViewshedSystems`] of the game's schedule (`PostUpdate` by default), runs it.
//! [`ViewshedSchedulePlugin`] sets this up; the domain plugins only put their systems into
//! their steps.

use bevy::app::{App, Plugin, PostUpdate};
use bevy::camera::visibility::VisibilitySystems;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::prelude::*;
use bevy::transform::TransformSystems;

/// The whole plugin, as one set of the game's schedule (`PostUpdate`, or the one given to
/// [`ViewshedPlugins::new`](crate::ViewshedPlugins::new)): order a game's system against it
/// there. After it, views, sightings and the fog are up to date for the frame.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// fn draw_what_is_seen(viewers: Query<&Viewshed>) { /* .. */ }
///
/// App::new()
///     .add_plugins((MinimalPlugins, ViewshedPlugins::default()))
///     .add_systems(PostUpdate, draw_what_is_seen.after(ViewshedSystems));
/// ```
///
/// To run between two of the plugin's steps, a system goes into [`ViewshedSchedule`], ordered
/// against [`ViewshedStepSystems`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ViewshedSystems;

/// The steps of the plugin's frame inside [`ViewshedSchedule`], chained in this order; each is
/// named as the plugin that owns it and reads only what the steps before it wrote.
///
/// A game system that must run between two steps goes into [`ViewshedSchedule`]:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::{ViewshedSchedule, ViewshedStepSystems};
///
/// fn react_to_fresh_views(viewers: Query<&Viewshed>) { /* .. */ }
///
/// App::new().add_plugins((MinimalPlugins, ViewshedPlugins::default())).add_systems(
///     ViewshedSchedule,
///     react_to_fresh_views
///         .after(ViewshedStepSystems::Light)
///         .before(ViewshedStepSystems::Sightings),
/// );
/// ```
///
/// In the game's own schedule the plugin is one system, in [`ViewshedSystems`]: ordering
/// there against a step could not put a system between two of them.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewshedStepSystems {
    /// [`LayersPlugin`](crate::layers::LayersPlugin): layer groups put `LayerOf` on the
    /// tilemaps below them; layers are checked.
    Layers,
    /// Importers (the LDtk and Tiled integrations) turn what their editor made into
    /// opacity, viewers and fog layers.
    Import,
    /// [`WorldsPlugin`](crate::worlds::WorldsPlugin): the tilemaps below a world join it, and
    /// each world's chunks are placed in its tiles.
    Worlds,
    /// [`PlacementPlugin`](crate::placement::PlacementPlugin): every placed entity's
    /// [`Placed`](crate::Placed) follows its tile and map.
    Placement,
    /// [`OpacityPlugin`](crate::opacity::OpacityPlugin): every root tilemap or world gets its
    /// [`MapOpacity`](crate::MapOpacity), which follows `Opaque` and `Density` entities,
    /// `OpaqueCells` and `DensityCells`.
    Opacity,
    /// [`ViewsPlugin`](crate::viewshed::ViewsPlugin): the viewsheds that need it are
    /// recomputed (in parallel); `ViewshedUpdated` is written.
    Views,
    /// [`LightPlugin`](crate::light::LightPlugin): lights are recomputed, each map's
    /// `Lighting` follows them, and the views of viewers that `NeedsLight` are filtered by it.
    /// After it, views are final.
    Light,
    /// [`SightingsPlugin`](crate::sightings::SightingsPlugin): `Spotted` and `LostSight` for
    /// the `CanBeSpotted` entities viewers started or stopped seeing.
    Sightings,
    /// [`FogPlugin`](crate::fog::FogPlugin): the fog of war's model (team views, memory) and
    /// its list of what changed.
    Fog,
    /// [`GhostsPlugin`](crate::ghosts::GhostsPlugin): `HidesOutsideView` visibility and the
    /// `LastSeen` ghosts.
    Ghosts,
    /// [`FogDrawPlugin`](crate::draw::FogDrawPlugin): the fog drawn (tiles, fades, overlays,
    /// the smooth fog, remembered terrain, minimaps).
    Draw,
}

impl ViewshedStepSystems {
    /// The steps, in the order they run.
    pub const ALL: [Self; 11] = [
        Self::Layers,
        Self::Import,
        Self::Worlds,
        Self::Placement,
        Self::Opacity,
        Self::Views,
        Self::Light,
        Self::Sightings,
        Self::Fog,
        Self::Ghosts,
        Self::Draw,
    ];
}

/// The schedule that holds every system of the plugin, in its [`ViewshedStepSystems`]. One
/// exclusive system, in [`ViewshedSystems`], runs it from the game's schedule.
///
/// Its steps form a chain (each needs what the one before it wrote), so a multi-threaded
/// executor could not run two of them at once: it would only hand each system to a worker
/// thread and wait for it, which costs more than most of them take in a frame in which little
/// changes. It therefore uses Bevy's single-threaded executor; the parallel work inside a
/// system (the recompute of views and of lights, the team views of the fog) still runs on
/// every core of the compute task pool. A game can change that like any schedule's executor:
///
/// ```
/// use bevy::ecs::schedule::MultiThreadedExecutor;
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::{ViewshedSchedule};
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugins::default()));
/// app.edit_schedule(ViewshedSchedule, |schedule| {
///     schedule.set_executor(MultiThreadedExecutor::new());
/// });
/// app.update();
/// ```
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ViewshedSchedule;

/// Makes [`ViewshedSchedule`] with its chained steps, and runs it from `schedule` in the set
/// [`ViewshedSystems`]. The first plugin of [`ViewshedPlugins`](crate::ViewshedPlugins).
#[derive(Debug, Clone)]
pub struct ViewshedSchedulePlugin {
    /// The game's schedule the plugin runs in (`PostUpdate` by default).
    pub schedule: InternedScheduleLabel,
}

impl Default for ViewshedSchedulePlugin {
    fn default() -> Self {
        Self {
            schedule: PostUpdate.intern(),
        }
    }
}

impl Plugin for ViewshedSchedulePlugin {
    fn build(&self, app: &mut App) {
        // Edited, not replaced: a plugin added before this one (LDtk) may have put its
        // systems there already.
        use ViewshedStepSystems::*;
        app.edit_schedule(ViewshedSchedule, |schedule| {
            schedule
                .set_executor(SingleThreadedExecutor::new())
                .configure_sets(
                    (
                        Layers, Import, Worlds, Placement, Opacity, Views, Light, Sightings, Fog,
                        Ghosts, Draw,
                    )
                        .chain(),
                );
        });
        app.add_systems(
            self.schedule,
            run_viewshed_schedule().in_set(ViewshedSystems),
        );
        if self.schedule == PostUpdate.intern() {
            app.configure_sets(
                PostUpdate,
                ViewshedSystems
                    .after(TransformSystems::Propagate)
                    .before(VisibilitySystems::VisibilityPropagate),
            );
        }
    }
}

/// The exclusive system that runs [`ViewshedSchedule`]. If a game removed that schedule, it
/// says so once (the plugin's work is then not done).
fn run_viewshed_schedule() -> impl FnMut(&mut World) {
    let mut reported = false;
    move |world: &mut World| match world.try_run_schedule(ViewshedSchedule) {
        Ok(()) => reported = false,
        Err(missing) if !reported => {
            error!("bevy_viewshed: {missing}; no view, sighting or fog is updated without it");
            reported = true;
        }
        Err(_) => {}
    }
}
