//! [`FogMinimap`]: an `Image` per map with one pixel per tile for the fog of the team it
//! draws, and the colour of each pixel; `minimap_canvas` draws it.

use bevy::prelude::*;

use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::FogState;
use viewshed_core::visible::Window;

/// Gives a map a minimap: an `Image` with one pixel per tile showing the fog of war of the
/// team the map draws ([`FogOfWar::drawn_team`](crate::FogOfWar::drawn_team)), for a corner of the screen (a UI
/// `ImageNode`) or a map screen.
///
/// Put it on a map: its root tilemap (which gets the [`FogOfWar`](crate::FogOfWar)), its
/// [`WorldMap`](crate::WorldMap) entity, or the [`LayerGroup`](crate::LayerGroup) entity of a
/// level an importer spawned. The plugin makes the image in `Assets<Image>` (read it with
/// [`image`](Self::image)), one pixel per tile of the map's area (a world's: its loaded chunks
/// and the margin around them, and the unloaded chunks its [`WorldMemory`](crate::WorldMemory)
/// remembers) in `Rgba8UnormSrgb`, the top row of pixels for the top row of tiles (the highest
/// `y`), so that it is drawn the right way up. A pixel is:
///
/// - for a tile seen now, its kind's colour: the colour [`kinds`](Self::kinds) gives the
///   tile's `TileTextureIndex` on the map's root tilemap (a chunk's, on a world: a wall, a
///   floor, water), else [`visible`](Self::visible);
/// - for a remembered tile, the same colour times [`remembered`](Self::remembered) (with
///   [`TerrainMemory`](crate::TerrainMemory) on the tilemap, the kind it was last seen as; on
///   a chunk that went, the kind it had when it was last drawn);
/// - for an unexplored tile, [`unexplored`](Self::unexplored).
///
/// Only the pixels of the tiles whose fog state changed (the fog's own list of changed tiles)
/// or whose `TileTextureIndex` changed are written, and the image is changed (so uploaded)
/// only in frames where one of them differs. A changed `FogMinimap` or a resized map redraws
/// it whole. An app without `Assets<Image>` (a headless server) gets no image.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// // Walls (tile 1 of the tileset) grey, floors (tile 0) sand, others white.
/// let minimap = FogMinimap::default()
///     .with_kind(1, Color::srgb(0.5, 0.5, 0.55))
///     .with_kind(0, Color::srgb(0.8, 0.7, 0.5));
/// assert_eq!(minimap.color_of(1), Color::srgb(0.5, 0.5, 0.55));
/// assert_eq!(minimap.color_of(9), minimap.visible);
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct FogMinimap {
    /// The colour of a tile seen now whose kind has no colour of its own (white by default).
    pub visible: Color,
    /// The tint of remembered tiles, multiplied with their colour (a dark grey-blue by
    /// default).
    pub remembered: Color,
    /// The colour of unexplored tiles (black by default).
    pub unexplored: Color,
    /// The colours of tiles by their `TileTextureIndex` (none by default).
    pub kinds: Vec<(u32, Color)>,
    /// The image, once the plugin has made it, and the map tiles it shows.
    image: Option<(Handle<Image>, Window)>,
}

impl Default for FogMinimap {
    fn default() -> Self {
        Self {
            visible: Color::WHITE,
            remembered: Color::srgb(0.36, 0.38, 0.55),
            unexplored: Color::BLACK,
            kinds: Vec::new(),
            image: None,
        }
    }
}

impl FogMinimap {
    /// This minimap, drawing tiles of `TileTextureIndex(index)` in `color`.
    pub fn with_kind(mut self, index: u32, color: Color) -> Self {
        self.kinds.retain(|&(kind, _)| kind != index);
        self.kinds.push((index, color));
        self
    }

    /// This minimap, remembered tiles tinted by `tint`.
    pub fn with_remembered(self, tint: Color) -> Self {
        Self {
            remembered: tint,
            ..self
        }
    }

    /// This minimap, unexplored tiles in `color`.
    pub fn with_unexplored(self, color: Color) -> Self {
        Self {
            unexplored: color,
            ..self
        }
    }

    /// The colour of a seen tile of `TileTextureIndex(index)`.
    pub fn color_of(&self, index: u32) -> Color {
        self.kinds
            .iter()
            .find(|&&(kind, _)| kind == index)
            .map_or(self.visible, |&(_, color)| color)
    }

    /// The minimap's image (`None` until the plugin has made it, and in an app without
    /// `Assets<Image>`).
    pub fn image(&self) -> Option<&Handle<Image>> {
        self.image.as_ref().map(|(image, _)| image)
    }

    /// The map tiles the image shows (on a world they change as chunks come and go), once the
    /// plugin has made it.
    pub fn tiles(&self) -> Option<Window> {
        self.image.as_ref().map(|&(_, tiles)| tiles)
    }

    /// The pixel of the image that shows map tile `tile`, from the image's top left corner
    /// (`None` if the image does not show it, or is not made yet): where to draw a marker.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_ecs_tilemap::prelude::*;
    /// # use bevy_viewshed::prelude::*;
    /// fn player_dot(minimap: &FogMinimap, player: TilePos) -> Option<Vec2> {
    ///     // Three window pixels per tile: the dot's top left corner in the minimap's frame.
    ///     minimap.pixel_of(player).map(|pixel| pixel.as_vec2() * 3.0)
    /// }
    /// # assert_eq!(player_dot(&FogMinimap::default(), TilePos::new(0, 0)), None);
    /// ```
    pub fn pixel_of(&self, tile: TilePos) -> Option<UVec2> {
        let tiles = self.tiles()?;
        tiles
            .contains(tile.x, tile.y)
            .then(|| UVec2::new(tile.x - tiles.x, tiles.y + tiles.height - 1 - tile.y))
    }

    /// The plugin made `image`, showing `tiles`, for this minimap.
    pub(super) fn set_image(&mut self, image: Handle<Image>, tiles: Window) {
        self.image = Some((image, tiles));
    }

    /// The pixel of a tile in `state` of `TileTextureIndex(kind)` (`None`: no index).
    pub(super) fn pixel(&self, state: FogState, kind: Option<u32>) -> [u8; 4] {
        let color = kind.map_or(self.visible, |kind| self.color_of(kind));
        let color = match state {
            FogState::Visible => color,
            FogState::Remembered => tint(color, self.remembered),
            FogState::Unexplored => self.unexplored,
        };
        color.to_srgba().to_u8_array()
    }
}

/// `color` times `tint`, in linear light (as a `TileColor` tints a tile).
fn tint(color: Color, tint: Color) -> Color {
    let (a, b) = (color.to_linear(), tint.to_linear());
    Color::LinearRgba(LinearRgba::new(
        a.red * b.red,
        a.green * b.green,
        a.blue * b.blue,
        a.alpha * b.alpha,
    ))
}
