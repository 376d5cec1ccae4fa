//! Judging the sightings each frame: which viewers see which targets now, from the views that
//! were recomputed and the targets that moved, and nothing else.
//!
//! A frame's sightings are judged in two passes. The first, on all threads, only reads: each
//! recomputed view, old and new, against the targets filed near them; each moved target, from
//! the tile it left to the tile it reached, against the views not recomputed whose window
//! holds either. A viewer saw a target exactly when its view as last judged (the one filed in
//! the [`ViewerIndex`]) held the tile where the target was last judged (the
//! [`TargetIndex`]'s), so what changed is read from the two views and the two tiles, and no
//! viewer's set of seen targets is asked. The second pass writes the differences into the
//! viewers and announces them; one found twice (a viewer filed under both tiles' buckets of a
//! moved target) is announced once: the second finds it already written. A viewer given
//! another's `SpottedTargets` is judged whole, against the set it holds.

use bevy::prelude::*;
use viewshed_core::visible::{VisibleSet, Window};

use super::targets::{At, Target, TargetIndex};
use super::viewers::ViewerIndex;
use super::{Announce, CanBeSpotted, SightingsIndex, SpottedTargets};
use crate::placement::placed::{Moved, Placed};
use crate::support::parallel::collect_in_parts;
use crate::viewshed::Viewshed;
use crate::viewshed::ViewshedUpdated;

/// A change to announce: (seen, viewer, target).
pub(super) type Change = (bool, Entity, Entity);

/// Fewer recomputed views or moved targets than this are judged on one thread.
const JUDGED_IN_PARALLEL: usize = 64;

/// The viewers, their views and what they saw.
type Viewers<'w, 's> = Query<'w, 's, (Entity, &'static Viewshed, &'static mut SpottedTargets)>;

/// Brings every viewer's set of seen targets up to date and announces the differences.
pub(super) fn notify_sightings(
    mut updated: MessageReader<ViewshedUpdated>,
    mut viewers: Viewers,
    targets: Query<(), With<CanBeSpotted>>,
    moved: Query<(Entity, &Placed), Moved<CanBeSpotted>>,
    mut sightings: ResMut<SightingsIndex>,
    mut announce: Announce,
) {
    let SightingsIndex {
        viewers: index,
        targets: target_index,
        again,
    } = &mut *sightings;
    let again = std::mem::take(again);
    if targets.is_empty() {
        // Nothing to see, and no viewer holds a target (each target that went took itself
        // out of every viewer, `on_target_gone`; an inserted `Viewshed` starts with none):
        // the views need not be read.
        updated.clear();
        target_index.clear();
        if index.complete {
            index.clear();
        }
        return;
    }
    target_index.next_round();
    let moves: Vec<Target> = moved
        .iter()
        .map(|(target, placed)| target_index.place(target, placed.get()))
        .collect();
    let recomputed = begin_round(index, &viewers, updated.read().map(|m| m.viewer));
    let reading = viewers.as_readonly();
    let (index_read, targets_read) = (&*index, &*target_index);
    let mut changes = collect_in_parts(&recomputed, JUDGED_IN_PARALLEL, |&viewer, found| {
        judge_view(viewer, &reading, (index_read, targets_read), found);
    });
    changes.extend(collect_in_parts(
        &moves,
        JUDGED_IN_PARALLEL,
        |target, found| {
            judge_move(target, index_read, found);
        },
    ));
    for &viewer in &again {
        judge_whole(viewer, &reading, targets_read, &mut changes);
    }
    for viewer in recomputed.into_iter().chain(again) {
        if let Ok((_, viewshed, _)) = viewers.get(viewer) {
            index.file(viewer, filing(viewshed));
        }
    }
    changes.retain(|&change| write_change(&mut viewers, change));
    announce.send_all(changes);
}

