//! The drawing of each [`FogMinimap`]: its canvas (the tiles its image covers: the map's area,
//! and on a world the unloaded chunks its `WorldMemory` remembers), made whole when the canvas,
//! the minimap or the map's layout changes, else written only at the tiles whose state or kind
//! changed.

use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};

use super::minimap::FogMinimap;
use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::fog::{FogOfWar, FogState, WorldMemory};
use crate::layers::LayerGroup;
use crate::layers::layer_of::LayerOf;
use crate::opacity::MapOpacity;
use crate::worlds::chunks::map_of_tilemap;
use crate::worlds::{ChunkPlacement, WorldChunks};
use viewshed_core::visible::Window;

/// The image the plugin made for a [`FogMinimap`], the tiles it covers, and the kind each was
/// last drawn as (what a chunk that went is drawn with): the drawing's bookkeeping beside it.
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct MinimapCanvas {
    handle: Handle<Image>,
    tiles: Window,
    /// The kind of each tile of `tiles` when it was last drawn, row by row (`None`: unknown).
    kinds: Vec<Option<u32>>,
}

impl MinimapCanvas {
    fn index(&self, tile: TilePos) -> Option<usize> {
        let tiles = self.tiles;
        tiles.contains(tile.x, tile.y).then(|| {
            let (x, y) = (tile.x - tiles.x, tile.y - tiles.y);
            (y * tiles.width + x) as usize
        })
    }

    /// Where `tile`'s pixel starts in the image's bytes (the top row first).
    fn byte(&self, tile: TilePos) -> usize {
        let tiles = self.tiles;
        let (x, y) = (tile.x - tiles.x, tiles.y + tiles.height - 1 - tile.y);
        (y * tiles.width + x) as usize * 4
    }
}

/// A map's fog and what its minimap reads of it: where its tiles are loaded, what it remembers
/// of the chunks that went, and the tilemaps its kinds are read from.
struct MinimapMap<'a> {
    map: Entity,
    fog: &'a FogOfWar,
    opacity: &'a MapOpacity,
    memory: Option<&'a WorldMemory>,
}

/// What drawing minimaps reads besides the minimaps and writes into.
#[derive(SystemParam)]
pub(super) struct MinimapSources<'w, 's> {
    commands: Commands<'w, 's>,
    images: Option<ResMut<'w, Assets<Image>>>,
    changes: Res<'w, FogChanges>,
    reads: MinimapReads<'w, 's>,
}

/// The maps, their tiles and what changed, as minimaps read them.
#[derive(SystemParam)]
pub(super) struct MinimapReads<'w, 's> {
    maps: Query<
        'w,
        's,
        (
            &'static FogOfWar,
            &'static MapOpacity,
            Option<&'static WorldMemory>,
        ),
    >,
    chunks: Query<'w, 's, &'static WorldChunks>,
    placements: Query<'w, 's, &'static ChunkPlacement>,
    layer_of: Query<'w, 's, &'static LayerOf>,
    storages: Query<'w, 's, &'static TileStorage>,
    kinds: Query<'w, 's, &'static TileTextureIndex>,
    /// Tiles whose kind changed since the last update.
    rekinded: Query<'w, 's, (&'static TilePos, &'static TilemapId), Changed<TileTextureIndex>>,
}

/// A minimap, as it is drawn.
type Drawn<'a> = (
    Entity,
    Mut<'a, FogMinimap>,
    Option<&'a LayerGroup>,
    Option<&'a mut MinimapCanvas>,
);

/// Makes the image of each new minimap (or of one whose canvas or look changed) and writes
/// the pixels of the tiles whose state or kind changed into the others.
pub(super) fn draw_minimaps(mut minimaps: Query<Drawn>, mut sources: MinimapSources) {
    let Some(images) = sources.images.as_deref_mut() else {
        return;
    };
    let reads = &sources.reads;
    let rekinded = reads.rekinded_tiles();
    for (holder, mut minimap, group, canvas) in &mut minimaps {
        let map = group.and_then(LayerGroup::root).unwrap_or(holder);
        let Ok((fog, opacity, memory)) = reads.maps.get(map) else {
            continue;
        };
        let at = MinimapMap {
            map,
            fog,
            opacity,
            memory,
        };
        let tiles = canvas_of(&at);
        if tiles.is_empty() {
            continue;
        }
        match canvas {
            Some(mut canvas) if canvas.tiles == tiles && !minimap.is_changed() => {
                let changed = sources.changes.drawn(map);
                let extra = rekinded
                    .iter()
                    .filter(|(on, _)| *on == map)
                    .map(|(_, t)| *t);
                let pixels = reads.changed_pixels(&at, (&minimap, &mut canvas), changed, extra);
                write_pixels(images, &canvas.handle, pixels);
            }
            old => {
                let canvas = reads.redraw(images, &at, &minimap, (tiles, old.as_deref()));
                if minimap.image() != Some(&canvas.handle) || minimap.tiles() != Some(tiles) {
                    minimap
                        .bypass_change_detection()
                        .set_image(canvas.handle.clone(), tiles);
                }
                sources.commands.entity(holder).insert(canvas);
            }
        }
    }
}

/// The tiles a map's minimap covers: its area, and on a world the unloaded chunks its memory
/// keeps.
fn canvas_of(map: &MinimapMap) -> Window {
    let mut tiles = map.fog.area();
    for (chunk, _) in map.memory.into_iter().flat_map(WorldMemory::chunks) {
        tiles = tiles.union(&chunk);
    }
    tiles
}

