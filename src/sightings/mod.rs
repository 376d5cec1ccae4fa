//! Who sees which [`Spottable`] entity: [`Spotted`] when a viewer starts seeing one,
//! [`LostSight`] when it stops, each exactly once per change.
//!
//! A change is noticed wherever it comes from: the viewer's view was recomputed (it moved, its
//! radius or cone changed, a door closed in its reach), the target moved onto or off a seen
//! tile or to another map, the target lost its `TilePos` or `TilemapId`, stopped being
//! spottable, was disabled or despawned, the viewer lost its viewshed or was despawned.
//! Targets stand where viewers do: on their `TilePos`, or under their `Transform`.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

mod plugin;
mod viewers;

use crate::maps::placed::{Placed, PlacedIndex};
use crate::viewshed::Viewshed;
use crate::viewshed::recompute::ViewshedUpdated;
pub use plugin::SightingsPlugin;
use viewers::ViewerIndex;

/// Opts an entity on the map (a monster, the player, an item) into [`Spotted`] and
/// [`LostSight`] notifications. It stands on its `TilePos` + `TilemapId`, or under its
/// `Transform` on its `TilemapId`, as viewers do.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(crate::maps::placed::Findable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Spottable;

/// A viewer started seeing a [`Spottable`] target.
///
/// Sent three ways: as a buffered message (read it with `MessageReader<Spotted>` after
/// [`ViewshedSystems::Notify`](crate::ViewshedSystems::Notify)), once, with `on` the viewer;
/// and as an entity event on the viewer and then on the target, for observers: a guard
/// watches what it spots, a monster that it was seen.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # let mut world = World::new();
/// # let (guard, thief) = (world.spawn_empty().id(), world.spawn_empty().id());
/// // The guard's observer hears the guard's sightings ...
/// world.entity_mut(guard).observe(|spotted: On<Spotted>| {
///     info!("{} spots {}", spotted.viewer, spotted.target);
/// });
/// // ... the thief's, that it was seen.
/// world.entity_mut(thief).observe(|spotted: On<Spotted>| {
///     info!("{} was seen by {}", spotted.target, spotted.viewer);
/// });
/// ```
///
/// A global observer (`app.add_observer(..)`) hears both triggers: `on` (the event's target)
/// tells them apart.
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spotted {
    /// Who sees.
    pub viewer: Entity,
    /// What it now sees.
    pub target: Entity,
    /// The entity this event is on: the viewer, or, for the second trigger, the target.
    #[event_target]
    pub on: Entity,
}

impl Spotted {
    /// `viewer` started seeing `target`, as the message and the viewer's event say it.
    pub fn new(viewer: Entity, target: Entity) -> Self {
        Self {
            viewer,
            target,
            on: viewer,
        }
    }
}

/// A viewer stopped seeing a [`Spottable`] target (the target moved away or behind a wall,
/// left the map, the viewer moved or turned, a door closed, or either was despawned). Sent
/// like [`Spotted`].
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LostSight {
    /// Who saw.
    pub viewer: Entity,
    /// What it no longer sees.
    pub target: Entity,
    /// The entity this event is on: the viewer, or, for the second trigger, the target (a
    /// despawned target hears nothing).
    #[event_target]
    pub on: Entity,
}

impl LostSight {
    /// `viewer` stopped seeing `target`, as the message and the viewer's event say it.
    pub fn new(viewer: Entity, target: Entity) -> Self {
        Self {
            viewer,
            target,
            on: viewer,
        }
    }
}

/// Sends [`Spotted`] and [`LostSight`]: as a message, and as entity events on the viewer and
/// on the target.
#[derive(SystemParam)]
pub(crate) struct Announce<'w, 's> {
    commands: Commands<'w, 's>,
    spotted: MessageWriter<'w, Spotted>,
    lost: MessageWriter<'w, LostSight>,
}

impl Announce<'_, '_> {
    fn send(&mut self, seen: bool, viewer: Entity, target: Entity) {
        if seen {
            let spotted = Spotted::new(viewer, target);
            self.spotted.write(spotted);
            let both = [
                spotted,
                Spotted {
                    on: target,
                    ..spotted
                },
            ];
            self.commands
                .queue(move |world: &mut World| trigger_where_heard(world, both));
        } else {
            let lost = LostSight::new(viewer, target);
            self.lost.write(lost);
            let both = [lost, LostSight { on: target, ..lost }];
            self.commands
                .queue(move |world: &mut World| trigger_where_heard(world, both));
        }
    }
}

