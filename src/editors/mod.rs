//! Map editors: LDtk levels (feature `ldtk`) and Tiled maps and worlds (feature `tiled`), and
//! what both share: how an entity the editor placed gets its vision.

#[cfg(feature = "ldtk")]
pub mod ldtk;
#[cfg(any(feature = "ldtk", feature = "tiled"))]
mod put;
#[cfg(feature = "tiled")]
pub mod tiled;
mod vision;
