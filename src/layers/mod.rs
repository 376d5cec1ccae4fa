//! The first step of a frame: which tilemaps are the layers of one map. Every later step finds
//! a tilemap's map (its root tilemap) through what this module keeps.
//!
//! | module | its job |
//! |---|---|
//! | [`layer_of`] | which tilemaps are layers of one map ([`LayerOf`], [`Layers`]), the root lookup |
//! | [`groups`] | all tilemaps below an entity as one map ([`LayerGroup`]), for importers |
//! | `plugin` | [`LayersPlugin`]: its systems in [`ViewshedStepSystems::Layers`](crate::ViewshedStepSystems::Layers), its observers |

pub mod groups;
pub mod layer_of;
mod plugin;

pub use groups::LayerGroup;
pub use layer_of::{LayerOf, Layers};
pub use plugin::LayersPlugin;
