//! A map's grid as objects meet it: the tile of its root tilemap under a point of the world
//! (beyond the map too), and the centre of a tile, with bevy_ecs_tilemap's formulas for every
//! map type.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::worlds::chunks::ChunkPlacement;
use crate::worlds::positions::grid_position;

/// A tile no map reaches: where an object off its map stands (the plugin warns about it).
pub(super) const NOWHERE: TilePos = TilePos {
    x: u32::MAX,
    y: u32::MAX,
};

/// What a root tilemap's grid is worked out from.
#[derive(QueryData)]
pub(super) struct MapGrid {
    pub(super) entity: Entity,
    transform: &'static GlobalTransform,
    pub(super) size: &'static TilemapSize,
    grid: &'static TilemapGridSize,
    tile_size: &'static TilemapTileSize,
    map_type: &'static TilemapType,
    anchor: Option<&'static TilemapAnchor>,
    chunk: Option<&'static ChunkPlacement>,
}

impl MapGridItem<'_, '_> {
    /// A point of the world in the tilemap's own frame (`None` if its transform cannot be
    /// inverted).
    pub(super) fn local(&self, point: Vec2) -> Option<Vec2> {
        let inverse = self.transform.affine().inverse();
        let local = inverse.transform_point3(point.extend(0.0)).truncate();
        local.is_finite().then_some(local)
    }

    /// Where the anchor puts the centre of tile `(0, 0)` in the tilemap's frame.
    fn start(&self) -> Vec2 {
        let anchor = self.anchor.copied().unwrap_or_default();
        anchor.as_offset(self.size, self.grid, self.tile_size, self.map_type)
    }

    /// The tile under a point of the tilemap's frame, counted from tile `(0, 0)` (beyond the
    /// map too).
    pub(super) fn tile_at(&self, local: Vec2) -> IVec2 {
        grid_position(local - self.start(), self.grid, self.map_type)
    }

    /// The centre of `tile` in the tilemap's frame.
    pub(super) fn centre(&self, tile: TilePos) -> Vec2 {
        let anchor = self.anchor.copied().unwrap_or_default();
        tile.center_in_world(self.size, self.grid, self.tile_size, self.map_type, &anchor)
    }

    /// The tile `at` (from [`tile_at`](Self::tile_at)) if it lies on the map.
    pub(super) fn on_map(&self, at: IVec2) -> Option<TilePos> {
        let x = u32::try_from(at.x).ok().filter(|&x| x < self.size.x)?;
        let y = u32::try_from(at.y).ok().filter(|&y| y < self.size.y)?;
        Some(TilePos::new(x, y))
    }

    /// Where something whose centre is at `point` (in the world) stands: this tilemap and its
    /// tile; on a chunk of a world, the world and its tile when the point lies beyond the
    /// chunk; else this tilemap and [`NOWHERE`].
    pub(super) fn stand(&self, point: Vec2) -> (Entity, TilePos) {
        let Some(at) = self.local(point).map(|local| self.tile_at(local)) else {
            return (self.entity, NOWHERE);
        };
        if let Some(tile) = self.on_map(at) {
            return (self.entity, tile);
        }
        match self.chunk {
            Some(chunk) => {
                let first = chunk.first();
                let tile = TilePos::new(
                    first.x.wrapping_add_signed(at.x),
                    first.y.wrapping_add_signed(at.y),
                );
                (chunk.world(), tile)
            }
            None => (self.entity, NOWHERE),
        }
    }
}
