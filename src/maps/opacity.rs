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
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::changes::ChangeLog;
use crate::maps::layers::{LayerEpoch, LayerOf};
use crate::maps::map_density::MapDensity;
use crate::maps::placed::{Placed, PlacedMoves};
use crate::maps::placement::{Grid, PlaceProblem, grid_of};
use crate::staggered;
use viewshed_core::density::DensityGrid;
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
#[require(crate::maps::placed::Placed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Opaque;

/// The opacity of one map, kept on its root tilemap entity by the plugin.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// fn is_wall(maps: Query<&MapOpacity>, map: Single<Entity, With<TileStorage>>) {
///     let opacity = maps.get(*map).unwrap();
///     let _ = opacity.is_opaque(TilePos { x: 3, y: 4 });
/// }
/// ```
///
/// It is `Reflect` as an opaque value (an inspector shows its `Debug` form); the plugin keeps
/// it, so read it through its methods. One a game inserts (another map's, cloned or
/// reflected, or a scene's) is built again from the map's own walls at the next update; one
/// written in place is not.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
pub struct MapOpacity {
    grid: OpacityGrid,
    /// How many opaque entities stand on each cell, plus one where the game's
    /// `OpaqueCells` paint it, also cells outside the current size (so that shrinking and
    /// growing a map back loses nothing).
    counts: HashMap<(u32, u32), u32>,
    /// The cells the game's `OpaqueCells` paint opaque, each counted once in `counts`.
    painted: HashSet<(u32, u32)>,
    /// Versions and the latest changed cells (tile coordinates).
    changes: ChangeLog,
    /// Which field of view the map's grid gets (from its `TilemapType`).
    kind: Grid,
    /// The map's size in tiles (a staggered map's grid is larger: see [`staggered`]).
    size: TilemapSize,
    /// How dense each tile is ([`Density`](super::density::Density) entities and
    /// [`DensityCells`](super::density::DensityCells)), on the same grid.
    density: MapDensity,
}

impl MapOpacity {
    pub(super) fn new(size: TilemapSize, kind: Grid) -> Self {
        let mut opacity = Self { kind, ..default() };
        opacity.rebuild(size);
        opacity
    }

    /// Makes the grid anew for `size` and the map's kind from the opaque entities counted.
    fn rebuild(&mut self, size: TilemapSize) {
        self.size = size;
        self.grid = match self.kind {
            Grid::Staggered => staggered::diamond_grid(size),
            Grid::Square | Grid::Hex(_) => OpacityGrid::new(size.x, size.y),
        };
        let cells: Vec<(u32, u32)> = self.counts.keys().filter_map(|&c| self.cell(c)).collect();
        for (x, y) in cells {
            self.grid.set_opaque(x, y, true);
        }
        let (kind, cells) = (self.kind, (self.grid.width(), self.grid.height()));
        self.density
            .rebuild(cells, |tile| cell_of(kind, size, tile));
        self.changes.reset();
    }

    /// The grid cell of a tile: the tile itself, or its diamond cell on a staggered map
    /// (none for a tile off a staggered map, whose grid has no room for it).
    fn cell(&self, tile: (u32, u32)) -> Option<(u32, u32)> {
        cell_of(self.kind, self.size, tile)
    }

    /// Follows a change of the map's `TilemapType`.
    pub(super) fn set_kind(&mut self, kind: Grid) {
        if kind != self.kind {
            self.kind = kind;
            self.rebuild(self.size);
        }
    }

    /// The map's size in tiles.
    pub(crate) fn size(&self) -> TilemapSize {
        self.size
    }

    /// Which field of view the map's grid gets.
    pub(crate) fn kind(&self) -> Grid {
        self.kind
    }

    /// The bit-packed grid the FOV is computed on: cell `(x, y)` is tile `(x, y)`, except on a
    /// staggered isometric map, whose tile `(x, y)` is cell `(x, x + y)` of a diamond grid
    /// (use [`is_opaque`](Self::is_opaque) to ask about a tile on any map).
    pub fn grid(&self) -> &OpacityGrid {
        &self.grid
    }

