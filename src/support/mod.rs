//! What several domains share and none owns: reading change ticks in bulk, splitting work over
//! the threads, the neighbours of a tile on each kind of map, and the save format's version.

pub(crate) mod change_ticks;
pub(crate) mod neighbours;
pub(crate) mod parallel;
#[cfg(feature = "serde")]
pub mod save_format;
