//! The first steps of a frame: which tilemaps form one map, where every placed entity stands,
//! and what blocks sight on each map. Everything later reads what these modules write.
//!
//! | module | its job |
//! |---|---|
//! | [`layers`] | which tilemaps are layers of one map ([`LayerOf`](layers::LayerOf)), root lookup |
//! | [`layer_groups`] | all tilemaps below an entity as one map ([`LayerGroup`](layer_groups::LayerGroup)), for importers |
//! | `placement` | the rule of where an entity stands (root map and tile, from `TilePos` or `Transform`) |
//! | [`placed`] | [`Placed`](placed::Placed): where each looked-for entity stands, written when it changes |
//! | [`worlds`] | many tilemaps side by side as one map ([`WorldMap`](worlds::WorldMap), [`ChunkOf`](worlds::ChunkOf)) |
//! | [`map_opacity`] | one map's opacity grid and its log of changes ([`MapOpacity`](map_opacity::MapOpacity)) |
//! | [`opacity`] | what blocks sight ([`Opaque`](opacity::Opaque)), and which entities are maps |
//! | [`painted`] | opacity in bulk from the game's own grid ([`OpaqueCells`](painted::OpaqueCells)) |
//! | `plugin` | [`LayersPlugin`] and [`MapsPlugin`]: their systems in [`ViewshedStepSystems::Layers`](crate::ViewshedStepSystems::Layers) and [`ViewshedStepSystems::Maps`](crate::ViewshedStepSystems::Maps), their observers |

pub mod layer_groups;
pub mod layers;
pub mod map_opacity;
pub mod opacity;
pub mod painted;
pub mod placed;
pub(crate) mod placement;
mod plugin;
pub mod worlds;

pub use plugin::{LayersPlugin, MapsPlugin};
