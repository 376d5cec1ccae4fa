//! Which viewers may see a tile: a copy of every view, filed under the 8x8-tile buckets of
//! its map that its window overlaps. The sightings keep it from the views they compare, so a
//! target that moves is judged against the views whose window may hold its tile, read from
//! here without looking the viewers up, and a game without targets pays nothing for it.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::support::buckets::MapBuckets;
use viewshed_core::visible::{VisibleSet, Window};

/// The side of a bucket, in tiles: a radius-8 view's window spans 3x3 buckets, and a moved
/// target is judged against the views filed under the bucket of 64 tiles it left or reached.
const BUCKET: u32 = 8;

/// A window over more buckets than this (128x128 tiles) is filed once, as seeing anywhere on
/// its map.
const WIDE: u32 = 256;

/// A view as the sightings last judged it.
pub(super) struct FiledView {
    /// Whose view.
    pub(crate) viewer: Entity,
    /// Its map.
    map: Entity,
    /// What it saw (a copy of its `Viewshed`'s set).
    pub(crate) visible: VisibleSet,
    /// The judging round in which it was last filed (a view filed in the current round was
    /// recomputed, and judged whole).
    filed_in: u64,
}

/// The views by bucket of their window.
pub(super) struct ViewerIndex {
    /// The views, by slot (a slot freed by a viewer that left is given to the next one).
    views: Vec<FiledView>,
    free: Vec<u32>,
    /// Each viewer's slot.
    slots: EntityHashMap<u32>,
    /// The slots of the views of each map, by bucket.
    maps: MapBuckets<Vec<u32>>,
    /// Whether every viewer with a view is filed (the index is dropped while no target
    /// exists, and built again from every view when one appears).
    pub(super) complete: bool,
    /// The current judging round.
    round: u64,
}

impl Default for ViewerIndex {
    fn default() -> Self {
        Self {
            views: Vec::new(),
            free: Vec::new(),
            slots: EntityHashMap::default(),
            maps: MapBuckets::new(BUCKET),
            complete: false,
            round: 0,
        }
    }
}

impl ViewerIndex {
    /// Forgets every viewer.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    /// A new judging round begins: the views filed from now on are this round's.
    pub(super) fn next_round(&mut self) {
        self.round += 1;
    }

    /// The view of `viewer` as filed (as last judged), and its map.
    pub(super) fn view_of(&self, viewer: Entity) -> Option<(Entity, &VisibleSet)> {
        let view = &self.views[*self.slots.get(&viewer)? as usize];
        Some((view.map, &view.visible))
    }

    /// `viewer` was recomputed: judged whole from its views in this round (its filing is
    /// refreshed at the end of it), not from the targets that moved.
    pub(super) fn mark_recomputed(&mut self, viewer: Entity) {
        if let Some(&slot) = self.slots.get(&viewer) {
            self.views[slot as usize].filed_in = self.round;
        }
    }

    /// Files `viewer` as seeing `visible` on `map` (`None`: nowhere).
    pub(crate) fn file(&mut self, viewer: Entity, now: Option<(Entity, &VisibleSet)>) {
        let slot = self.slots.get(&viewer).copied();
        if let Some(slot) = slot {
            let view = &self.views[slot as usize];
            let grid = self.maps.get(view.map);
            let range = |window| grid.and_then(|grid| grid.range_of(window));
            let (old, new) = (view.visible.window(), now.map(|(_, v)| v.window()));
            let same_lists =
                now.is_some_and(|(map, _)| map == view.map) && new.map(range) == Some(range(old));
            if same_lists && let Some((_, visible)) = now {
                let view = &mut self.views[slot as usize];
                view.visible.clone_from(visible);
                view.filed_in = self.round;
                return;
            }
            let (map, window) = (view.map, old);
            self.each_list(map, window, |list| {
                if let Some(at) = list.iter().position(|&filed| filed == slot) {
                    list.swap_remove(at);
                }
            });
        }
        let Some((map, visible)) = now else {
            if let Some(slot) = slot {
                self.slots.remove(&viewer);
                self.views[slot as usize].visible = VisibleSet::new();
                self.free.push(slot);
            }
            return;
        };
        let slot = slot.unwrap_or_else(|| self.new_slot(viewer));
        let view = &mut self.views[slot as usize];
        view.map = map;
        view.visible.clone_from(visible);
        view.filed_in = self.round;
        self.each_list(map, visible.window(), |list| list.push(slot));
    }

