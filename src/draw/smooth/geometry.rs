//! Where a map's tiles are, as the smooth fog's shader finds them: the centre of every tile of
//! every kind of bevy_ecs_tilemap map is `origin + x * step_x + y * step_y` plus `shift_x` on
//! odd columns and `shift_y` on odd rows (offset hexagons and staggered diamonds shift every
//! other row or column by half a tile), read off bevy_ecs_tilemap's own `center_in_world`.

use bevy::math::{Mat2, Vec2};
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType};
use bevy_ecs_tilemap::tiles::TilePos;

/// A map's tiles in its own (local) coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TileGrid {
    /// The centre of tile (0, 0).
    pub(super) origin: Vec2,
    /// From a tile's centre to the next one's along `x` and along `y` (without shifts).
    pub(super) step_x: Vec2,
    pub(super) step_y: Vec2,
    /// Added to the centre of the tiles of odd columns and of odd rows.
    pub(super) shift_x: Vec2,
    pub(super) shift_y: Vec2,
    /// The unit distances are measured in along each axis, so that a blur of one tile is one
    /// tile and the tile nearest a point (by this measure) is the tile drawn there: the grid
    /// size on square and isometric maps (whose tiles are the grid's cells, stretched), the
    /// distance between neighbours in both directions on hexagonal maps (whose tiles are the
    /// cells of their centres, near enough: within a tenth of a pixel on bevy_ecs_tilemap's
    /// hexagons).
    pub(super) unit: Vec2,
    /// The corner of the rectangle the map's tiles cover with the smallest coordinates, and
    /// its size.
    pub(super) rect_min: Vec2,
    pub(super) rect_size: Vec2,
}

/// What a map's geometry is made of, as bevy_ecs_tilemap's components hold it.
#[derive(Clone, Copy, Debug)]
pub(super) struct MapShape {
    pub(super) size: TilemapSize,
    pub(super) grid: TilemapGridSize,
    pub(super) tile: TilemapTileSize,
    pub(super) map_type: TilemapType,
    pub(super) anchor: TilemapAnchor,
}

impl MapShape {
    /// The centre of `tile` in the map's coordinates, by bevy_ecs_tilemap.
    pub(super) fn center(&self, tile: TilePos) -> Vec2 {
        let MapShape {
            size,
            grid,
            tile: tile_size,
            map_type,
            anchor,
        } = self;
        tile.center_in_world(size, grid, tile_size, map_type, anchor)
    }
}

impl TileGrid {
    /// The grid of `shape`: its steps from the centres of tiles (0, 0), (2, 0) and (0, 2),
    /// its shifts from tiles (1, 0) and (0, 1), its rectangle from the tiles on its border.
    pub(super) fn of(shape: &MapShape) -> Self {
        let at = |x, y| shape.center(TilePos { x, y });
        let origin = at(0, 0);
        let step_x = (at(2, 0) - origin) / 2.0;
        let step_y = (at(0, 2) - origin) / 2.0;
        let (min, max) = border(shape);
        let half = Vec2::new(shape.tile.x, shape.tile.y).max(shape.grid_vec()) / 2.0;
        Self {
            origin,
            step_x,
            step_y,
            shift_x: at(1, 0) - origin - step_x,
            shift_y: at(0, 1) - origin - step_y,
            unit: unit(shape).max(Vec2::splat(f32::EPSILON)),
            rect_min: min - half,
            rect_size: max - min + 2.0 * half,
        }
    }

    /// The centre of tile `(x, y)` (any integers, on the map or not), as the shader works it
    /// out.
    #[cfg(test)]
    fn center(&self, x: i32, y: i32) -> Vec2 {
        self.origin
            + self.step_x * x as f32
            + self.step_y * y as f32
            + self.shift_x * (x & 1) as f32
            + self.shift_y * (y & 1) as f32
    }

    /// From a point to the tile coordinates it is near, without the shifts: within a tile or
    /// so of the tile the point is in (the shader looks two tiles around it). The zero matrix
    /// for a degenerate grid.
    pub(super) fn inverse(&self) -> Mat2 {
        let steps = Mat2::from_cols(self.step_x, self.step_y);
        if steps.determinant().abs() <= f32::EPSILON {
            return Mat2::ZERO;
        }
        steps.inverse()
    }
}

impl MapShape {
    fn grid_vec(&self) -> Vec2 {
        Vec2::new(self.grid.x, self.grid.y)
    }
}

/// What distances are measured in on `shape` (see [`TileGrid::unit`]).
fn unit(shape: &MapShape) -> Vec2 {
    match shape.map_type {
        TilemapType::Hexagon(_) => Vec2::splat(shape.grid.x.min(shape.grid.y)),
        _ => shape.grid_vec(),
    }
}

