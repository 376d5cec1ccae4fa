//! The fog of war drawn, from the fog's model and its list of what changed: tile colours and
//! visibility in the layers with a [`FogStyle`] (with fades and soft edges), [`FogOverlay`]
//! layers, the [`SmoothFog`] on the GPU (feature `render`), [`TerrainMemory`] layers drawn as
//! each team last saw them, and [`FogMinimap`] images. A headless server leaves it out.
//!
//! Tiles are written only when their look changed, and with "set if not equal" semantics, so
//! unchanged tiles are not extracted for rendering again.
//!
//! | module | its job |
//! |---|---|
//! | [`style`] | how each state looks on a layer: [`FogStyle`], [`TileLook`], [`SoftEdge`], [`FogFade`] |
//! | `layers` | the writing of a map's fog into its fog layers, and of tiles new to them |
//! | `edges` | which tiles border the view, for [`SoftEdge`] looks |
//! | `fade` | tiles moving between looks over time, as a [`FogFade`] says |
//! | `tile_writer` | writing looks into tiles: a tile at a time, or many on all threads |
//! | [`overlay`] | a fog overlay layer in one component: [`FogOverlay`] |
//! | `smooth` | (feature `render`) the fog drawn on the GPU, smooth and blurred: [`SmoothFog`] |
//! | [`terrain`] | tiles drawn as each team last saw them: [`TerrainMemory`] |
//! | [`minimap`] | one pixel per tile of a team's fog: [`FogMinimap`] |
//! | `plugin` | [`FogDrawPlugin`]: the systems above in [`ViewshedStepSystems::Draw`](crate::ViewshedStepSystems::Draw), their observers |

mod edges;
mod fade;
mod layers;
pub mod minimap;
pub mod overlay;
mod plugin;
#[cfg(feature = "render")]
mod smooth;
pub mod style;
pub mod terrain;
mod tile_writer;

pub use minimap::FogMinimap;
pub use overlay::{FogOverlay, FogOverlayLayer};
pub use plugin::FogDrawPlugin;
#[cfg(feature = "render")]
pub use smooth::SmoothFog;
pub use style::{FogFade, FogStyle, SoftEdge, TileLook};
pub use terrain::TerrainMemory;
