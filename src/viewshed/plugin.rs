//! [`ViewsPlugin`]: the views domain's system and message.

use bevy::app::{App, Plugin};
use bevy::prelude::*;

use super::Viewshed;
use super::recompute::{ViewshedUpdated, recompute_viewsheds};
use super::state::{on_view_enabled, on_view_inserted};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Views: every [`Viewshed`] that needs it is recomputed (in parallel) in
/// [`ViewshedStepSystems::Views`], and each changed view is announced with a [`ViewshedUpdated`]
/// message, which the later steps read. Every other domain but the maps reads it, so it
/// cannot be left out.
#[derive(Debug, Clone, Copy, Default)]
pub struct ViewsPlugin;

impl Plugin for ViewsPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<ViewshedUpdated>()
            .register_type::<Viewshed>()
            .add_systems(
                ViewshedSchedule,
                recompute_viewsheds.in_set(ViewshedStepSystems::Views),
            )
            .add_observer(on_view_inserted::<Viewshed>)
            .add_observer(on_view_enabled::<Viewshed>);
    }
}