/// Triggers a sighting on its viewer and on its target, each only if an observer can hear
/// it: a global one, or one watching that entity. A game without sighting observers
/// pays for no trigger (each costs a few hundred instructions, and a crowded scene has
/// thousands of sightings a frame).
fn trigger_where_heard<E>(world: &mut World, both: [E; 2])
where
    E: EntityEvent + Copy,
    for<'a> E::Trigger<'a>: Default,
{
    let heard = |world: &World, entity: Entity| {
        let Some(key) = world.event_key::<E>() else {
            return false;
        };
        world
            .observers()
            .try_get_observers(key)
            .is_some_and(|observers| {
                !observers.global_observers().is_empty()
                    || observers.entity_observers().contains_key(&entity)
            })
    };
    for event in both {
        if heard(world, event.event_target()) {
            world.trigger(event);
        }
    }
}

/// A change to announce: (seen, viewer, target).
type Change = (bool, Entity, Entity);

/// Where each target stood when the sightings last judged it: the viewers that see it are
/// found from there when it moves.
#[derive(Resource, Default)]
pub(crate) struct TargetsJudged(EntityHashMap<(Entity, TilePos)>);

/// The seen targets of viewers whose `Viewshed` is being replaced (inserted again), so that
/// the new component keeps them and no sighting is announced twice.
#[derive(Resource, Default)]
pub(crate) struct ReplacedSightings(EntityHashMap<EntityHashSet>);

/// Brings every viewer's set of seen targets up to date and announces the differences: each
/// recomputed view against the targets near it, each moved target against the viewers whose
/// reach holds the tile it left or the tile it reached. Nothing else is looked at.
pub(crate) fn notify_sightings(
    mut updated: MessageReader<ViewshedUpdated>,
    mut viewers: Query<(Entity, &mut Viewshed)>,
    targets: Query<&Placed, With<Spottable>>,
    moved: Query<(Entity, &Placed), (With<Spottable>, Or<(Changed<Placed>, Added<Spottable>)>)>,
    (mut index, placed): (ResMut<ViewerIndex>, Res<PlacedIndex>),
    mut judged: ResMut<TargetsJudged>,
    mut announce: Announce,
) {
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
    if !index.complete {
        // The first target since there were none: every view is filed.
        for (viewer, viewshed) in viewers.iter() {
            index.file(viewer, filing(viewshed));
        }
        index.complete = true;
    }
    let mut changes = Vec::new();
    for viewer in updated.read().map(|m| m.viewer) {
        if let Ok((_, viewshed)) = viewers.get_mut(viewer) {
            index.file(viewer, filing(&viewshed));
            compare_view(viewer, viewshed, (&targets, &placed), &mut changes);
        }
    }
    // A viewer met twice (filed under both tiles' buckets, or recomputed above) finds nothing
    // new the second time: each check is exact against its current view.
    for (target, placed) in &moved {
        let at = placed.get();
        let before = match at {
            Some(at) => judged.0.insert(target, at),
            None => judged.0.remove(&target),
        };
        // The viewers that may see the tile it left or the tile it reached, map by map.
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
            for viewer in index.seeing(map, &tiles[..count]) {
                if viewer != target {
                    recheck_target(&mut viewers, viewer, (target, at), &mut changes);
                }
            }
        }
    }
    for (seen, viewer, target) in changes {
        announce.send(seen, viewer, target);
    }
}

/// Where the viewer index files a view: its map and window.
fn filing(viewshed: &Viewshed) -> Option<(Entity, viewshed_core::visible::Window)> {
    viewshed.map().map(|map| (map, viewshed.visible.window()))
}

/// A viewer with a new view: the targets filed near it that it sees now and did not see,
/// then those it saw that no longer stand in its view. Its `Viewshed` is written (and so
/// marked changed) only if something changed.
fn compare_view(
    viewer: Entity,
    mut viewshed: Mut<Viewshed>,
    (targets, index): (&Query<&Placed, With<Spottable>>, &PlacedIndex),
    changes: &mut Vec<Change>,
) {
    let map = viewshed.map();
    if let Some(map) = map {
        for (target, tile) in index.near(map, viewshed.visible.window()) {
            if target != viewer
                && viewshed.visible.contains(tile.x, tile.y)
                && !viewshed.spotted.contains(&target)
                && targets.contains(target)
            {
                viewshed.spotted.insert(target);
                changes.push((true, viewer, target));
            }
        }
    }
    let lost_from = changes.len();
    for &target in &viewshed.spotted {
        let at = targets.get(target).ok().and_then(Placed::get);
        let sees = at
            .is_some_and(|(on, tile)| Some(on) == map && viewshed.visible.contains(tile.x, tile.y));
        if !sees {
            changes.push((false, viewer, target));
        }
    }
    for &(_, _, target) in &changes[lost_from..] {
        viewshed.spotted.remove(&target);
    }
}

