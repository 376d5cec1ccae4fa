//! Judging the sightings each frame: which viewers see which targets now, from the views that
//! were recomputed and the targets that moved, and nothing else.
//!
//! A frame's sightings are judged in two passes. The first, on all threads, only reads: each
//! recomputed view against the targets filed near it, each moved target against the viewers
//! whose reach holds the tile it left or the tile it reached; it lists what differs from what
//! each viewer saw. The second writes those differences into the viewers and announces them.
//! A recomputed viewer is judged from its view alone, a viewer not recomputed from the targets
//! that moved; a difference found twice (a viewer filed under both tiles' buckets of a moved
//! target) is announced once: the second finds it already written.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use viewshed_core::visible::VisibleSet;

use super::viewers::ViewerIndex;
use super::{Announce, CanBeSpotted, JudgeAgain, SpottedTargets};
use crate::placement::placed::{Moved, Placed, PlacedIndex};
use crate::support::parallel::collect_in_parts;
use crate::viewshed::Viewshed;
use crate::viewshed::ViewshedUpdated;

/// A change to announce: (seen, viewer, target).
pub(super) type Change = (bool, Entity, Entity);

/// Where an entity stands: its map and tile.
type At = Option<(Entity, TilePos)>;

/// Fewer recomputed views or moved targets than this are judged on one thread.
const JUDGED_IN_PARALLEL: usize = 64;

/// Where each target stood when the sightings last judged it: the viewers that see it are
/// found from there when it moves.
#[derive(Resource, Default)]
pub(crate) struct TargetsJudged(pub(super) EntityHashMap<(Entity, TilePos)>);

impl TargetsJudged {
    /// The targets that moved, from where they were last judged to where they stand now,
    /// which is where they are judged from now on.
    fn moves<'a>(&mut self, moved: impl Iterator<Item = (Entity, &'a Placed)>) -> Vec<Move> {
        let moves = moved.map(|(target, placed)| {
            let at = placed.get();
            let before = match at {
                Some(at) => self.0.insert(target, at),
                None => self.0.remove(&target),
            };
            Move { target, before, at }
        });
        moves.collect()
    }
}

/// A target that moved: where it stood when last judged, and where it stands now.
struct Move {
    target: Entity,
    before: At,
    at: At,
}

/// Brings every viewer's set of seen targets up to date and announces the differences.
pub(crate) fn notify_sightings(
    mut updated: MessageReader<ViewshedUpdated>,
    mut viewers: Query<(Entity, &Viewshed, &mut SpottedTargets)>,
    targets: Query<&Placed, With<CanBeSpotted>>,
    moved: Query<(Entity, &Placed), Moved<CanBeSpotted>>,
    (mut index, placed): (ResMut<ViewerIndex>, Res<PlacedIndex>),
    (mut judged, mut again): (ResMut<TargetsJudged>, ResMut<JudgeAgain>),
    mut announce: Announce,
) {
    let again = std::mem::take(&mut again.0);
    if targets.is_empty() {
        // Nothing to see, and no viewer holds a target (each target that went took itself
        // out of every viewer, `on_target_gone`; an inserted `Viewshed` starts with none):
        // the views need not be read.
        updated.clear();
        judged.0.clear();
        if index.complete {
            index.clear();
        }
        return;
    }
    let judge_again = !again.is_empty();
    let updated = updated.read().map(|m| m.viewer).chain(again);
    let mut recomputed = file_views(&mut index, &viewers, updated);
    if judge_again {
        recomputed.sort_unstable();
        recomputed.dedup();
    }
    let moves = judged.moves(moved.iter());
    let reading = viewers.as_readonly();
    let mut changes = collect_in_parts(&recomputed, JUDGED_IN_PARALLEL, |&viewer, found| {
        judge_view(viewer, &reading, (&targets, &placed), found);
    });
    changes.extend(collect_in_parts(
        &moves,
        JUDGED_IN_PARALLEL,
        |change, found| {
            judge_move(change, &index, found);
        },
    ));
    changes.retain(|&change| write_change(&mut viewers, change));
    announce.send_all(changes);
}

