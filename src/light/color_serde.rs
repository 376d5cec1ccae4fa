//! `Color` saved as linear `[r, g, b, a]`, so the `serde` feature needs no Bevy feature.
#![cfg(feature = "serde")]

use bevy::color::{Color, ColorToComponents, LinearRgba};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Writes `color` as its linear components.
pub(super) fn serialize<S: Serializer>(color: &Color, serializer: S) -> Result<S::Ok, S::Error> {
    color.to_linear().to_f32_array().serialize(serializer)
}

/// Reads a colour written by [`serialize`].
pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Color, D::Error> {
    let [red, green, blue, alpha] = <[f32; 4]>::deserialize(deserializer)?;
    Ok(Color::LinearRgba(LinearRgba::new(red, green, blue, alpha)))
}
