//! A map's tiles cut into square buckets, each with a list: the plugin's indexes file what
//! stands near a tile (entities, views, reaches) under the buckets it overlaps, so that a
//! step visits what is near a change, not everything. A grid grows in every direction to hold
//! what is filed (a world's tiles start far from `(0, 0)`); a window over too many buckets is
//! filed in a list of its own, met everywhere on the map.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use viewshed_core::bits::{BitRows, low_bits};
use viewshed_core::visible::Window;

/// Most buckets a grid grows to; a window filed beyond them goes to the wide list.
const MOST_BUCKETS: usize = 1 << 20;

/// The buckets `(x0, y0, x1, y1)` a window overlaps.
pub(super) type BucketRange = (u32, u32, u32, u32);

/// The lists (`L`: a `Vec` of what is filed, or a collection of an index's own) of one map's
/// buckets of `side` tiles, and the wide list.
#[derive(Debug)]
pub(crate) struct BucketGrid<L> {
    side: u32,
    /// The bucket of the grid's first list.
    first: (u32, u32),
    columns: u32,
    rows: u32,
    lists: Vec<L>,
    wide: L,
}

impl<L: Default> BucketGrid<L> {
    /// An empty grid of buckets of `side` tiles.
    pub(crate) fn new(side: u32) -> Self {
        Self {
            side,
            first: (0, 0),
            columns: 0,
            rows: 0,
            lists: Vec::new(),
            wide: L::default(),
        }
    }

    /// The bucket of `(x, y)`.
    #[inline]
    pub(crate) fn bucket_of(&self, (x, y): (u32, u32)) -> (u32, u32) {
        (x / self.side, y / self.side)
    }

    /// The buckets `window` overlaps, or `None` when it is empty.
    pub(crate) fn range_of(&self, window: Window) -> Option<BucketRange> {
        if window.width == 0 || window.height == 0 {
            return None;
        }
        let last = |from: u32, side: u32| from.saturating_add(side - 1) / self.side;
        Some((
            window.x / self.side,
            window.y / self.side,
            last(window.x, window.width),
            last(window.y, window.height),
        ))
    }

    fn index(&self, bx: u32, by: u32) -> Option<usize> {
        let (x, y) = (bx.checked_sub(self.first.0)?, by.checked_sub(self.first.1)?);
        (x < self.columns && y < self.rows).then(|| (y * self.columns + x) as usize)
    }

    /// The list of bucket `(bx, by)`, if the grid reached it.
    #[inline]
    pub(crate) fn list(&self, (bx, by): (u32, u32)) -> Option<&L> {
        self.index(bx, by).map(|i| &self.lists[i])
    }

    /// The list of bucket `(bx, by)`, to change, if the grid reached it.
    pub(crate) fn list_mut(&mut self, (bx, by): (u32, u32)) -> Option<&mut L> {
        self.index(bx, by).map(|i| &mut self.lists[i])
    }

    /// The list of what is filed everywhere on the map.
    pub(crate) fn wide(&self) -> &L {
        &self.wide
    }

    /// The list of what is filed everywhere on the map, to change.
    pub(crate) fn wide_mut(&mut self) -> &mut L {
        &mut self.wide
    }

