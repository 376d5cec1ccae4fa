//! Which views can a change of opacity reach: every kept view (of a viewer or a light) filed
//! under the 16x16-tile buckets of its map that its reach overlaps, so that a door that
//! opens visits the views around it, not every view of the game.
//!
//! The index only narrows the search: a view it names is still checked exactly
//! (`catch_up`), and any change it cannot describe cell by cell (a map added, resized,
//! retyped, replaced, or more changes than the log keeps) makes the recompute visit every
//! view, as it would without it.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use crate::opacity::MapOpacity;
use crate::options::Radius;
use crate::placement::Grid;
use crate::viewshed::ViewKey;

/// The side of a bucket, in tiles.
const BUCKET: u32 = 16;

/// The views of every map, by bucket.
#[derive(Default)]
pub(crate) struct ReachIndex {
    maps: EntityHashMap<MapViews>,
    /// Where each view is filed.
    filed: EntityHashMap<Filed>,
}

/// The views of one map.
#[derive(Default)]
struct MapViews {
    /// The opacity version up to which the map's changes were looked at.
    seen_version: u64,
    /// The views whose reach overlaps each bucket.
    buckets: HashMap<(u32, u32), Vec<Entity>>,
    /// Views with no radius: every change may reach them.
    everywhere: Vec<Entity>,
}

/// Where one view is filed: its map and the buckets its reach overlaps.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Filed {
    map: Entity,
    area: Area,
}

impl Filed {
    /// Where a view computed from `key`, on a map of `size` tiles, is filed.
    pub(crate) fn new(key: &ViewKey, size: (u32, u32)) -> Self {
        Filed {
            map: key.map,
            area: Area::of(key, size),
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
    /// holds its reach on every grid, cut to the map's `size` in tiles).
    fn of(key: &ViewKey, (width, height): (u32, u32)) -> Self {
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
        let last = |from: u32, half: u32, side: u32| {
            from.saturating_add(half).min(side.saturating_sub(1)) / BUCKET
        };
        Area::Buckets {
            x0: x.saturating_sub(half_x) / BUCKET,
            y0: y.saturating_sub(half_y) / BUCKET,
            x1: last(x, half_x, width),
            y1: last(y, half_y, height),
        }
    }

    /// Calls `f` with the list of each bucket (or the everywhere list) of `map`.
    fn for_each_list(self, map: &mut MapViews, mut f: impl FnMut(&mut Vec<Entity>)) {
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
        self.filed.get(&view)
    }

    /// Files `view` as `new` (`None`: nowhere), moving it from where it was filed before.
    pub(crate) fn file(&mut self, view: Entity, new: Option<Filed>) {
        if self.filed.get(&view) == new.as_ref() {
            return;
        }
        self.unfile(view);
        if let Some(new) = new {
            let map = self.maps.entry(new.map).or_default();
            new.area.for_each_list(map, |list| list.push(view));
            self.filed.insert(view, new);
        }
    }

    /// Forgets `view` (despawned, or no longer a view).
    pub(crate) fn unfile(&mut self, view: Entity) {
        let Some(old) = self.filed.remove(&view) else {
            return;
        };
        if let Some(map) = self.maps.get_mut(&old.map) {
            old.area.for_each_list(map, |list| {
                if let Some(i) = list.iter().position(|&e| e == view) {
                    list.swap_remove(i);
                }
            });
        }
    }

    /// Forgets a map that is no longer one (its views are visited and filed again).
    pub(crate) fn forget_map(&mut self, map: Entity) {
        self.maps.remove(&map);
        self.filed.retain(|_, filed| filed.map != map);
    }

    /// Adds to `out` the views of `map` that the opacity changes since the last call can
    /// reach; `false` when the changes cannot be told cell by cell (the map is new to the
    /// index, or its log was reset or overran): every view must then be visited.
    pub(crate) fn reached_by_changes(
        &mut self,
        map: Entity,
        opacity: &MapOpacity,
        out: &mut EntityHashSet,
    ) -> bool {
        let version = opacity.version();
        let Some(views) = self.maps.get_mut(&map) else {
            self.maps.entry(map).or_default().seen_version = version;
            return false;
        };
        let since = std::mem::replace(&mut views.seen_version, version);
        let Some(cells) = opacity.changes_since(since) else {
            return false;
        };
        let mut any = false;
        for (x, y) in cells {
            any = true;
            if let Some(list) = views.buckets.get(&(x / BUCKET, y / BUCKET)) {
                out.extend(list.iter().copied());
            }
        }
        if any {
            out.extend(views.everywhere.iter().copied());
        }
        true
    }

    /// Notes that every change of `map` up to now was dealt with (every view was visited).
    pub(crate) fn seen_all(&mut self, map: Entity, opacity: &MapOpacity) {
        self.maps.entry(map).or_default().seen_version = opacity.version();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::FovOptions;

    fn key(map: Entity, origin: (u32, u32), radius: Radius) -> ViewKey {
        ViewKey {
            map,
            origin,
            options: FovOptions {
                radius,
                ..FovOptions::default()
            },
            version: 1,
            grid: Grid::Square,
        }
    }

    #[test]
    fn views_are_found_from_the_buckets_they_reach_and_refiled_when_they_move() {
        let (map, a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
            Entity::from_raw_u32(3).unwrap(),
        );
        let mut index = ReachIndex::default();
        let size = (200, 150);
        let file = |index: &mut ReachIndex, view, origin, radius| {
            index.file(view, Some(Filed::new(&key(map, origin, radius), size)));
        };
        file(&mut index, a, (20, 20), Radius::Limited(8));
        file(&mut index, b, (100, 100), Radius::Unlimited);
        let views = index.maps.get_mut(&map).unwrap();
        // (20, 20) +- 8 spans buckets 0..=1 each way.
        assert_eq!(views.buckets[&(0, 0)], vec![a]);
        assert_eq!(views.buckets[&(1, 1)], vec![a]);
        assert!(!views.buckets.contains_key(&(2, 1)));
        assert_eq!(views.everywhere, vec![b]);
        file(&mut index, a, (40, 20), Radius::Limited(0));
        let views = index.maps.get_mut(&map).unwrap();
        assert!(views.buckets[&(0, 0)].is_empty());
        assert_eq!(views.buckets[&(2, 1)], vec![a]);
        // A radius far beyond the map files it under the map's buckets only: 13 x 10.
        file(&mut index, a, (40, 20), Radius::Limited(u32::MAX));
        let views = index.maps.get_mut(&map).unwrap();
        assert_eq!(
            views.buckets.values().filter(|l| l.contains(&a)).count(),
            13 * 10
        );
        index.unfile(a);
        index.file(b, None);
        let views = index.maps.get_mut(&map).unwrap();
        assert!(views.buckets.values().all(Vec::is_empty));
        assert!(views.everywhere.is_empty());
        assert!(index.filed.is_empty());
    }
}
