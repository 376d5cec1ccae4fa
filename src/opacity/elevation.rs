//! High ground: [`Elevation`] on entities (a hill tile, a rooftop) and [`ElevationCells`] in
//! bulk on a map, tallied on each map's tiles like walls and densities are. A change is
//! logged in the map's change log like a wall's, so only the views that reach the tile are
//! computed again; a viewer's own eye is its tile's level plus its
//! [`Viewshed::eye_height`](crate::Viewshed::eye_height).

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use super::map_opacity::MapOpacity;
use super::sources::{CellSource, PaintedCells};
use crate::placement::placed::Placed;
use viewshed_core::elevation::{ElevationGrid, MAX_LEVEL};

/// The height of its tile: a level from 0 (the ground, the default) to 15.
///
/// A tile higher than a viewer's eye (its own tile's level plus its
/// [`eye_height`](crate::Viewshed::eye_height)) blocks sight beyond it, as a wall does: its
/// face is seen, what lies behind it is not. Tiles at or below the eye do not block, and walls
/// ([`Opaque`](crate::Opaque)) block at any height. So a unit on a hill sees down into the
/// valley while the valley does not see up onto the hill: high ground is not symmetric (as
/// light is not). Viewers at one eye level see each other symmetrically. `Density` and light
/// apply on top, as on flat ground. The rule, its oracle and its options are
/// [`viewshed_core::elevation`]'s; docs/elevation.md explains them.
///
/// It counts on entities with `TilePos` + `TilemapId` (a tile entity, or one of its own); the
/// highest of a tile's `Elevation` entities and [`ElevationCells`] is the tile's level. Levels
/// above 15 count as 15. Insert, change, move, disable or despawn it and the views that reach
/// its tile follow at the next update.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::Elevation;
/// // A hill two levels up: the unit standing on it sees over the level-1 ridge below.
/// fn raise(mut commands: Commands, hill_tile: Entity) {
///     commands.entity(hill_tile).insert(Elevation(2));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Placed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Elevation(pub u8);

/// A map's levels in bulk, from the game's own heightmap: put it on the map's root tilemap (or
/// on a chunk of a world); cell `(x, y)` is tile `(x, y)` of that tilemap, cells beyond it are
/// ignored. A tile's level is the highest of these and its [`Elevation`] entities.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::ElevationCells;
/// // A plateau three levels up on the east half of a 32x18 map.
/// fn heights(mut commands: Commands, map: Entity) {
///     commands.entity(map).insert(ElevationCells::from_fn(32, 18, |x, _| if x >= 16 { 3 } else { 0 }));
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct ElevationCells(pub ElevationGrid);

impl ElevationCells {
    /// `width` x `height` tiles at level `level(x, y)` (above 15 counts as 15).
    pub fn from_fn(width: u32, height: u32, level: impl FnMut(u32, u32) -> u8) -> Self {
        Self(ElevationGrid::from_fn(width, height, level))
    }

    /// Sets a tile's level (above 15 counts as 15; ignored beyond the grid).
    pub fn set(&mut self, tile: bevy_ecs_tilemap::tiles::TilePos, level: u8) {
        let _ = self.0.set(tile.x, tile.y, level.min(MAX_LEVEL));
    }

    /// A tile's level here (0 beyond the grid).
    pub fn level(&self, tile: bevy_ecs_tilemap::tiles::TilePos) -> u8 {
        self.0.get(tile.x, tile.y).unwrap_or(0)
    }
}

/// How many sources of each level stand on a tile.
pub(super) type LevelCounts = [u16; MAX_LEVEL as usize + 1];

impl CellSource for Elevation {
    type Tally = LevelCounts;
    const NAME: &'static str = "Elevation";
    const DOES_NOTHING: &'static str = "raises no ground";
    const CHANGES_IN_PLACE: bool = true;

    fn amount(&self) -> Option<u32> {
        (self.0 > 0).then_some(u32::from(self.0.min(MAX_LEVEL)))
    }

    fn out_of_range(&self) -> Option<String> {
        (self.0 > MAX_LEVEL).then(|| {
            format!(
                "has level {}, above the highest ({MAX_LEVEL}): it counts as {MAX_LEVEL}",
                self.0
            )
        })
    }

    fn add(tally: &mut LevelCounts, level: u32) {
        let count = &mut tally[level as usize];
        *count = count.saturating_add(1);
    }

    fn remove(tally: &mut LevelCounts, level: u32) {
        let count = &mut tally[level as usize];
        *count = count.saturating_sub(1);
    }

    fn is_empty(tally: &LevelCounts) -> bool {
        tally.iter().all(|&count| count == 0)
    }

    fn write(opacity: &mut MapOpacity, tile: (u32, u32), tally: Option<&LevelCounts>) -> bool {
        let level = tally
            .and_then(|counts| counts.iter().rposition(|&count| count > 0))
            .unwrap_or(0);
        opacity.set_elevation(tile, level as u8)
    }
}

impl PaintedCells for ElevationCells {
    type Source = Elevation;

    fn cells(&self) -> HashMap<(u32, u32), u32> {
        let grid = &self.0;
        (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .filter_map(|(x, y)| Some(((x, y), u32::from(grid.get(x, y)?))))
            .filter(|&(_, level)| level > 0)
            .collect()
    }
}