/// A target that moved to `at` (or onto no tile): whether this viewer's view holds it now.
/// The viewer is read first, and written only if that changed.
fn recheck_target(
    viewers: &mut Query<(Entity, &mut Viewshed)>,
    viewer: Entity,
    (target, at): (Entity, Option<(Entity, TilePos)>),
    changes: &mut Vec<Change>,
) {
    let Ok((_, viewshed)) = viewers.get(viewer) else {
        return;
    };
    let sees = at.is_some_and(|(map, tile)| {
        viewshed.map() == Some(map) && viewshed.visible.contains(tile.x, tile.y)
    });
    if sees == viewshed.spotted.contains(&target) {
        return;
    }
    if let Ok((_, mut viewshed)) = viewers.get_mut(viewer) {
        if sees {
            viewshed.spotted.insert(target);
        } else {
            viewshed.spotted.remove(&target);
        }
        changes.push((sees, viewer, target));
    }
}

/// A target stopped standing anywhere: `Spottable`, `TilePos` or `TilemapId` was removed, or
/// it was disabled or despawned (`C` is the component of the lifecycle event `E`). Every
/// viewer that saw it loses it now.
pub(crate) fn on_target_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    targets: Query<(), (With<Spottable>, Allow<Disabled>)>,
    mut viewers: Query<(Entity, &mut Viewshed)>,
    mut judged: ResMut<TargetsJudged>,
    mut announce: Announce,
) {
    let target = event.event_target();
    if !targets.contains(target) {
        return;
    }
    judged.0.remove(&target);
    for (viewer, mut viewshed) in &mut viewers {
        if viewshed.spotted.contains(&target) {
            viewshed.bypass_change_detection().spotted.remove(&target);
            announce.send(false, viewer, target);
        }
    }
}

/// A viewer lost its viewshed, was disabled or despawned: it no longer sees what it saw.
pub(crate) fn on_viewer_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut viewers: Query<&mut Viewshed, Allow<Disabled>>,
    mut replaced: ResMut<ReplacedSightings>,
    mut index: ResMut<ViewerIndex>,
    mut announce: Announce,
) {
    let viewer = event.event_target();
    index.file(viewer, None);
    let mut lost = replaced.0.remove(&viewer).unwrap_or_default();
    if let Ok(mut viewshed) = viewers.get_mut(viewer) {
        lost.extend(std::mem::take(
            &mut viewshed.bypass_change_detection().spotted,
        ));
    }
    for target in lost {
        announce.send(false, viewer, target);
    }
}

/// A viewer's `Viewshed` is about to be replaced or removed (discarded): keep what it sees.
pub(crate) fn on_viewshed_replaced(
    event: On<Discard, Viewshed>,
    mut viewers: Query<&mut Viewshed, Allow<Disabled>>,
    mut replaced: ResMut<ReplacedSightings>,
) {
    if let Ok(mut viewshed) = viewers.get_mut(event.entity) {
        let spotted = std::mem::take(&mut viewshed.bypass_change_detection().spotted);
        replaced.0.insert(event.entity, spotted);
    }
}

/// A `Viewshed` was inserted: if it replaced one, it keeps the targets the old one saw (they
/// are compared with its first view as usual); else it starts seeing none (a `Viewshed`
/// cloned from another viewer announces what it sees as its own).
pub(crate) fn on_viewshed_inserted(
    event: On<Insert, Viewshed>,
    mut viewers: Query<&mut Viewshed, Allow<Disabled>>,
    mut replaced: ResMut<ReplacedSightings>,
) {
    let spotted = replaced.0.remove(&event.entity).unwrap_or_default();
    if let Ok(mut viewshed) = viewers.get_mut(event.entity) {
        viewshed.bypass_change_detection().spotted = spotted;
    }
}

/// A viewer was re-enabled: its view is recomputed at the next update (the world may have
/// changed in ways it did not follow while disabled), and its sightings announced again.
pub(crate) fn on_viewer_back(
    event: On<Remove, Disabled>,
    mut viewers: Query<&mut Viewshed, Allow<Disabled>>,
) {
    if let Ok(mut viewshed) = viewers.get_mut(event.entity) {
        // Changed, so that the recompute visits it.
        viewshed.computed = None;
    }
}
