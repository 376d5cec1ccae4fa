//! The looks the dungeon shows off, each on by default and toggled by a key: `1` fades, `2`
//! soft edges, `3` ghosts of the monsters last seen, `4` light and darkness (torches on the
//! room walls, a lantern in your hand, and you see only lit floors); the fog drawn smooth or in
//! tile colours is `f` (`fog_mode.rs`).

use std::time::Duration;

use bevy::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{FogFade, SoftEdge, TileLook};

use crate::fog_mode::FogLooks;

use crate::world::Level;

/// Which looks are on.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Looks {
    pub fades: bool,
    pub soft_edges: bool,
    pub ghosts: bool,
    pub light: bool,
}

impl Default for Looks {
    fn default() -> Self {
        Self {
            fades: true,
            soft_edges: true,
            ghosts: true,
            light: true,
        }
    }
}

/// How long the view takes to open and to close.
pub const FADE: FogFade = FogFade::new(Duration::from_millis(150), Duration::from_millis(400));

/// Remembered tiles: the tileset dimmed to a cold grey-blue.
const REMEMBERED: Color = Color::srgb(0.36, 0.38, 0.62);

/// The terrain's fog of war with the looks that are on: visible tiles as drawn, remembered
/// ones grey-blue, unexplored ones hidden; at the border of the view a lighter grey-blue, and
/// the first unexplored ring shown faintly.
pub fn fog_style(looks: Looks) -> FogStyle {
    let mut style = FogStyle {
        remembered: TileLook::shown(REMEMBERED),
        ..default()
    };
    if looks.fades {
        style = style.with_fade(FADE);
    }
    if looks.soft_edges {
        style = style.with_soft_edge(SoftEdge {
            remembered: TileLook::shown(Color::srgb(0.40, 0.42, 0.66)),
            unexplored: TileLook::shown(Color::srgb(0.16, 0.16, 0.26)),
        });
    }
    style
}

/// The smooth fog with the looks that are on: remembered tiles under a translucent cold
/// blue, unexplored ones black, edges blurred over almost half a tile (`2` off: barely) and
/// fades in the shader (`1`).
pub fn smooth_fog(looks: Looks) -> SmoothFog {
    SmoothFog::default()
        .with_remembered(Color::srgba(0.04, 0.05, 0.2, 0.8))
        .with_softness(if looks.soft_edges { 0.45 } else { 0.05 })
        .with_fade(looks.fades.then_some(FADE))
}

/// The terrain's looks in both fog modes.
pub fn fog_looks(looks: Looks) -> FogLooks {
    FogLooks {
        tiles: fog_style(looks),
        // Under the actors and ghosts, over the glow and the monsters' views.
        smooth: smooth_fog(looks).with_z_above(0.25),
    }
}

/// `1`-`4` toggle the looks.
pub fn toggle_looks(keys: Res<ButtonInput<KeyCode>>, mut looks: ResMut<Looks>) {
    let mut next = *looks;
    for key in keys.get_just_pressed() {
        match key {
            KeyCode::Digit1 => next.fades = !next.fades,
            KeyCode::Digit2 => next.soft_edges = !next.soft_edges,
            KeyCode::Digit3 => next.ghosts = !next.ghosts,
            KeyCode::Digit4 => next.light = !next.light,
            _ => {}
        }
    }
    looks.set_if_neq(next);
}

/// The terrain's fog looks follow the looks.
pub fn apply_fog_looks(looks: Res<Looks>, level: Res<Level>, mut maps: Query<&mut FogLooks>) {
    if !looks.is_changed() {
        return;
    }
    if let Ok(mut map) = maps.get_mut(level.terrain) {
        map.set_if_neq(fog_looks(*looks));
    }
}
