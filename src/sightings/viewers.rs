//! Which viewers may see a tile: a copy of every view, filed under the 8x8-tile buckets of
//! its map that its window overlaps. The sightings keep it from the views they compare, so a
//! target that moves is judged against the views whose window may hold its tile, read from
//! here without looking the viewers up, and a game without targets pays nothing for it.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

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
}

/// The views by bucket of their window.
#[derive(Resource, Default)]
pub(crate) struct ViewerIndex {
    /// The views, by slot (a slot freed by a viewer that left is given to the next one).
    views: Vec<FiledView>,
    free: Vec<u32>,
    /// Each viewer's slot.
    slots: EntityHashMap<u32>,
    /// The slots of the views of each map, by bucket.
    maps: EntityHashMap<MapBuckets>,
    /// Whether every viewer with a view is filed (the index is dropped while no target
    /// exists, and built again from every view when one appears).
    pub(crate) complete: bool,
}

/// Most buckets a map's grid grows to (a map of 8,192x8,192 tiles); a view beyond them is
/// filed as wide.
const MOST_BUCKETS: usize = 1 << 20;

/// The slots of one map's views whose window overlaps each bucket, in a grid that grows to
/// the windows filed (in every direction: a world's tiles start far from `(0, 0)`), and those
/// of views whose window spans more than [`WIDE`] buckets.
#[derive(Default)]
struct MapBuckets {
    /// The bucket of the grid's first list.
    first: (u32, u32),
    columns: u32,
    rows: u32,
    lists: Vec<Vec<u32>>,
    wide: Vec<u32>,
}

impl MapBuckets {
    /// The index of bucket `(bx, by)` in the grid, if the grid holds it.
    fn index(&self, bx: u32, by: u32) -> Option<usize> {
        let (x, y) = (bx.checked_sub(self.first.0)?, by.checked_sub(self.first.1)?);
        (x < self.columns && y < self.rows).then(|| (y * self.columns + x) as usize)
    }

    /// The list of bucket `(bx, by)`, if the grid holds it.
    fn list(&self, bx: u32, by: u32) -> Option<&Vec<u32>> {
        self.index(bx, by).map(|i| &self.lists[i])
    }

    /// The list of bucket `(bx, by)`, which the grid holds.
    fn list_mut(&mut self, bx: u32, by: u32) -> &mut Vec<u32> {
        let i = self.index(bx, by).expect("a bucket the grid reached");
        &mut self.lists[i]
    }

    /// Grows the grid to hold buckets `(x0, y0)` to `(x1, y1)`; false if it would grow past
    /// [`MOST_BUCKETS`].
    fn reach(&mut self, (x0, y0, x1, y1): (u32, u32, u32, u32)) -> bool {
        if self.index(x0, y0).is_some() && self.index(x1, y1).is_some() {
            return true;
        }
        let (old_x, old_y) = self.first;
        let empty = self.lists.is_empty();
        let first = if empty {
            (x0, y0)
        } else {
            (old_x.min(x0), old_y.min(y0))
        };
        let end = |old: u32, len: u32, new: u32| {
            if empty {
                new + 1
            } else {
                (old + len).max(new + 1)
            }
        };
        let (columns, rows) = (
            end(old_x, self.columns, x1) - first.0,
            end(old_y, self.rows, y1) - first.1,
        );
        if columns as usize * rows as usize > MOST_BUCKETS {
            return false;
        }
        let mut lists = vec![Vec::new(); (columns * rows) as usize];
        for (i, list) in std::mem::take(&mut self.lists).into_iter().enumerate() {
            let x = old_x + i as u32 % self.columns - first.0;
            let y = old_y + i as u32 / self.columns - first.1;
            lists[(y * columns + x) as usize] = list;
        }
        (self.first, self.columns, self.rows, self.lists) = (first, columns, rows, lists);
        true
    }
}

/// The buckets of `window`: `(x0, y0, x1, y1)`, or `None` when it is empty.
fn buckets(window: Window) -> Option<(u32, u32, u32, u32)> {
    if window.width == 0 || window.height == 0 {
        return None;
    }
    let last = |from: u32, side: u32| from.saturating_add(side - 1) / BUCKET;
    Some((
        window.x / BUCKET,
        window.y / BUCKET,
        last(window.x, window.width),
        last(window.y, window.height),
    ))
}

fn holds(window: Window, (x, y): (u32, u32)) -> bool {
    x.checked_sub(window.x).is_some_and(|dx| dx < window.width)
        && y.checked_sub(window.y).is_some_and(|dy| dy < window.height)
}

impl ViewerIndex {
    /// Forgets every viewer.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    /// Files `viewer` as seeing `visible` on `map` (`None`: nowhere).
    pub(crate) fn file(&mut self, viewer: Entity, now: Option<(Entity, &VisibleSet)>) {
        let slot = self.slots.get(&viewer).copied();
        if let Some(slot) = slot {
            let view = &self.views[slot as usize];
            let same =
                now.is_some_and(|(map, visible)| map == view.map && *visible == view.visible);
            if same {
                return;
            }
            let (map, window) = (view.map, view.visible.window());
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
        self.each_list(map, visible.window(), |list| list.push(slot));
    }

    /// A slot for a viewer filed for the first time.
    fn new_slot(&mut self, viewer: Entity) -> u32 {
        let view = FiledView {
            viewer,
            map: Entity::PLACEHOLDER,
            visible: VisibleSet::new(),
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
    fn each_list(&mut self, map: Entity, window: Window, mut f: impl FnMut(&mut Vec<u32>)) {
        let Some((x0, y0, x1, y1)) = buckets(window) else {
            return;
        };
        let buckets = self.maps.entry(map).or_default();
        if (x1 - x0 + 1) * (y1 - y0 + 1) > WIDE || !buckets.reach((x0, y0, x1, y1)) {
            return f(&mut buckets.wide);
        }
        for by in y0..=y1 {
            for bx in x0..=x1 {
                f(buckets.list_mut(bx, by));
            }
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
        let mut visit = |list: &[u32]| {
            for &slot in list {
                let view = &self.views[slot as usize];
                let window = view.visible.window();
                if tiles.iter().any(|&tile| holds(window, tile)) {
                    f(view);
                }
            }
        };
        let Some(buckets) = self.maps.get(&map) else {
            return;
        };
        let bucket_of = |&(x, y): &(u32, u32)| (x / BUCKET, y / BUCKET);
        for (i, tile) in tiles.iter().enumerate() {
            let (bx, by) = bucket_of(tile);
            let met = tiles[..i].iter().any(|other| bucket_of(other) == (bx, by));
            if let Some(list) = buckets.list(bx, by).filter(|_| !met) {
                visit(list);
            }
        }
        visit(&buckets.wide);
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
        let lists = index
            .maps
            .values()
            .flat_map(|m| m.lists.iter().chain([&m.wide]));
        assert!(lists.into_iter().all(Vec::is_empty));
        // A slot freed is given to the next viewer.
        let c = Entity::from_raw_u32(4).unwrap();
        index.file(c, Some((map, &view(5, 5, 2, 2))));
        assert_eq!(index.views.len(), 2);
        assert_eq!(seeing(&index, &[(6, 6)]), vec![c]);
        // A view far beyond what a grid of buckets holds is filed as wide, and still found.
        index.file(c, Some((map, &view(100_000, 90_000, 3, 3))));
        assert_eq!(seeing(&index, &[(100_001, 90_002)]), vec![c]);
        assert!(seeing(&index, &[(6, 6)]).is_empty());
        assert!(index.maps[&map].lists.len() <= MOST_BUCKETS);
    }
}
