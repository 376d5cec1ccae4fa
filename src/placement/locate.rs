//! Where an entity stands: the root map and tile of a viewer, a light, a wall, a spottable
//! target or a hidden monster, from its `TilePos` or, failing that, its `GlobalTransform` and
//! its tilemap's geometry. One rule for every kind of entity the plugin places, used by
//! `placed.rs` alone.

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::layers::groups::LayerGroup;
use crate::layers::layer_of::{LayerOf, LayerProblem, root_of};
use crate::worlds::chunks::{ChunkPlacement, WORLD_ORIGIN};
use crate::worlds::layout::WorldLayout;
use crate::worlds::positions::grid_position;

/// What a tilemap needs to turn a world position into a tile.
#[derive(QueryData)]
struct Geometry {
    transform: &'static GlobalTransform,
    size: &'static TilemapSize,
    grid: &'static TilemapGridSize,
    tile_size: &'static TilemapTileSize,
    map_type: &'static TilemapType,
    anchor: Option<&'static TilemapAnchor>,
}

/// Why an entity stands on no tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlaceProblem {
    /// It has no `TilemapId`, or neither a `TilePos` nor a `GlobalTransform`.
    NotPlaced,
    /// Its `TilemapId` names an entity that is not (or no longer) a tilemap.
    NotATilemap(Entity),
    /// Its tilemap's `LayerOf` chain has no root.
    Layers(Entity, LayerProblem),
    /// It is placed by `Transform`, and its tilemap has no `GlobalTransform`.
    NoMapTransform(Entity),
    /// It is placed by `Transform`, and its tilemap's `GlobalTransform` cannot be inverted.
    SingularMapTransform(Entity),
    /// Its tile lies outside its map.
    OffMap(Entity),
}

impl PlaceProblem {
    /// What is wrong and what to do, for a warning about `entity`.
    pub(crate) fn describe(self) -> String {
        match self {
            PlaceProblem::NotPlaced => {
                "needs a TilemapId and a TilePos (or a Transform); insert them".into()
            }
            PlaceProblem::NotATilemap(tilemap) => format!(
                "is on {tilemap}, which is not a tilemap (no TilemapSize and TileStorage, or \
                 despawned); point its TilemapId at a tilemap"
            ),
            PlaceProblem::Layers(tilemap, LayerProblem::Cycle) => format!(
                "is on {tilemap}, whose LayerOf chain loops back on itself; make one tilemap of \
                 the chain the root"
            ),
            PlaceProblem::Layers(tilemap, LayerProblem::TooDeep) => format!(
                "is on {tilemap}, whose LayerOf chain is too long to have a root; shorten it"
            ),
            PlaceProblem::NoMapTransform(tilemap) => format!(
                "is placed by Transform on tilemap {tilemap}, which has no GlobalTransform; give \
                 the tilemap a Transform or the entity a TilePos"
            ),
            PlaceProblem::SingularMapTransform(tilemap) => format!(
                "is placed by Transform on tilemap {tilemap}, whose GlobalTransform cannot be \
                 inverted (a scale of 0?); fix the tilemap's scale or give the entity a TilePos"
            ),
            PlaceProblem::OffMap(map) => {
                format!("stands outside tilemap {map}; move it onto the map")
            }
        }
    }
}

/// Where a tilemap's tiles lie on its map: the map (its root tilemap, or the world of a
/// chunk), the map tile of the tilemap's tile `(0, 0)`, and the size of the tilemap's root (a
/// tile beyond it stands nowhere), or why it lies on no map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct MapPlace {
    map: Entity,
    first: TilePos,
    size: Option<TilemapSize>,
    /// The tilemap is a chunk of a world: a tile placed by `Transform` may lie beyond it, on
    /// another chunk.
    chunk: bool,
}

/// A tilemap's place on its map, or why it has none.
pub(super) type MapOf = Result<MapPlace, PlaceProblem>;

/// Finds the root map and tile of entities.
#[derive(SystemParam)]
pub(crate) struct Placement<'w, 's> {
    layers: Query<'w, 's, &'static LayerOf>,
    groups: Query<'w, 's, &'static LayerGroup>,
    sizes: Query<'w, 's, &'static TilemapSize>,
    geometry: Query<'w, 's, Geometry>,
    chunks: Query<'w, 's, &'static ChunkPlacement>,
    worlds: Query<'w, 's, (&'static WorldLayout, Option<&'static GlobalTransform>)>,
}

impl Placement<'_, '_> {
    /// Whether `entity` is a tilemap (it has a `TilemapSize`).
    pub(super) fn is_tilemap(&self, entity: Entity) -> bool {
        self.sizes.contains(entity)
    }
}

impl Placement<'_, '_> {
    /// The root map of `tilemap`.
    fn root(&self, tilemap: Entity) -> Result<Entity, PlaceProblem> {
        root_of(tilemap, &self.layers).map_err(|problem| PlaceProblem::Layers(tilemap, problem))
    }

    /// Whether `map` is a world of chunks.
    pub(super) fn is_world(&self, map: Entity) -> bool {
        self.worlds.contains(map)
    }

