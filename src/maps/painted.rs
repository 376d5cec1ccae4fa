//! Opacity given in bulk from a game's own grid: [`OpaqueCells`] on a map, painted into its
//! [`MapOpacity`] beside the [`Opaque`](crate::Opaque) entities.

use bevy::ecs::entity::EntityHashMap;
use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use viewshed_core::grid::OpacityGrid;

use super::map_opacity::MapOpacity;
use super::worlds::ChunkPlacement;

/// The opaque tiles of a map, given all at once from the game's own grid or a closure,
/// instead of an [`Opaque`](crate::Opaque) entity per wall. Put it on the map's root tilemap
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

/// The map each source of [`OpaqueCells`] is painted on.
#[derive(Resource, Default)]
pub(super) struct PaintedOn(EntityHashMap<Entity>);

/// A tilemap with [`OpaqueCells`], and where it lies if it is a chunk of a world.
type Source<'a> = (
    Entity,
    Ref<'a, OpaqueCells>,
    Option<Ref<'a, ChunkPlacement>>,
);

/// Paints each tilemap's [`OpaqueCells`] into its map's [`MapOpacity`] (its own, or its
/// world's at the chunk's place) when they changed, the map got its opacity anew or the chunk
/// moved; takes them away when the component is removed or the tilemap left its world.
pub(super) fn paint_cells(
    sources: Query<Source>,
    mut maps: Query<&mut MapOpacity>,
    mut removed: RemovedComponents<OpaqueCells>,
    mut painted: ResMut<PaintedOn>,
) {
    for source in removed.read() {
        unpaint(source, &mut painted, &mut maps);
    }
    for (source, cells, chunk) in &sources {
        let (map, first) = match &chunk {
            Some(chunk) => (chunk.world(), chunk.first()),
            None => (source, TilePos::new(0, 0)),
        };
        let moved = chunk.as_ref().is_some_and(DetectChanges::is_changed);
        let elsewhere = painted.0.get(&source) != Some(&map);
        let new_map = maps.get_mut(map).is_ok_and(|opacity| opacity.is_added());
        if !(cells.is_changed() || moved || elsewhere || new_map) {
            continue;
        }
        if elsewhere {
            unpaint(source, &mut painted, &mut maps);
        }
        if let Ok(mut opacity) = maps.get_mut(map) {
            let at = |(x, y): (u32, u32)| (first.x + x, first.y + y);
            opacity.paint(source, cells.cells().into_iter().map(at).collect());
            painted.0.insert(source, map);
        }
    }
}

/// Takes what `source` painted away from the map it is painted on.
fn unpaint(source: Entity, painted: &mut PaintedOn, maps: &mut Query<&mut MapOpacity>) {
    if let Some(map) = painted.0.remove(&source)
        && let Ok(mut opacity) = maps.get_mut(map)
    {
        opacity.paint(source, HashSet::default());
    }
}
