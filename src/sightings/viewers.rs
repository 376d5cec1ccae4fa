//! Which viewers may see a tile: every viewer filed under the 8x8-tile buckets of its
//! map that its view's window overlaps, with that window. The sightings keep it from the views
//! they compare, so a target that moves is checked against the viewers whose view may hold
//! its tile, not against every viewer, and a game without targets pays nothing for it.

use bevy::ecs::entity::EntityHashMap;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use viewshed_core::visible::Window;

/// The side of a bucket, in tiles: a radius-8 view's window spans 3x3 buckets, and a moved
/// target is checked against the viewers filed under a bucket of 64 tiles.
const BUCKET: u32 = 8;

/// A window over more buckets than this (128x128 tiles) is filed once, as seeing anywhere on
/// its map.
const WIDE: u32 = 256;

/// The viewers by bucket of their view's window.
#[derive(Resource, Default)]
pub(crate) struct ViewerIndex {
    buckets: HashMap<(Entity, u32, u32), Vec<(Entity, Window)>>,
    /// Viewers whose window spans more than [`WIDE`] buckets, by map.
    wide: EntityHashMap<Vec<(Entity, Window)>>,
    /// Where each viewer is filed.
    filed: EntityHashMap<(Entity, Window)>,
    /// Whether every viewer with a view is filed (the index is dropped while no target
    /// exists, and built again from every view when one appears).
    pub(crate) complete: bool,
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
        self.buckets.clear();
        self.wide.clear();
        self.filed.clear();
        self.complete = false;
    }

    /// Files `viewer` as seeing within `window` of `map` (`None`: nowhere).
    pub(crate) fn file(&mut self, viewer: Entity, now: Option<(Entity, Window)>) {
        let before = match now {
            Some(now) => self.filed.insert(viewer, now),
            None => self.filed.remove(&viewer),
        };
        if before == now {
            return;
        }
        if let Some((map, window)) = before {
            self.each_list(map, window, |list| {
                if let Some(at) = list.iter().position(|&(v, _)| v == viewer) {
                    list.swap_remove(at);
                }
            });
        }
        if let Some((map, window)) = now {
            self.each_list(map, window, |list| list.push((viewer, window)));
        }
    }

    /// Calls `f` with each list a viewer seeing within `window` of `map` is filed in.
    fn each_list(
        &mut self,
        map: Entity,
        window: Window,
        mut f: impl FnMut(&mut Vec<(Entity, Window)>),
    ) {
        let Some((x0, y0, x1, y1)) = buckets(window) else {
            return;
        };
        if (x1 - x0 + 1) * (y1 - y0 + 1) > WIDE {
            return f(self.wide.entry(map).or_default());
        }
        for by in y0..=y1 {
            for bx in x0..=x1 {
                f(self.buckets.entry((map, bx, by)).or_default());
            }
        }
    }

    /// The viewers of `map` whose view's window holds one of `tiles` (each at most once per
    /// tile's bucket: a viewer may come twice when the tiles lie in two buckets).
    pub(crate) fn seeing<'a>(
        &'a self,
        map: Entity,
        tiles: &'a [(u32, u32)],
    ) -> impl Iterator<Item = Entity> + 'a {
        let bucket_of = move |&(x, y): &(u32, u32)| (map, x / BUCKET, y / BUCKET);
        let lists = tiles.iter().enumerate().filter_map(move |(i, tile)| {
            let first = !tiles[..i]
                .iter()
                .any(|other| bucket_of(other) == bucket_of(tile));
            first.then(|| self.buckets.get(&bucket_of(tile)))?
        });
        lists
            .chain(self.wide.get(&map))
            .flatten()
            .filter(move |&&(_, window)| tiles.iter().any(|&tile| holds(window, tile)))
            .map(|&(viewer, _)| viewer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewers_are_found_by_the_tiles_their_windows_hold_and_follow_their_views() {
        let (map, a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
            Entity::from_raw_u32(3).unwrap(),
        );
        let window = |x, y, width, height| Window {
            x,
            y,
            width,
            height,
        };
        let mut index = ViewerIndex::default();
        index.file(a, Some((map, window(10, 10, 17, 17))));
        index.file(b, Some((map, window(0, 0, 2000, 2000))));
        let seeing = |index: &ViewerIndex, tiles: &[(u32, u32)]| {
            let mut found: Vec<Entity> = index.seeing(map, tiles).collect();
            found.sort();
            found.dedup();
            found
        };
        let mut both = vec![a, b];
        both.sort();
        assert_eq!(seeing(&index, &[(26, 26)]), both);
        assert_eq!(seeing(&index, &[(27, 26)]), vec![b]);
        assert_eq!(seeing(&index, &[(9, 10), (27, 26)]), vec![b]);
        index.file(a, Some((map, window(40, 40, 3, 3))));
        assert_eq!(seeing(&index, &[(26, 26)]), vec![b]);
        assert_eq!(seeing(&index, &[(41, 42)]), both);
        index.file(a, None);
        index.file(b, Some((map, window(0, 0, 0, 0))));
        assert!(seeing(&index, &[(41, 42)]).is_empty());
        assert!(index.buckets.values().all(Vec::is_empty));
        assert!(index.wide.values().all(Vec::is_empty));
    }
}