/// Files every view the first time targets exist, then begins a judging round with the
/// recomputed viewers (listed once each), which are judged from their views and refiled at the
/// end.
fn begin_round(
    index: &mut ViewerIndex,
    viewers: &Viewers,
    updated: impl Iterator<Item = Entity>,
) -> Vec<Entity> {
    if !index.complete {
        for (viewer, viewshed, _) in viewers.iter() {
            index.file(viewer, filing(viewshed));
        }
        index.complete = true;
    }
    index.next_round();
    let mut recomputed: Vec<Entity> = updated.filter(|&v| viewers.contains(v)).collect();
    recomputed.sort_unstable();
    recomputed.dedup();
    for &viewer in &recomputed {
        index.mark_recomputed(viewer);
    }
    recomputed
}

/// Where the viewer index files a view: its map and what it sees.
fn filing(viewshed: &Viewshed) -> Option<(Entity, &VisibleSet)> {
    viewshed.map().map(|map| (map, viewshed.visible_set()))
}

/// Whether `view` (on its map) holds the tile `at`.
fn holds(view: Option<(Entity, &VisibleSet)>, at: At) -> bool {
    match (view, at) {
        (Some((map, visible)), Some((on, tile))) => map == on && visible.contains(tile.x, tile.y),
        _ => false,
    }
}

/// A recomputed view: the targets filed near its old view and its new one whose sighting
/// changed. One that did not move is seen where one view holds its tile and the other does
/// not; one that moved in this round, from where it was last judged to where it stands.
fn judge_view(
    viewer: Entity,
    viewers: &Query<(Entity, &Viewshed, &SpottedTargets)>,
    (index, targets): (&ViewerIndex, &TargetIndex),
    found: &mut Vec<Change>,
) {
    let Ok((_, viewshed, _)) = viewers.get(viewer) else {
        return;
    };
    let (old, new) = (index.view_of(viewer), filing(viewshed));
    let mut change = |now: bool, target: Entity| {
        if target != viewer {
            found.push((now, viewer, target));
        }
    };
    for (map, window) in windows(old, new) {
        let on = |view: Option<(Entity, &VisibleSet)>| view.is_some_and(|(m, _)| m == map);
        let before = old.filter(|_| on(old)).map(|(_, v)| v);
        let after = new.filter(|_| on(new)).map(|(_, v)| v);
        let sees = |view: Option<&VisibleSet>, x, y| view.is_some_and(|v| v.contains(x, y));
        // The tiles of the window one view holds and the other not, a row to a word when the
        // window is that narrow: a target that stayed elsewhere did not change.
        let turned = Turned::of(window, before, after);
        // A target that moved in this round: from where it was last judged to where it is.
        let moved = |target: &Target| {
            let now = holds(new, target.at);
            (holds(old, target.before) != now).then_some((now, target.entity))
        };
        let lists = targets.filed_on(map).into_iter();
        for list in lists.flat_map(|grid| grid.lists_near(window)) {
            for filed in list {
                if targets.moved(filed) {
                    if let Some((now, target)) = moved(targets.target(filed.slot)) {
                        change(now, target);
                    }
                } else if turned.may_hold(filed.x, filed.y) {
                    let now = sees(after, filed.x, filed.y);
                    if sees(before, filed.x, filed.y) != now {
                        change(now, targets.target(filed.slot).entity);
                    }
                }
            }
        }
        // Those that left a bucket here for one that may lie beyond the window.
        let lists = targets.left_on(map).into_iter();
        for list in lists.flat_map(|grid| grid.lists_near(window)) {
            for &slot in list {
                if let Some((now, target)) = moved(targets.target(slot)) {
                    change(now, target);
                }
            }
        }
    }
}

/// The tiles of a window that one of two views holds and the other does not, as one word a
/// row (bit `x - window.x` of row `y - window.y`), when the window is at most 64 tiles each way.
struct Turned {
    window: Window,
    rows: Option<[u64; 64]>,
}

