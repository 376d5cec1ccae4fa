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
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::layers::LayerEpoch;
use crate::placement::Placement;
use crate::viewshed::Viewshed;
use crate::viewshed::recompute::ViewshedUpdated;

/// Opts an entity on the map (a monster, the player, an item) into [`Spotted`] and
/// [`LostSight`] notifications. It stands on its `TilePos` + `TilemapId`, or under its
/// `Transform` on its `TilemapId`, as viewers do.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Spottable;

/// A viewer started seeing a [`Spottable`] target.
///
/// Sent both ways: as a buffered message (read it with `MessageReader<Spotted>` after
/// [`ViewshedSystems::Notify`](crate::ViewshedSystems::Notify)) and as an entity event on the
/// viewer, for observers (`commands.entity(guard).observe(|spotted: On<Spotted>| ..)` or a
/// global `app.add_observer(..)`).
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spotted {
    /// Who sees.
    #[event_target]
    pub viewer: Entity,
    /// What it now sees.
    pub target: Entity,
}

/// A viewer stopped seeing a [`Spottable`] target (the target moved away or behind a wall,
/// left the map, the viewer moved or turned, a door closed, or either was despawned). Sent
/// like [`Spotted`].
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LostSight {
    /// Who saw.
    #[event_target]
    pub viewer: Entity,
    /// What it no longer sees.
    pub target: Entity,
}

/// Sends [`Spotted`] and [`LostSight`] both ways: as a message and as an entity event.
#[derive(SystemParam)]
pub(crate) struct Announce<'w, 's> {
    commands: Commands<'w, 's>,
    spotted: MessageWriter<'w, Spotted>,
    lost: MessageWriter<'w, LostSight>,
}

impl Announce<'_, '_> {
    fn send(&mut self, seen: bool, viewer: Entity, target: Entity) {
        if seen {
            self.spotted.write(Spotted { viewer, target });
            self.commands.trigger(Spotted { viewer, target });
        } else {
            self.lost.write(LostSight { viewer, target });
            self.commands.trigger(LostSight { viewer, target });
        }
    }
}

/// Where the spottable targets are: by (map, tile).
type TargetIndex = HashMap<(Entity, u32, u32), Vec<Entity>>;

/// A change to announce: (seen, viewer, target).
type Change = (bool, Entity, Entity);

type TargetItem = (
    Entity,
    Option<&'static TilePos>,
    Option<&'static TilemapId>,
    Option<&'static GlobalTransform>,
);

/// Targets that must be checked against every viewer at the next notify (re-enabled ones,
/// or all of them after a layer change), and the [`LayerEpoch`] last seen.
#[derive(Resource, Default)]
pub(crate) struct RecheckTargets {
    targets: EntityHashSet,
    epoch: u64,
}

/// The seen targets of viewers whose `Viewshed` is being replaced (inserted again), so that
/// the new component keeps them and no sighting is announced twice.
#[derive(Resource, Default)]
pub(crate) struct ReplacedSightings(EntityHashMap<EntityHashSet>);

/// Brings every viewer's set of seen targets up to date and announces the differences.
pub(crate) fn notify_sightings(
    mut updated: MessageReader<ViewshedUpdated>,
    mut viewers: Query<(Entity, &mut Viewshed)>,
    targets: Query<TargetItem, With<Spottable>>,
    moved: Query<
        Entity,
        (
            With<Spottable>,
            Or<(
                Added<Spottable>,
                Changed<TilePos>,
                Changed<TilemapId>,
                Changed<GlobalTransform>,
            )>,
        ),
    >,
    (mut recheck, epoch): (ResMut<RecheckTargets>, Res<LayerEpoch>),
    placement: Placement,
    mut announce: Announce,
) {
    let recheck = &mut *recheck;
    if targets.is_empty() {
        // Nothing to see, and no viewer holds a target (each target that went took itself
        // out of every viewer, `on_target_gone`; an inserted `Viewshed` starts with none):
        // the views need not be read (10,000 of them, one by one, cost 0.3 ms). A target that
        // comes back is checked against every viewer then.
        updated.clear();
        recheck.targets.clear();
        epoch.changed_since(&mut recheck.epoch);
        return;
    }
    let recomputed = recomputed_in_order(&mut updated);
    let moved: Vec<Entity> = if epoch.changed_since(&mut recheck.epoch) {
        recheck.targets.clear();
        targets.iter().map(|(target, ..)| target).collect()
    } else {
        moved.iter().chain(recheck.targets.drain()).collect()
    };
    if recomputed.is_empty() && moved.is_empty() {
        return;
    }
    let place = |entity: Entity| {
        let (_, tile, tilemap, transform) = targets.get(entity).ok()?;
        let (map, tile) = placement.locate(tile, tilemap, transform).ok()?;
        Some((map, tile.x, tile.y))
    };
    let mut changes = Vec::new();
    if !recomputed.is_empty() {
        let mut index = TargetIndex::default();
        for (target, ..) in &targets {
            if let Some(at) = place(target) {
                index.entry(at).or_default().push(target);
            }
        }
        for &viewer in &recomputed {
            if let Ok((_, viewshed)) = viewers.get_mut(viewer) {
                compare_view(viewer, viewshed, &index, &mut changes);
            }
        }
    }
    if !moved.is_empty() {
        let recomputed: EntityHashSet = recomputed.into_iter().collect();
        for target in moved {
            let at = place(target);
            for (viewer, viewshed) in &mut viewers {
                if viewer != target && !recomputed.contains(&viewer) {
                    recheck_target(viewer, viewshed, target, at, &mut changes);
                }
            }
        }
    }
    for (seen, viewer, target) in changes {
        announce.send(seen, viewer, target);
    }
}

