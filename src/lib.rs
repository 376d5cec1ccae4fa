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
//! One module per domain, each with its own plugin, run in the order of the frame's steps
//! ([`ViewshedStepSystems`], in [`ViewshedSchedule`]); [`ViewshedPlugins`] adds them all:
//!
//! | module | its job | its plugin |
//! |---|---|---|
//! | [`schedule`] | the plugin's schedule and its public steps | [`ViewshedSchedulePlugin`](schedule::ViewshedSchedulePlugin) |
//! | [`layers`] | which tilemaps are layers of one map ([`LayerOf`], [`LayerGroup`]) | [`LayersPlugin`](layers::LayersPlugin) |
//! | [`worlds`] | worlds of many tilemaps ([`WorldMap`], [`ChunkOf`]) | [`WorldsPlugin`](worlds::WorldsPlugin) |
//! | [`placement`] | where entities stand ([`Placed`]) | [`PlacementPlugin`](placement::PlacementPlugin) |
//! | [`opacity`] | what blocks or thins sight ([`Opaque`], [`Density`], [`MapOpacity`]) | [`OpacityPlugin`](opacity::OpacityPlugin) |
//! | [`viewshed`] | who sees ([`Viewshed`]) and its recomputation | [`ViewsPlugin`](viewshed::ViewsPlugin) |
//! | [`light`] | light and darkness ([`LightSource`], [`Lighting`], [`NeedsLight`]) | [`LightPlugin`](light::LightPlugin) |
//! | [`sightings`] | [`Spotted`] / [`LostSight`] for [`CanBeSpotted`] entities | [`SightingsPlugin`](sightings::SightingsPlugin) |
//! | [`fog`] | the fog of war's model: [`FogOfWar`] per map, per [`Team`] | [`FogPlugin`](fog::FogPlugin) |
//! | [`ghosts`] | [`LastSeen`] ghosts, [`HidesOutsideView`] | [`GhostsPlugin`](ghosts::GhostsPlugin) |
//! | [`draw`] | the fog drawn: [`FogStyle`], [`FogOverlay`], `SmoothFog`, [`TerrainMemory`], [`FogMinimap`] | [`FogDrawPlugin`](draw::FogDrawPlugin) |
//! | [`plugin`] | [`ViewshedPlugins`]: the group | |
//! | `editors` | map editors: an editor's walls and high ground on tiles, LDtk and Tiled (features) | |
//! | `support` | crate-private helpers shared by the domains: change ticks, buckets, threads | |
//! | `ldtk` (feature `ldtk`) | LDtk levels: layers as one map, opacity from the level data, viewers from LDtk entities | `LdtkViewshedPlugin` |
//! | `tiled` (feature `tiled`) | Tiled maps and worlds: a map's layers as one map, opacity from tile and object properties, viewers from objects, a world as one world | `TiledViewshedPlugin` |
//! | `replicon` (feature `replicon`) | server-side fog of war: entities replicated to a client only while its team sees them | `ViewshedReplicationPlugin` |
//!
//! | feature | default | what it does |
//! |---|---|---|
//! | `render` | yes | bevy_ecs_tilemap's renderer; turn default features off for a headless server |
//! | `serde` | no | `Serialize`/`Deserialize` for the options, the explored memory, the ghosts ([`LastSeen`]) and the viewsheds |
//! | `replicon` | no | server-side fog of war for bevy_replicon 0.44 (`replicon::ViewshedReplicationPlugin`) |
//! | `ldtk` | no | LDtk levels from bevy_ecs_ldtk 0.15 (layers as one map, opacity from IntGrid values and enum tags, viewers from entities) |
//! | `lightyear` | no | server-side fog of war over lightyear 0.30 (built on `replicon`) |
//! | `tiled` | no | Tiled maps and worlds from bevy_ecs_tiled 0.13 (layers as one map, opacity from tile and object properties, viewers, lights and markers from objects, a `.world` as one world) |
//!
//! [bevy_ecs_tilemap]: https://crates.io/crates/bevy_ecs_tilemap
#![warn(missing_docs)]
// docs.rs builds with every feature and `--cfg docsrs`: feature-gated items get a badge.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(clippy::undocumented_unsafe_blocks)]

pub use viewshed_core;
pub use viewshed_core::{ascii, density, grid, hex, line_of_sight, options, shadowcast, visible};

