//! Field of view for Bevy games.
//!
//! The core, free of Bevy: exact symmetric shadowcasting ([`Fov`]) over a bit-packed
//! [`OpacityGrid`], giving a bit-packed [`VisibleSet`] sized to the viewer's reach.
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
#![warn(missing_docs)]

pub mod ascii;
pub mod grid;
pub mod shadowcast;
pub mod visible;

pub use grid::OpacityGrid;
pub use shadowcast::{Fov, FovError, FovOptions, Radius, field_of_view};
pub use visible::{VisibleSet, Window};

/// The types most users need.
pub mod prelude {
    pub use crate::{Fov, FovError, FovOptions, OpacityGrid, Radius, VisibleSet, field_of_view};
}

/// Compiles and runs the README's Rust examples as doc tests, so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
