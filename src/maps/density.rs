//! Partial opacity on the plugin's side: [`Density`] on tile entities (smoke, a bush) and
//! [`DensityCells`] in bulk on a map, kept in each map's [`MapOpacity`] as opaque entities
//! are. A change is logged in the map's change log like a wall's, so only the views that reach
//! the tile are computed again.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::maps::layers::LayerEpoch;
use crate::maps::map_opacity::{Grid, MapOpacity};
use crate::maps::placed::{Placed, PlacedMoves};
use crate::maps::placement::PlaceProblem;
use crate::maps::worlds::ChunkOf;
use viewshed_core::density::{DensityGrid, units_of};

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
pub struct Density(pub f32);

/// A map's densities in bulk, from the game's own grid: cell `(x, y)` is tile `(x, y)` of the
/// map it is on (the root tilemap). Added to the [`Density`] entities of each tile.
///
/// It is read on a tilemap that is a map of its own only: on a chunk of a
/// [`WorldMap`](crate::WorldMap) it is ignored, with a warning (put [`Density`] on the
/// chunk's tiles instead, which a world follows like on any map).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// // A forest: every tile in columns 10 to 14 a quarter dense.
/// fn plant(mut commands: Commands, map: Entity) {
///     let forest = DensityCells::from_fn(32, 18, |x, _| if (10..15).contains(&x) { 0.25 } else { 0.0 });
///     commands.entity(map).insert(forest);
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
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

    /// The units of the dense tiles.
    fn cells(&self) -> HashMap<(u32, u32), u16> {
        let grid = &self.0;
        (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .map(|(x, y)| ((x, y), grid.units(x, y)))
            .filter(|&(_, units)| units > 0)
            .collect()
    }
}

/// Where each [`Density`] entity counts: its map, tile and units.
#[derive(Resource, Default)]
pub(super) struct DensityIndex {
    /// The [`LayerEpoch`] the entities were placed at.
    epoch: u64,
    placed: EntityHashMap<(Entity, (u32, u32), u32)>,
    /// Entities to place again at the next sync (re-enabled ones).
    pending: EntityHashSet,
    /// A map's opacity was made anew: every `Density` entity is placed again.
    relink: bool,
    /// Entities and hexagonal maps already warned about.
    warned: EntityHashSet,
}

impl DensityIndex {
    /// `map`'s opacity was made anew: its `Density` entities count nowhere until they are all
    /// placed again at the next sync.
    pub(super) fn forget_map(&mut self, map: Entity) {
        self.placed.retain(|_, &mut (on, ..)| on != map);
        self.relink = true;
    }
}

/// A `Density` entity as `sync_density` reads it.
#[derive(QueryData)]
pub(super) struct DensityItem {
    entity: Entity,
    density: &'static Density,
    placed: &'static Placed,
    by_tile: Has<TilePos>,
    tilemap: Option<&'static TilemapId>,
}