    /// Where `tilemap`'s tiles lie on its map.
    pub(super) fn root_and_size(&self, tilemap: Entity) -> MapOf {
        if self.worlds.contains(tilemap) {
            let first = TilePos::new(WORLD_ORIGIN, WORLD_ORIGIN);
            return Ok(MapPlace {
                map: tilemap,
                first,
                size: None,
                chunk: true,
            });
        }
        // A layer group (an LDtk level, a Tiled map) stands for its root tilemap: a handle on
        // the map that outlives a hot reload, which replaces the root.
        let group_root = self.groups.get(tilemap).ok().and_then(LayerGroup::root);
        let root = self.root(group_root.unwrap_or(tilemap))?;
        let size = self.sizes.get(root).ok().copied();
        Ok(match self.chunks.get(root) {
            Ok(chunk) => MapPlace {
                map: chunk.world(),
                first: chunk.first(),
                size,
                chunk: true,
            },
            Err(_) => MapPlace {
                map: root,
                first: TilePos::new(0, 0),
                size,
                chunk: false,
            },
        })
    }

    /// The map and tile of an entity with these components, if that tile lies on the map,
    /// with the tilemap's place found by `map_of` (which may remember its last answer,
    /// [`root_and_size`](Self::root_and_size)).
    pub(super) fn locate_in(
        &self,
        tile: Option<&TilePos>,
        tilemap: Option<&TilemapId>,
        transform: Option<&GlobalTransform>,
        map_of: impl FnOnce(Entity) -> MapOf,
    ) -> Result<(Entity, TilePos), PlaceProblem> {
        let Some(&TilemapId(tilemap)) = tilemap else {
            return Err(PlaceProblem::NotPlaced);
        };
        let place = map_of(tilemap)?;
        let off = PlaceProblem::OffMap(place.map);
        // On a world itself (not one of its chunks), a `TilePos` is a world tile.
        let world_itself = place.chunk && place.size.is_none();
        let at = match (tile, transform) {
            (Some(&tile), _) if world_itself => tile,
            // A tile beyond its tilemap (one that shrank, a bad position) stands nowhere, and
            // so does one on a root that has no size: that is no tilemap.
            (Some(&tile), _) => match place.size {
                Some(size) if tile.x < size.x && tile.y < size.y => {
                    TilePos::new(place.first.x + tile.x, place.first.y + tile.y)
                }
                Some(_) => return Err(off),
                None => return Err(PlaceProblem::NotATilemap(place.map)),
            },
            // On a chunk, a tile found from a `Transform` may lie on the next chunk.
            (None, Some(transform)) => {
                let g = self.tile_at(tilemap, place, transform)?;
                TilePos::new(
                    place.first.x.wrapping_add_signed(g.x),
                    place.first.y.wrapping_add_signed(g.y),
                )
            }
            (None, None) => return Err(PlaceProblem::NotPlaced),
        };
        let covered = !place.chunk
            || self
                .worlds
                .get(place.map)
                .is_ok_and(|(layout, _)| layout.covers((at.x, at.y)));
        if covered {
            Ok((place.map, at))
        } else {
            Err(off)
        }
    }

    /// The tile of `tilemap` under a world position, counted from its tile `(0, 0)` (beyond
    /// the tilemap only on a chunk or a world).
    fn tile_at(
        &self,
        tilemap: Entity,
        place: MapPlace,
        transform: &GlobalTransform,
    ) -> Result<IVec2, PlaceProblem> {
        if let Ok((layout, frame)) = self.worlds.get(tilemap) {
            let Some(shared) = layout.grid() else {
                return Err(PlaceProblem::OffMap(tilemap));
            };
            let frame = frame.copied().unwrap_or_default();
            let local = to_local(&frame, transform, tilemap)?;
            return Ok(grid_position(local, &shared.grid, &shared.map_type));
        }
        let Ok(geometry) = self.geometry.get(tilemap) else {
            return Err(if self.sizes.contains(tilemap) {
                PlaceProblem::NoMapTransform(tilemap)
            } else {
                PlaceProblem::NotATilemap(tilemap)
            });
        };
        let local = to_local(geometry.transform, transform, tilemap)?;
        let anchor = geometry.anchor.copied().unwrap_or_default();
        let g = &geometry;
        if place.chunk {
            let start = anchor.as_offset(g.size, g.grid, g.tile_size, g.map_type);
            return Ok(grid_position(local - start, g.grid, g.map_type));
        }
        TilePos::from_world_pos(&local, g.size, g.grid, g.tile_size, g.map_type, &anchor)
            .map(|tile| IVec2::new(tile.x as i32, tile.y as i32))
            .ok_or(PlaceProblem::OffMap(place.map))
    }
}

/// A world position in the frame of the tilemap (or world) whose transform is `frame`.
fn to_local(
    frame: &GlobalTransform,
    transform: &GlobalTransform,
    tilemap: Entity,
) -> Result<Vec2, PlaceProblem> {
    let inverse = frame.affine().inverse();
    let local = inverse.transform_point3(transform.translation()).truncate();
    if !inverse.is_finite() || !local.is_finite() {
        return Err(PlaceProblem::SingularMapTransform(tilemap));
    }
    Ok(local)
}
