//! Shared by the examples (each includes it with `#[path]`): the HUD's text line at the top
//! left of the window.

use bevy::prelude::*;

/// A HUD text of `size` pixels, `top` pixels from the window's top, in the examples' pale
/// grey, saying `text` until the example writes into it.
pub fn hud_text(text: &str, size: f32, top: f32) -> impl Bundle {
    (
        Text::new(text),
        TextFont {
            font_size: FontSize::Px(size),
            ..default()
        },
        TextColor(Color::srgb(0.85, 0.85, 0.9)),
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(top),
            left: Val::Px(10.0),
            ..default()
        },
    )
}
