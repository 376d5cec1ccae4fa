//! [`ViewshedPlugins`], the one line a game adds: the domain plugins, in the order of the
//! frame's steps. It decides nothing itself.

use bevy::app::{PluginGroup, PluginGroupBuilder, PostUpdate};
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};

use crate::draw::FogDrawPlugin;
use crate::fog::FogPlugin;
use crate::ghosts::GhostsPlugin;
use crate::layers::LayersPlugin;
use crate::light::LightPlugin;
use crate::opacity::OpacityPlugin;
use crate::placement::PlacementPlugin;
use crate::schedule::ViewshedSchedulePlugin;
use crate::sightings::SightingsPlugin;
use crate::viewshed::ViewsPlugin;
use crate::worlds::WorldsPlugin;

/// Adds field of view to an app: every entity with a [`Viewshed`](crate::Viewshed) sees,
/// [`Opaque`](crate::Opaque) entities block sight, and fog of war is written into tilemap
/// layers with a [`FogStyle`](crate::FogStyle). One plugin per domain, each in its own step
/// ([`ViewshedStepSystems`](crate::ViewshedStepSystems)):
///
/// | plugin | its step | can be left out |
/// |---|---|---|
/// | [`ViewshedSchedulePlugin`] | makes [`ViewshedSchedule`](crate::ViewshedSchedule) and runs it | no |
/// | [`LayersPlugin`] | `Layers`: which tilemaps are layers of one map | no |
/// | [`WorldsPlugin`] | `Worlds`: worlds of chunks, each chunk placed in its world | no |
/// | [`PlacementPlugin`] | `Placement`: where every placed entity stands | no |
/// | [`OpacityPlugin`] | `Opacity`: which entities are maps, what blocks or thins sight | no |
/// | [`ViewsPlugin`] | `Views`: the viewsheds | no |
/// | [`LightPlugin`] | `Light`: lights, `Lighting`, `NeedsLight` | yes: no light |
/// | [`SightingsPlugin`] | `Sightings`: `Spotted` / `LostSight` | yes: no sightings |
/// | [`FogPlugin`] | `Fog`: the fog of war's model, per team | yes: no fog (replicon needs it) |
/// | [`GhostsPlugin`] | `Ghosts`: ghosts, `HidesOutsideView` | yes: no ghosts or hiding |
/// | [`FogDrawPlugin`] | `Draw`: the fog drawn on tiles, overlays, GPU, minimaps | yes: a server draws nothing |
///
/// It adds bevy_ecs_tilemap's `TilemapPlugin` if the app does not have it yet (add it after
/// `DefaultPlugins`). In a headless app (no render sub-app, e.g. `MinimalPlugins` on a server
/// or in tests) the tilemap renderer cannot run, so only the tilemap components are used and
/// `TilemapPlugin` is not added.
///
/// By default the plugin runs in [`PostUpdate`], after transform propagation and before
/// visibility propagation: a viewer moved in `Update` sees from its new tile in the same
/// frame, and fog and hidden monsters are right in the frame that renders them. A game that
/// moves its viewers in a fixed timestep gives its schedule instead (entities placed by
/// `Transform` are then seen at the `GlobalTransform` of the last propagation, i.e. last
/// frame's, unless the game propagates transforms in its fixed schedule too):
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// App::new().add_plugins(ViewshedPlugins::new(FixedPostUpdate));
/// ```
///
/// A game that wants only some domains builds the group itself (a dedicated server leaves
/// the drawing out):
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::draw::FogDrawPlugin;
/// use bevy_viewshed::light::LightPlugin;
///
/// App::new().add_plugins((
///     MinimalPlugins,
///     ViewshedPlugins::default()
///         .build()
///         .disable::<LightPlugin>()
///         .disable::<FogDrawPlugin>(),
/// ));
/// ```
#[derive(Debug, Clone)]
pub struct ViewshedPlugins {
    /// The game's schedule the plugin's schedule runs from (`PostUpdate` by default).
    pub schedule: InternedScheduleLabel,
}

impl Default for ViewshedPlugins {
    fn default() -> Self {
        Self::new(PostUpdate)
    }
}

impl ViewshedPlugins {
    /// The plugins, run from `schedule` instead of `PostUpdate`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl PluginGroup for ViewshedPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(ViewshedSchedulePlugin {
                schedule: self.schedule,
            })
            .add(LayersPlugin)
            .add(WorldsPlugin)
            .add(PlacementPlugin)
            .add(OpacityPlugin)
            .add(ViewsPlugin)
            .add(LightPlugin)
            .add(SightingsPlugin)
            .add(FogPlugin)
            .add(GhostsPlugin)
            .add(FogDrawPlugin)
    }
}
