//! Which viewers may see a tile: a copy of every view, filed under the 8x8-tile buckets of
//! its map that its window overlaps. The sightings keep it from the views they compare, so a
//! target that moves is judged against the views whose window may hold its tile, read from
//! here without looking the viewers up, and a game without targets pays nothing for it.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

use crate::support::buckets::MapBuckets;
use viewshed_core::visible::{VisibleSet, Window};

/// The side of a bucket, in tiles: a radius-8 view's window spans 3x3 buckets, and a moved
/// target is judged against the views filed under the bucket of 64 tiles it left or reached.
const BUCKET: u32 = 8;

/// A window over more buckets than this (128x128 tiles) is filed once, as seeing anywhere on
/// its map.
const WIDE: u32 = 256;

/// A view as the sightings last judged it.
pub(crate) struct FiledView {
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

impl FiledView {
    /// Whether it was filed in the current judging round of `index`.
    pub(crate) fn is_fresh(&self, index: &ViewerIndex) -> bool {
        self.filed_in == index.round
    }
}

/// The views by bucket of their window.
#[derive(Resource)]
pub(crate) struct ViewerIndex {
    /// The views, by slot (a slot freed by a viewer that left is given to the next one).
    views: Vec<FiledView>,
    free: Vec<u32>,
    /// Each viewer's slot.
    slots: EntityHashMap<u32>,
    /// The slots of the views of each map, by bucket.
    maps: MapBuckets<u32>,
    /// Whether every viewer with a view is filed (the index is dropped while no target
    /// exists, and built again from every view when one appears).
    pub(crate) complete: bool,
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
    pub(crate) fn next_round(&mut self) {
        self.round += 1;
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

    /// Calls `f` with the views of `map` whose window holds one of `tiles` (each at most once
    /// per tile's bucket: a view may come twice when the tiles lie in two buckets).
    pub(crate) fn for_each_seeing(
        &self,
        map: Entity,
        tiles: &[(u32, u32)],
        mut f: impl FnMut(&FiledView),
    ) {
        let Some(grid) = self.maps.get(map) else {
            return;
        };
        let mut visit = |list: &[u32]| {
            for &slot in list {
                let view = &self.views[slot as usize];
                let window = view.visible.window();
                if tiles.iter().any(|&tile| holds(window, tile)) {
                    f(view);
                }
            }
        };
        for (i, &tile) in tiles.iter().enumerate() {
            let bucket = grid.bucket_of(tile);
            let met = tiles[..i]
                .iter()
                .any(|&other| grid.bucket_of(other) == bucket);
            if let Some(list) = grid.list(bucket).filter(|_| !met) {
                visit(list);
            }
        }
        visit(grid.wide());
    }
}

fn holds(window: Window, (x, y): (u32, u32)) -> bool {
    x.checked_sub(window.x).is_some_and(|dx| dx < window.width)
        && y.checked_sub(window.y).is_some_and(|dy| dy < window.height)
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
    fn views_are_found_by_the_tiles_their_windows_hold_and_follow_their_viewers() {
        let (map, a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
            Entity::from_raw_u32(3).unwrap(),
        );
        let mut index = ViewerIndex::default();
        index.file(a, Some((map, &view(10, 10, 17, 17))));
        index.file(b, Some((map, &view(0, 0, 2000, 2000))));
        let seeing = |index: &ViewerIndex, tiles: &[(u32, u32)]| {
            let mut found = Vec::new();
            index.for_each_seeing(map, tiles, |view| found.push(view.viewer));
            found.sort();
            found.dedup();
            found
        };
        let mut both = vec![a, b];
        both.sort();
        assert_eq!(seeing(&index, &[(26, 26)]), both);
        assert_eq!(seeing(&index, &[(27, 26)]), vec![b]);
        assert_eq!(seeing(&index, &[(9, 10), (27, 26)]), vec![b]);
        index.file(a, Some((map, &view(40, 40, 3, 3))));
        assert_eq!(seeing(&index, &[(26, 26)]), vec![b]);
        assert_eq!(seeing(&index, &[(41, 42)]), both);
        let mut filed_as_seen = false;
        index.for_each_seeing(map, &[(41, 42)], |view| {
            filed_as_seen |= view.viewer == a && view.visible.contains(41, 42);
        });
        assert!(filed_as_seen);
        index.file(a, None);
        index.file(b, Some((map, &VisibleSet::new())));
        assert!(seeing(&index, &[(41, 42)]).is_empty());
        assert!(index.maps.iter().all(|(_, grid)| grid.is_empty()));
        // A slot freed is given to the next viewer.
        let c = Entity::from_raw_u32(4).unwrap();
        index.file(c, Some((map, &view(5, 5, 2, 2))));
        assert_eq!(index.views.len(), 2);
        assert_eq!(seeing(&index, &[(6, 6)]), vec![c]);
        // A view far beyond what a grid of buckets holds is filed as wide, and still found.
        index.file(c, Some((map, &view(100_000, 90_000, 3, 3))));
        assert_eq!(seeing(&index, &[(100_001, 90_002)]), vec![c]);
        assert!(seeing(&index, &[(6, 6)]).is_empty());
    }
}
