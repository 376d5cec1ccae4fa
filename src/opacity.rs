//! Keeps each map's bit-packed opacity grid in step with the [`Opaque`] entities on it.
//!
//! The grid lives in a [`MapOpacity`] component on the root tilemap entity (a tilemap without
//! [`LayerOf`]). Inserting or removing `Opaque`, moving an opaque entity (`TilePos` or
//! `TilemapId` changed), despawning it, and resizing the tilemap (`TilemapSize` changed) all
//! update the grid and record which cells changed, so that only the viewers whose reach
//! covers them are recomputed.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::components::{LayerOf, Opaque};
use crate::grid::OpacityGrid;
use crate::options::{DistanceShape, Radius};

/// Beyond this many changed cells in one update, every viewer of the map is recomputed
/// instead of checking each cell against each viewer.
const MAX_TRACKED_CHANGES: usize = 1024;

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
#[derive(Component, Debug, Default)]
pub struct MapOpacity {
    grid: OpacityGrid,
    /// How many opaque entities stand on each cell, also cells outside the current size
    /// (so that shrinking and growing a map back loses nothing).
    counts: HashMap<(u32, u32), u32>,
    /// Cells whose opacity changed since viewers were last brought up to date.
    changed: Vec<(u32, u32)>,
    /// Everything may have changed: every viewer of the map recomputes.
    all_changed: bool,
}

impl MapOpacity {
    fn new(size: TilemapSize) -> Self {
        Self {
            grid: OpacityGrid::new(size.x, size.y),
            all_changed: true,
            ..default()
        }
    }

    /// The bit-packed grid the FOV is computed on.
    pub fn grid(&self) -> &OpacityGrid {
        &self.grid
    }

    /// Whether `tile` blocks sight (tiles outside the map do).
    pub fn is_opaque(&self, tile: TilePos) -> bool {
        self.grid.is_opaque(tile.x, tile.y)
    }

    /// How many [`Opaque`] entities stand on `tile`.
    pub fn opaque_entities_at(&self, tile: TilePos) -> u32 {
        self.counts.get(&(tile.x, tile.y)).copied().unwrap_or(0)
    }

    /// Whether opacity changed since the last recomputation anywhere within `radius` of
    /// `origin` in `shape` (cells beyond the radius cannot change what is seen inside it).
    pub(crate) fn changed_within(
        &self,
        origin: (u32, u32),
        radius: Radius,
        shape: DistanceShape,
    ) -> bool {
        if self.all_changed {
            return true;
        }
        self.changed.iter().any(|&(x, y)| match radius {
            Radius::Unlimited => true,
            Radius::Limited(r) => shape.contains(
                i64::from(x) - i64::from(origin.0),
                i64::from(y) - i64::from(origin.1),
                r,
            ),
        })
    }

    /// Whether anything changed since the last recomputation.
    pub(crate) fn has_changes(&self) -> bool {
        self.all_changed || !self.changed.is_empty()
    }

    /// Forgets the changes once every viewer has seen them.
    pub(crate) fn clear_changes(&mut self) {
        self.changed.clear();
        self.all_changed = false;
    }

    fn resize(&mut self, size: TilemapSize) {
        if (size.x, size.y) == (self.grid.width(), self.grid.height()) {
            return;
        }
        self.grid = OpacityGrid::new(size.x, size.y);
        for (&(x, y), _) in self.counts.iter() {
            self.grid.set_opaque(x, y, true);
        }
        self.all_changed = true;
        self.changed.clear();
    }

    fn add(&mut self, cell: (u32, u32)) {
        let count = self.counts.entry(cell).or_insert(0);
        *count += 1;
        if *count == 1 && self.grid.set_opaque(cell.0, cell.1, true) {
            self.note_change(cell);
        }
    }

    fn remove(&mut self, cell: (u32, u32)) {
        let Some(count) = self.counts.get_mut(&cell) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.counts.remove(&cell);
            if self.grid.set_opaque(cell.0, cell.1, false) {
                self.note_change(cell);
            }
        }
    }

    fn note_change(&mut self, cell: (u32, u32)) {
        if self.all_changed {
            return;
        }
        if self.changed.len() >= MAX_TRACKED_CHANGES {
            self.all_changed = true;
            self.changed.clear();
        } else {
            self.changed.push(cell);
        }
    }
}

/// Where each registered [`Opaque`] entity counts: its map (root tilemap) and cell.
#[derive(Resource, Debug, Default)]
pub(crate) struct OpaqueIndex {
    placed: EntityHashMap<(Entity, (u32, u32))>,
    /// Opaque entities already warned about having no tile.
    warned: EntityHashSet,
    /// A tilemap became or stopped being a layer: every opaque entity is placed anew.
    relink: bool,
}

/// The root tilemap of `tilemap`: itself, or the map it is a [`LayerOf`].
pub(crate) fn root_of(tilemap: Entity, layers: &Query<&LayerOf>) -> Entity {
    let mut map = tilemap;
    // Layers of layers are followed a few steps; a cycle just stops there.
    for _ in 0..8 {
        match layers.get(map) {
            Ok(layer) if layer.0 != map => map = layer.0,
            _ => break,
        }
    }
    map
}

