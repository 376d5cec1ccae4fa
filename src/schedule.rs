//! The plugin's schedule and its steps: [`ViewshedSchedule`] holds every system of the
//! plugin, in the public, chained [`ViewshedSystems`] steps; one exclusive system runs it
//! from the game's schedule (`PostUpdate` by default). [`SchedulePlugin`] sets this up; the
//! domain plugins only put their systems into the steps.

use bevy::app::{App, Plugin, PostUpdate};
use bevy::camera::visibility::VisibilitySystems;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::prelude::*;
use bevy::transform::TransformSystems;

/// The steps of the plugin's frame, chained in this order inside [`ViewshedSchedule`]; each
/// step reads only what the steps before it wrote.
///
/// Put a system between two steps inside the plugin's schedule:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// fn react_to_fresh_views(viewers: Query<&Viewshed>) { /* .. */ }
///
/// App::new().add_plugins((MinimalPlugins, ViewshedPlugin::default())).add_systems(
///     ViewshedSchedule,
///     react_to_fresh_views
///         .after(ViewshedSystems::Recompute)
///         .before(ViewshedSystems::Fog),
/// );
/// ```
///
/// In the game's own schedule (`PostUpdate`, or the one given to
/// [`ViewshedPlugin::in_schedule`](crate::ViewshedPlugin::in_schedule)) the plugin is one
/// system, which every step's set holds: there `.after(ViewshedSystems::Fog)` (or after any
/// step) means after the whole plugin, and `.before(..)` any step before all of it; a system
/// that must run between two steps goes into [`ViewshedSchedule`] as above (ordered between
/// two steps in the game's schedule, it would have to run both before and after the plugin,
/// which Bevy reports as a cycle).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewshedSystems {
    /// Layer groups put `LayerOf` on the tilemaps below them. Importers (the LDtk
    /// integration) run after it, before [`SyncOpacity`](Self::SyncOpacity).
    Layers,
    /// Layers are checked; every placed entity's `Placed` follows its tile and map; opacity
    /// grids ([`MapOpacity`](crate::MapOpacity)) follow tilemaps and `Opaque` entities.
    SyncOpacity,
    /// [`Views`](Self::Views) then [`Light`](Self::Light): after it, views are final.
    Recompute,
    /// The viewsheds that need it are recomputed (in parallel); `ViewshedUpdated` is written.
    Views,
    /// Lights are recomputed, each map's `Lighting` follows them, and the views of viewers
    /// that `NeedsLight` are filtered by it (`ViewshedUpdated` for those that changed).
    Light,
    /// `Spotted` and `LostSight` for the `CanBeSpotted` entities viewers started or stopped
    /// seeing.
    Notify,
    /// Fog of war (team views, memory, tiles, fades), `HidesOutsideView` visibility and the
    /// `LastSeen` ghosts.
    Fog,
}

impl ViewshedSystems {
    /// The steps that hold systems, in the order they run ([`Recompute`](Self::Recompute) is
    /// [`Views`](Self::Views) and [`Light`](Self::Light)).
    pub const STEPS: [Self; 6] = [
        Self::Layers,
        Self::SyncOpacity,
        Self::Views,
        Self::Light,
        Self::Notify,
        Self::Fog,
    ];
    /// Every set, the grouping [`Recompute`](Self::Recompute) included.
    const ALL: [Self; 7] = [
        Self::Layers,
        Self::SyncOpacity,
        Self::Recompute,
        Self::Views,
        Self::Light,
        Self::Notify,
        Self::Fog,
    ];
}

/// The schedule that holds every system of the plugin, in its [`ViewshedSystems`] steps. One
/// exclusive system runs it from the game's schedule.
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
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugin::default()));
/// app.edit_schedule(ViewshedSchedule, |schedule| {
///     schedule.set_executor(MultiThreadedExecutor::new());
/// });
/// app.update();
/// ```
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ViewshedSchedule;

/// Makes [`ViewshedSchedule`] with its chained steps, and runs it from `schedule` (in every
/// step's set there). The first plugin of [`ViewshedPlugins`](crate::ViewshedPlugins).
#[derive(Debug, Clone)]
pub struct SchedulePlugin {
    /// The game's schedule the plugin runs in (`PostUpdate` by default).
    pub schedule: InternedScheduleLabel,
}

impl Default for SchedulePlugin {
    fn default() -> Self {
        Self {
            schedule: PostUpdate.intern(),
        }
    }
}

impl Plugin for SchedulePlugin {
    fn build(&self, app: &mut App) {
        use ViewshedSystems::*;
        // Edited, not replaced: a plugin added before this one (LDtk) may have put its
        // systems there already.
        app.edit_schedule(ViewshedSchedule, |schedule| {
            schedule
                .set_executor(SingleThreadedExecutor::new())
                .configure_sets((Layers, SyncOpacity, Recompute, Notify, Fog).chain())
                .configure_sets((Views, Light).chain().in_set(Recompute));
        });
        let mut runner = run_viewshed_schedule().into_configs();
        for step in ViewshedSystems::ALL {
            runner = runner.in_set(step);
        }
        app.add_systems(self.schedule, runner);
        if self.schedule == PostUpdate.intern() {
            app.configure_sets(
                PostUpdate,
                (
                    Layers.after(TransformSystems::Propagate),
                    Fog.before(VisibilitySystems::VisibilityPropagate),
                ),
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
