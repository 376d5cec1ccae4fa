//! Light and darkness: [`LightSource`]s light the tiles in their own field of view, each map
//! adds them up in its [`Lighting`], and viewers with [`NeedsLight`] see only what is lit (or
//! within their dark vision).
//!
//! - `source.rs`: the [`LightSource`] component; its lit set is recomputed by the same
//!   machinery as a [`Viewshed`](crate::Viewshed)'s view (`viewshed/recompute.rs`).
//! - `lighting.rs`: the per-map [`Lighting`] (how many lights light each tile, and their
//!   summed colour), kept by adding and taking away each light's contribution.
//! - `filter.rs`: [`NeedsLight`] and the rule that turns a viewer's field of view into what it
//!   sees in the dark.
//! - `plugin.rs`: [`LightPlugin`], which runs them in [`ViewshedStepSystems::Light`](crate::ViewshedStepSystems::Light).
//! - `color_serde.rs`: (feature `serde`) a light's `Color` saved as linear `[r, g, b, a]`.
//!
//! The rules (also in the README's "Light and darkness" section): a light of radius `r` lights
//! exactly the tiles of its own symmetric field of view of radius `r` (walls included), as a
//! [`Viewshed`](crate::Viewshed) of radius `r` would see them. A viewer with
//! `NeedsLight { dark_vision: d }` sees a tile of its field of view `F` when
//! 1. the tile is within `d` of it (its dark vision, measured like its radius), or
//! 2. the tile is a floor (not [`Opaque`](crate::Opaque)) and lit, or
//! 3. the tile is a wall, lit, and one of the 8 tiles around it is a lit floor in `F`.

mod color_serde;
pub(crate) mod filter;
pub(crate) mod lighting;
mod plugin;
pub(crate) mod source;

pub use filter::NeedsLight;
pub use lighting::Lighting;
pub use plugin::LightPlugin;
pub use source::LightSource;
