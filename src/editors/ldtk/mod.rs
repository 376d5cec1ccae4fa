//! LDtk levels from [bevy_ecs_ldtk] 0.15 (feature `ldtk`): add [`LdtkViewshedPlugin`] next
//! to `LdtkPlugin` and `ViewshedPlugins`, and
//!
//! - the tile layers of each level are one map (each level entity is a
//!   [`LayerGroup`](crate::LayerGroup)): walls on a wall layer block viewers standing on the
//!   floor layer, and fog of war covers every layer;
//! - IntGrid values and tile enum tags listed in [`LdtkOpacity`] make their tiles
//!   [`Opaque`](crate::Opaque), following changes at run time (a door's `IntGridCell` value
//!   set to "open");
//! - LDtk entities get a [`Viewshed`](crate::Viewshed), [`RevealsFog`](crate::RevealsFog),
//!   [`CanBeSpotted`](crate::CanBeSpotted), [`HidesOutsideView`](crate::HidesOutsideView) and a
//!   [`Team`](crate::Team) by identifier or from Int fields ([`LdtkVision`]), placed on their
//!   level's map;
//! - the tile layers get the fog of war style of [`LdtkFog`].
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_viewshed::ldtk::{EntityVision, LdtkOpacity, LdtkViewshedPlugin, LdtkVision};
//! use bevy_viewshed::prelude::*;
//!
//! let mut app = App::new();
//! // In a game: DefaultPlugins, LdtkPlugin, then these two.
//! app.add_plugins((MinimalPlugins, ViewshedPlugins::default(), LdtkViewshedPlugin::default()))
//!     .insert_resource(LdtkOpacity::default().int_grid(1).int_grid(3))
//!     .insert_resource(
//!         LdtkVision::default()
//!             .entity("Player", EntityVision::viewer(8).reveals_fog())
//!             .entity("Goblin", EntityVision::viewer(5).spottable().hide_outside_view()),
//!     );
//! app.update();
//! ```
//!
//! | module | its job |
//! |---|---|
//! | this one | `LdtkViewshedPlugin`: the systems below in `ViewshedStepSystems::Import` |
//! | `config` | what a game tells the integration: `LdtkOpacity`, `LdtkVision`, `EntityVision`, `LdtkFog` |
//! | `project` | the LDtk data behind what bevy_ecs_ldtk spawned: an entity's level, project and layers |
//! | `levels` | each level a `LayerGroup` (its tile layers one map), its tile layers given `LdtkFog` |
//! | `opaque_cells` | `Opaque` and `Elevation` on the tiles whose IntGrid value or enum tags say so |
//! | `entities` | LDtk entities that see, are seen or hide: their components and their place |
//! | `checks` | the configuration held against each project: a name the project lacks is warned about |
//!
//! [bevy_ecs_ldtk]: https://crates.io/crates/bevy_ecs_ldtk

use bevy::app::{App, Plugin};
use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_ecs_ldtk::assets::LdtkProject;

use crate::schedule::{ViewshedSchedule, ViewshedSchedulePlugin, ViewshedStepSystems};

mod checks;
mod config;
mod entities;
mod levels;
mod opaque_cells;
mod project;

pub use config::{EntityVision, IntGridRule, LdtkFog, LdtkOpacity, LdtkVision};

/// Connects bevy_ecs_ldtk's levels to the field of view; see the [module docs](self).
///
/// Add it with `ViewshedPlugins` (and bevy_ecs_ldtk's `LdtkPlugin` in a game); it adds
/// [`LdtkOpacity`], [`LdtkVision`] and [`LdtkFog`] with their defaults unless the app has
/// them. Its systems run in [`ViewshedSchedule`], in [`ViewshedStepSystems::Import`]: after
/// the layers (levels are layer groups) and before the maps (which read the opacity and
/// viewers they give), so they follow `ViewshedPlugins` into whatever schedule it was given.
#[derive(Debug, Clone, Copy, Default)]
pub struct LdtkViewshedPlugin;

impl Plugin for LdtkViewshedPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<LdtkOpacity>()
            .init_resource::<LdtkVision>()
            .init_resource::<LdtkFog>()
            .init_resource::<LdtkWarnings>()
            .register_type::<LdtkOpacity>()
            .register_type::<LdtkVision>()
            .register_type::<LdtkFog>()
            .add_observer(levels::group_level)
            .add_systems(
                ViewshedSchedule,
                (
                    levels::style_level_layers,
                    opaque_cells::read_int_grid_values,
                    opaque_cells::sync_int_grid_opacity,
                    entities::give_vision,
                    entities::follow_grid_coords,
                )
                    .chain()
                    .in_set(ViewshedStepSystems::Import),
            );
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<ViewshedSchedulePlugin>() {
            error!(
                "bevy_viewshed: LdtkViewshedPlugin needs ViewshedPlugins, whose schedule runs its \
                 systems; levels will not be connected to the field of view"
            );
        }
        // The project check needs bevy_ecs_ldtk's assets (its `LdtkPlugin`, added in any
        // order); a headless app without them only skips the check.
        if app.world().contains_resource::<Assets<LdtkProject>>() {
            app.add_systems(
                ViewshedSchedule,
                checks::check_config
                    .in_set(ViewshedStepSystems::Import)
                    .before(levels::style_level_layers),
            );
        }
    }
}

/// Problems with the LDtk data or the configuration already warned about, so that each is
/// logged once.
#[derive(Resource, Default)]
pub(crate) struct LdtkWarnings(HashSet<String>);

impl LdtkWarnings {
    /// Logs `problem` as a warning unless it was logged before.
    pub(crate) fn once(&mut self, problem: String) {
        if !self.0.contains(&problem) {
            warn!("bevy_viewshed (ldtk): {problem}");
            self.0.insert(problem);
        }
    }
}