    /// Every list, the wide one last.
    pub(crate) fn lists(&self) -> impl Iterator<Item = &L> + '_ {
        self.lists.iter().chain([&self.wide])
    }

    /// The list of bucket `bucket`, growing the grid to hold it (the wide list beyond the
    /// grid's limit).
    pub(crate) fn list_growing(&mut self, (bx, by): (u32, u32)) -> &mut L {
        if !self.reach((bx, by, bx, by)) {
            return &mut self.wide;
        }
        let i = self.index(bx, by).expect("a bucket the grid reached");
        &mut self.lists[i]
    }

    /// The lists of the buckets `window` overlaps that the grid reached, then the wide list.
    #[inline]
    pub(crate) fn lists_near(&self, window: Window) -> impl Iterator<Item = &L> + '_ {
        self.rows_in(window).flatten().chain([&self.wide])
    }

    /// The lists of the buckets `window` overlaps that the grid reached, a row of buckets at
    /// a time (the wide list is apart: [`wide`](Self::wide)).
    #[inline]
    pub(super) fn rows_in(&self, window: Window) -> impl Iterator<Item = &[L]> + '_ {
        let range = self.range_of(window).map(|(x0, y0, x1, y1)| {
            // The part of the range the grid reached, in its own columns and rows.
            let clamp = |from: u32, to: u32, first: u32, len: u32| {
                let from = (from.max(first) - first).min(len);
                let to = to.saturating_add(1).min(first + len).saturating_sub(first);
                from as usize..to.max(from) as usize
            };
            let columns = clamp(x0, x1, self.first.0, self.columns);
            (clamp(y0, y1, self.first.1, self.rows), columns)
        });
        let (rows, columns) = range.unwrap_or((0..0, 0..0));
        let width = self.columns as usize;
        rows.map(move |y| &self.lists[y * width + columns.start..y * width + columns.end])
    }

    /// Calls `f` with each list of the buckets in `range`, growing the grid to hold them, or
    /// with the wide list when the range spans more than `widest` buckets or the grid would
    /// grow past its limit.
    pub(crate) fn each_list_mut(
        &mut self,
        range: BucketRange,
        widest: u32,
        mut f: impl FnMut(&mut L),
    ) {
        let (x0, y0, x1, y1) = range;
        if !self.grow_to(range, widest) {
            return f(&mut self.wide);
        }
        for by in y0..=y1 {
            for bx in x0..=x1 {
                let i = self.index(bx, by).expect("a bucket the grid reached");
                f(&mut self.lists[i]);
            }
        }
    }

    /// Grows the grid to hold the buckets of `range`, unless the range spans more than
    /// `widest` buckets or the grid would grow past its limit: whether the grid holds them
    /// (else what is filed over them goes to the wide list).
    pub(super) fn grow_to(&mut self, range: BucketRange, widest: u32) -> bool {
        let (x0, y0, x1, y1) = range;
        let spans = u64::from(x1 - x0 + 1) * u64::from(y1 - y0 + 1);
        spans <= u64::from(widest) && self.reach(range)
    }

    /// Grows the grid to hold the buckets of `range`; false if it would grow past
    /// [`MOST_BUCKETS`].
    fn reach(&mut self, (x0, y0, x1, y1): BucketRange) -> bool {
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
        let mut lists: Vec<L> = (0..columns * rows).map(|_| L::default()).collect();
        for (i, list) in std::mem::take(&mut self.lists).into_iter().enumerate() {
            let x = old_x + i as u32 % self.columns - first.0;
            let y = old_y + i as u32 / self.columns - first.1;
            lists[(y * columns + x) as usize] = list;
        }
        (self.first, self.columns, self.rows, self.lists) = (first, columns, rows, lists);
        true
    }

    /// Calls `f` with the lists of the buckets that hold a set bit of `tiles` (row 0 bit 0 is
    /// tile `origin`), each once, then the wide list. The bits are read a bucket row at a time
    /// (its rows' words ORed together) when the buckets line up with the words, so only the
    /// buckets that hold a set bit are looked up.
    pub(crate) fn for_each_touched(
        &self,
        tiles: &BitRows,
        origin: (u32, u32),
        mut f: impl FnMut(&L),
    ) {
        if tiles.rows() > 0 {
            let aligned = 64 % self.side == 0
                && origin.0.is_multiple_of(self.side)
                && origin.1.is_multiple_of(self.side);
            let mut visit = |bucket| {
                if let Some(list) = self.list(bucket) {
                    f(list);
                }
            };
            if aligned {
                self.touched_by_bands(tiles, origin, &mut visit);
            } else {
                // Buckets across the rows' words (a world's area need not start on a bucket).
                let mut buckets: Vec<(u32, u32)> = tiles
                    .iter_ones()
                    .map(|(y, x)| self.bucket_of((origin.0 + x, origin.1 + y)))
                    .collect();
                buckets.sort_unstable();
                buckets.dedup();
                buckets.into_iter().for_each(visit);
            }
        }
        f(&self.wide);
    }

    /// The buckets that hold a set bit of `tiles`, read a band of rows at a time: a bucket is
    /// `side` bits of a word (`side` divides 64, and the origin lies on a bucket corner).
    fn touched_by_bands(
        &self,
        tiles: &BitRows,
        origin: (u32, u32),
        visit: &mut impl FnMut((u32, u32)),
    ) {
        let side = self.side;
        let (bx0, by0) = self.bucket_of(origin);
        let mut band = vec![0u64; tiles.row(0).len()];
        for by in 0..tiles.rows().div_ceil(side) {
            band.fill(0);
            for y in by * side..((by + 1) * side).min(tiles.rows()) {
                for (word, &bits) in band.iter_mut().zip(tiles.row(y)) {
                    *word |= bits;
                }
            }
            for (i, &word) in (0u32..).zip(&band) {
                let mut word = word;
                while word != 0 {
                    let bucket = word.trailing_zeros() / side;
                    word &= !(low_bits(side) << (bucket * side));
                    visit((bx0 + i * (64 / side) + bucket, by0 + by));
                }
            }
        }
    }
}

/// A [`BucketGrid`] per map, of buckets of one side.
#[derive(Debug)]
pub(crate) struct MapBuckets<L> {
    side: u32,
    maps: EntityHashMap<BucketGrid<L>>,
}

impl<L: Default> MapBuckets<L> {
    /// No map yet, buckets of `side` tiles.
    pub(crate) fn new(side: u32) -> Self {
        Self {
            side,
            maps: EntityHashMap::default(),
        }
    }

    /// The grid of `map`, if anything was filed on it.
    pub(crate) fn get(&self, map: Entity) -> Option<&BucketGrid<L>> {
        self.maps.get(&map)
    }

    /// The grid of `map`, made if new.
    pub(crate) fn grid_mut(&mut self, map: Entity) -> &mut BucketGrid<L> {
        let side = self.side;
        self.maps
            .entry(map)
            .or_insert_with(|| BucketGrid::new(side))
    }

    /// The grid of `map`, to change, if it has one.
    pub(crate) fn get_mut(&mut self, map: Entity) -> Option<&mut BucketGrid<L>> {
        self.maps.get_mut(&map)
    }
}
