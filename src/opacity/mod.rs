//! What blocks and thins sight on each map: which entities are maps, their [`MapOpacity`]
//! (the grids the field of view is computed on, and the versioned log of what changed), kept
//! in step with the [`Opaque`] and [`Density`] entities and the [`OpaqueCells`] and
//! [`DensityCells`] grids on them.
//!
//! | module | its job |
//! |---|---|
//! | `maps` | which entities are maps, laid out like their tilemap or world |
//! | [`map_opacity`] | one map's grids, as the field of view reads them ([`MapOpacity`]) |
//! | `log` | each map's log of changed tiles, which the views and lights read |
//! | `sources` | the one pipeline of every kind: sources on entities and painted grids tallied on each tile, placed, moved, warned about |
//! | [`opaque`] | what blocks sight ([`Opaque`], [`OpaqueCells`]) |
//! | [`density`] | what thins sight ([`Density`], [`DensityCells`]) |
//! | [`elevation`] | high ground ([`Elevation`], [`ElevationCells`]) |
//! | `plugin` | [`OpacityPlugin`]: its systems in [`ViewshedStepSystems::Opacity`](crate::ViewshedStepSystems::Opacity), its observers |

pub mod density;
pub mod elevation;
pub(crate) mod log;
pub mod map_opacity;
mod maps;
pub mod opaque;
mod plugin;
mod sources;

pub use density::{Density, DensityCells};
pub use elevation::{Elevation, ElevationCells};
pub use map_opacity::MapOpacity;
pub use opaque::{Opaque, OpaqueCells};
pub use plugin::OpacityPlugin;
