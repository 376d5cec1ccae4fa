//! The texture of each piece of a [`SmoothFog`] map ([`SmoothFogTexture`]): made from the
//! map's fog when the piece comes (a map given its `SmoothFog`, a chunk streamed in, a fog laid
//! out anew), then written only at the tiles whose look the fog's update changed
//! ([`FogChanges`]), each texel as the start of a fade from what it shows.

use std::collections::BTreeSet;

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_ecs_tilemap::tiles::TilePos;

use super::pieces::{Piece, SmoothMaps};
use super::texels::{Level, TEXEL_BYTES, Texel, millis};
use crate::draw::FogFade;
use crate::fog::FogOfWar;
use crate::fog::change_list::{ChangedTiles, FogChanges};
use viewshed_core::visible::Window;

/// The texture of the smooth fog drawn over a tilemap: the map's own, or each chunk's of a
/// world. The plugin makes it (in `Assets<Image>`) and keeps it; a game may read it.
///
/// Its format is `Rg32Uint`, one texel per tile of [`tiles`](Self::tiles): texel `(x, y)` is
/// the map's tile `(tiles.x + x, tiles.y + y)` (a chunk's texture holds its own tiles and two
/// tiles of its neighbours' around them, in the world's tiles). The first word holds four
/// bytes, the levels (0 to 255) seen and known the fade starts from, then those it goes to;
/// the second the time it started, in milliseconds of `Time`'s elapsed time. Only the texels
/// of the tiles whose state changed are written, so a frame in which no tile changed uploads
/// nothing, and a chunk streamed in uploads its own texture only.
#[derive(Component, Clone, Debug, Reflect)]
#[reflect(Component, Debug)]
#[component(clone_behavior = Ignore)]
#[type_path = "bevy_viewshed"]
pub struct SmoothFogTexture {
    handle: Handle<Image>,
    tiles: Window,
}

impl SmoothFogTexture {
    /// The texture.
    pub fn handle(&self) -> &Handle<Image> {
        &self.handle
    }

    /// The map's tiles the texture holds, texel `(0, 0)` for its corner.
    pub fn tiles(&self) -> Window {
        self.tiles
    }
}

/// Until when the fades written in a piece's texture run: the drawing's bookkeeping beside
/// [`SmoothFogTexture`].
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogPiece {
    /// When the last fade written ends, in milliseconds of the fog's clock.
    pub(super) fading_until: u32,
}

/// Makes the texture of each new piece of a [`SmoothFog`](super::SmoothFog) map (or of one
/// whose tiles moved), writes the texels of the tiles whose look changed into the others, and
/// lets go of the tilemaps that are no piece any more (a chunk that left its world, the
/// pieces of a map that lost its `SmoothFog`: their quads go with their textures).
pub(super) fn write_smooth_fogs(
    mut commands: Commands,
    maps: SmoothMaps,
    mut pieces: Query<(Entity, &SmoothFogTexture, &mut FogPiece)>,
    changes: Res<FogChanges>,
    images: Option<ResMut<Assets<Image>>>,
    time: Option<Res<Time>>,
) {
    let Some(mut images) = images else { return };
    let now = time.map_or(0, |time| millis(time.elapsed()));
    let mut kept = BTreeSet::new();
    for (map, smooth, fog, map_pieces) in maps.each() {
        let changed = changes.drawn(map);
        for piece in map_pieces {
            kept.insert(piece.tilemap);
            match pieces.get_mut(piece.tilemap) {
                Ok((_, texture, mut state)) if texture.tiles == piece.window => {
                    let state = state.bypass_change_detection();
                    let Some(changed) = changed else { continue };
                    let writes = fades_to_start(&images, texture, (fog, changed), now, smooth.fade);
                    let end = write_texels(&mut images, texture, &writes, smooth.fade);
                    state.fading_until = state.fading_until.max(end);
                }
                _ => make_texture(&mut commands, &mut images, fog, piece),
            }
        }
    }
    for (tilemap, ..) in &pieces {
        if !kept.contains(&tilemap)
            && let Ok(mut tilemap) = commands.get_entity(tilemap)
        {
            tilemap.try_remove::<(SmoothFogTexture, FogPiece)>();
        }
    }
}

/// Gives `piece` its texture, showing each tile's state for the team `fog` draws, at once.
fn make_texture(commands: &mut Commands, images: &mut Assets<Image>, fog: &FogOfWar, piece: Piece) {
    let window = piece.window;
    if window.is_empty() {
        return;
    }
    let mut data = Vec::with_capacity(window.width as usize * window.height as usize * TEXEL_BYTES);
    for (x, y) in window.cells() {
        let level = Level::of(fog.state(TilePos { x, y }));
        data.extend(Texel::still(level).to_bytes());
    }
    let extent = Extent3d {
        width: window.width,
        height: window.height,
        depth_or_array_layers: 1,
    };
    let usage = RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD;
    let image = Image::new(
        extent,
        TextureDimension::D2,
        data,
        TextureFormat::Rg32Uint,
        usage,
    );
    let texture = SmoothFogTexture {
        handle: images.add(image),
        tiles: window,
    };
    commands
        .entity(piece.tilemap)
        .try_insert((texture, FogPiece::default()));
}

/// Where `tile`'s texel starts in the bytes of `texture`, if it holds the tile.
fn texel_at(texture: &SmoothFogTexture, tile: TilePos) -> Option<usize> {
    let tiles = texture.tiles;
    tiles.contains(tile.x, tile.y).then(|| {
        let (x, y) = ((tile.x - tiles.x) as usize, (tile.y - tiles.y) as usize);
        (y * tiles.width as usize + x) * TEXEL_BYTES
    })
}

/// The texels to write for `tiles`, the tiles of `fog` whose look changed, in `texture`: each
/// going from what it shows at `now` to its state's level, those already on their way there
/// left out.
fn fades_to_start(
    images: &Assets<Image>,
    texture: &SmoothFogTexture,
    (fog, tiles): (&FogOfWar, &ChangedTiles),
    now: u32,
    fade: Option<FogFade>,
) -> Vec<(usize, Texel)> {
    let Some(data) = images
        .get(&texture.handle)
        .and_then(|image| image.data.as_deref())
    else {
        return Vec::new();
    };
    let mut writes = Vec::new();
    tiles.for_each_in(texture.tiles, |tile| {
        let Some(at) = texel_at(texture, tile) else {
            return;
        };
        let Some(bytes) = data.get(at..at + TEXEL_BYTES) else {
            return;
        };
        let level = Level::of(fog.state(tile));
        if let Some(texel) = Texel::from_bytes(bytes).towards(level, now, fade) {
            writes.push((at, texel));
        }
    });
    writes
}

/// Writes `writes` into the texture (which changes it, and uploads it, only if there is one);
/// returns when the last of their fades ends.
fn write_texels(
    images: &mut Assets<Image>,
    texture: &SmoothFogTexture,
    writes: &[(usize, Texel)],
    fade: Option<FogFade>,
) -> u32 {
    if writes.is_empty() {
        return 0;
    }
    let Some(mut image) = images.get_mut(&texture.handle) else {
        return 0;
    };
    let Some(data) = image.data.as_mut() else {
        return 0;
    };
    let mut end = 0;
    for &(at, texel) in writes {
        data[at..at + TEXEL_BYTES].copy_from_slice(&texel.to_bytes());
        end = end.max(texel.end(fade));
    }
    end
}
