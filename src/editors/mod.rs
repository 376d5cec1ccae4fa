//! Map editors: LDtk levels (feature `ldtk`) and Tiled maps and worlds (feature `tiled`), and
//! what both share: how an entity the editor placed gets its vision.
//!
//! | module | its job |
//! |---|---|
//! | `ldtk` | (feature `ldtk`) LDtk levels from bevy_ecs_ldtk |
//! | `tiled` | (feature `tiled`) Tiled maps and worlds from bevy_ecs_tiled |
//! | `vision` | `EditorVision`: what an entity placed in an editor gets from the game's configuration |
//! | `put` | an editor's `Opaque` and `Elevation` on tiles, changed only where it put them |

#[cfg(feature = "ldtk")]
pub mod ldtk;
#[cfg(any(feature = "ldtk", feature = "tiled"))]
mod put;
#[cfg(feature = "tiled")]
pub mod tiled;
mod vision;
