//! [`GhostsPlugin`]: the ghosts domain's systems, observer and resource.

use bevy::app::{App, Plugin};
use bevy::prelude::*;

use super::hide::{HidesOutsideView, hide_outside_view};
use super::last_seen::{LastSeen, LeavesGhost, remember_seen};
use crate::fog::change_list::FogChanges;
use crate::fog::{FogOfWar, FogPlugin};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Ghosts and hiding: every map's [`LastSeen`] (where each team last saw its [`LeavesGhost`]
/// entities) and the `Visibility` of [`HidesOutsideView`] entities, in the step
/// [`ViewshedStepSystems::Ghosts`], from the fog's model. It needs
/// [`FogPlugin`](crate::fog::FogPlugin); a game without ghosts or hidden monsters can leave it
/// out.
#[derive(Debug, Clone, Copy, Default)]
pub struct GhostsPlugin;

impl Plugin for GhostsPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<LastSeen>()
            .register_type::<HidesOutsideView>()
            .register_type::<LeavesGhost>();
        // Every map's fog has its ghosts.
        app.register_required_components::<FogOfWar, LastSeen>();
        app.add_systems(
            ViewshedSchedule,
            (
                hide_outside_view.run_if(any_with_component::<HidesOutsideView>),
                remember_seen,
            )
                .chain()
                .run_if(resource_exists::<FogChanges>)
                .in_set(ViewshedStepSystems::Ghosts),
        );
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<FogPlugin>() {
            error!(
                "bevy_viewshed: GhostsPlugin needs FogPlugin, whose model it reads; no ghost is                  kept and no HidesOutsideView entity is hidden without it"
            );
        }
    }
}
