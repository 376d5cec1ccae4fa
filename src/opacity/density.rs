//! Partial opacity: [`Density`] on entities (smoke, a bush) and [`DensityCells`] in bulk on a
//! map, tallied on each map's tiles like opaque things are. A change is logged in the map's
//! change log like a wall's, so only the views that reach the tile are computed again.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use super::map_opacity::{Grid, MapOpacity};
use super::sources::{CellSource, PaintedCells};
use crate::placement::placed::Placed;
use viewshed_core::density::{DENSITY_UNITS, DensityGrid, units_of};

/// Thins sight through its tile: smoke, foliage, tall grass, a fog bank.
///
/// A tile seen by the ordinary rules stays seen when the densities of the tiles strictly
/// between it and the viewer (those whose interior the segment between the two tile centres
/// meets; the viewer's and the seen tile's do not count) sum to less than 1: one tile of
/// density 1 hides what lies behind it, two of 0.5 do together. Densities are taken in
/// 1/1024ths, rounded up; not a number or not above 0 is none, above 1 counts as 1. Several
/// `Density` entities on one tile, and the map's [`DensityCells`], add up. The rule is
/// symmetric between floors, like the ordinary one; lights are thinned alike.
///
/// On square, diamond and staggered isometric maps; on hexagonal maps it is ignored, with a
/// warning. Like [`Opaque`](crate::Opaque), it counts on entities with `TilePos` +
/// `TilemapId` (a tile entity, or a cloud of its own); insert, change, move, disable or
/// despawn it and the views that reach its tile follow at the next update.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// // A puff of smoke: two of them side by side hide what is behind them.
/// fn puff(mut commands: Commands, map: Entity, at: TilePos) {
///     commands.spawn((Density(0.5), at, TilemapId(map)));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug)]
#[require(Placed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Density(pub f32);

/// A map's densities in bulk, from the game's own grid: put it on the map's root tilemap (the
/// one that gets the `MapOpacity`), or on a chunk of a world; cell `(x, y)` is tile `(x, y)`
/// of that tilemap, and cells beyond it are ignored. Added to the [`Density`] entities of each
/// tile (and to the cells of other tilemaps painting the same tile).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::{DensityCells};
/// // A forest: every tile in columns 10 to 14 a quarter dense.
/// fn plant(mut commands: Commands, map: Entity) {
///     let forest = DensityCells::from_fn(32, 18, |x, _| if (10..15).contains(&x) { 0.25 } else { 0.0 });
///     commands.entity(map).insert(forest);
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct DensityCells(pub DensityGrid);

impl DensityCells {
    /// `width` x `height` tiles of density `density(x, y)`.
    pub fn from_fn(width: u32, height: u32, density: impl FnMut(u32, u32) -> f32) -> Self {
        Self(DensityGrid::from_fn(width, height, density))
    }

    /// Sets `tile`'s density (ignored beyond the grid).
    pub fn set(&mut self, tile: TilePos, density: f32) {
        self.0.set(tile.x, tile.y, density);
    }

    /// The density of `tile` here (0 beyond the grid).
    pub fn density(&self, tile: TilePos) -> f32 {
        self.0.density(tile.x, tile.y)
    }
}

impl CellSource for Density {
    /// The units of the tile's densities, summed.
    type Tally = u32;
    const NAME: &'static str = "Density";
    const DOES_NOTHING: &'static str = "thins no sight";
    const CHANGES_IN_PLACE: bool = true;

    fn amount(&self) -> Option<u32> {
        let units = units_of(self.0);
        (units > 0).then_some(u32::from(units))
    }

    fn add(tally: &mut u32, amount: u32) {
        *tally = tally.saturating_add(amount);
    }

    fn remove(tally: &mut u32, amount: u32) {
        *tally = tally.saturating_sub(amount);
    }

    fn is_empty(tally: &u32) -> bool {
        *tally == 0
    }

    fn write(opacity: &mut MapOpacity, tile: (u32, u32), tally: Option<&u32>) -> bool {
        let units = tally.map_or(0, |&units| units.min(DENSITY_UNITS) as u16);
        opacity.set_density(tile, units)
    }

    fn unsupported(opacity: &MapOpacity) -> Option<(&'static str, &'static str)> {
        matches!(opacity.kind(), Grid::Hex(_)).then_some((
            "hexagonal",
            "partial opacity is not supported on hexagonal maps, its views ignore it",
        ))
    }
}

impl PaintedCells for DensityCells {
    type Source = Density;

    fn cells(&self) -> HashMap<(u32, u32), u32> {
        let grid = &self.0;
        (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .map(|(x, y)| ((x, y), u32::from(grid.units(x, y))))
            .filter(|&(_, units)| units > 0)
            .collect()
    }
}
