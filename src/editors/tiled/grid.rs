//! A map's grid as objects meet it: the tile of its root tilemap under a point of the world
//! (beyond the map too), and the centre of a tile, with bevy_ecs_tilemap's formulas for every
//! map type. On an isometric map, a point of an object is first moved from where
//! bevy_ecs_tiled 0.13.4 puts it to where the file puts it (docs/tiled.md, "quirks").

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::TiledMapAsset;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    IsoCoordSystem, TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType,
};
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
    /// A point of an object of the map (in the world, where bevy_ecs_tiled put it) in the
    /// tilemap's own frame, where the file puts it (`None` if the tilemap's transform cannot be
    /// inverted).
    pub(super) fn local(&self, asset: &TiledMapAsset, point: Vec2) -> Option<Vec2> {
        let inverse = self.transform.affine().inverse();
        let local = inverse.transform_point3(point.extend(0.0)).truncate();
        local
            .is_finite()
            .then(|| local + self.isometric_shift(asset))
    }

    /// How far bevy_ecs_tiled 0.13.4 puts an isometric map's objects from where the file puts
    /// them, in the tilemap's frame: it projects Tiled's object coordinates with an offset right
    /// only on maps exactly two tiles wider than tall (a whole number of tiles along the map's
    /// diagonal otherwise). Measured on the centre of Tiled's tile `(0, 0)`: where bevy_ecs_tiled
    /// puts that point, against the centre of its tile. Nothing on other grids.
    fn isometric_shift(&self, asset: &TiledMapAsset) -> Vec2 {
        let diamond = *self.map_type == TilemapType::Isometric(IsoCoordSystem::Diamond);
        // An infinite map's tile (0, 0) is not Tiled's: left as bevy_ecs_tiled puts it.
        if !diamond || asset.map.infinite() || self.size.y == 0 {
            return Vec2::ZERO;
        }
        let anchor = self.anchor.copied().unwrap_or_default();
        let half = asset.map.tile_height as f32 / 2.0;
        let drawn = asset.world_space_from_tiled_position(&anchor, Vec2::splat(half));
        self.centre(TilePos::new(0, self.size.y - 1)) - drawn
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
    pub(super) fn stand(&self, asset: &TiledMapAsset, point: Vec2) -> (Entity, TilePos) {
        let Some(at) = self.local(asset, point).map(|local| self.tile_at(local)) else {
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
