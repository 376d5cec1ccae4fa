//! Field of view for Bevy games on [bevy_ecs_tilemap]: every entity with a [`Viewshed`] sees
//! the tiles around it, [`Opaque`] entities cast shadows, and fog of war (visible, remembered,
//! unexplored) is written into the tile layers that opt in with a [`FogStyle`].
//!
//! The field of view is exact symmetric shadowcasting (Albert Ford's rules) on bit-packed
//! grids. That core ([`grid`], [`options`], [`shadowcast`], [`visible`], [`line_of_sight`](mod@line_of_sight),
//! [`ascii`]) knows nothing of Bevy and can be used on its own:
//!
//! ```
//! use bevy_viewshed::{field_of_view, FovOptions, OpacityGrid};
//!
//! // A pillar at (4, 2) east of a viewer at (2, 2).
//! let grid = OpacityGrid::from_fn(8, 5, |x, y| (x, y) == (4, 2));
//! let visible = field_of_view(&grid, (2, 2), FovOptions::radius(8))?;
//! assert!(visible.contains(4, 2)); // the pillar is lit
//! assert!(!visible.contains(6, 2)); // what is behind it is hidden
//! assert!(visible.contains(2, 2)); // the viewer sees its own cell
//! # Ok::<(), bevy_viewshed::FovError>(())
//! ```
//!
//! The Bevy side: [`ViewshedPlugin`] with its [`ViewshedSystems`] set, the components in
//! [`components`], the opacity grids in [`opacity`], the recomputation in [`recompute`], the
//! seen/lost notifications in [`sightings`] and the fog of war in [`fog`].
//!
//! | feature | default | what it does |
//! |---|---|---|
//! | `render` | yes | bevy_ecs_tilemap's renderer; turn default features off for a headless server |
//! | `serde` | no | `Serialize`/`Deserialize` for the options, the explored memory and the viewsheds |
//!
//! [bevy_ecs_tilemap]: https://crates.io/crates/bevy_ecs_tilemap
#![warn(missing_docs)]
// ECS queries spell out their types, and systems take their data as parameters; naming or
// bundling them would hide what a system reads.
#![allow(clippy::type_complexity, clippy::too_many_arguments)]

pub mod ascii;
pub mod components;
pub mod fog;
pub mod grid;
pub mod line_of_sight;
pub mod opacity;
pub mod options;
pub mod plugin;
pub mod recompute;
pub mod shadowcast;
pub mod sightings;
pub mod visible;

pub use components::{HideOutsideView, LayerOf, Layers, Opaque, RevealsFog, Team, Viewshed};
pub use fog::{
    ExploredMemory, FogOfWar, FogState, FogStyle, FogTeam, MemoryError, TeamFog, TileLook,
};
pub use grid::OpacityGrid;
pub use line_of_sight::{LineOfSight, line_of_sight};
pub use opacity::MapOpacity;
pub use options::{DistanceShape, FovMode, FovOptions, Radius, VisionCone};
pub use plugin::{ViewshedPlugin, ViewshedSystems};
pub use recompute::ViewshedUpdated;
pub use shadowcast::{Fov, FovError, field_of_view};
pub use sightings::{LostSight, Spottable, Spotted};
pub use visible::{VisibleSet, Window};

/// The types most users need: `use bevy_viewshed::prelude::*;`.
pub mod prelude {
    pub use crate::{
        DistanceShape, FogOfWar, FogState, FogStyle, FogTeam, Fov, FovError, FovMode, FovOptions,
        HideOutsideView, LayerOf, LineOfSight, LostSight, MapOpacity, OpacityGrid, Opaque, Radius,
        RevealsFog, Spottable, Spotted, Team, TeamFog, TileLook, Viewshed, ViewshedPlugin,
        ViewshedSystems, ViewshedUpdated, VisibleSet, VisionCone, field_of_view, line_of_sight,
    };
}

/// Compiles and runs the README's Rust examples as doc tests, so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
