//! A [`MapOpacity`] the game inserted (another map's, cloned or reflected, or a scene's) holds
//! another map's counts and change log: it is built again from the map's own opaque entities,
//! [`OpaqueCells`], `Density` entities and [`DensityCells`], with a change log newer than any
//! view's, so every view of the map is computed again.

use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapSize, TilemapType};

use crate::maps::density::{DensityCells, DensityIndex};
use crate::maps::map_opacity::{MapOpacity, grid_of};
use crate::maps::opacity::OpaqueIndex;
use crate::maps::painted::OpaqueCells;

/// Builds again the `MapOpacity` of each map that was given one by someone else: empty, then
/// its opaque entities placed again by `sync_opaque` and its `OpaqueCells` painted again by
/// `paint_cells` (marked changed here).
pub(super) fn rebuild_replaced_opacity(
    mut maps: Query<(
        &TilemapSize,
        Option<&TilemapType>,
        &mut MapOpacity,
        Option<&mut OpaqueCells>,
        Option<&mut DensityCells>,
    )>,
    mut index: ResMut<OpaqueIndex>,
    mut densities: ResMut<DensityIndex>,
) {
    for map in index.take_replaced() {
        let Ok((size, map_type, mut opacity, cells, density)) = maps.get_mut(map) else {
            continue;
        };
        let map_type = map_type.copied().unwrap_or_default();
        *opacity = MapOpacity::new(*size, map_type, grid_of(&map_type));
        if let Some(mut cells) = cells {
            cells.set_changed();
        }
        if let Some(mut density) = density {
            density.set_changed();
        }
        index.forget_map(map);
        densities.forget_map(map);
    }
}