    /// A slot for a viewer filed for the first time.
    fn new_slot(&mut self, viewer: Entity) -> u32 {
        let view = FiledView {
            viewer,
            map: Entity::PLACEHOLDER,
            visible: VisibleSet::new(),
            filed_in: self.round,
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.views[slot as usize] = view;
                slot
            }
            None => {
                self.views.push(view);
                (self.views.len() - 1) as u32
            }
        };
        self.slots.insert(viewer, slot);
        slot
    }

    /// Calls `f` with each list a view within `window` of `map` is filed in.
    fn each_list(&mut self, map: Entity, window: Window, f: impl FnMut(&mut Vec<u32>)) {
        let grid = self.maps.grid_mut(map);
        if let Some(range) = grid.range_of(window) {
            grid.each_list_mut(range, WIDE, f);
        }
    }

    /// Calls `f` with each viewer not recomputed in this round (nor `skip`) whose view of `map`
    /// holds one of the tiles `before` and `at` but not the other, and whether it holds `at`
    /// (a viewer may come twice when the tiles lie in two buckets).
    pub(super) fn for_each_turned(
        &self,
        map: Entity,
        (before, at): (Option<TilePos>, Option<TilePos>),
        skip: Entity,
        mut f: impl FnMut(Entity, bool),
    ) {
        let Some(grid) = self.maps.get(map) else {
            return;
        };
        let holds = |view: &VisibleSet, tile: Option<TilePos>| {
            tile.is_some_and(|tile| view.contains(tile.x, tile.y))
        };
        let mut visit = |list: &[u32]| {
            for &slot in list {
                let view = &self.views[slot as usize];
                if view.filed_in == self.round || view.viewer == skip {
                    continue;
                }
                let now = holds(&view.visible, at);
                if holds(&view.visible, before) != now {
                    f(view.viewer, now);
                }
            }
        };
        let bucket = |tile: TilePos| grid.bucket_of((tile.x, tile.y));
        let (first, second) = (before.map(bucket), at.map(bucket));
        for bucket in first
            .into_iter()
            .chain(second.filter(|&b| Some(b) != first))
        {
            if let Some(list) = grid.list(bucket) {
                visit(list);
            }
        }
        visit(grid.wide());
    }

    /// Calls `f` with each viewer whose view of `map` holds `tile`.
    pub(super) fn for_each_seeing(&self, map: Entity, tile: TilePos, mut f: impl FnMut(Entity)) {
        let Some(grid) = self.maps.get(map) else {
            return;
        };
        let list = grid.list(grid.bucket_of((tile.x, tile.y)));
        for &slot in list.into_iter().flatten().chain(grid.wide()) {
            let view = &self.views[slot as usize];
            if view.visible.contains(tile.x, tile.y) {
                f(view.viewer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view of the whole `width` x `height` window at `(x, y)`.
    fn view(x: u32, y: u32, width: u32, height: u32) -> VisibleSet {
        let window = Window {
            x,
            y,
            width,
            height,
        };
        let stride = width.div_ceil(64) as usize;
        let mut words = vec![u64::MAX; stride * height as usize];
        for row in words.chunks_mut(stride) {
            if !width.is_multiple_of(64) {
                row[stride - 1] = (1 << (width % 64)) - 1;
            }
        }
        VisibleSet::from_words(window, words).unwrap()
    }

    #[test]
    fn views_are_found_by_the_tiles_they_hold_and_follow_their_viewers() {
        let (map, a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
            Entity::from_raw_u32(3).unwrap(),
        );
        let tile = |x, y| TilePos::new(x, y);
        let mut index = ViewerIndex::default();
        index.file(a, Some((map, &view(10, 10, 17, 17))));
        index.file(b, Some((map, &view(0, 0, 2000, 2000))));
        let seeing = |index: &ViewerIndex, at: TilePos| {
            let mut found = Vec::new();
            index.for_each_seeing(map, at, |viewer| found.push(viewer));
            found.sort();
            found
        };
        let turned = |index: &ViewerIndex, from: TilePos, to: TilePos| {
            let mut found = Vec::new();
            index.for_each_turned(
                map,
                (Some(from), Some(to)),
                Entity::PLACEHOLDER,
                |v, now| {
                    found.push((v, now));
                },
            );
            found.sort();
            found.dedup();
            found
        };
        let mut both = vec![a, b];
        both.sort();
        assert_eq!(seeing(&index, tile(26, 26)), both);
        assert_eq!(seeing(&index, tile(27, 26)), vec![b]);
        // A target stepping out of a's view and into it again; b sees both tiles.
        index.next_round();
        assert_eq!(turned(&index, tile(26, 26), tile(27, 26)), vec![(a, false)]);
        assert_eq!(turned(&index, tile(27, 26), tile(26, 26)), vec![(a, true)]);
        index.file(a, Some((map, &view(40, 40, 3, 3))));
        assert_eq!(seeing(&index, tile(26, 26)), vec![b]);
        assert_eq!(seeing(&index, tile(41, 42)), both);
        // A viewer recomputed in this round is judged from its views, not here.
        index.next_round();
        index.mark_recomputed(a);
        assert!(turned(&index, tile(41, 42), tile(50, 50)).is_empty());
        index.file(a, None);
        index.file(b, Some((map, &VisibleSet::new())));
        assert!(seeing(&index, tile(41, 42)).is_empty());
        assert!(index.maps.get(map).unwrap().lists().all(Vec::is_empty));
        // A slot freed is given to the next viewer.
        let c = Entity::from_raw_u32(4).unwrap();
        index.file(c, Some((map, &view(5, 5, 2, 2))));
        assert_eq!(index.views.len(), 2);
        assert_eq!(seeing(&index, tile(6, 6)), vec![c]);
        // A view far beyond what a grid of buckets holds is filed as wide, and still found.
        index.file(c, Some((map, &view(100_000, 90_000, 3, 3))));
        assert_eq!(seeing(&index, tile(100_001, 90_002)), vec![c]);
        assert!(seeing(&index, tile(6, 6)).is_empty());
    }
}
