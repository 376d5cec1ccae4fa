//! Field of view for Bevy games on [bevy_ecs_tilemap]: every entity with a [`Viewshed`] sees
//! the tiles around it, [`Opaque`] entities cast shadows, and fog of war (visible, remembered,
//! unexplored) is written into the tile layers that opt in with a [`FogStyle`].
//!
//! # Quick start
//!
//! The README's quick start, `examples/quick_start.rs` (`cargo run --example quick_start`): a
//! walled room with pillars, a player the arrow keys move, the fog of war following it.
//!
#![doc = concat!("```no_run\n", include_str!("../examples/quick_start.rs"), "```")]
//!
//! # Where to read on
//!
//! The guides, with the test or bench behind every claim:
//! [the rules](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/rules.md),
//! [the look of the fog](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/fog.md),
//! [light and darkness](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/light.md),
//! [the plugin](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/plugin.md)
//! (schedule, components, sightings, save games),
//! [LDtk and other importers](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/ldtk.md),
//! [multiplayer](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/multiplayer.md),
//! [robustness](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/robustness.md),
//! [performance](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/performance.md),
//! [the core without Bevy](https://github.com/bevy-viewshed/bevy_viewshed/blob/main/docs/core.md).
//!
//! # The core
//!
//! The field of view is exact symmetric shadowcasting (Albert Ford's rules) on bit-packed
//! grids, from the Bevy-free [`viewshed_core`] crate, re-exported here ([`grid`],
//! [`options`], [`shadowcast`], [`visible`], [`line_of_sight`](mod@line_of_sight), [`ascii`]):
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
//! # The plugin
//!
//! One module per domain, each with its own plugin, run in the order of the
//! frame's steps ([`ViewshedSystems`], in [`ViewshedSchedule`]); [`ViewshedPlugins`] adds them
//! all ([`ViewshedPlugins`]):
//!
//! | module | its job | its plugin |
//! |---|---|---|
//! | [`schedule`] | the plugin's schedule and its public steps | [`ViewshedSchedulePlugin`](schedule::ViewshedSchedulePlugin) |
//! | [`maps`] | layers ([`LayerOf`], [`LayerGroup`]), where entities stand ([`Placed`]), what blocks sight ([`Opaque`], [`MapOpacity`]) | [`MapsPlugin`](maps::MapsPlugin) |
//! | [`viewshed`] | who sees ([`Viewshed`]) and its recomputation | [`ViewsPlugin`](viewshed::ViewsPlugin) |
//! | [`light`] | light and darkness ([`LightSource`], [`Lighting`], [`NeedsLight`]) | [`LightPlugin`](light::LightPlugin) |
//! | [`sightings`] | [`Spotted`] / [`LostSight`] for [`CanBeSpotted`] entities | [`SightingsPlugin`](sightings::SightingsPlugin) |
//! | [`fog`] | fog of war per team, written into tile layers; hiding; ghosts | [`FogPlugin`](fog::FogPlugin) |
//! | [`plugin`] | [`ViewshedPlugins`] and the group [`ViewshedPlugins`] | |
//! | `ldtk` (feature `ldtk`) | LDtk levels: layers as one map, opacity from the level data, viewers from LDtk entities |
//! | `tiled` (feature `tiled`) | Tiled maps and worlds: a map's layers as one map, opacity from tile and object properties, viewers from objects, a world as one world |
//! | `replicon` (feature `replicon`) | server-side fog of war: entities replicated to a client only while its team sees them |
//!
//! | feature | default | what it does |
//! |---|---|---|
//! | `render` | yes | bevy_ecs_tilemap's renderer; turn default features off for a headless server |
//! | `serde` | no | `Serialize`/`Deserialize` for the options, the explored memory, the ghosts ([`LastSeen`]) and the viewsheds |
//! | `replicon` | no | server-side fog of war for bevy_replicon 0.44 (`replicon::ViewshedReplicationPlugin`) |
//! | `ldtk` | no | [`ldtk`]: LDtk levels from bevy_ecs_ldtk 0.15 (layers as one map, opacity from IntGrid values and enum tags, viewers from entities) |
//! | `tiled` | no | [`tiled`]: Tiled maps and worlds from bevy_ecs_tiled 0.13 (layers as one map, opacity from tile and object properties, viewers, lights and markers from objects, a `.world` as one world) |
//!
//! [bevy_ecs_tilemap]: https://crates.io/crates/bevy_ecs_tilemap
#![warn(missing_docs)]
// docs.rs builds with every feature and `--cfg docsrs`: feature-gated items get a badge.
#![cfg_attr(docsrs, feature(doc_cfg))]
// ECS queries spell out their types, and systems take their data as parameters; naming or
// bundling them would hide what a system reads.
#![allow(clippy::type_complexity, clippy::too_many_arguments)]

pub use viewshed_core;
pub use viewshed_core::{ascii, density, grid, hex, line_of_sight, options, shadowcast, visible};

