//! What several domains share and none owns: a map's tiles in buckets for the indexes, reading
//! change ticks in bulk, splitting work over the threads, the neighbours of a tile on each kind
//! of map, entities in slots with a bit per team, and the save format's version.

pub(crate) mod buckets;
pub(crate) mod change_ticks;
pub(crate) mod neighbours;
pub(crate) mod parallel;
#[cfg(feature = "serde")]
pub mod save_format;
pub(crate) mod team_bits;