pub mod draw;
#[cfg(any(feature = "ldtk", feature = "tiled"))]
mod editors;
pub mod fog;
pub mod ghosts;
pub mod layers;
pub mod light;
pub mod opacity;
pub mod placement;
pub mod plugin;
#[cfg(feature = "replicon")]
#[cfg_attr(docsrs, doc(cfg(feature = "replicon")))]
pub mod replicon;
pub mod schedule;
pub mod sightings;
mod support;
pub mod viewshed;
pub mod worlds;

#[cfg(feature = "ldtk")]
#[cfg_attr(docsrs, doc(cfg(feature = "ldtk")))]
pub use editors::ldtk;
#[cfg(feature = "tiled")]
#[cfg_attr(docsrs, doc(cfg(feature = "tiled")))]
pub use editors::tiled;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub use support::save_format;

pub use draw::{
    FogFade, FogMinimap, FogOverlay, FogOverlayLayer, FogStyle, SoftEdge, TerrainMemory, TileLook,
};
#[cfg(feature = "render")]
pub use draw::{
    FogSprite, FogSpriteStandIn, RememberedSprite, SmoothFog, SmoothFogTexture, SpriteLook,
    SpriteMemory,
};
pub use fog::{
    Cloaked, Detector, DrawnTeam, DrawnTeamOverride, ExploredMemory, FogOfWar, FogRegrowth,
    FogState, MemoryError, Radar, RadarContacts, Reveal, RevealsFog, SharedVision, Sighting, Team,
    TeamFog, TeamKnowledge, WorldMemory,
};
pub use ghosts::{Ghost, HidesOutsideView, LastSeen, LeavesGhost};
pub use layers::{LayerGroup, LayerOf, Layers};
pub use light::{LightSource, Lighting, NeedsLight};
pub use opacity::{
    Density, DensityCells, Elevation, ElevationCells, MapOpacity, Opaque, OpaqueCells,
};
pub use placement::Placed;
pub use plugin::ViewshedPlugins;
pub use schedule::{ViewshedSchedule, ViewshedStepSystems, ViewshedSystems};
pub use sightings::{CanBeSpotted, LostSight, Spotted, SpottedTargets};
pub use viewshed::{Viewshed, ViewshedUpdated};
pub use viewshed_core::{
    CliffFaces, DensityGrid, DistanceShape, Fov, FovError, FovMode, FovOptions, HexCoords, HexFov,
    LineOfSight, OpacityGrid, Radius, VisibleSet, VisionCone, field_of_view, hex_distance,
    hex_field_of_view, hex_line_of_sight,
};
pub use worlds::{ChunkOf, ChunkPlacement, ChunkPos, WORLD_ORIGIN, WorldChunks, WorldMap};

/// What a game uses every day: `use bevy_viewshed::prelude::*;`.
///
/// The plugin, who sees and what blocks sight, the fog and how it is drawn, what the teams
/// know of what they do not see, sightings, light, and the two ways to make one map of many
/// tilemaps. Everything else (teams, options, worlds' parts, the core's types and functions)
/// is imported from the crate root, e.g. `use bevy_viewshed::{Team, VisionCone};`: names a
/// game is likely to have already (`Team`, `Ghost`, `Lighting`, `Radius`, `Fov`) stay out of
/// a glob import.
pub mod prelude {
    pub use crate::{
        CanBeSpotted, Density, FogMinimap, FogOfWar, FogOverlay, FogState, FogStyle,
        HidesOutsideView, LastSeen, LayerGroup, LeavesGhost, LightSource, LostSight, NeedsLight,
        Opaque, OpaqueCells, RevealsFog, Spotted, TerrainMemory, Viewshed, ViewshedPlugins,
        ViewshedSystems, WorldMap,
    };
    #[cfg(feature = "render")]
    pub use crate::{FogSprite, SmoothFog};
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
    #[doc = include_str!("../docs/elevation.md")]
    struct Elevation;
    #[doc = include_str!("../docs/strategy.md")]
    struct Strategy;
    #[cfg(feature = "serde")]
    #[doc = include_str!("../docs/cookbook.md")]
    struct Cookbook;
    #[cfg(feature = "render")]
    #[doc = include_str!("../docs/smooth_fog.md")]
    struct SmoothFog;
    #[cfg(feature = "tiled")]
    #[doc = include_str!("../docs/tiled.md")]
    struct Tiled;
    #[cfg(feature = "ldtk")]
    #[doc = include_str!("../docs/ldtk.md")]
    struct Ldtk;
    #[cfg(feature = "replicon")]
    #[doc = include_str!("../docs/multiplayer.md")]
    struct Multiplayer;
    #[cfg(all(feature = "lightyear", not(target_arch = "wasm32")))]
    #[doc = include_str!("../docs/lightyear.md")]
    struct Lightyear;
}
