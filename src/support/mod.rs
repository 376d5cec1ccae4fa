//! What several domains share and none owns: a map's tiles in buckets for the indexes, reading
//! change ticks in bulk, splitting work over the threads, the neighbours of a tile on each kind
//! of map, entities in slots with a bit per team, and the save format's version.
//!
//! | module | its job |
//! |---|---|
//! | `buckets` | a map's tiles cut into square buckets, each with a list: the indexes' grid |
//! | `change_ticks` | the entities changed since a system last ran, read from Bevy's change tick columns |
//! | `parallel` | read-only work on all threads, results gathered in the list's order |
//! | `neighbours` | the neighbours of a tile on each kind of map |
//! | `team_bits` | entities kept densely in slots, each with a value and one bit per team |
//! | `save_format` | (feature `serde`) the format version every save of this crate carries |

pub(crate) mod buckets;
pub(crate) mod change_ticks;
pub(crate) mod neighbours;
pub(crate) mod parallel;
#[cfg(feature = "serde")]
pub mod save_format;
pub(crate) mod team_bits;
