//! The first step of a frame: where every entity that others look for stands. A
//! [`Spottable`](crate::Spottable), [`HideOutsideView`](crate::HideOutsideView) or
//! [`RememberWhenSeen`](crate::RememberWhenSeen) entity gets a [`Placed`], written by
//! `place_entities` only when its map or tile changes, so later steps find what moved with
//! `Changed<Placed>` and what stands near a tile in the `PlacedIndex`, and never work out a
//! placement themselves.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::maps::layers::LayerEpoch;
use crate::maps::placement::Placement;
use viewshed_core::bits::{BitRows, low_bits};
use viewshed_core::visible::Window;

/// The side of a bucket of the [`PlacedIndex`], in tiles.
const BUCKET: u32 = 8;

/// Where an entity stands: its map (the root tilemap of its `TilemapId`) and tile, from its
/// `TilePos` or, failing that, its `GlobalTransform` and the tilemap's geometry. The plugin
/// writes it in [`ViewshedSystems::SyncOpacity`](crate::ViewshedSystems::SyncOpacity), and only
/// when it changes, so `Changed<Placed>` tells a game which of these entities moved this frame.
///
/// It comes with [`Spottable`](crate::Spottable), [`HideOutsideView`](crate::HideOutsideView),
/// [`RememberWhenSeen`](crate::RememberWhenSeen) and, with the `replicon` feature,
/// `ReplicateWhenSeen`.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::Placed;
/// fn report_moves(moved: Query<(Entity, &Placed), Changed<Placed>>) {
///     for (entity, placed) in &moved {
///         info!("{entity} now stands at {:?}", placed.tile());
///     }
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
pub struct Placed(Option<(Entity, TilePos)>);

impl Placed {
    /// The map (root tilemap) and tile, if the entity stands anywhere.
    pub fn get(&self) -> Option<(Entity, TilePos)> {
        self.0
    }

    /// The map (root tilemap) the entity stands on.
    pub fn map(&self) -> Option<Entity> {
        self.0.map(|(map, _)| map)
    }

    /// The tile the entity stands on.
    pub fn tile(&self) -> Option<TilePos> {
        self.0.map(|(_, tile)| tile)
    }

    /// Whether the entity stands on `tile` of `map`.
    pub fn is_at(&self, map: Entity, tile: TilePos) -> bool {
        self.0 == Some((map, tile))
    }
}

/// Every [`Placed`] entity by map and 8x8-tile bucket, so that later steps visit the entities
/// near a view or a changed tile, not every entity.
#[derive(Resource, Default)]
pub(crate) struct PlacedIndex {
    buckets: HashMap<(Entity, u32, u32), Vec<(Entity, TilePos)>>,
}

impl PlacedIndex {
    fn bucket(at: Option<(Entity, TilePos)>) -> Option<(Entity, u32, u32)> {
        at.map(|(map, tile)| (map, tile.x / BUCKET, tile.y / BUCKET))
    }

    /// `entity` moved from `from` to `to` (`None`: nowhere).
    fn moved(
        &mut self,
        entity: Entity,
        from: Option<(Entity, TilePos)>,
        to: Option<(Entity, TilePos)>,
    ) {
        let (from_bucket, to_bucket) = (Self::bucket(from), Self::bucket(to));
        if let Some(key) = from_bucket
            && let Some(entities) = self.buckets.get_mut(&key)
            && let Some(at) = entities.iter().position(|&(e, _)| e == entity)
        {
            if let (true, Some((_, tile))) = (from_bucket == to_bucket, to) {
                entities[at].1 = tile;
                return;
            }
            entities.swap_remove(at);
            if entities.is_empty() {
                self.buckets.remove(&key);
            }
        }
        if let (Some(key), Some((_, tile))) = (to_bucket, to) {
            self.buckets.entry(key).or_default().push((entity, tile));
        }
    }

