//! Opacity given in bulk from a game's own grid: [`OpaqueCells`] on a map, painted into its
//! [`MapOpacity`] beside the [`Opaque`](crate::Opaque) entities.

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use viewshed_core::grid::OpacityGrid;

use super::opacity::MapOpacity;

/// The opaque tiles of a map, given all at once from the game's own grid or a closure,
/// instead of an [`Opaque`](crate::Opaque) entity per wall. Put it on the map's root tilemap
/// (the one that gets the [`MapOpacity`]); cell `(x, y)` is tile `(x, y)` on every kind of
/// map, and cells beyond the map are ignored.
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

    /// The opaque tiles.
    fn cells(&self) -> HashSet<(u32, u32)> {
        let grid = &self.0;
        (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| grid.is_opaque(x, y))
            .collect()
    }
}

/// Paints each map's [`OpaqueCells`] into its [`MapOpacity`] when they changed, or the map got
/// its opacity anew; takes them away when the component is removed.
pub(super) fn paint_cells(
    mut maps: Query<(&OpaqueCells, &mut MapOpacity), Or<(Changed<OpaqueCells>, Added<MapOpacity>)>>,
    mut removed: RemovedComponents<OpaqueCells>,
    mut unpainted: Query<&mut MapOpacity, Without<OpaqueCells>>,
) {
    for (cells, mut opacity) in &mut maps {
        opacity.paint(cells.cells());
    }
    for map in removed.read() {
        if let Ok(mut opacity) = unpainted.get_mut(map) {
            opacity.paint(HashSet::default());
        }
    }
}
