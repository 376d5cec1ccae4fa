//! Which views can a change of opacity reach: every kept view (of a viewer or a light) filed
//! under the 16x16-tile buckets of its map that its reach overlaps, so that a door that
//! opens visits the views around it, not every view of the game.
//!
//! Filing is cheap because nothing is taken out: every filing gets a new stamp, and an entry
//! of a bucket counts only while its stamp is the view's current one. A bucket drops its
//! stale entries when it has doubled since it last did, so its length stays within twice
//! the views that reach it.
//!
//! The index only narrows the search: a view it names is still checked exactly
//! (`catch_up`), and any change it cannot describe cell by cell (a map added, resized,
//! retyped, replaced, or more changes than the log keeps) makes the recompute visit every
//! view, as it would without it.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use crate::opacity::log::MapRead;
use crate::opacity::map_opacity::Grid;
use crate::opacity::map_opacity::MapOpacity;
use crate::viewshed::ViewKey;
use viewshed_core::options::Radius;
use viewshed_core::visible::Window;

/// The side of a bucket, in tiles.
const BUCKET: u32 = 16;

/// The most buckets a view is filed under (a reach of 1,024 tiles each way); a larger one is
/// filed as reaching everywhere on its map.
const MOST_FILED: u64 = 128 * 128;

/// The views of every map, by bucket.
#[derive(Default)]
pub(super) struct ReachIndex {
    maps: EntityHashMap<MapViews>,
    /// Where each view is filed, and the stamp of that filing.
    filed: EntityHashMap<(Filed, u64)>,
    /// The stamp of the next filing.
    next_stamp: u64,
}

/// The views of one map.
#[derive(Default)]
struct MapViews {
    /// The opacity version up to which the map's changes were looked at.
    seen_version: u64,
    /// The views whose reach overlaps each bucket.
    buckets: HashMap<(u32, u32), Bucket>,
    /// Views with no radius: every change may reach them.
    everywhere: Bucket,
}

/// The views filed under one bucket, with the stamps of their filings; stale ones are
/// dropped now and then.
#[derive(Default)]
struct Bucket {
    views: Vec<(Entity, u64)>,
    /// The length at which the stale entries are dropped next.
    tidy_at: usize,
}

impl Bucket {
    fn push(&mut self, view: Entity, stamp: u64, filed: &EntityHashMap<(Filed, u64)>) {
        if self.views.len() >= self.tidy_at {
            self.views
                .retain(|&(view, stamp)| is_current(filed, view, stamp));
            self.tidy_at = (2 * self.views.len()).max(16);
        }
        self.views.push((view, stamp));
    }

    /// The views currently filed here.
    fn current<'a>(
        &'a self,
        filed: &'a EntityHashMap<(Filed, u64)>,
    ) -> impl Iterator<Item = Entity> + 'a {
        self.views
            .iter()
            .filter(|&&(view, stamp)| is_current(filed, view, stamp))
            .map(|&(view, _)| view)
    }
}

/// Whether the filing of `view` stamped `stamp` is its current one.
fn is_current(filed: &EntityHashMap<(Filed, u64)>, view: Entity, stamp: u64) -> bool {
    filed
        .get(&view)
        .is_some_and(|&(_, current)| current == stamp)
}

/// Where one view is filed: its map and the buckets its reach overlaps.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Filed {
    map: Entity,
    area: Area,
}