    /// The entities filed under the buckets of `map` that overlap `window`, with their tiles
    /// (some may stand outside the window).
    pub(crate) fn near(
        &self,
        map: Entity,
        window: Window,
    ) -> impl Iterator<Item = (Entity, TilePos)> + '_ {
        let (x0, y0) = (window.x / BUCKET, window.y / BUCKET);
        let last = |from: u32, side: u32| from.saturating_add(side.max(1) - 1) / BUCKET;
        let (x1, y1) = (last(window.x, window.width), last(window.y, window.height));
        let empty = window.width == 0 || window.height == 0;
        (y0..=y1)
            .filter(move |_| !empty)
            .flat_map(move |by| (x0..=x1).map(move |bx| (map, bx, by)))
            .filter_map(|key| self.buckets.get(&key))
            .flatten()
            .copied()
    }

    /// Every entity filed under `map`.
    pub(crate) fn on_map(&self, map: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.buckets
            .iter()
            .filter(move |((m, ..), _)| *m == map)
            .flat_map(|(_, entities)| entities.iter().map(|&(entity, _)| entity))
    }
}

/// Entities to place again whatever their change ticks say: re-enabled, or they lost their
/// `TilePos` or `TilemapId`.
#[derive(Resource, Default)]
pub(crate) struct PlaceAgain(EntityHashSet);

/// Works out where every [`Placed`] entity stands when anything it depends on changed: its
/// `TilePos`, `TilemapId` or `GlobalTransform`, layers (every root may have changed), or any
/// tilemap's geometry (size, type, transform, grid).
pub(crate) fn place_entities(
    mut entities: Query<(
        Entity,
        Option<Ref<TilePos>>,
        Option<Ref<TilemapId>>,
        Option<Ref<GlobalTransform>>,
        &mut Placed,
    )>,
    maps: Query<
        (),
        (
            With<TilemapSize>,
            Or<(
                Changed<TilemapSize>,
                Changed<TilemapType>,
                Changed<GlobalTransform>,
                Changed<TilemapGridSize>,
                Changed<TilemapTileSize>,
                Changed<TilemapAnchor>,
            )>,
        ),
    >,
    mut gone_maps: RemovedComponents<TilemapSize>,
    (epoch, mut seen_epoch): (Res<LayerEpoch>, Local<u64>),
    (mut again, mut index): (ResMut<PlaceAgain>, ResMut<PlacedIndex>),
    placement: Placement,
) {
    let layers = epoch.changed_since(&mut seen_epoch);
    let maps_changed = !maps.is_empty() | (gone_maps.read().count() > 0);
    let all = layers || maps_changed;
    let again = std::mem::take(&mut again.0);
    // Nearly always empty: no lookup per entity then.
    let again = |entity: &Entity| !again.is_empty() && again.contains(entity);
    for (entity, tile, tilemap, transform, mut placed) in &mut entities {
        let by_transform = tile.is_none();
        let moved = all
            || placed.is_added()
            || tile.as_ref().is_some_and(DetectChanges::is_changed)
            || tilemap.as_ref().is_some_and(DetectChanges::is_changed)
            || (by_transform && transform.as_ref().is_some_and(DetectChanges::is_changed))
            || again(&entity);
        if !moved {
            continue;
        }
        let now = placement
            .locate(tile.as_deref(), tilemap.as_deref(), transform.as_deref())
            .ok();
        let was = placed.0;
        if placed.set_if_neq(Placed(now)) || again(&entity) {
            index.moved(entity, was, now);
            // A re-enabled entity counts as moved, wherever it stands.
            placed.set_changed();
        }
    }
}

/// An entity that others look for was re-enabled, or lost its `TilePos` or `TilemapId`: it is
/// placed again at the next update (`C` is the component of the lifecycle event `E`).
pub(crate) fn place_again<E: EntityEvent, C: Component>(
    event: On<E, C>,
    placed: Query<(), (With<Placed>, Allow<Disabled>)>,
    mut again: ResMut<PlaceAgain>,
) {
    if placed.contains(event.event_target()) {
        again.0.insert(event.event_target());
    }
}

