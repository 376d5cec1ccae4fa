//! What blocks sight: the [`Opaque`] component on entities and [`OpaqueCells`] in bulk, each
//! map's count of what stands on its tiles written into its grid
//! ([`MapOpacity`]).

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use super::map_opacity::MapOpacity;
use super::sources::{CellSource, PaintedCells};
use viewshed_core::grid::OpacityGrid;

/// Blocks sight at its tile: a wall tile, a closed door, a boulder.
///
/// Counts on tile entities of a tilemap and on any other entity with `TilePos` +
/// `TilemapId` (an opaque entity needs a `TilePos`: a `Transform` alone does not place it,
/// and it is warned about); several opaque entities may share a tile. Insert or remove it
/// (open a door), move the entity, disable or despawn it, and the map's opacity follows. A
/// viewer that is itself opaque still sees out of its own tile.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// // A door: opaque while closed.
/// #[derive(Component)]
/// struct Door;
///
/// fn toggle(mut commands: Commands, doors: Query<(Entity, Has<Opaque>), With<Door>>) {
///     for (door, closed) in &doors {
///         if closed {
///             commands.entity(door).remove::<Opaque>(); // open: the views see through
///         } else {
///             commands.entity(door).insert(Opaque); // closed again
///         }
///     }
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(crate::placement::placed::Placed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Opaque;

impl CellSource for Opaque {
    /// How many opaque things stand on the tile (entities, and tilemaps painting it).
    type Tally = u32;
    const NAME: &'static str = "Opaque";
    const DOES_NOTHING: &'static str = "blocks no sight";
    const CHANGES_IN_PLACE: bool = false;

    fn amount(&self) -> Option<u32> {
        Some(1)
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
        opacity.set_opaque(tile, tally.is_some_and(|&count| count > 0))
    }
}

/// The opaque tiles of a map, given all at once from the game's own grid or a closure,
/// instead of an [`Opaque`] entity per wall. Put it on the map's root tilemap
/// (the one that gets the [`MapOpacity`]), or on a chunk of a world; cell `(x, y)` is tile
/// `(x, y)` of that tilemap on every kind of map, and cells beyond it are ignored.
///
/// How the two combine: a tile blocks sight when its cell here is opaque **or** an `Opaque`
/// entity stands on it. Change the cells ([`set`](Self::set), or write a new grid) and the
/// views follow at the next update. Each change reads the whole grid once, so keep the walls
/// that never move here and give a door that opens every turn an `Opaque` entity; removing
/// the component leaves only the `Opaque` entities.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::MapOpacity;
///
/// // The game's own map: walls around a 10x8 room.
/// let wall = |x: u32, y: u32| x == 0 || y == 0 || x == 9 || y == 7;
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugins::default()));
/// let size = TilemapSize { x: 10, y: 8 };
/// let map = app
///     .world_mut()
///     .spawn((TileStorage::empty(size), size, OpaqueCells::from_fn(10, 8, wall)))
///     .id();
/// app.update();
/// let opacity = app.world().get::<MapOpacity>(map).unwrap();
/// assert!(opacity.is_opaque(TilePos { x: 0, y: 3 }));
/// assert!(!opacity.is_opaque(TilePos { x: 4, y: 3 }));
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct OpaqueCells(pub OpacityGrid);

impl OpaqueCells {
    /// `width` x `height` tiles, opaque where `is_opaque(x, y)` holds.
    pub fn from_fn(width: u32, height: u32, is_opaque: impl FnMut(u32, u32) -> bool) -> Self {
        Self(OpacityGrid::from_fn(width, height, is_opaque))
    }

    /// Makes `tile` opaque or clear (ignored beyond the grid).
    pub fn set(&mut self, tile: TilePos, opaque: bool) {
        if tile.x < self.0.width() && tile.y < self.0.height() {
            self.0.set_opaque(tile.x, tile.y, opaque);
        }
    }

    /// Whether `tile` is opaque here (tiles beyond the grid are not).
    pub fn is_opaque(&self, tile: TilePos) -> bool {
        tile.x < self.0.width() && tile.y < self.0.height() && self.0.is_opaque(tile.x, tile.y)
    }
}

impl PaintedCells for OpaqueCells {
    type Source = Opaque;

    fn cells(&self) -> HashMap<(u32, u32), u32> {
        let grid = &self.0;
        (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| grid.is_opaque(x, y))
            .map(|cell| (cell, 1))
            .collect()
    }
}