/// The viewers whose view was recomputed, in the order of their messages (a viewer named
/// twice is compared twice: the second time finds nothing new to announce).
fn recomputed_in_order(updated: &mut MessageReader<ViewshedUpdated>) -> Vec<Entity> {
    updated.read().map(|m| m.viewer).collect()
}

/// A viewer with a new view: which targets it sees now, against what it saw.
fn compare_view(
    viewer: Entity,
    mut viewshed: Mut<Viewshed>,
    index: &TargetIndex,
    changes: &mut Vec<Change>,
) {
    if index.is_empty() && viewshed.spotted.is_empty() {
        // Nothing to see, nothing seen before: read only, so the view stays unchanged.
        return;
    }
    let mut now = EntityHashSet::default();
    if let Some(map) = viewshed.map() {
        if index.len() <= viewshed.count() {
            for (&(target_map, x, y), entities) in index {
                if target_map == map && viewshed.visible.contains(x, y) {
                    now.extend(entities.iter().copied());
                }
            }
        } else {
            for tile in viewshed.iter() {
                if let Some(entities) = index.get(&(map, tile.x, tile.y)) {
                    now.extend(entities.iter().copied());
                }
            }
        }
    }
    now.remove(&viewer);
    if now == viewshed.spotted {
        // Left unchanged, so that the recompute does not visit it again.
        return;
    }
    changes.extend(
        now.difference(&viewshed.spotted)
            .map(|&t| (true, viewer, t)),
    );
    changes.extend(
        viewshed
            .spotted
            .difference(&now)
            .map(|&t| (false, viewer, t)),
    );
    viewshed.spotted = now;
}

/// A target that moved to `at` (or onto no tile): whether this viewer's view holds it now.
fn recheck_target(
    viewer: Entity,
    mut viewshed: Mut<Viewshed>,
    target: Entity,
    at: Option<(Entity, u32, u32)>,
    changes: &mut Vec<Change>,
) {
    let sees = at
        .is_some_and(|(map, x, y)| viewshed.map() == Some(map) && viewshed.visible.contains(x, y));
    if sees != viewshed.spotted.contains(&target) {
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
    mut announce: Announce,
) {
    let target = event.event_target();
    if !targets.contains(target) {
        return;
    }
    for (viewer, mut viewshed) in &mut viewers {
        if viewshed.spotted.contains(&target) {
            viewshed.bypass_change_detection().spotted.remove(&target);
            announce.send(false, viewer, target);
        }
    }
}

/// A target was re-enabled or got back a `TilePos`/`TilemapId`: check it at the next notify.
pub(crate) fn on_target_back<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut recheck: ResMut<RecheckTargets>,
) {
    recheck.targets.insert(event.event_target());
}

/// A viewer lost its viewshed, was disabled or despawned: it no longer sees what it saw.
pub(crate) fn on_viewer_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut viewers: Query<&mut Viewshed, Allow<Disabled>>,
    mut replaced: ResMut<ReplacedSightings>,
    mut announce: Announce,
) {
    let viewer = event.event_target();
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