impl Turned {
    /// The tiles of `window` (which holds both views' windows) `before` or `after` holds, but
    /// not both.
    fn of(window: Window, before: Option<&VisibleSet>, after: Option<&VisibleSet>) -> Self {
        let narrow = window.width <= 64 && window.height <= 64;
        let rows = narrow.then(|| {
            let mut rows = [0u64; 64];
            for view in before.into_iter().chain(after) {
                let own = view.window();
                if own.is_empty() {
                    continue;
                }
                // Each of the view's rows is one word (its window is at most 64 wide), put
                // where its first tile lies in the window.
                let shift = own.x - window.x;
                for (dy, &word) in view.words().iter().enumerate() {
                    rows[(own.y - window.y) as usize + dy] ^= word << shift;
                }
            }
            rows
        });
        Self { window, rows }
    }

    /// Whether `(x, y)` may be one of the tiles (always, when the window is too wide).
    #[inline(always)]
    fn may_hold(&self, x: u32, y: u32) -> bool {
        let (dx, dy) = (x.wrapping_sub(self.window.x), y.wrapping_sub(self.window.y));
        match &self.rows {
            Some(rows) => dx < self.window.width && dy < 64 && rows[dy as usize] >> dx & 1 != 0,
            None => true,
        }
    }
}

/// The maps and windows a view recomputed from `old` to `new` is judged over: the windows of
/// both on one map, each on its own.
fn windows<'a>(
    old: Option<(Entity, &'a VisibleSet)>,
    new: Option<(Entity, &'a VisibleSet)>,
) -> impl Iterator<Item = (Entity, Window)> + 'a {
    let union = match (old, new) {
        (Some((a, before)), Some((b, after))) if a == b => {
            Some((a, before.window().union(&after.window())))
        }
        _ => None,
    };
    let apart = union.is_none().then_some((old, new)).into_iter();
    let apart = apart.flat_map(|(old, new)| old.into_iter().chain(new));
    union
        .into_iter()
        .chain(apart.map(|(map, view)| (map, view.window())))
}

/// A moved target: each viewer not recomputed whose view holds the tile it left or the tile it
/// reached, but not both (map by map). A view not recomputed is still the one filed, which held
/// the tile left exactly when the viewer saw the target.
fn judge_move(target: &Target, index: &ViewerIndex, found: &mut Vec<Change>) {
    let (before, at) = (target.before, target.at);
    let other_map = before.filter(|left| at.is_none_or(|now| now.0 != left.0));
    for (map, _) in at.into_iter().chain(other_map) {
        let here = |at: At| at.filter(|&(on, _)| on == map).map(|(_, tile)| tile);
        let tiles = (here(before), here(at));
        index.for_each_turned(map, tiles, target.entity, |viewer, now| {
            found.push((now, viewer, target.entity));
        });
    }
}

/// A viewer given another's `SpottedTargets`: every target near its view that it sees and
/// does not hold, every target it holds that it does not see.
fn judge_whole(
    viewer: Entity,
    viewers: &Query<(Entity, &Viewshed, &SpottedTargets)>,
    targets: &TargetIndex,
    found: &mut Vec<Change>,
) {
    let Ok((_, viewshed, spotted)) = viewers.get(viewer) else {
        return;
    };
    let view = filing(viewshed);
    if let Some((map, visible)) = view {
        let lists = targets.filed_on(map).into_iter();
        for filed in lists
            .flat_map(|grid| grid.lists_near(visible.window()))
            .flatten()
        {
            let target = targets.target(filed.slot).entity;
            let seen = target != viewer && visible.contains(filed.x, filed.y);
            if seen && !spotted.contains(target) {
                found.push((true, viewer, target));
            }
        }
    }
    for target in spotted.iter() {
        if !holds(view, targets.at(target)) {
            found.push((false, viewer, target));
        }
    }
}

/// Writes a change into its viewer's seen targets; false if it was already written (found
/// twice) or the viewer is gone. The viewer is marked changed only when it changes.
fn write_change(
    viewers: &mut Query<(Entity, &Viewshed, &mut SpottedTargets)>,
    (seen, viewer, target): Change,
) -> bool {
    let Ok((_, _, mut spotted)) = viewers.get_mut(viewer) else {
        return false;
    };
    let targets = &mut spotted.bypass_change_detection().targets;
    let changed = if seen {
        targets.insert(target)
    } else {
        targets.remove(&target)
    };
    if changed {
        spotted.set_changed();
    }
    changed
}