mod change_ticks;
mod changes;
#[cfg(any(feature = "ldtk", feature = "tiled"))]
mod editor_vision;
pub mod fog;
#[cfg(feature = "ldtk")]
#[cfg_attr(docsrs, doc(cfg(feature = "ldtk")))]
pub mod ldtk;
pub mod light;
pub mod maps;
mod parallel;
pub mod plugin;
#[cfg(feature = "replicon")]
#[cfg_attr(docsrs, doc(cfg(feature = "replicon")))]
pub mod replicon;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod save_format;
pub mod schedule;
pub mod sightings;
mod staggered;
#[cfg(feature = "tiled")]
#[cfg_attr(docsrs, doc(cfg(feature = "tiled")))]
pub mod tiled;
pub mod viewshed;

#[allow(deprecated)]
pub use fog::FogTeam;
#[cfg(feature = "render")]
pub use fog::SmoothFog;
pub use fog::{
    DrawnTeam, DrawnTeamOverride, ExploredMemory, FogFade, FogMinimap, FogOfWar, FogOverlay,
    FogOverlayLayer, FogState, FogStyle, Ghost, HidesOutsideView, LastSeen, LeavesGhost,
    MemoryError, RevealsFog, SoftEdge, Team, TeamFog, TerrainMemory, TileLook, WorldMemory,
};
pub use light::{LightSource, Lighting, NeedsLight};
pub use maps::density::{Density, DensityCells};
pub use maps::layer_groups::LayerGroup;
pub use maps::layers::{LayerOf, Layers};
pub use maps::map_opacity::MapOpacity;
pub use maps::opacity::Opaque;
pub use maps::painted::OpaqueCells;
pub use maps::placed::Placed;
pub use maps::worlds::{ChunkOf, ChunkPlacement, ChunkPos, WORLD_ORIGIN, WorldChunks, WorldMap};
#[allow(deprecated)]
pub use plugin::ViewshedPlugin;
pub use plugin::ViewshedPlugins;
pub use schedule::{ViewshedSchedule, ViewshedStepSystems, ViewshedSystems};
pub use sightings::{CanBeSpotted, LostSight, Spotted, SpottedTargets};
pub use viewshed::{Viewshed, ViewshedUpdated};
pub use viewshed_core::{
    DensityGrid, DistanceShape, Fov, FovError, FovMode, FovOptions, HexCoords, HexFov, LineOfSight,
    OpacityGrid, Radius, VisibleSet, VisionCone, field_of_view, hex_distance, hex_field_of_view,
    hex_line_of_sight,
};

/// What a game uses every day: `use bevy_viewshed::prelude::*;`.
///
/// Names a game is likely to have already (`Team`, `Ghost`, `Lighting`, `Radius`, `Fov`) and
/// the core's own types and functions (`field_of_view`, `OpacityGrid`, `VisibleSet`,
/// `HexCoords`, ...) stay out of it: import them from the crate root, e.g.
/// `use bevy_viewshed::Team;`.
pub mod prelude {
    #[cfg(feature = "render")]
    pub use crate::SmoothFog;
    #[allow(deprecated)]
    pub use crate::ViewshedPlugin;
    pub use crate::{
        CanBeSpotted, ChunkOf, ChunkPlacement, ChunkPos, Density, DensityCells, DistanceShape,
        DrawnTeam, DrawnTeamOverride, FogFade, FogMinimap, FogOfWar, FogOverlay, FogState,
        FogStyle, FovMode, FovOptions, HidesOutsideView, LastSeen, LayerGroup, LayerOf,
        LeavesGhost, LightSource, LostSight, MapOpacity, NeedsLight, Opaque, OpaqueCells,
        RevealsFog, SoftEdge, Spotted, SpottedTargets, TerrainMemory, TileLook, Viewshed,
        ViewshedPlugins, ViewshedSchedule, ViewshedStepSystems, ViewshedSystems, ViewshedUpdated,
        VisionCone, WorldMap,
    };
}

/// Compiles and runs the README's Rust examples as doc tests, so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The docs pages' Rust examples, compiled and run as doc tests like the README's.
#[cfg(doctest)]
mod docs_pages {
    #[doc = include_str!("../docs/core.md")]
    struct Core;
    #[doc = include_str!("../docs/fog.md")]
    struct Fog;
    #[doc = include_str!("../docs/light.md")]
    struct Light;
    #[doc = include_str!("../docs/plugin.md")]
    struct Plugin;
    #[doc = include_str!("../docs/rules.md")]
    struct Rules;
    #[doc = include_str!("../docs/worlds.md")]
    struct Worlds;
    #[cfg(feature = "ldtk")]
    #[doc = include_str!("../docs/ldtk.md")]
    struct Ldtk;
    #[cfg(feature = "replicon")]
    #[doc = include_str!("../docs/multiplayer.md")]
    struct Multiplayer;
}
