//! Who sees which [`Spottable`] entity: [`Spotted`] when a viewer starts seeing one,
//! [`LostSight`] when it stops, each exactly once per change.
//!
//! A change is noticed wherever it comes from: the viewer's view was recomputed (it moved, its
//! radius or cone changed, a door closed in its reach), the target moved onto or off a seen
//! tile or to another map, the target stopped being spottable or was despawned, the viewer
//! lost its viewshed or was despawned.

use bevy::ecs::entity::EntityHashSet;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::components::{LayerOf, Viewshed};
use crate::opacity::root_of;
use crate::recompute::ViewshedUpdated;

/// Opts an entity on the map (a monster, the player, an item) into [`Spotted`] and
/// [`LostSight`] notifications. It needs `TilePos` and `TilemapId`.
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
/// the viewer moved or turned, a door closed, or either was despawned). Sent like [`Spotted`].
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LostSight {
    /// Who saw.
    #[event_target]
    pub viewer: Entity,
    /// What it no longer sees.
    pub target: Entity,
}

/// Where the spottable targets are: by (map, tile).
type TargetIndex = HashMap<(Entity, u32, u32), Vec<Entity>>;

/// Brings every viewer's set of seen targets up to date and announces the differences.
pub(crate) fn notify_sightings(
    mut commands: Commands,
    mut updated: MessageReader<ViewshedUpdated>,
    mut viewers: Query<(Entity, &mut Viewshed)>,
    targets: Query<(Entity, &TilePos, &TilemapId), With<Spottable>>,
    moved: Query<
        Entity,
        (
            With<Spottable>,
            Or<(Added<Spottable>, Changed<TilePos>, Changed<TilemapId>)>,
        ),
    >,
    layers: Query<&LayerOf>,
    mut spotted: MessageWriter<Spotted>,
    mut lost: MessageWriter<LostSight>,
) {
    if targets.is_empty() {
        // Nothing to spot (and nobody still sees a target: removals are handled as they
        // happen), so the recomputed views need no look.
        updated.clear();
        return;
    }
    // The recomputed viewers, once each, in the order of their messages.
    let mut recomputed = EntityHashSet::default();
    let order: Vec<Entity> = updated
        .read()
        .map(|m| m.viewer)
        .filter(|&viewer| recomputed.insert(viewer))
        .collect();
    if recomputed.is_empty() && moved.is_empty() {
        return;
    }
    let place = |tile: &TilePos, tilemap: &TilemapId| (root_of(tilemap.0, &layers), tile.x, tile.y);
    let mut changes: Vec<(bool, Entity, Entity)> = Vec::new();

    // Viewers whose view changed: compare every target with the new view.
    if !recomputed.is_empty() {
        let mut index = TargetIndex::default();
        for (target, tile, tilemap) in &targets {
            index.entry(place(tile, tilemap)).or_default().push(target);
        }
        let mut now = EntityHashSet::default();
        for viewer in &order {
            let Ok((_, mut viewshed)) = viewers.get_mut(*viewer) else {
                continue;
            };
            now.clear();
            if let Some((map, _)) = viewshed.origin() {
                if index.len() <= viewshed.count() {
                    for (&(target_map, x, y), entities) in &index {
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
            now.remove(viewer);
            let viewshed = viewshed.bypass_change_detection();
            for &target in now.difference(&viewshed.spotted) {
                changes.push((true, *viewer, target));
            }
            for &target in viewshed.spotted.difference(&now) {
                changes.push((false, *viewer, target));
            }
            std::mem::swap(&mut viewshed.spotted, &mut now);
        }
    }

    // Targets that moved (or became spottable): check them against the other viewers.
    for target in &moved {
        let Ok((_, tile, tilemap)) = targets.get(target) else {
            continue;
        };
        let (map, x, y) = place(tile, tilemap);
        for (viewer, mut viewshed) in &mut viewers {
            if viewer == target || recomputed.contains(&viewer) {
                continue;
            }
            let sees = viewshed
                .origin()
                .is_some_and(|(view_map, _)| view_map == map)
                && viewshed.visible.contains(x, y);
            if sees != viewshed.spotted.contains(&target) {
                let viewshed = viewshed.bypass_change_detection();
                if sees {
                    viewshed.spotted.insert(target);
                } else {
                    viewshed.spotted.remove(&target);
                }
                changes.push((sees, viewer, target));
            }
        }
    }

    for (seen, viewer, target) in changes {
        if seen {
            spotted.write(Spotted { viewer, target });
            commands.trigger(Spotted { viewer, target });
        } else {
            lost.write(LostSight { viewer, target });
            commands.trigger(LostSight { viewer, target });
        }
    }
}

/// A target stopped being spottable (or was despawned): every viewer that saw it loses it.
pub(crate) fn on_remove_spottable(
    event: On<Remove, Spottable>,
    mut commands: Commands,
    mut viewers: Query<(Entity, &mut Viewshed)>,
    mut lost: MessageWriter<LostSight>,
) {
    let target = event.entity;
    for (viewer, mut viewshed) in &mut viewers {
        if viewshed.spotted.contains(&target) {
            viewshed.bypass_change_detection().spotted.remove(&target);
            lost.write(LostSight { viewer, target });
            commands.trigger(LostSight { viewer, target });
        }
    }
}

/// A viewer lost its viewshed (or was despawned): it no longer sees what it saw.
pub(crate) fn on_remove_viewer(
    event: On<Remove, Viewshed>,
    mut commands: Commands,
    mut viewers: Query<&mut Viewshed>,
    mut lost: MessageWriter<LostSight>,
) {
    let viewer = event.entity;
    let Ok(mut viewshed) = viewers.get_mut(viewer) else {
        return;
    };
    let despawning = std::mem::take(&mut viewshed.bypass_change_detection().spotted);
    for target in despawning {
        lost.write(LostSight { viewer, target });
        commands.trigger(LostSight { viewer, target });
    }
}
