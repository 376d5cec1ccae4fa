//! [`FogMinimap`]: an `Image` per map with one pixel per tile for the fog of the team it
//! draws, kept in step by the tiles whose look changed only.

use bevy::asset::RenderAssetUsages;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};

use crate::fog::change_list::FogChanges;
use crate::fog::{FogOfWar, FogState};

/// Gives a map a minimap: an `Image` with one pixel per tile showing the fog of war of the
/// team the map draws ([`FogOfWar::drawn_team`]), for a corner of the screen (a UI
/// `ImageNode`) or a map screen.
///
/// Put it on a map (the root tilemap, which gets the [`FogOfWar`]). The plugin makes the image
/// in `Assets<Image>` (read it with [`image`](Self::image)), `width x height` pixels in
/// `Rgba8UnormSrgb`, the top row of pixels for the top row of tiles (the highest `y`), so that
/// it is drawn the right way up. A pixel is:
///
/// - for a tile seen now, its kind's colour: the colour [`kinds`](Self::kinds) gives the
///   tile's `TileTextureIndex` on this tilemap (a wall, a floor, water), else
///   [`visible`](Self::visible);
/// - for a remembered tile, the same colour times [`remembered`](Self::remembered) (with
///   [`TerrainMemory`](crate::TerrainMemory) on the tilemap, the kind it was last seen as);
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
    /// The image, once the plugin has made it.
    image: Option<Handle<Image>>,
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
        self.image.as_ref()
    }

    /// The pixel of a tile in `state` of `TileTextureIndex(kind)` (`None`: no index).
    fn pixel(&self, state: FogState, kind: Option<u32>) -> [u8; 4] {
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

/// The image the plugin made for a [`FogMinimap`] and its size: the fog's bookkeeping beside
/// it, so a clone of the map makes its own.
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct MinimapImage {
    handle: Handle<Image>,
    size: UVec2,
}

/// A map with a minimap, as it is drawn.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct MinimapMap {
    entity: Entity,
    minimap: Mut<'static, FogMinimap>,
    fog: &'static FogOfWar,
    storage: Option<&'static TileStorage>,
    image: Option<&'static MinimapImage>,
}

/// What drawing minimaps reads besides the maps.
#[derive(SystemParam)]
pub(super) struct MinimapSources<'w, 's> {
    commands: Commands<'w, 's>,
    images: Option<ResMut<'w, Assets<Image>>>,
    changes: Res<'w, FogChanges>,
    kinds: Query<'w, 's, &'static TileTextureIndex>,
    /// Tiles whose kind changed since the last update.
    rekinded: Query<'w, 's, (&'static TilePos, &'static TilemapId), Changed<TileTextureIndex>>,
}

/// Makes the image of each new minimap (or of a map resized, or a minimap changed) and writes
/// the pixels of the tiles whose state or kind changed into the others.
pub(super) fn draw_minimaps(mut maps: Query<MinimapMap>, mut sources: MinimapSources) {
    let Some(images) = sources.images.as_deref_mut() else {
        return;
    };
    for mut map in &mut maps {
        let size = map.fog.size();
        let size = UVec2::new(size.x, size.y);
        if size.min_element() == 0 {
            continue;
        }
        let current = map.image.filter(|image| image.size == size).cloned();
        let handle = match current.clone().filter(|_| !map.minimap.is_changed()) {
            Some(image) => {
                let tiles = changed_tiles(map.entity, &sources.changes, &sources.rekinded);
                let pixels = tiles.map(|tile| (tile, pixel(&map, tile, &sources.kinds)));
                write_pixels(images, &image.handle, size, pixels);
                image.handle
            }
            None => {
                let pixels = all_pixels(&map, &sources.kinds);
                let old = current.map(|image| image.handle);
                let handle = redraw(images, old.as_ref(), size, pixels);
                let made = MinimapImage {
                    handle: handle.clone(),
                    size,
                };
                sources.commands.entity(map.entity).insert(made);
                handle
            }
        };
        if map.minimap.image() != Some(&handle) {
            map.minimap.bypass_change_detection().image = Some(handle);
        }
    }
}

/// The tiles of `map` whose fog state or kind changed since the last update.
fn changed_tiles<'a>(
    map: Entity,
    changes: &'a FogChanges,
    rekinded: &'a Query<(&TilePos, &TilemapId), Changed<TileTextureIndex>>,
) -> impl Iterator<Item = TilePos> + 'a {
    let mut tiles = Vec::new();
    if let Some(changed) = changes.drawn(map) {
        changed.for_each(|tile| tiles.push(tile));
    }
    let kinds = rekinded.iter().filter(move |(_, id)| id.0 == map);
    tiles.into_iter().chain(kinds.map(|(tile, _)| *tile))
}

/// The pixel of `tile` on `map`.
fn pixel(map: &MinimapMapItem, tile: TilePos, kinds: &Query<&TileTextureIndex>) -> [u8; 4] {
    let kind = map
        .storage
        .and_then(|storage| storage.checked_get(&tile))
        .and_then(|entity| kinds.get(entity).ok())
        .map(|index| index.0);
    map.minimap.pixel(map.fog.state(tile), kind)
}

/// Every pixel of `map`'s minimap, top row first.
fn all_pixels(map: &MinimapMapItem, kinds: &Query<&TileTextureIndex>) -> Vec<u8> {
    let size = map.fog.size();
    let mut data = Vec::with_capacity(size.x as usize * size.y as usize * 4);
    for y in (0..size.y).rev() {
        for x in 0..size.x {
            data.extend(pixel(map, TilePos { x, y }, kinds));
        }
    }
    data
}

/// Puts `pixels` in the image `old` if there is one, else in a new image; returns its handle.
fn redraw(
    images: &mut Assets<Image>,
    old: Option<&Handle<Image>>,
    size: UVec2,
    pixels: Vec<u8>,
) -> Handle<Image> {
    if let Some(handle) = old
        && let Some(mut image) = images.get_mut(handle)
    {
        image.data = Some(pixels);
        return handle.clone();
    }
    let extent = Extent3d {
        width: size.x,
        height: size.y,
        depth_or_array_layers: 1,
    };
    let usage = RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD;
    let format = TextureFormat::Rgba8UnormSrgb;
    images.add(Image::new(
        extent,
        TextureDimension::D2,
        pixels,
        format,
        usage,
    ))
}

/// Writes `pixels` (a tile and its pixel) into the image: changes it only if one differs.
fn write_pixels(
    images: &mut Assets<Image>,
    handle: &Handle<Image>,
    size: UVec2,
    pixels: impl Iterator<Item = (TilePos, [u8; 4])>,
) {
    let at = |tile: TilePos| ((size.y - 1 - tile.y) * size.x + tile.x) as usize * 4;
    let Some(data) = images.get(handle).and_then(|image| image.data.as_ref()) else {
        return;
    };
    let differ: Vec<_> = pixels
        .filter(|&(tile, _)| tile.x < size.x && tile.y < size.y)
        .filter(|&(tile, pixel)| data[at(tile)..at(tile) + 4] != pixel)
        .collect();
    if differ.is_empty() {
        return;
    }
    let Some(mut image) = images.get_mut(handle) else {
        return;
    };
    let Some(data) = image.data.as_mut() else {
        return;
    };
    for (tile, pixel) in differ {
        data[at(tile)..at(tile) + 4].copy_from_slice(&pixel);
    }
}