    /// Whether `tile` blocks sight (tiles outside the map do).
    pub fn is_opaque(&self, tile: TilePos) -> bool {
        self.cell((tile.x, tile.y))
            .is_none_or(|(x, y)| self.grid.is_opaque(x, y))
    }

    /// How dense `tile` is, as the field of view takes it: the sum of its
    /// [`Density`](super::density::Density) entities and
    /// [`DensityCells`](super::density::DensityCells), in 1/1024ths rounded up, at most 1 (0
    /// off the map). See [`viewshed_core::density`] for the rule.
    pub fn density(&self, tile: TilePos) -> f32 {
        self.cell((tile.x, tile.y))
            .map_or(0.0, |(x, y)| self.density.grid().density(x, y))
    }

    /// The density of every cell of [`grid`](Self::grid), as the field of view is thinned
    /// with it.
    pub fn density_grid(&self) -> &DensityGrid {
        self.density.grid()
    }

    /// Adds (or, `add` false, takes away) the units of a `Density` entity on `tile`.
    pub(super) fn add_density(&mut self, tile: (u32, u32), units: u32, add: bool) {
        let cell = self.cell(tile);
        if self.density.add_entity(tile, units, add, cell) {
            self.changes.note_change(tile);
        }
    }

    /// Paints the units of `cells` (by tile), and none on the tiles painted before and not now.
    pub(super) fn paint_density(&mut self, cells: &HashMap<(u32, u32), u16>) {
        let gone: Vec<(u32, u32)> = self
            .density
            .painted()
            .filter(|tile| !cells.contains_key(tile))
            .collect();
        let painted = gone.into_iter().map(|tile| (tile, 0));
        for (tile, units) in painted.chain(cells.iter().map(|(&tile, &units)| (tile, units))) {
            let cell = self.cell(tile);
            if self.density.paint(tile, units, cell) {
                self.changes.note_change(tile);
            }
        }
    }

    /// How many [`Opaque`] entities stand on `tile`.
    pub fn opaque_entities_at(&self, tile: TilePos) -> u32 {
        let cell = (tile.x, tile.y);
        let counted = self.counts.get(&cell).copied().unwrap_or(0);
        counted - u32::from(self.painted.contains(&cell))
    }

    /// The version of the grid: it grows with every change.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    /// Whether opacity changed after version `since` on a tile for which `in_reach` holds
    /// (tiles beyond a view's reach cannot change what is seen inside it).
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn((u32, u32)) -> bool) -> bool {
        self.changes.changed_within(since, in_reach)
    }

    /// The tiles whose opacity changed after version `since` (`None`: not all known any
    /// more, see [`ChangeLog::changes_since`](crate::changes::ChangeLog::changes_since)).
    pub(crate) fn changes_since(&self, since: u64) -> Option<impl Iterator<Item = (u32, u32)>> {
        self.changes.changes_since(since)
    }

    fn resize(&mut self, size: TilemapSize) {
        if size != self.size {
            self.rebuild(size);
        }
    }

    /// Paints `cells` opaque, and no longer the cells painted before and not now.
    pub(super) fn paint(&mut self, cells: HashSet<(u32, u32)>) {
        let gone: Vec<(u32, u32)> = self.painted.difference(&cells).copied().collect();
        let new: Vec<(u32, u32)> = cells.difference(&self.painted).copied().collect();
        for cell in gone {
            self.remove(cell);
        }
        for cell in new {
            self.add(cell);
        }
        self.painted = cells;
    }

    fn add(&mut self, cell: (u32, u32)) {
        let count = self.counts.entry(cell).or_insert(0);
        *count += 1;
        if *count == 1
            && let Some((x, y)) = self.cell(cell)
            && self.grid.set_opaque(x, y, true)
        {
            self.changes.note_change(cell);
        }
    }

    fn remove(&mut self, cell: (u32, u32)) {
        let Some(count) = self.counts.get_mut(&cell) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.counts.remove(&cell);
            if let Some((x, y)) = self.cell(cell)
                && self.grid.set_opaque(x, y, false)
            {
                self.changes.note_change(cell);
            }
        }
    }
}

