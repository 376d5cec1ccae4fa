//! Shared by the dungeon and the hex skirmish (each includes it with `#[path]`): how the fog of
//! war is drawn, smooth on the GPU (`SmoothFog`) or in tile colours (`FogStyle`), chosen with
//! `--fog smooth|tiles` and switched with `f`.

use bevy::prelude::*;
use bevy_viewshed::prelude::*;

/// How the fog of war is drawn.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FogMode {
    /// `SmoothFog`: a blurred field over the map, fades in the shader.
    Smooth,
    /// `FogStyle`: each tile's colour, for pixel-art looks.
    Tiles,
}

impl FogMode {
    /// The mode `--fog` names (the dungeon's own command line; the others' is `script.rs`).
    #[allow(dead_code)]
    pub fn parse(value: &str) -> Result<Self, String> {
        match value {
            "smooth" => Ok(Self::Smooth),
            "tiles" => Ok(Self::Tiles),
            other => Err(format!("--fog: {other:?} is not smooth or tiles")),
        }
    }

    /// Its name, as `--fog` takes it and the HUD shows it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Smooth => "smooth",
            Self::Tiles => "tiles",
        }
    }
}

/// A map's two looks: the one of each mode. The map wears the look of the current mode.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct FogLooks {
    pub tiles: FogStyle,
    pub smooth: SmoothFog,
}

/// `f` switches the mode.
pub fn toggle_fog_mode(keys: Res<ButtonInput<KeyCode>>, mut mode: ResMut<FogMode>) {
    if keys.just_pressed(KeyCode::KeyF) {
        *mode = match *mode {
            FogMode::Smooth => FogMode::Tiles,
            FogMode::Tiles => FogMode::Smooth,
        };
    }
}

/// Gives each map the look of the mode when the mode or its looks change: in tile colours, its
/// `FogStyle`; smooth, a `SmoothFog` over tiles shown as drawn where they were seen and in the
/// ring around the view, the blur's reach (`FogStyle::under_smooth_fog`).
pub fn apply_fog_mode(
    mut commands: Commands,
    mode: Res<FogMode>,
    maps: Query<(Entity, Ref<FogLooks>)>,
) {
    for (map, looks) in &maps {
        if !(mode.is_changed() || looks.is_changed()) {
            continue;
        }
        let mut map = commands.entity(map);
        match *mode {
            FogMode::Tiles => {
                map.insert(looks.tiles).remove::<SmoothFog>();
            }
            FogMode::Smooth => {
                map.insert((FogStyle::under_smooth_fog(), looks.smooth.clone()));
            }
        }
    }
}
