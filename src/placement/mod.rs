//! Where every placed entity stands: viewers, lights, walls and the entities others look for
//! get a [`Placed`] (their map and tile, from `TilePos` or `Transform`), written once a frame,
//! and the entities others look for are filed by where they stand. No later step works out a
//! placement itself.
//!
//! | module | its job |
//! |---|---|
//! | `locate` | the rule of where an entity stands (root map and tile, from `TilePos` or `Transform`) |
//! | [`placed`] | [`Placed`]: where each placed entity stands, written when it changes; the index of findable ones |
//! | `residents` | which entities stand on each world, to place again when its chunks change |
//! | `plugin` | [`PlacementPlugin`]: its system in [`ViewshedStepSystems::Placement`](crate::ViewshedStepSystems::Placement), its observers |

pub(crate) mod locate;
pub mod placed;
mod plugin;
mod residents;

pub use placed::Placed;
pub use plugin::PlacementPlugin;