/// What `sync_density` reads and writes.
#[derive(SystemParam)]
pub(super) struct DensitySync<'w, 's> {
    all: Query<'w, 's, DensityItem>,
    changed: Query<'w, 's, Entity, Changed<Density>>,
    maps: Query<'w, 's, (Entity, &'static mut MapOpacity)>,
    epoch: Res<'w, LayerEpoch>,
    index: ResMut<'w, DensityIndex>,
    moves: Res<'w, PlacedMoves>,
}

/// Counts `Density` entities where they stand: those the maps step placed anew this frame,
/// new ones and those whose density changed, and re-enabled ones; all of them when layers
/// changed or a map got its opacity anew.
pub(super) fn sync_density(mut sync: DensitySync) {
    let index = &mut *sync.index;
    let layers_changed = sync.epoch.changed_since(&mut index.epoch);
    let maps = &mut sync.maps;
    // A map that got its opacity anew (made again after it stopped being a map) holds none of
    // the density it held before (few maps: looked at one by one).
    for (map, opacity) in maps.iter_mut() {
        if opacity.is_added() {
            index.forget_map(map);
        }
    }
    if std::mem::take(&mut index.relink) || layers_changed {
        index.pending.clear();
        for item in &sync.all {
            place(item, maps, index);
        }
        return;
    }
    let pending = std::mem::take(&mut index.pending);
    let moved = sync.moves.entities().iter().copied();
    for entity in moved.chain(pending).chain(&sync.changed) {
        // A query skips what it should (disabled entities, those without density).
        if let Ok(item) = sync.all.get(entity) {
            place(item, maps, index);
        }
    }
}

/// Counts a `Density` entity's units on the tile its `Placed` says (and no longer where it
/// stood); only a `TilePos` places one.
fn place(item: DensityItemItem, maps: &mut Maps, index: &mut DensityIndex) {
    let entity = item.entity;
    let units = u32::from(units_of(item.density.0));
    let target = match item.placed.located() {
        _ if units == 0 => None,
        Ok((map, tile)) if item.by_tile && maps.contains(map) => {
            Some((map, (tile.x, tile.y), units))
        }
        located => {
            warn_unplaced(
                index,
                entity,
                item.by_tile && item.tilemap.is_some(),
                located,
            );
            None
        }
    };
    if index.placed.get(&entity).copied() == target {
        return;
    }
    unplace(entity, maps, index);
    if let Some((map, tile, units)) = target
        && let Ok((_, mut opacity)) = maps.get_mut(map)
    {
        if matches!(opacity.kind(), Grid::Hex(_)) && index.warned.insert(map) {
            warn!(
                "bevy_viewshed: Density on hexagonal map {map}: partial opacity is not \
                 supported on hexagonal maps, its views ignore it"
            );
        }
        opacity.add_density(tile, units, true);
        index.placed.insert(entity, (map, tile, units));
        index.warned.remove(&entity);
    }
}

/// Warns once about a `Density` entity that stands on no tile of a map.
fn warn_unplaced(
    index: &mut DensityIndex,
    entity: Entity,
    placed_by_tile: bool,
    located: Result<(Entity, TilePos), PlaceProblem>,
) {
    let problem = match located {
        Ok(_) | Err(PlaceProblem::NotPlaced) if !placed_by_tile => {
            "has no TilePos and TilemapId (a Transform does not place a Density entity)".into()
        }
        Ok((map, _)) => format!("is on {map}, which is not a tilemap"),
        Err(problem) => problem.describe(),
    };
    if index.warned.insert(entity) {
        warn!("bevy_viewshed: Density entity {entity} {problem}; it thins no sight until then");
    }
}

/// The maps, as the density's systems and observers write them.
type Maps<'w, 's> = Query<'w, 's, (Entity, &'static mut MapOpacity)>;

/// A `Density` entity stopped counting where it was counted.
fn unplace(entity: Entity, maps: &mut Maps, index: &mut DensityIndex) {
    if let Some((map, tile, units)) = index.placed.remove(&entity)
        && let Ok((_, mut opacity)) = maps.get_mut(map)
    {
        opacity.add_density(tile, units, false);
    }
}

/// `Density`, `TilePos` or `TilemapId` was removed from an entity, or it was disabled or
/// despawned (`C` is the component of the lifecycle event `E`): it thins no more sight.
pub(super) fn on_density_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut maps: Maps,
    mut index: ResMut<DensityIndex>,
) {
    let entity = event.event_target();
    unplace(entity, &mut maps, &mut index);
    index.pending.remove(&entity);
    index.warned.remove(&entity);
}

/// An entity was re-enabled (`Remove<Disabled>`): if it has a `Density`, it is placed again at
/// the next sync (a new or changed one is found by `Changed<Density>`).
pub(super) fn queue_density<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut index: ResMut<DensityIndex>,
) {
    index.pending.insert(event.event_target());
}

/// Paints each map's [`DensityCells`] into its [`MapOpacity`] when they changed or the map got
/// its opacity anew; takes them away when the component is removed.
pub(super) fn paint_density_cells(
    mut maps: Query<
        (&DensityCells, &mut MapOpacity),
        Or<(Changed<DensityCells>, Added<MapOpacity>)>,
    >,
    mut removed: RemovedComponents<DensityCells>,
    mut unpainted: Query<&mut MapOpacity, Without<DensityCells>>,
    on_chunks: Query<Entity, (Added<DensityCells>, With<ChunkOf>)>,
) {
    for chunk in &on_chunks {
        warn!(
            "bevy_viewshed: DensityCells on {chunk}, a chunk of a world: ignored (densities in \
             bulk are read on a map of its own; put Density on the chunk's tiles instead)"
        );
    }
    for (cells, mut opacity) in &mut maps {
        opacity.paint_density(&cells.cells());
    }
    for map in removed.read() {
        if let Ok(mut opacity) = unpainted.get_mut(map) {
            opacity.paint_density(&HashMap::default());
        }
    }
}
