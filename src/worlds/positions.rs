//! The tile under a point of an endless grid of any kind bevy_ecs_tilemap draws: how a chunk
//! placed by its transform and an entity placed by its `Transform` on a chunk or a world find
//! their tile, beyond the bounds of one tilemap.

use bevy::prelude::*;
use bevy_ecs_tilemap::helpers::hex_grid::axial::AxialPos;
use bevy_ecs_tilemap::helpers::square_grid::diamond::DiamondPos;
use bevy_ecs_tilemap::helpers::square_grid::staggered::StaggeredPos;
use bevy_ecs_tilemap::map::{HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapType};

/// The tile under `pos` on an endless grid of this type whose tile `(0, 0)` is centred on the
/// origin (bevy_ecs_tilemap's formulas, without the map's bounds).
pub(crate) fn grid_position(pos: Vec2, grid: &TilemapGridSize, map_type: &TilemapType) -> IVec2 {
    let (x, y) = match map_type {
        TilemapType::Square => (
            (pos.x / grid.x + 0.5).floor() as i32,
            (pos.y / grid.y + 0.5).floor() as i32,
        ),
        TilemapType::Isometric(IsoCoordSystem::Diamond) => {
            let p = DiamondPos::from_world_pos(&pos, grid);
            (p.x, p.y)
        }
        TilemapType::Isometric(IsoCoordSystem::Staggered) => {
            let p = StaggeredPos::from_world_pos(&pos, grid);
            (p.x, p.y)
        }
        TilemapType::Hexagon(system) => hex_position(pos, grid, *system),
    };
    IVec2::new(x, y)
}

/// [`grid_position`] on a hexagonal grid. The offset systems are converted from the axial
/// tile here, by a division that rounds down: bevy_ecs_tilemap 0.19's conversion divides
/// toward zero, which puts a point at a negative odd row (or column) one tile off, and points
/// left of or below a chunk are negative to it (`tests/world_hex_positions.rs`).
fn hex_position(pos: Vec2, grid: &TilemapGridSize, system: HexCoordSystem) -> (i32, i32) {
    use HexCoordSystem::*;
    let AxialPos { q, r } = match system {
        Row | RowOdd | RowEven => AxialPos::from_world_pos_row(&pos, grid),
        Column | ColumnOdd | ColumnEven => AxialPos::from_world_pos_col(&pos, grid),
    };
    match system {
        Row | Column => (q, r),
        RowOdd => (q + r.div_euclid(2), r),
        RowEven => (q + (r + 1).div_euclid(2), r),
        ColumnOdd => (q, r + q.div_euclid(2)),
        ColumnEven => (q, r + (q + 1).div_euclid(2)),
    }
}
