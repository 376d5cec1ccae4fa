//! The writing of a map's fog into its fog layers (the tilemaps with a [`FogStyle`]): the
//! tiles whose look changed, at once or as the start of a fade, every tile of a layer new to
//! its map, and tiles spawned into a fog layer.

use std::time::Duration;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::draw::FogStyle;
use crate::draw::edges::FogEdges;
use crate::draw::fade::{FadeStart, FadingTiles};
use crate::draw::tile_writer::{LayerTiles, TileWriter};
use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::fog::{FogOfWar, FogState};
use crate::layers::layer_of::{LayerEpoch, LayerOf, Layers, map_tilemaps};
use crate::opacity::MapOpacity;
use crate::support::neighbours::Neighbourhood;
use crate::worlds::chunks::{ChunkPlacement, WorldChunks, map_of_tilemap};

/// What one update's writing depends on: whether layers changed anywhere (every fog layer is
/// then written whole) and the time, for fades.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    layers_changed: bool,
    now: Option<Duration>,
}

/// A fog layer: its tiles, its style and its tiles in transition.
type FogLayer<'a> = (
    Ref<'a, TileStorage>,
    Ref<'a, FogStyle>,
    Mut<'a, FadingTiles>,
);

/// Calls `f` with every tilemap of `map` (its layers; a world's chunks and their layers) and
/// the map tile of the tilemap's tile `(0, 0)`.
pub(super) fn for_each_layer(
    map: Entity,
    (children, chunks, placements): (
        &Query<&Layers>,
        &Query<&WorldChunks>,
        &Query<&ChunkPlacement>,
    ),
    mut f: impl FnMut(Entity, TilePos),
) {
    let Ok(chunks) = chunks.get(map) else {
        return map_tilemaps(map, children, |tilemap| f(tilemap, TilePos::new(0, 0)));
    };
    for chunk in chunks.iter() {
        if let Ok(place) = placements.get(chunk)
            && place.world() == map
        {
            map_tilemaps(chunk, children, |tilemap| f(tilemap, place.first()));
        }
    }
}

/// The fog layers of every map, and how to write them.
#[derive(SystemParam)]
pub(super) struct FogLayers<'w, 's> {
    children: Query<'w, 's, &'static Layers>,
    chunks: Query<'w, 's, &'static WorldChunks>,
    placements: Query<'w, 's, &'static ChunkPlacement>,
    styles: Query<
        'w,
        's,
        (
            Ref<'static, TileStorage>,
            Ref<'static, FogStyle>,
            &'static mut FadingTiles,
        ),
    >,
    tiles: TileWriter<'w, 's>,
    epoch: Res<'w, LayerEpoch>,
    seen_epoch: Local<'s, u64>,
    time: Option<Res<'w, Time>>,
}

impl FogLayers<'_, '_> {
    /// This update's [`Frame`].
    pub(super) fn frame(&mut self) -> Frame {
        Frame {
            layers_changed: self.epoch.changed_since(&mut self.seen_epoch),
            now: self.time.as_ref().map(|time| time.elapsed()),
        }
    }

    /// Whether a fog layer of `map` is new to it (restyled: every tile is written) and
    /// whether one has soft edges.
    pub(super) fn look_of(&self, map: Entity, frame: Frame) -> (bool, bool) {
        let (mut restyled, mut soft) = (false, false);
        let maps = (&self.children, &self.chunks, &self.placements);
        for_each_layer(map, maps, |layer, _| {
            if let Ok((storage, style, _)) = self.styles.get(layer) {
                restyled |= frame.layers_changed || style.is_changed() || storage.is_added();
                soft |= style.soft_edge.is_some();
            }
        });
        (restyled, soft)
    }

    /// Writes `changed`, the tiles of `map` whose look changed, into every fog layer of the
    /// map (every tile into a layer new to it).
    pub(super) fn write(
        &mut self,
        map: Entity,
        fog: (&FogOfWar, &FogEdges),
        changed: &ChangedTiles,
        frame: Frame,
    ) {
        let maps = (&self.children, &self.chunks, &self.placements);
        let (styles, tiles) = (&mut self.styles, &mut self.tiles);
        for_each_layer(map, maps, |layer, first| {
            if let Ok(layer) = styles.get_mut(layer) {
                write_layer(fog, changed, (layer, first), frame, tiles);
            }
        });
    }
}

/// A map as its fog layers are drawn.
type DrawnMap<'a> = (Entity, &'a FogOfWar, &'a mut FogEdges, &'a MapOpacity);