impl Filed {
    /// Where a view computed from `key` is filed, its reach cut to `map_area` (`None`: a
    /// world, whose area grows as chunks come: the reach is filed whole).
    pub(crate) fn new(key: &ViewKey, map_area: Option<Window>) -> Self {
        Filed {
            map: key.map,
            area: Area::of(key, map_area),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Area {
    Everywhere,
    /// Buckets `x0..=x1` by `y0..=y1`.
    Buckets {
        x0: u32,
        y0: u32,
        x1: u32,
        y1: u32,
    },
}

impl Area {
    /// The buckets a view computed from `key` can be changed from (a square of tiles that
    /// holds its reach on every grid, cut to the map's area when it has a fixed one; a reach
    /// over more than [`MOST_FILED`] buckets is filed as everywhere).
    fn of(key: &ViewKey, map: Option<Window>) -> Self {
        let Radius::Limited(r) = key.options.radius else {
            return Area::Everywhere;
        };
        // A staggered map's reach is measured on its diamond grid, (x, x + y): `y` spans twice
        // the radius each way.
        let (half_x, half_y) = match key.grid {
            Grid::Staggered => (r, r.saturating_mul(2)),
            Grid::Square | Grid::Hex(_) => (r, r),
        };
        let (x, y) = key.origin;
        let map = map.unwrap_or(Window {
            x: 0,
            y: 0,
            width: u32::MAX,
            height: u32::MAX,
        });
        let last = |from: u32, half: u32, start: u32, side: u32| {
            let end = start.saturating_add(side).saturating_sub(1);
            from.saturating_add(half).min(end)
        };
        let (x0, y0) = (
            x.saturating_sub(half_x).max(map.x) / BUCKET,
            y.saturating_sub(half_y).max(map.y) / BUCKET,
        );
        let (x1, y1) = (
            last(x, half_x, map.x, map.width) / BUCKET,
            last(y, half_y, map.y, map.height) / BUCKET,
        );
        if u64::from(x1 - x0 + 1) * u64::from(y1 - y0 + 1) > MOST_FILED {
            return Area::Everywhere;
        }
        Area::Buckets { x0, y0, x1, y1 }
    }

    /// Calls `f` with each bucket (or the everywhere bucket) of `map`.
    fn for_each_bucket(self, map: &mut MapViews, mut f: impl FnMut(&mut Bucket)) {
        match self {
            Area::Everywhere => f(&mut map.everywhere),
            Area::Buckets { x0, y0, x1, y1 } => {
                for by in y0..=y1 {
                    for bx in x0..=x1 {
                        f(map.buckets.entry((bx, by)).or_default());
                    }
                }
            }
        }
    }
}

impl ReachIndex {
    /// Where `view` is filed.
    pub(crate) fn filed(&self, view: Entity) -> Option<&Filed> {
        self.filed.get(&view).map(|(filed, _)| filed)
    }

    /// Files `view` as `new` (`None`: nowhere); where it was filed before stops counting.
    pub(crate) fn file(&mut self, view: Entity, new: Option<Filed>) {
        let Some(new) = new else {
            self.unfile(view);
            return;
        };
        if self.filed(view) == Some(&new) {
            return;
        }
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.filed.insert(view, (new, stamp));
        let (maps, filed) = (&mut self.maps, &self.filed);
        let map = maps.entry(new.map).or_default();
        new.area
            .for_each_bucket(map, |bucket| bucket.push(view, stamp, filed));
    }

    /// Forgets `view` (despawned, or no longer a view).
    pub(super) fn unfile(&mut self, view: Entity) {
        self.filed.remove(&view);
    }

    /// Forgets a map that is no longer one (its views are visited and filed again).
    pub(super) fn forget_map(&mut self, map: Entity) {
        self.maps.remove(&map);
        self.filed.retain(|_, (filed, _)| filed.map != map);
    }

    /// Adds to `out` the views of `map` that the opacity changes since the last call can
    /// reach; `false` when the changes cannot be told cell by cell (the map is new to the
    /// index, or its log was reset or overran): every view must then be visited.
    pub(super) fn reached_by_changes(
        &mut self,
        map: Entity,
        opacity: MapRead,
        out: &mut EntityHashSet,
    ) -> bool {
        let version = opacity.version();
        let Some(views) = self.maps.get_mut(&map) else {
            self.maps.entry(map).or_default().seen_version = version;
            return false;
        };
        let since = std::mem::replace(&mut views.seen_version, version);
        let Some(areas) = opacity.log.changes_since(since) else {
            return false;
        };
        let mut any = false;
        for area in areas.filter(|area| !area.is_empty()) {
            any = true;
            let last = |from: u32, side: u32| from.saturating_add(side - 1) / BUCKET;
            for by in area.y / BUCKET..=last(area.y, area.height) {
                for bx in area.x / BUCKET..=last(area.x, area.width) {
                    if let Some(bucket) = views.buckets.get(&(bx, by)) {
                        out.extend(bucket.current(&self.filed));
                    }
                }
            }
        }
        if any {
            out.extend(views.everywhere.current(&self.filed));
        }
        true
    }

    /// Notes that every change of `map` up to now was dealt with (every view was visited).
    pub(super) fn seen_all(&mut self, map: Entity, opacity: &MapOpacity) {
        self.maps.entry(map).or_default().seen_version = opacity.version();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use viewshed_core::options::FovOptions;

    fn key(map: Entity, origin: (u32, u32), radius: Radius) -> ViewKey {
        ViewKey {
            map,
            origin,
            options: FovOptions {
                radius,
                ..FovOptions::default()
            },
            eye: 0,
            cliff_faces: viewshed_core::CliffFaces::Seen,
            version: 1,
            grid: Grid::Square,
        }
    }

    /// The views currently filed under bucket `at` (`None`: everywhere) of `map`.
    fn filed_at(index: &ReachIndex, map: Entity, at: Option<(u32, u32)>) -> Vec<Entity> {
        let views = &index.maps[&map];
        let bucket = match at {
            Some(at) => views.buckets.get(&at),
            None => Some(&views.everywhere),
        };
        bucket.map_or(Vec::new(), |b| b.current(&index.filed).collect())
    }

    #[test]
    fn views_are_found_from_the_buckets_they_reach_and_refiled_when_they_move() {
        let (map, a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
            Entity::from_raw_u32(3).unwrap(),
        );
        let mut index = ReachIndex::default();
        let size = Window {
            x: 0,
            y: 0,
            width: 200,
            height: 150,
        };
        let file = |index: &mut ReachIndex, view, origin, radius| {
            index.file(
                view,
                Some(Filed::new(&key(map, origin, radius), Some(size))),
            );
        };
        file(&mut index, a, (20, 20), Radius::Limited(8));
        file(&mut index, b, (100, 100), Radius::Unlimited);
        // (20, 20) +- 8 spans buckets 0..=1 each way.
        assert_eq!(filed_at(&index, map, Some((0, 0))), vec![a]);
        assert_eq!(filed_at(&index, map, Some((1, 1))), vec![a]);
        assert!(filed_at(&index, map, Some((2, 1))).is_empty());
        assert_eq!(filed_at(&index, map, None), vec![b]);
        file(&mut index, a, (40, 20), Radius::Limited(0));
        assert!(filed_at(&index, map, Some((0, 0))).is_empty());
        assert_eq!(filed_at(&index, map, Some((2, 1))), vec![a]);
        // A radius far beyond the map files it under the map's buckets only: 13 x 10.
        file(&mut index, a, (40, 20), Radius::Limited(u32::MAX));
        let under = |index: &ReachIndex| {
            let views = &index.maps[&map];
            let keys: Vec<_> = views.buckets.keys().copied().collect();
            keys.into_iter()
                .filter(|&at| filed_at(index, map, Some(at)).contains(&a))
                .count()
        };
        assert_eq!(under(&index), 13 * 10);
        index.unfile(a);
        index.file(b, None);
        assert_eq!(under(&index), 0);
        assert!(filed_at(&index, map, None).is_empty());
        assert!(index.filed.is_empty());
    }

    #[test]
    fn buckets_drop_stale_entries_as_views_come_and_go() {
        let map = Entity::from_raw_u32(1).unwrap();
        let view = Entity::from_raw_u32(2).unwrap();
        let mut index = ReachIndex::default();
        // One view stepping back and forth across a bucket edge a thousand times.
        for step in 0..1_000u32 {
            let origin = (15 + step % 2, 8);
            let area = Window {
                x: 0,
                y: 0,
                width: 64,
                height: 64,
            };
            let filed = Filed::new(&key(map, origin, Radius::Limited(0)), Some(area));
            index.file(view, Some(filed));
        }
        let views = &index.maps[&map];
        for bucket in views.buckets.values() {
            assert!(bucket.views.len() <= 16, "{} entries", bucket.views.len());
        }
        assert_eq!(filed_at(&index, map, Some((1, 0))), vec![view]);
        assert!(filed_at(&index, map, Some((0, 0))).is_empty());
    }
}
