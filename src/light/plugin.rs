//! [`LightPlugin`]: the light domain's systems and observers.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;

use super::filter::{filter_by_light, on_light_rule_inserted, on_needs_light_removed};
use super::lighting::{
    LightLedger, Lighting, LightingInserts, on_lighting_inserted, rebuild_replaced_lighting,
    track_lighting,
};
use super::source::{apply_lights, on_light_gone, recompute_lights};
use super::{LightSource, NeedsLight};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};
use crate::viewshed::Viewshed;
use crate::viewshed::state::{on_view_enabled, on_view_inserted};

/// Light and darkness: each map's [`Lighting`](super::Lighting) follows its [`LightSource`]s, and the views of
/// viewers that [`NeedsLight`] keep only what is lit, in [`ViewshedStepSystems::Light`] (after
/// the views). A game without light can leave it out of
/// [`ViewshedPlugins`](crate::ViewshedPlugins): nothing of it is then registered, and
/// `LightSource` / `NeedsLight` components do nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct LightPlugin;

impl Plugin for LightPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<LightSource>()
            .register_type::<NeedsLight>()
            .register_type::<Lighting>()
            .register_required_components::<Lighting, LightLedger>()
            .init_resource::<LightingInserts>();
        app.add_systems(
            ViewshedSchedule,
            (
                track_lighting,
                rebuild_replaced_lighting.run_if(LightingInserts::any_replaced),
                recompute_lights,
                apply_lights.run_if(any_with_component::<LightSource>),
                filter_by_light.run_if(any_with_component::<NeedsLight>),
            )
                .chain()
                .in_set(ViewshedStepSystems::Light),
        );
        // A light that goes out, comes back or loses its tilemap; a viewer that stops needing
        // light, or whose rule is replaced.
        app.add_observer(on_lighting_inserted)
            .add_observer(on_light_gone::<Discard, LightSource>)
            .add_observer(on_view_inserted::<LightSource>)
            .add_observer(on_light_gone::<Add, Disabled>)
            .add_observer(on_view_enabled::<LightSource>)
            .add_observer(on_needs_light_removed)
            .add_observer(on_light_rule_inserted::<Viewshed>)
            .add_observer(on_light_rule_inserted::<NeedsLight>);
    }
}
