//! The neighbourhood of a tile on each kind of map (square, isometric, hexagonal), as
//! bevy_ecs_tilemap's neighbour helpers count it: for soft edges and for ghosts.

use bevy_ecs_tilemap::helpers::hex_grid::neighbors::HexNeighbors;
use bevy_ecs_tilemap::helpers::square_grid::neighbors::Neighbors;
use bevy_ecs_tilemap::map::{IsoCoordSystem, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::TilePos;
use viewshed_core::visible::Window;

/// The neighbours of a tile on one map: its 8 neighbours on square and isometric maps, its 6
/// on hexagonal ones, in bevy_ecs_tilemap's coordinates for the map's type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neighbourhood {
    map_type: TilemapType,
    /// The map's tiles (map coordinates).
    area: Window,
    size: TilemapSize,
}

impl Neighbourhood {
    /// The neighbourhood on a map of this type whose tiles are `area`.
    pub(crate) fn of(map_type: TilemapType, area: Window) -> Self {
        Self {
            map_type,
            area,
            size: TilemapSize::new(area.width, area.height),
        }
    }

    /// Calls `f` for each neighbour of `tile` on the map (map coordinates).
    pub(crate) fn for_each(&self, tile: TilePos, mut f: impl FnMut(TilePos)) {
        let area = self.area;
        if !area.contains(tile.x, tile.y) {
            return;
        }
        let local = TilePos::new(tile.x - area.x, tile.y - area.y);
        let mut f = |n: TilePos| f(TilePos::new(area.x + n.x, area.y + n.y));
        self.for_each_local(local, &mut f);
    }

    /// [`for_each`](Self::for_each) in the area's own coordinates.
    fn for_each_local(&self, tile: TilePos, mut f: impl FnMut(TilePos)) {
        match &self.map_type {
            TilemapType::Hexagon(system) => {
                HexNeighbors::get_neighboring_positions(&tile, &self.size, system)
                    .iter()
                    .for_each(|&n| f(n));
            }
            TilemapType::Isometric(IsoCoordSystem::Staggered) => {
                Neighbors::get_staggered_neighboring_positions(&tile, &self.size, true)
                    .iter()
                    .for_each(|&n| f(n));
            }
            TilemapType::Square | TilemapType::Isometric(IsoCoordSystem::Diamond) => {
                Neighbors::get_square_neighboring_positions(&tile, &self.size, true)
                    .iter()
                    .for_each(|&n| f(n));
            }
        }
    }

    /// Whether `a` and `b` are neighbours.
    pub(crate) fn are_neighbours(&self, a: TilePos, b: TilePos) -> bool {
        let mut found = false;
        self.for_each(a, |n| found |= n == b);
        found
    }
}