/// Files the recomputed views in the viewer index (every view, the first time targets
/// exist) and returns the recomputed viewers.
fn file_views(
    index: &mut ViewerIndex,
    viewers: &Query<(Entity, &Viewshed, &mut SpottedTargets)>,
    updated: impl Iterator<Item = Entity>,
) -> Vec<Entity> {
    if !index.complete {
        for (viewer, viewshed, _) in viewers.iter() {
            index.file(viewer, filing(viewshed));
        }
        index.complete = true;
    }
    // The views filed from here on were recomputed: judged whole by `judge_view`.
    index.next_round();
    updated
        .filter(|&viewer| {
            let viewshed = viewers.get(viewer).map(|(_, viewshed, _)| viewshed);
            viewshed.is_ok_and(|viewshed| {
                index.file(viewer, filing(viewshed));
                true
            })
        })
        .collect()
}

/// Where the viewer index files a view: its map and what it sees.
fn filing(viewshed: &Viewshed) -> Option<(Entity, &VisibleSet)> {
    viewshed.map().map(|map| (map, viewshed.visible_set()))
}

/// A recomputed view: the targets filed near it that it sees now and did not see, then
/// those it saw that no longer stand in it.
fn judge_view(
    viewer: Entity,
    viewers: &Query<(Entity, &Viewshed, &SpottedTargets)>,
    (targets, placed): (&Query<&Placed, With<CanBeSpotted>>, &PlacedIndex),
    found: &mut Vec<Change>,
) {
    let Ok((_, viewshed, spotted)) = viewers.get(viewer) else {
        return;
    };
    if let Some(map) = viewshed.map() {
        placed.for_each_near(map, viewshed.visible_set().window(), |target, tile| {
            if target != viewer
                && viewshed.is_visible(tile)
                && !spotted.contains(target)
                && targets.contains(target)
            {
                found.push((true, viewer, target));
            }
        });
    }
    for target in spotted.iter() {
        let at = targets.get(target).ok().and_then(Placed::get);
        if !sees(viewshed, at) {
            found.push((false, viewer, target));
        }
    }
}

/// A moved target: each viewer whose window holds the tile it left or the tile it reached
/// (map by map) and that sees one but not the other.
///
/// Every viewer saw the target exactly when its view, as filed in the index, held the tile the
/// target was last judged on; a view not recomputed is still the one filed. So a viewer saw
/// it before exactly when its filed view holds the tile left, and neither the viewer nor its
/// seen targets need be read. A recomputed viewer is passed over: [`judge_view`] judged it
/// against every target near it, this one where it stands now.
fn judge_move(&Move { target, before, at }: &Move, index: &ViewerIndex, found: &mut Vec<Change>) {
    let other_map = before.filter(|left| at.is_none_or(|now| now.0 != left.0));
    for (map, _) in at.into_iter().chain(other_map) {
        let (mut tiles, mut count) = ([(0, 0); 2], 0);
        for (_, tile) in [before, at]
            .into_iter()
            .flatten()
            .filter(|&(on, _)| on == map)
        {
            tiles[count] = (tile.x, tile.y);
            count += 1;
        }
        index.for_each_seeing(map, &tiles[..count], |view| {
            if view.is_fresh(index) {
                // Recomputed: `judge_view` judged it against every target near it.
                return;
            }
            let holds = |at: At| {
                at.is_some_and(|(on, tile)| on == map && view.visible.contains(tile.x, tile.y))
            };
            let now = holds(at);
            if view.viewer != target && now != holds(before) {
                found.push((now, view.viewer, target));
            }
        });
    }
}

/// Whether `viewshed` holds the tile `at`.
fn sees(viewshed: &Viewshed, at: At) -> bool {
    at.is_some_and(|(map, tile)| viewshed.map() == Some(map) && viewshed.is_visible(tile))
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