/// The grid cell of a tile on a map of this kind and size: the tile itself, or its diamond
/// cell on a staggered map (none for a tile off a staggered map, whose grid has no room for it).
fn cell_of(kind: Grid, size: TilemapSize, (x, y): (u32, u32)) -> Option<(u32, u32)> {
    match kind {
        Grid::Staggered => (x < size.x && y < size.y).then(|| staggered::to_diamond((x, y))),
        Grid::Square | Grid::Hex(_) => Some((x, y)),
    }
}

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
    /// Maps `track_maps` is giving their first `MapOpacity`.
    own: EntityHashSet,
    /// Maps that were given a `MapOpacity` by someone else (a game's copy of another map's),
    /// to build again from their own walls.
    replaced: Vec<Entity>,
}

impl OpaqueIndex {
    /// The maps given a `MapOpacity` by someone else since the last call.
    pub(super) fn take_replaced(&mut self) -> Vec<Entity> {
        std::mem::take(&mut self.replaced)
    }

    /// Whether some map was given a `MapOpacity` by someone else.
    pub(super) fn any_replaced(index: Res<Self>) -> bool {
        !index.replaced.is_empty()
    }

    /// `map`'s opacity was made anew: its opaque entities count nowhere until they are all
    /// placed again at the next sync.
    pub(super) fn forget_map(&mut self, map: Entity) {
        self.placed.retain(|_, &mut (on, _)| on != map);
        self.relink = true;
    }
}

/// A `MapOpacity` was inserted on `map`: the one `track_maps` gives a new map, or another
/// value (a game's clone of another map's, a reflected copy, a scene's), which is built again
/// from the map's own walls before the opaque entities are placed.
pub(super) fn on_opacity_inserted(event: On<Insert, MapOpacity>, mut index: ResMut<OpaqueIndex>) {
    if !index.own.remove(&event.entity) {
        index.replaced.push(event.entity);
    }
}

/// Gives every root tilemap a [`MapOpacity`] and keeps it sized like the tilemap; takes it
/// from tilemaps that became layers or stopped being tilemaps.
pub(super) fn track_maps(
    mut commands: Commands,
    new_maps: Query<
        (Entity, &TilemapSize, Option<&TilemapType>),
        (Without<MapOpacity>, Without<LayerOf>, With<TileStorage>),
    >,
    mut resized: Query<(&TilemapSize, &mut MapOpacity), Changed<TilemapSize>>,
    stale: Query<
        Entity,
        (
            With<MapOpacity>,
            Or<(With<LayerOf>, Without<TilemapSize>, Without<TileStorage>)>,
        ),
    >,
    mut index: ResMut<OpaqueIndex>,
) {
    for (map, size, map_type) in &new_maps {
        let kind = map_type.map(grid_of).unwrap_or_default();
        index.own.insert(map);
        commands.entity(map).insert(MapOpacity::new(*size, kind));
        // Opaque entities may have been placed on this tilemap before it was one.
        index.relink = true;
    }
    for (size, mut opacity) in &mut resized {
        opacity.resize(*size);
    }
    for map in &stale {
        // A root tilemap became a layer (its opacity now belongs to its root) or is no
        // longer a tilemap.
        commands.entity(map).remove::<MapOpacity>();
        index.relink = true;
    }
}

/// Keeps each map's field of view in step with its `TilemapType` (square, hexagonal or
/// staggered isometric), read when it becomes a map and when its type changes.
pub(super) fn follow_map_types(
    mut maps: Query<(&TilemapType, &mut MapOpacity), Or<(Changed<TilemapType>, Added<MapOpacity>)>>,
) {
    for (map_type, mut opacity) in &mut maps {
        let kind = grid_of(map_type);
        if opacity.kind != kind {
            opacity.set_kind(kind);
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