/// Writes into the fog layers of every map the tiles whose look changed: those whose state
/// changed for the team drawn (the fog's list), those whose soft edge changed, and every tile
/// of a layer new to its map.
pub(super) fn draw_fog_layers(
    mut maps: Query<DrawnMap>,
    changes: Res<FogChanges>,
    mut layers: FogLayers,
) {
    let frame = layers.frame();
    for (map, fog, mut edges, opacity) in &mut maps {
        let (mut restyled, soft) = layers.look_of(map, frame);
        // A new grid is a new neighbourhood: every edge is worked out again.
        restyled |= edges.regridded(opacity.map_type());
        let changed = changes.drawn(map);
        if changed.is_none() && !restyled {
            continue;
        }
        let area = fog.area();
        let empty = || ChangedTiles::Changed {
            area,
            bits: viewshed_core::bits::BitRows::new(area.height, area.width),
        };
        let mut changed = changed.cloned().unwrap_or_else(empty);
        if soft {
            let around = Neighbourhood::of(opacity.map_type(), area);
            changed = edges.update(fog, (changed, restyled), &around);
        }
        layers.write(map, (fog, &edges), &changed, frame);
        edges.mark_shown();
    }
}

/// Writes the tiles of one fog layer whose look changed: at once when the layer is new to its
/// map (its style changed, its tile storage was put back, it became a layer of this map, the
/// map is new or resized: every tile is written then) or its style does not fade, else as the
/// start of a fade. `changed` are the map's tiles to write when the layer is not new.
fn write_layer(
    (fog, edges): (&FogOfWar, &FogEdges),
    changed: &ChangedTiles,
    ((storage, style, mut fades), first): (FogLayer, TilePos),
    frame: Frame,
    tiles: &mut TileWriter,
) {
    let layer = LayerTiles {
        storage: &storage,
        first,
    };
    let rewrite = frame.layers_changed || style.is_changed() || storage.is_added();
    let whole = matches!(changed, ChangedTiles::All(_));
    if rewrite || whole {
        fades.clear();
    }
    let every;
    let to_write = if rewrite {
        every = ChangedTiles::All(fog.area());
        &every
    } else {
        changed
    };
    // The team drawn, looked up once for all the tiles.
    let drawn = fog.team(fog.drawn_team());
    let state = |tile| drawn.map_or(FogState::Unexplored, |team| team.state(tile));
    let look = |tile| style.look_at(state(tile), edges.is_edge(tile));
    let fade = frame.now.zip(style.fade).filter(|_| !rewrite && !whole);
    let Some((now, fade)) = fade else {
        return tiles.write_many(layer, to_write, look);
    };
    to_write.for_each_in(layer.window(), |tile| {
        let length = fade.length_to(state(tile));
        let start = FadeStart { now, length };
        tiles.fade(layer, tile, look(tile), &mut fades, start);
    });
}

/// Tiles spawned or moved (to another tile or tilemap).
type TileMoved = Or<(Added<TilePos>, Changed<TilePos>, Changed<TilemapId>)>;

/// Gives tiles spawned (or moved) into a fog layer the look of their state. A tile counts once
/// it is in its layer's `TileStorage`, so the tiles are only looked at in frames where the
/// storage of a fog layer changed.
pub(super) fn style_new_tiles(
    new_tiles: Query<(Entity, &TilePos, &TilemapId), TileMoved>,
    mut styles: Query<(Ref<TileStorage>, &FogStyle, &mut FadingTiles)>,
    (layers, placements): (Query<&LayerOf>, Query<&ChunkPlacement>),
    fogs: Query<(&FogOfWar, &FogEdges)>,
    mut tiles: TileWriter,
) {
    if !styles.iter().any(|(storage, ..)| storage.is_changed()) {
        return;
    }
    for (entity, &tile, &TilemapId(tilemap)) in &new_tiles {
        let Ok((storage, style, mut fades)) = styles.get_mut(tilemap) else {
            continue;
        };
        if storage.checked_get(&tile) != Some(entity) {
            continue;
        }
        // A chunk's fog is its world's, in the world's tiles.
        let Some((map, first)) = map_of_tilemap(tilemap, &layers, &placements) else {
            continue;
        };
        let Ok((fog, edges)) = fogs.get(map) else {
            continue;
        };
        fades.stop(tile);
        let layer = LayerTiles {
            storage: &storage,
            first,
        };
        let at = TilePos::new(first.x + tile.x, first.y + tile.y);
        let look = style.look_at(fog.state(at), edges.is_edge(at));
        tiles.write(layer, at, look);
    }
}
