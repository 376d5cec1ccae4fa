//! Each [`SmoothFog`] map's texture: made from the map's fog when the map gets its
//! `SmoothFog` (or its fog a new size), then written only at the tiles whose look the fog's
//! update changed ([`FogChanges`]), each texel as the start of a fade from what it shows.

use bevy::asset::RenderAssetUsages;
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_ecs_tilemap::tiles::TilePos;

use super::settings::SmoothFog;
use super::texels::{Level, TEXEL_BYTES, Texel, millis};
use crate::fog::FogOfWar;
use crate::fog::change_list::ChangedTiles;
use crate::fog::change_list::FogChanges;

/// The texture the plugin made for a [`SmoothFog`] map, and until when the fades written in
/// it run: the fog's bookkeeping beside `SmoothFog`, so a clone of the map makes its own.
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogTexture {
    pub(super) handle: Handle<Image>,
    size: UVec2,
    /// When the last fade written ends, in milliseconds of the fog's clock.
    pub(super) fading_until: u32,
}

/// A map with a smooth fog, as its texture is written.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct SmoothFogMap {
    entity: Entity,
    smooth: Mut<'static, SmoothFog>,
    fog: &'static FogOfWar,
    texture: Option<&'static mut FogTexture>,
}

/// Makes the texture of each new [`SmoothFog`] map (or of a fog resized), and writes the
/// texels of the tiles whose look changed into the others.
pub(super) fn write_smooth_fogs(
    mut commands: Commands,
    mut maps: Query<SmoothFogMap>,
    changes: Res<FogChanges>,
    images: Option<ResMut<Assets<Image>>>,
    time: Option<Res<Time>>,
) {
    let Some(mut images) = images else { return };
    let now = time.map_or(0, |time| millis(time.elapsed()));
    for mut map in &mut maps {
        let size = map.fog.size();
        let size = UVec2::new(size.x, size.y);
        let current = map
            .texture
            .as_deref()
            .filter(|texture| texture.size == size);
        let Some(texture) = current.map(|texture| texture.handle.clone()) else {
            if size.min_element() > 0 {
                let handle = images.add(texture_of(map.fog));
                map.smooth
                    .bypass_change_detection()
                    .set_texture(handle.clone());
                let made = FogTexture {
                    handle,
                    size,
                    fading_until: 0,
                };
                commands.entity(map.entity).insert(made);
            }
            continue;
        };
        if map.smooth.texture() != Some(&texture) {
            // The `SmoothFog` was inserted again (or copied from another map): this map's
            // texture stays.
            map.smooth
                .bypass_change_detection()
                .set_texture(texture.clone());
        }
        let texture = texture.id();
        if let Some(tiles) = changes.drawn(map.entity) {
            let fade = map.smooth.fade;
            let writes = fades_to_start(&images, texture, (map.fog, tiles), now, fade);
            let end = write_texels(&mut images, texture, size.x, &writes, fade);
            if let Some(texture) = map.texture.as_deref_mut() {
                texture.fading_until = texture.fading_until.max(end);
            }
        }
    }
}

/// A texture of `fog`'s size showing each tile's state for the team drawn, at once.
fn texture_of(fog: &FogOfWar) -> Image {
    let size = fog.size();
    let mut data = Vec::with_capacity(size.x as usize * size.y as usize * TEXEL_BYTES);
    for y in 0..size.y {
        for x in 0..size.x {
            let level = Level::of(fog.state(TilePos { x, y }));
            data.extend(Texel::still(level).to_bytes());
        }
    }
    let extent = Extent3d {
        width: size.x,
        height: size.y,
        depth_or_array_layers: 1,
    };
    let usage = RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD;
    Image::new(
        extent,
        TextureDimension::D2,
        data,
        TextureFormat::Rg32Uint,
        usage,
    )
}

/// The texels to write for `tiles`, the tiles of `fog` whose look changed: each going from what
/// it shows at `now` to its state's level, those already on their way there left out.
fn fades_to_start(
    images: &Assets<Image>,
    texture: AssetId<Image>,
    (fog, tiles): (&FogOfWar, &ChangedTiles),
    now: u32,
    fade: Option<crate::draw::FogFade>,
) -> Vec<(TilePos, Texel)> {
    let Some(data) = images.get(texture).and_then(|image| image.data.as_deref()) else {
        return Vec::new();
    };
    let width = fog.size().x as usize;
    let mut writes = Vec::new();
    tiles.for_each(|tile| {
        let at = (tile.y as usize * width + tile.x as usize) * TEXEL_BYTES;
        let Some(bytes) = data.get(at..at + TEXEL_BYTES) else {
            return;
        };
        let level = Level::of(fog.state(tile));
        if let Some(texel) = Texel::from_bytes(bytes).towards(level, now, fade) {
            writes.push((tile, texel));
        }
    });
    writes
}

/// Writes `writes` into the texture (which changes it, and uploads it, only if there is one);
/// returns when the last of their fades ends.
fn write_texels(
    images: &mut Assets<Image>,
    texture: AssetId<Image>,
    width: u32,
    writes: &[(TilePos, Texel)],
    fade: Option<crate::draw::FogFade>,
) -> u32 {
    if writes.is_empty() {
        return 0;
    }
    let Some(mut image) = images.get_mut(texture) else {
        return 0;
    };
    let Some(data) = image.data.as_mut() else {
        return 0;
    };
    let mut end = 0;
    for &(tile, texel) in writes {
        let at = (tile.y as usize * width as usize + tile.x as usize) * TEXEL_BYTES;
        data[at..at + TEXEL_BYTES].copy_from_slice(&texel.to_bytes());
        end = end.max(texel.end(fade));
    }
    end
}
