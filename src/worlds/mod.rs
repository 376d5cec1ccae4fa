//! Worlds: many tilemaps side by side as one map ([`WorldMap`], [`ChunkOf`]), each chunk placed
//! in the world's tiles ([`ChunkPlacement`]), and the world's layout: which of its tiles lie on
//! a chunk. Placement, opacity, views and fog read a world through what this module keeps.
//!
//! | module | its job |
//! |---|---|
//! | [`chunks`] | [`WorldMap`], [`ChunkOf`], [`ChunkPos`], [`ChunkPlacement`]; tilemaps below a world join it |
//! | `layout` | each world's layout: its chunks placed, the grid they share, the tiles they cover |
//! | `positions` | the tile under a point of an endless grid of any kind |
//! | `plugin` | [`WorldsPlugin`]: its systems in [`ViewshedStepSystems::Worlds`](crate::ViewshedStepSystems::Worlds), its observer |

pub mod chunks;
pub(crate) mod layout;
mod plugin;
pub(crate) mod positions;

pub use chunks::{ChunkOf, ChunkPlacement, ChunkPos, WORLD_ORIGIN, WorldChunks, WorldMap};
pub use plugin::WorldsPlugin;
