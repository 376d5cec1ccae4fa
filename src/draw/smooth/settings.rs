//! [`SmoothFog`]: a map's fog of war drawn on the GPU as a smooth field, and how it looks.

use bevy::prelude::*;

use crate::draw::FogFade;

/// Draws a map's fog of war on the GPU as a smooth field over all its layers: the edge of
/// what is seen is a soft curve, not a staircase of tiles, and tiles fade between looks in
/// the shader.
///
/// Put it on a map: its root tilemap (which gets the [`FogOfWar`](crate::FogOfWar)), its
/// [`WorldMap`](crate::WorldMap) entity, or the [`LayerGroup`](crate::LayerGroup) entity of a
/// level an importer spawned (a Tiled map, an LDtk level: the group's root map takes it). The
/// fog is drawn over each piece of the map: the root tilemap, or each chunk of a world. The
/// plugin keeps, per piece:
///
/// - **a texture** ([`SmoothFogTexture`](crate::SmoothFogTexture), on the piece) of one texel
///   per tile for the team the map draws ([`DrawnTeam`](crate::DrawnTeam)): whether it is seen
///   now and explored, and the fade it is in (from one look to another since a time). Only the
///   texels of the tiles whose state changed are written, so a frame in which no tile changed
///   uploads nothing; a chunk's texture holds two tiles of its neighbours' around its own, so
///   the fog flows on across its border without a seam, and a chunk streamed in makes its own
///   texture only (drawing what its team remembers of it from its first frame).
/// - **a quad** over the piece's rectangle, a child of the piece drawn
///   [`z_above`](Self::z_above) its highest tilemap, with a `Material2d` whose shader (WGSL,
///   embedded in the crate) finds the tiles around each pixel in the grid's own coordinates
///   (square, hexagonal in any coordinate system, isometric), works out each tile's look at
///   the fog's clock and blurs them over [`softness`](Self::softness) tiles. Seen tiles are
///   clear, remembered ones under [`remembered`](Self::remembered), unexplored ones under
///   [`unexplored`](Self::unexplored); nothing is drawn outside the piece's tiles.
///
/// The map's own tiles are left alone: give its layers
/// [`FogStyle::under_smooth_fog`](crate::FogStyle::under_smooth_fog) (every tile seen drawn as
/// it is, and the ring of unexplored tiles around the view the blur spreads over; the rest
/// hidden, so nothing of the map shows before the shader is ready), or no `FogStyle` at all
/// (every tile drawn, the fog alone hides them). The per-tile
/// looks of `FogStyle` and [`FogOverlay`](crate::FogOverlay) stay for pixel-art games and
/// servers; this needs the `render` feature, and an app that renders (in a headless app the
/// texture is still written if the app has `Assets<Image>`, and nothing is drawn).
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// fn spawn_map(mut commands: Commands) {
///     let map = commands.spawn_empty().id();
///     // ... the map's tiles and its TilemapBundle, as usual, with no FogStyle ...
///     commands.entity(map).insert(SmoothFog::default());
/// }
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct SmoothFog {
    /// The colour over remembered tiles (translucent: the tiles show through).
    pub remembered: Color,
    /// The colour over unexplored tiles (opaque black by default).
    pub unexplored: Color,
    /// How soft the edges are: the spread of the blur, in tiles (0.4 by default; from 0.05).
    pub softness: f32,
    /// How long tiles take to change look, in the shader (`FogFade::default()` by default;
    /// `None`: at once).
    pub fade: Option<FogFade>,
    /// How far above the highest tilemap of the map (in world `z`) the fog is drawn: 1.0 by
    /// default.
    pub z_above: f32,
}

impl Default for SmoothFog {
    fn default() -> Self {
        Self {
            remembered: Color::srgba(0.02, 0.02, 0.08, 0.75),
            unexplored: Color::BLACK,
            softness: 0.4,
            fade: Some(FogFade::default()),
            z_above: 1.0,
        }
    }
}

impl SmoothFog {
    /// This fog, with remembered tiles under `color`.
    pub fn with_remembered(self, color: Color) -> Self {
        Self {
            remembered: color,
            ..self
        }
    }

    /// This fog, with unexplored tiles under `color`.
    pub fn with_unexplored(self, color: Color) -> Self {
        Self {
            unexplored: color,
            ..self
        }
    }

    /// This fog, blurred over `tiles` tiles.
    pub fn with_softness(self, tiles: f32) -> Self {
        Self {
            softness: tiles,
            ..self
        }
    }

    /// This fog, fading as `fade` says (`None`: at once).
    pub fn with_fade(self, fade: Option<FogFade>) -> Self {
        Self { fade, ..self }
    }

    /// This fog, drawn `z` above the highest tilemap of its map.
    pub fn with_z_above(self, z: f32) -> Self {
        Self { z_above: z, ..self }
    }
}