/// Gives every root tilemap a [`MapOpacity`] and keeps it sized like the tilemap.
pub(crate) fn track_maps(
    mut commands: Commands,
    new_maps: Query<(Entity, &TilemapSize), (Without<MapOpacity>, Without<LayerOf>)>,
    mut resized: Query<(&TilemapSize, &mut MapOpacity), Changed<TilemapSize>>,
    mut stale: Query<Entity, (With<MapOpacity>, With<LayerOf>)>,
    mut index: ResMut<OpaqueIndex>,
) {
    for (map, size) in &new_maps {
        commands.entity(map).insert(MapOpacity::new(*size));
        // Opaque entities may have been placed on this tilemap before it was one.
        index.relink = true;
    }
    for (size, mut opacity) in &mut resized {
        opacity.resize(*size);
    }
    for map in &mut stale {
        // A root tilemap became a layer: its opacity now belongs to its root.
        commands.entity(map).remove::<MapOpacity>();
        index.relink = true;
    }
}

/// Places opaque entities that appeared, moved, or changed tilemap.
pub(crate) fn sync_opaque(
    changed: Query<
        (Entity, Option<&TilePos>, Option<&TilemapId>),
        (
            With<Opaque>,
            Or<(Added<Opaque>, Changed<TilePos>, Changed<TilemapId>)>,
        ),
    >,
    all: Query<(Entity, Option<&TilePos>, Option<&TilemapId>), With<Opaque>>,
    layers: Query<&LayerOf>,
    mut maps: Query<&mut MapOpacity>,
    mut index: ResMut<OpaqueIndex>,
) {
    let index = &mut *index;
    if std::mem::take(&mut index.relink) {
        for (entity, tile, tilemap) in &all {
            place(entity, tile, tilemap, &layers, &mut maps, index);
        }
    } else {
        for (entity, tile, tilemap) in &changed {
            place(entity, tile, tilemap, &layers, &mut maps, index);
        }
    }
}

fn place(
    entity: Entity,
    tile: Option<&TilePos>,
    tilemap: Option<&TilemapId>,
    layers: &Query<&LayerOf>,
    maps: &mut Query<&mut MapOpacity>,
    index: &mut OpaqueIndex,
) {
    let target = match (tile, tilemap) {
        (Some(tile), Some(tilemap)) => {
            let map = root_of(tilemap.0, layers);
            if maps.contains(map) {
                Some((map, (tile.x, tile.y)))
            } else {
                if index.warned.insert(entity) {
                    warn!(
                        "bevy_viewshed: Opaque entity {entity} is on {:?}, which is not a tilemap; \
                         it blocks no sight until it is placed on one",
                        tilemap.0
                    );
                }
                None
            }
        }
        _ => {
            if index.warned.insert(entity) {
                warn!(
                    "bevy_viewshed: Opaque entity {entity} has no TilePos and TilemapId; \
                     it blocks no sight until it gets both"
                );
            }
            None
        }
    };
    let current = index.placed.get(&entity).copied();
    if current == target {
        return;
    }
    if let Some((map, cell)) = current {
        if let Ok(mut opacity) = maps.get_mut(map) {
            opacity.remove(cell);
        }
        index.placed.remove(&entity);
    }
    if let Some((map, cell)) = target {
        if let Ok(mut opacity) = maps.get_mut(map) {
            opacity.add(cell);
        }
        index.placed.insert(entity, (map, cell));
        index.warned.remove(&entity);
    }
}

/// An opaque entity stopped counting: `Opaque` removed, entity despawned, or it lost its
/// `TilePos` or `TilemapId`.
fn unplace(entity: Entity, maps: &mut Query<&mut MapOpacity>, index: &mut OpaqueIndex) {
    index.warned.remove(&entity);
    if let Some((map, cell)) = index.placed.remove(&entity)
        && let Ok(mut opacity) = maps.get_mut(map)
    {
        opacity.remove(cell);
    }
}

pub(crate) fn on_remove_opaque(
    event: On<Remove, Opaque>,
    mut maps: Query<&mut MapOpacity>,
    mut index: ResMut<OpaqueIndex>,
) {
    unplace(event.entity, &mut maps, &mut index);
}

pub(crate) fn on_remove_tile_pos(
    event: On<Remove, TilePos>,
    mut maps: Query<&mut MapOpacity>,
    mut index: ResMut<OpaqueIndex>,
) {
    if index.placed.contains_key(&event.entity) {
        unplace(event.entity, &mut maps, &mut index);
    }
}

pub(crate) fn on_remove_tilemap_id(
    event: On<Remove, TilemapId>,
    mut maps: Query<&mut MapOpacity>,
    mut index: ResMut<OpaqueIndex>,
) {
    if index.placed.contains_key(&event.entity) {
        unplace(event.entity, &mut maps, &mut index);
    }
}

/// A tilemap became or stopped being a layer: opaque entities are placed anew.
pub(crate) fn on_layer_change(_event: On<Insert, LayerOf>, mut index: ResMut<OpaqueIndex>) {
    index.relink = true;
}

pub(crate) fn on_layer_removed(_event: On<Remove, LayerOf>, mut index: ResMut<OpaqueIndex>) {
    index.relink = true;
}