impl MinimapReads<'_, '_> {
    /// The map tiles whose kind changed since the last update, by map.
    fn rekinded_tiles(&self) -> Vec<(Entity, TilePos)> {
        let (layers, placements) = (&self.layer_of, &self.placements);
        self.rekinded
            .iter()
            .filter_map(|(tile, id)| {
                let (map, first) = map_of_tilemap(id.0, layers, placements)?;
                Some((map, TilePos::new(first.x + tile.x, first.y + tile.y)))
            })
            .collect()
    }

    /// The kind of map tile `tile`, on the root tilemap of the map or of the chunk it lies on.
    fn kind_at(&self, map: Entity, tile: TilePos) -> Option<u32> {
        let (tilemap, local) = match self.chunks.get(map) {
            Ok(chunks) => chunks.iter().find_map(|chunk| {
                let place = self.placements.get(chunk).ok()?;
                Some((chunk, place.to_local(tile)?))
            })?,
            Err(_) => (map, tile),
        };
        let entity = self.storages.get(tilemap).ok()?.checked_get(&local)?;
        self.kinds.get(entity).ok().map(|index| index.0)
    }

    /// The state and kind of `tile`: from the fog and the tile where it is loaded, else from
    /// what the world remembers of it and the kind it was last drawn as.
    fn look(
        &self,
        map: &MinimapMap,
        tile: TilePos,
        drawn_as: Option<u32>,
    ) -> (FogState, Option<u32>) {
        if map.opacity.covers((tile.x, tile.y)) {
            return (map.fog.state(tile), self.kind_at(map.map, tile));
        }
        let team = map.fog.drawn_team();
        let remembered = map
            .memory
            .is_some_and(|memory| memory.remembers(team, tile));
        let state = if remembered {
            FogState::Remembered
        } else {
            FogState::Unexplored
        };
        (state, drawn_as)
    }

    /// The pixels of the `changed` (and `extra`) tiles, each where it starts in the image's
    /// bytes; the kinds they were drawn as go into the canvas.
    fn changed_pixels(
        &self,
        map: &MinimapMap,
        (minimap, canvas): (&FogMinimap, &mut MinimapCanvas),
        changed: Option<&ChangedTiles>,
        extra: impl Iterator<Item = TilePos>,
    ) -> Vec<(usize, [u8; 4])> {
        let mut tiles = Vec::new();
        if let Some(changed) = changed {
            changed.for_each(|tile| tiles.push(tile));
        }
        tiles.extend(extra);
        let mut pixels = Vec::new();
        for tile in tiles {
            let Some(at) = canvas.index(tile) else {
                continue;
            };
            let (state, kind) = self.look(map, tile, canvas.kinds[at]);
            canvas.kinds[at] = kind.or(canvas.kinds[at]);
            pixels.push((canvas.byte(tile), minimap.pixel(state, kind)));
        }
        pixels
    }

    /// Draws every pixel of a canvas over `tiles` (into `old`'s image if there is one, keeping
    /// what `old` knew of the kinds of tiles that are not loaded).
    fn redraw(
        &self,
        images: &mut Assets<Image>,
        map: &MinimapMap,
        minimap: &FogMinimap,
        (tiles, old): (Window, Option<&MinimapCanvas>),
    ) -> MinimapCanvas {
        let mut data = Vec::with_capacity(tiles.width as usize * tiles.height as usize * 4);
        let mut kinds = vec![None; tiles.width as usize * tiles.height as usize];
        for y in (tiles.y..tiles.y + tiles.height).rev() {
            for x in tiles.x..tiles.x + tiles.width {
                let tile = TilePos::new(x, y);
                let before = old.and_then(|old| old.kinds[old.index(tile)?]);
                let (state, kind) = self.look(map, tile, before);
                kinds[((y - tiles.y) * tiles.width + (x - tiles.x)) as usize] = kind.or(before);
                data.extend(minimap.pixel(state, kind));
            }
        }
        let handle = put_image(images, old.map(|old| &old.handle), tiles, data);
        MinimapCanvas {
            handle,
            tiles,
            kinds,
        }
    }
}

/// Puts `pixels` in the image `old` if it has the size of `tiles`, else in a new image;
/// returns its handle.
fn put_image(
    images: &mut Assets<Image>,
    old: Option<&Handle<Image>>,
    tiles: Window,
    pixels: Vec<u8>,
) -> Handle<Image> {
    let extent = Extent3d {
        width: tiles.width,
        height: tiles.height,
        depth_or_array_layers: 1,
    };
    if let Some(handle) = old
        && let Some(mut image) = images.get_mut(handle)
        && image.texture_descriptor.size == extent
    {
        image.data = Some(pixels);
        return handle.clone();
    }
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

/// Writes `pixels` (where a pixel starts in the image's bytes, and its colour) into the image:
/// changes it only if one differs.
fn write_pixels(images: &mut Assets<Image>, handle: &Handle<Image>, pixels: Vec<(usize, [u8; 4])>) {
    let Some(data) = images.get(handle).and_then(|image| image.data.as_ref()) else {
        return;
    };
    let differ: Vec<_> = pixels
        .into_iter()
        .filter(|&(at, pixel)| data.get(at..at + 4).is_some_and(|old| old != pixel))
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
    for (at, pixel) in differ {
        data[at..at + 4].copy_from_slice(&pixel);
    }
}
