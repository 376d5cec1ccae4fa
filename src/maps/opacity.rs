//! What blocks sight: the [`Opaque`] component and each map's bit-packed opacity grid
//! ([`MapOpacity`]), kept in step with the opaque entities on it.
//!
//! The grid lives on the root tilemap (a tilemap without [`LayerOf`]). Inserting or removing
//! `Opaque`, moving an opaque entity (`TilePos` or `TilemapId` changed), disabling or
//! despawning it, and resizing the tilemap all update the grid. Every change gets a version
//! number and stays in a log of recent changes, so a viewer knows exactly which changes it has
//! not seen yet, however many frames it was disabled for.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::maps::layers::{LayerEpoch, LayerOf};
use crate::maps::map_opacity::MapOpacity;
use crate::maps::map_opacity::grid_of;
use crate::maps::placed::{Placed, PlacedMoves};
use crate::maps::placement::PlaceProblem;
use crate::maps::worlds::{ChunkOf, WorldMap};

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
#[require(crate::maps::placed::Placed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Opaque;

/// Where each registered [`Opaque`] entity counts: its map (root tilemap) and cell.
#[derive(Resource, Debug, Default)]
pub(super) struct OpaqueIndex {
    /// The [`LayerEpoch`] the entities were placed at.
    epoch: u64,
    placed: EntityHashMap<(Entity, (u32, u32))>,
    /// Opaque entities already warned about, so each is warned about once.
    warned: EntityHashSet,
    /// Opaque entities to place again at the next sync (re-enabled ones).
    pending: EntityHashSet,
    /// A tilemap appeared or stopped being one: every opaque entity is placed anew.
    relink: bool,
}

/// Gives every root tilemap (neither a layer nor a chunk of a world) a [`MapOpacity`] and
/// keeps it sized like the tilemap; takes it from tilemaps that became layers or chunks or
/// stopped being tilemaps. This is where the plugin decides which entities are maps: the
/// other domains follow `MapOpacity` (a world gets its own from [`worlds`](super::worlds)).
pub(super) fn track_maps(
    mut commands: Commands,
    new_maps: Query<
        (Entity, &TilemapSize, Option<&TilemapType>),
        (
            Without<MapOpacity>,
            Without<LayerOf>,
            Without<ChunkOf>,
            With<TileStorage>,
        ),
    >,
    mut resized: Query<(&TilemapSize, &mut MapOpacity), Changed<TilemapSize>>,
    stale: Query<
        Entity,
        (
            With<MapOpacity>,
            Without<WorldMap>,
            Or<(
                With<LayerOf>,
                With<ChunkOf>,
                Without<TilemapSize>,
                Without<TileStorage>,
            )>,
        ),
    >,
    mut index: ResMut<OpaqueIndex>,
) {
    for (map, size, map_type) in &new_maps {
        let map_type = map_type.copied().unwrap_or_default();
        let opacity = MapOpacity::new(*size, map_type, grid_of(&map_type));
        commands.entity(map).insert(opacity);
        // Opaque entities may have been placed on this tilemap before it was one.
        index.relink = true;
    }
    for (size, mut opacity) in &mut resized {
        opacity.resize(*size);
    }
    for map in &stale {
        // A root tilemap became a layer or a chunk (its opacity now belongs to its root) or
        // is no longer a tilemap.
        commands.entity(map).remove::<MapOpacity>();
        index.relink = true;
    }
}

/// Keeps each tilemap's field of view in step with its `TilemapType` (square, hexagonal or
/// staggered isometric), read when it becomes a map and when its type changes.
pub(super) fn follow_map_types(
    mut maps: Query<
        (&TilemapType, &mut MapOpacity),
        (
            Without<WorldMap>,
            Or<(Changed<TilemapType>, Added<MapOpacity>)>,
        ),
    >,
) {
    for (map_type, mut opacity) in &mut maps {
        if opacity.map_type() != *map_type {
            opacity.set_type(*map_type, grid_of(map_type));
        }
    }
}

/// An opaque entity as `sync_opaque` reads it: where it is placed, whether by a `TilePos`,
/// and its tilemap.
#[derive(QueryData)]
pub(super) struct OpaqueItem {
    entity: Entity,
    placed: &'static Placed,
    by_tile: Has<TilePos>,
    tilemap: Option<&'static TilemapId>,
}

/// What `sync_opaque` reads and writes.
#[derive(SystemParam)]
pub(super) struct OpaqueSync<'w, 's> {
    all: Query<'w, 's, OpaqueItem, With<Opaque>>,
    maps: Query<'w, 's, &'static mut MapOpacity>,
    epoch: Res<'w, LayerEpoch>,
    index: ResMut<'w, OpaqueIndex>,
    moves: Res<'w, PlacedMoves>,
}

