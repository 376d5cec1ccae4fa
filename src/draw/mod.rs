//! The fog of war drawn, from the fog's model and its list of what changed: tile colours and
//! visibility in the layers with a [`FogStyle`] (with fades and soft edges), [`FogOverlay`]
//! layers, the `SmoothFog` on the GPU (feature `render`), [`TerrainMemory`] layers drawn as
//! each team last saw them, [`FogMinimap`] images, and sprites under the fog (`FogSprite`,
//! feature `render`). A headless server leaves it out.
//!
//! Tiles are written only when their look changed, and with "set if not equal" semantics, so
//! unchanged tiles are not extracted for rendering again.
//!
//! | module | its job |
//! |---|---|
//! | [`style`] | how each state looks on a layer: [`FogStyle`], [`TileLook`], [`SoftEdge`], [`FogFade`] |
//! | `fog_layers` | the writing of a map's fog into its fog layers, and of tiles new to them |
//! | `edges` | which tiles border the view, for [`SoftEdge`] looks |
//! | `fade` | tiles moving between looks over time, as a [`FogFade`] says |
//! | `tile_writer` | writing looks into tiles: a tile at a time, or many on all threads |
//! | [`overlay`] | a fog overlay layer in one component: [`FogOverlay`] |
//! | `smooth` | (feature `render`) the fog drawn on the GPU, smooth and blurred: `SmoothFog` |
//! | [`terrain`] | tiles drawn as each team last saw them: [`TerrainMemory`] |
//! | [`sprites`] | (feature `render`) sprites under the fog, remembered as last seen: `FogSprite`, `SpriteMemory` |
//! | `sprite_save` | (features `render`, `serde`) how a `SpriteMemory` saves: assets by their paths |
//! | `sprite_fog` | (feature `render`) each team's memory of the sprites, and the sprites drawn for the team drawn |
//! | [`minimap`] | one pixel per tile of a team's fog: [`FogMinimap`] |
//! | `minimap_canvas` | each minimap's image, over a map's area and a world's remembered chunks |
//! | `plugin` | [`FogDrawPlugin`]: the systems above in [`ViewshedStepSystems::Draw`](crate::ViewshedStepSystems::Draw), their observers |

mod edges;
mod fade;
mod fog_layers;
pub mod minimap;
mod minimap_canvas;
pub mod overlay;
mod plugin;
#[cfg(feature = "render")]
mod smooth;
#[cfg(feature = "render")]
mod sprite_fog;
#[cfg(all(feature = "render", feature = "serde"))]
mod sprite_save;
#[cfg(feature = "render")]
pub mod sprites;
pub mod style;
pub mod terrain;
mod tile_writer;

pub use minimap::FogMinimap;
pub use overlay::{FogOverlay, FogOverlayLayer};
pub use plugin::FogDrawPlugin;
#[cfg(feature = "render")]
pub use smooth::{SmoothFog, SmoothFogTexture};
#[cfg(feature = "render")]
pub use sprites::{FogSprite, FogSpriteStandIn, RememberedSprite, SpriteLook, SpriteMemory};
pub use style::{FogFade, FogStyle, SoftEdge, TileLook};
pub use terrain::TerrainMemory;
