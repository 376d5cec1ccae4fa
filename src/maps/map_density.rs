//! The density of one map's tiles, kept inside its [`MapOpacity`](super::opacity::MapOpacity):
//! what each tile's [`Density`](super::density::Density) entities and
//! [`DensityCells`](super::density::DensityCells) add up to, and the core's [`DensityGrid`] of
//! it on the grid the field of view is computed on.

use bevy::platform::collections::HashMap;
use viewshed_core::density::{DENSITY_UNITS, DensityGrid};

/// A tile's density: the units of its `Density` entities, and of its `DensityCells`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sources {
    entities: u32,
    painted: u16,
}

impl Sources {
    fn units(self) -> u16 {
        (self.entities + u32::from(self.painted)).min(DENSITY_UNITS) as u16
    }
}

/// The density of every tile of a map (also beyond its current size, so that shrinking and
/// growing it back loses nothing), and its grid.
#[derive(Clone, Debug, Default)]
pub(crate) struct MapDensity {
    tiles: HashMap<(u32, u32), Sources>,
    grid: DensityGrid,
}

impl MapDensity {
    /// The grid the field of view is thinned with (cells as the map's opacity grid).
    pub(crate) fn grid(&self) -> &DensityGrid {
        &self.grid
    }

    /// Makes the grid anew, `width` x `height` cells, tile `t` at cell `cell(t)`.
    pub(super) fn rebuild(
        &mut self,
        (width, height): (u32, u32),
        cell: impl Fn((u32, u32)) -> Option<(u32, u32)>,
    ) {
        self.grid = DensityGrid::new(width, height);
        for (&tile, sources) in &self.tiles {
            if let Some((x, y)) = cell(tile) {
                self.grid.set_units(x, y, sources.units());
            }
        }
    }

    /// Adds `units` of a `Density` entity to `tile` (`add` false: takes them away); returns
    /// whether its grid cell `cell` changed.
    pub(super) fn add_entity(
        &mut self,
        tile: (u32, u32),
        units: u32,
        add: bool,
        cell: Option<(u32, u32)>,
    ) -> bool {
        let sources = self.tiles.entry(tile).or_default();
        sources.entities = if add {
            sources.entities.saturating_add(units)
        } else {
            sources.entities.saturating_sub(units)
        };
        self.write(tile, cell)
    }

    /// Sets the units `DensityCells` paint on `tile`; returns whether its grid cell changed.
    pub(super) fn paint(&mut self, tile: (u32, u32), units: u16, cell: Option<(u32, u32)>) -> bool {
        self.tiles.entry(tile).or_default().painted = units;
        self.write(tile, cell)
    }

    /// The tiles `DensityCells` paint now.
    pub(super) fn painted(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.tiles
            .iter()
            .filter(|(_, sources)| sources.painted > 0)
            .map(|(&tile, _)| tile)
    }

    /// Writes `tile`'s units into its grid cell; returns whether it changed.
    fn write(&mut self, tile: (u32, u32), cell: Option<(u32, u32)>) -> bool {
        let units = self.tiles.get(&tile).map_or(0, |sources| sources.units());
        if self.tiles.get(&tile) == Some(&Sources::default()) {
            self.tiles.remove(&tile);
        }
        cell.is_some_and(|(x, y)| self.grid.set_units(x, y, units))
    }
}