/// Counts opaque entities where they stand: those the maps step placed anew this frame
/// (`PlacedMoves`), and those that became opaque or were re-enabled (noted by observers).
pub(super) fn sync_opaque(mut sync: OpaqueSync) {
    sync.sync();
}

impl OpaqueSync<'_, '_> {
    fn sync(&mut self) {
        let index = &mut *self.index;
        let layers_changed = self.epoch.changed_since(&mut index.epoch);
        let (all, maps) = (&self.all, &mut self.maps);
        if std::mem::take(&mut index.relink) || layers_changed {
            index.pending.clear();
            for item in all {
                place(item, maps, index, true);
            }
            return;
        }
        // A moved wall that lost its tile or tilemap is not warned about (the game took it
        // away); a new or re-enabled one without them is.
        let pending = std::mem::take(&mut index.pending);
        let moved = self.moves.entities().iter().map(|&entity| (entity, false));
        for (entity, new) in moved.chain(pending.into_iter().map(|entity| (entity, true))) {
            // A query skips what it should (disabled entities, those no longer opaque).
            if let Ok(item) = all.get(entity) {
                place(item, maps, index, new);
            }
        }
    }
}

/// Counts an opaque entity on the cell its `Placed` says (and no longer where it stood); only
/// a `TilePos` places an opaque entity. One without a tile or tilemap is warned about when
/// `warn_unplaced`.
fn place(
    item: OpaqueItemItem,
    maps: &mut Query<&mut MapOpacity>,
    index: &mut OpaqueIndex,
    warn_unplaced: bool,
) {
    let entity = item.entity;
    let target = match item.placed.located() {
        Ok((map, tile)) if item.by_tile && maps.contains(map) => Some((map, (tile.x, tile.y))),
        placed => {
            let unplaced = !item.by_tile || item.tilemap.is_none();
            let problem = match placed {
                Ok(_) | Err(PlaceProblem::NotPlaced) if unplaced && !warn_unplaced => {
                    return unplace(entity, maps, index);
                }
                Ok(_) | Err(PlaceProblem::NotPlaced) if unplaced => Some(NOT_PLACED.into()),
                Ok(_) => item.tilemap.map(|tilemap| not_a_map(tilemap.0)),
                Err(problem) => Some(format!(
                    "{}; {BLOCKS_NOTHING} until then",
                    problem.describe()
                )),
            };
            if let Some(problem) = problem {
                warn_once(index, entity, problem);
            }
            None
        }
    };
    if index.placed.get(&entity).copied() == target {
        return;
    }
    unplace(entity, maps, index);
    if let Some((map, cell)) = target
        && let Ok(mut opacity) = maps.get_mut(map)
    {
        opacity.add(cell);
        index.placed.insert(entity, (map, cell));
        index.warned.remove(&entity);
    }
}

const BLOCKS_NOTHING: &str = "it blocks no sight";

const NOT_PLACED: &str = "has no TilePos and TilemapId (a Transform does not place an Opaque \
                          entity); it blocks no sight until it gets both";

fn not_a_map(tilemap: Entity) -> String {
    format!(
        "is on {tilemap:?}, which is not a tilemap (or a layer of one); {BLOCKS_NOTHING} until \
         it is placed on one"
    )
}

fn warn_once(index: &mut OpaqueIndex, entity: Entity, problem: String) {
    if index.warned.insert(entity) {
        warn!("bevy_viewshed: Opaque entity {entity} {problem}");
    }
}

/// An opaque entity stopped counting where it was counted.
fn unplace(entity: Entity, maps: &mut Query<&mut MapOpacity>, index: &mut OpaqueIndex) {
    if let Some((map, cell)) = index.placed.remove(&entity)
        && let Ok(mut opacity) = maps.get_mut(map)
    {
        opacity.remove(cell);
    }
}

/// `Opaque`, `TilePos` or `TilemapId` was removed from an entity, or it was disabled or
/// despawned (`C` is the component of the lifecycle event `E`): it blocks no more sight.
pub(super) fn on_opaque_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut maps: Query<&mut MapOpacity>,
    mut index: ResMut<OpaqueIndex>,
) {
    let entity = event.event_target();
    unplace(entity, &mut maps, &mut index);
    index.pending.remove(&entity);
    index.warned.remove(&entity);
}

/// An entity was re-enabled (`Remove<Disabled>`) or became opaque (`Insert<Opaque>`): if it
/// is opaque, it is placed (again) at the next sync.
pub(super) fn queue_placement<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut index: ResMut<OpaqueIndex>,
) {
    index.pending.insert(event.event_target());
}
