//! Exact symmetric field of view on bit-packed grids, with no game engine attached.
//!
//! This is the core of [bevy_viewshed](https://crates.io/crates/bevy_viewshed): Albert Ford's
//! symmetric shadowcasting in exact integer arithmetic over an [`OpacityGrid`], with the
//! options roguelike and tactics games ask for ([`FovOptions`]: radius, distance shape, vision
//! cone, permissive mode, light walls), high ground ([`elevation`]), line of sight, and the
//! plain-text map format of the reference cases. It depends on nothing but the standard
//! library (`serde` and `bevy_reflect` derives behind features), so a server in another engine
//! or a map tool can use it without compiling Bevy.
//!
//! ```
//! use viewshed_core::{field_of_view, FovOptions, OpacityGrid};
//!
//! // A pillar at (4, 2) east of a viewer at (2, 2).
//! let grid = OpacityGrid::from_fn(8, 5, |x, y| (x, y) == (4, 2));
//! let visible = field_of_view(&grid, (2, 2), FovOptions::radius(8))?;
//! assert!(visible.contains(4, 2)); // the pillar is lit
//! assert!(!visible.contains(6, 2)); // what is behind it is hidden
//! assert!(visible.contains(2, 2)); // the viewer sees its own cell
//! # Ok::<(), viewshed_core::FovError>(())
//! ```
//!
//! | module | its one job |
//! |---|---|
//! | [`bits`] | word-level bit helpers and [`BitRows`](bits::BitRows), the storage of everything else |
//! | [`grid`] | which cells block sight ([`OpacityGrid`]) |
//! | [`density`] | which cells thin sight ([`DensityGrid`], [`DensityGrid::thin`]) |
//! | [`elevation`] | high ground: which cells stand above an eye ([`ElevationGrid`], [`SightLevels`]) |
//! | [`options`] | what one computation is asked for ([`FovOptions`]) |
//! | [`shadowcast`] | the scan itself ([`Fov`], [`field_of_view`]) |
//! | [`hex`] | the same on hexagonal maps ([`HexFov`], [`hex_field_of_view`], [`HexCoords`]) |
//! | [`visible`] | the result ([`VisibleSet`]) |
//! | [`line_of_sight`](mod@line_of_sight) | one cell's visibility from another |
//! | [`ascii`] | the text map format of the reference cases and `fov_ascii` |
//! | [`staggered`] | staggered isometric maps as the diamond grids they are |
//! | [`changes`] | a versioned log of changed cells: which views a change reaches |
//!
//! | feature | default | what it does |
//! |---|---|---|
//! | `serde` | no | `Serialize`/`Deserialize` for the options and visible sets |
//! | `bevy_reflect` | no | `bevy_reflect::Reflect` on the options and `Window` (bevy_viewshed turns it on) |
#![warn(missing_docs)]
// docs.rs builds with every feature and `--cfg docsrs`: feature-gated items get a badge.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(clippy::missing_errors_doc)]

pub mod ascii;
pub mod bits;
pub mod changes;
pub mod density;
pub mod elevation;
pub mod grid;
pub mod hex;
pub mod line_of_sight;
pub mod options;
pub mod shadowcast;
pub mod staggered;
pub mod visible;

pub use density::{DensityGrid, Shadows};
pub use elevation::{
    CliffFaces, ElevationError, ElevationGrid, ElevationOptions, EyeLevels, SightLevels,
    field_of_view_with_elevation, hex_field_of_view_with_elevation, hide_cliff_faces,
    staggered_field_of_view_with_elevation,
};
pub use grid::OpacityGrid;
pub use hex::{HexCoords, HexFov, hex_distance, hex_field_of_view, hex_line_of_sight};
pub use line_of_sight::{LineOfSight, line_of_sight};
pub use options::{DistanceShape, FovMode, FovOptions, Radius, VisionCone};
pub use shadowcast::{Fov, FovError, field_of_view};
pub use visible::{VisibleSet, Window};