/// The smallest and largest centres of the tiles on the border of the map (the extremes of a
/// map of any kind are on its border).
fn border(shape: &MapShape) -> (Vec2, Vec2) {
    let (w, h) = (shape.size.x.max(1), shape.size.y.max(1));
    let rows = (0..w).flat_map(|x| [(x, 0), (x, h - 1)]);
    let columns = (0..h).flat_map(|y| [(0, y), (w - 1, y)]);
    rows.chain(columns)
        .map(|(x, y)| shape.center(TilePos { x, y }))
        .fold((Vec2::MAX, Vec2::MIN), |(min, max), c| {
            (min.min(c), max.max(c))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_ecs_tilemap::map::{HexCoordSystem, IsoCoordSystem};

    fn every_map_type() -> Vec<TilemapType> {
        use HexCoordSystem::*;
        let mut types = vec![
            TilemapType::Square,
            TilemapType::Isometric(IsoCoordSystem::Diamond),
            TilemapType::Isometric(IsoCoordSystem::Staggered),
        ];
        for hex in [RowEven, RowOdd, ColumnEven, ColumnOdd, Row, Column] {
            types.push(TilemapType::Hexagon(hex));
        }
        types
    }

    /// A point of the tile of centre 0 near its edge: just inside the corner of a square, the
    /// side vertex of a diamond, the vertex of a hexagon between two of its neighbours.
    fn inner_point(map_type: TilemapType, shape: &MapShape) -> Vec2 {
        let half = Vec2::new(shape.grid.x, shape.grid.y) / 2.0 * 0.98;
        match map_type {
            TilemapType::Square => half,
            TilemapType::Isometric(_) => Vec2::new(half.x, 0.0),
            TilemapType::Hexagon(system) if is_column(system) => Vec2::new(half.x / 2.0, half.y),
            TilemapType::Hexagon(_) => Vec2::new(half.x, half.y / 2.0),
        }
    }

    fn is_column(system: HexCoordSystem) -> bool {
        use HexCoordSystem::*;
        matches!(system, Column | ColumnEven | ColumnOdd)
    }

    /// The grid of a map of `map_type` as tilesets draw them: square tiles, diamonds twice as
    /// wide as high, pointy-top hexagons 28x32, flat-top ones 32x28.
    fn grid_of(map_type: TilemapType) -> Vec2 {
        match map_type {
            TilemapType::Square => Vec2::new(16.0, 16.0),
            TilemapType::Isometric(_) => Vec2::new(64.0, 32.0),
            TilemapType::Hexagon(system) if is_column(system) => Vec2::new(32.0, 28.0),
            TilemapType::Hexagon(_) => Vec2::new(28.0, 32.0),
        }
    }

    /// The tile whose centre is nearest `point`, measured as the shader does.
    fn nearest(grid: &TileGrid, point: Vec2) -> (i32, i32) {
        let mut best = (f32::MAX, (0, 0));
        for y in -3..10 {
            for x in -3..10 {
                let away = (point - grid.center(x, y)) / grid.unit;
                if away.length_squared() < best.0 {
                    best = (away.length_squared(), (x, y));
                }
            }
        }
        best.1
    }

    #[test]
    fn the_grid_puts_every_tile_where_bevy_ecs_tilemap_does() {
        for map_type in every_map_type() {
            for anchor in [TilemapAnchor::Center, TilemapAnchor::None] {
                let cell = grid_of(map_type);
                let shape = MapShape {
                    size: TilemapSize::new(7, 6),
                    grid: TilemapGridSize::new(cell.x, cell.y),
                    tile: TilemapTileSize::new(cell.x, cell.y),
                    map_type,
                    anchor,
                };
                let grid = TileGrid::of(&shape);
                for y in 0..6 {
                    for x in 0..7 {
                        let want = shape.center(TilePos { x, y });
                        let got = grid.center(x as i32, y as i32);
                        assert!(
                            (want - got).length() < 1e-3,
                            "{map_type:?} {anchor:?} ({x}, {y}): {got} != {want}"
                        );
                        let near = grid.inverse() * (want - grid.origin);
                        assert!(
                            (near - Vec2::new(x as f32, y as f32)).abs().max_element() <= 1.0,
                            "{map_type:?} ({x}, {y}) is found near {near}"
                        );
                        assert_eq!(
                            nearest(&grid, want + inner_point(map_type, &shape)),
                            (x as i32, y as i32),
                            "{map_type:?}: a point near the edge of ({x}, {y}) is nearest to it"
                        );
                        let inside = want - grid.rect_min;
                        assert!(inside.min_element() > 0.0);
                        assert!((grid.rect_size - inside).min_element() > 0.0);
                    }
                }
            }
        }
    }
}
