//! [`ViewshedPlugin`], the one line a game adds, and [`ViewshedPlugins`], the domain plugins
//! it is made of. It decides nothing itself.

use bevy::app::{App, Plugin, PluginGroup, PluginGroupBuilder, PostUpdate};
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};

use crate::fog::FogPlugin;
use crate::light::LightPlugin;
use crate::maps::MapsPlugin;
use crate::schedule::SchedulePlugin;
use crate::sightings::SightingsPlugin;
use crate::viewshed::ViewsPlugin;

/// Adds field of view to an app: every entity with a [`Viewshed`](crate::Viewshed) sees,
/// [`Opaque`](crate::Opaque) entities block sight, and fog of war is written into tilemap
/// layers with a [`FogStyle`](crate::FogStyle). It adds every plugin of [`ViewshedPlugins`].
///
/// Adds bevy_ecs_tilemap's `TilemapPlugin` if the app does not have it yet (add this plugin
/// after `DefaultPlugins`). In a headless app (no render sub-app, e.g. `MinimalPlugins` on a
/// server or in tests) the tilemap renderer cannot run, so only the tilemap components are
/// used and `TilemapPlugin` is not added.
///
/// By default the plugin runs in [`PostUpdate`], after transform propagation and before
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
    /// Runs the plugin's [`ViewshedSchedule`](crate::ViewshedSchedule) from `schedule`
    /// instead of `PostUpdate`.
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

impl Plugin for ViewshedPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(ViewshedPlugins {
            schedule: self.schedule,
        });
    }
}

/// The plugins [`ViewshedPlugin`] adds, one per domain, in the order of the frame's steps
/// ([`ViewshedSystems`](crate::ViewshedSystems)):
///
/// | plugin | its step | can be left out |
/// |---|---|---|
/// | [`SchedulePlugin`] | makes [`ViewshedSchedule`](crate::ViewshedSchedule) and runs it | no |
/// | [`MapsPlugin`] | `Layers`, `SyncOpacity`: layers, placement, opacity | no |
/// | [`ViewsPlugin`] | `Views`: the viewsheds | no |
/// | [`LightPlugin`] | `Light`: lights, `Lighting`, `NeedsLight` | yes: no light |
/// | [`SightingsPlugin`] | `Notify`: `Spotted` / `LostSight` | yes: no sightings |
/// | [`FogPlugin`] | `Fog`: fog of war, hiding, ghosts | yes: no fog (replicon needs it) |
///
/// A game that wants only some of them builds the group itself:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::light::LightPlugin;
///
/// App::new().add_plugins((
///     MinimalPlugins,
///     ViewshedPlugins::default().build().disable::<LightPlugin>(),
/// ));
/// ```
#[derive(Debug, Clone)]
pub struct ViewshedPlugins {
    /// The game's schedule the plugin's schedule runs from (`PostUpdate` by default).
    pub schedule: InternedScheduleLabel,
}

impl Default for ViewshedPlugins {
    fn default() -> Self {
        Self {
            schedule: PostUpdate.intern(),
        }
    }
}

impl PluginGroup for ViewshedPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(SchedulePlugin {
                schedule: self.schedule,
            })
            .add(MapsPlugin)
            .add(ViewsPlugin)
            .add(LightPlugin)
            .add(SightingsPlugin)
            .add(FogPlugin)
    }
}