/// A [`Placed`] was inserted (by the plugin or a game): it is filed where it says.
pub(crate) fn on_placed_inserted(
    event: On<Insert, Placed>,
    placed: Query<&Placed, Allow<Disabled>>,
    mut index: ResMut<PlacedIndex>,
) {
    if let Ok(placed) = placed.get(event.entity) {
        index.moved(event.entity, None, placed.0);
    }
}

/// A [`Placed`] is about to be replaced or removed (the entity may be despawned): it is
/// filed nowhere.
pub(crate) fn on_placed_discarded(
    event: On<Discard, Placed>,
    placed: Query<&Placed, Allow<Disabled>>,
    mut index: ResMut<PlacedIndex>,
) {
    if let Ok(placed) = placed.get(event.entity) {
        index.moved(event.entity, placed.0, None);
    }
}

impl PlacedIndex {
    /// The entities filed under the buckets of `map` that hold a tile whose bit is set in
    /// `tiles` (some may stand on a tile whose bit is clear: callers check).
    pub(crate) fn touched_by(&self, map: Entity, tiles: &BitRows) -> Vec<Entity> {
        let mut found = Vec::new();
        for (&(on, bx, by), entities) in &self.buckets {
            let (x0, y0) = (bx * BUCKET, by * BUCKET);
            // A bucket lies within one word of each row (BUCKET divides 64).
            let (word, shift) = ((x0 / 64) as usize, x0 % 64);
            let touched = |y| {
                let row = tiles.row(y);
                row.get(word)
                    .is_some_and(|w| (w >> shift) & low_bits(BUCKET) != 0)
            };
            if on == map && (y0..(y0 + BUCKET).min(tiles.rows())).any(touched) {
                found.extend(entities.iter().map(|&(entity, _)| entity));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(n: u32) -> Entity {
        Entity::from_raw_u32(n).unwrap()
    }

    fn at(map: Entity, x: u32, y: u32) -> Option<(Entity, TilePos)> {
        Some((map, TilePos::new(x, y)))
    }

    #[test]
    fn entities_are_found_near_windows_and_changed_tiles_and_follow_their_moves() {
        let (map, other, a, b) = (entity(1), entity(2), entity(3), entity(4));
        let mut index = PlacedIndex::default();
        index.moved(a, None, at(map, 5, 5));
        index.moved(b, None, at(map, 40, 3));
        let window = |x, y, width, height| Window {
            x,
            y,
            width,
            height,
        };
        let near = |index: &PlacedIndex, w| {
            let mut found: Vec<Entity> = index.near(map, w).map(|(e, _)| e).collect();
            found.sort();
            found
        };
        assert_eq!(near(&index, window(0, 0, 17, 17)), vec![a]);
        let mut both = vec![a, b];
        both.sort();
        assert_eq!(near(&index, window(0, 0, 41, 6)), both);
        assert!(near(&index, window(0, 0, 0, 0)).is_empty());
        assert!(index.near(other, window(0, 0, 64, 64)).next().is_none());
        let mut tiles = BitRows::new(64, 64);
        tiles.set(2, 47);
        assert_eq!(index.touched_by(map, &tiles), vec![b]);
        tiles.set(7, 7);
        let mut touched = index.touched_by(map, &tiles);
        touched.sort();
        assert_eq!(touched, both);
        // A move within a bucket, then out of it, then onto another map, then nowhere.
        index.moved(a, at(map, 5, 5), at(map, 6, 5));
        index.moved(a, at(map, 6, 5), at(map, 20, 5));
        assert_eq!(near(&index, window(0, 0, 16, 16)), Vec::<Entity>::new());
        index.moved(a, at(map, 20, 5), at(other, 1, 1));
        assert_eq!(index.on_map(other).collect::<Vec<_>>(), vec![a]);
        assert_eq!(index.on_map(map).collect::<Vec<_>>(), vec![b]);
        index.moved(a, at(other, 1, 1), None);
        index.moved(b, at(map, 40, 3), None);
        assert!(index.buckets.is_empty());
    }
}
