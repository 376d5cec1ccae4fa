//! Tilemaps that are the layers of one map because they sit below one entity: [`LayerGroup`].
//!
//! Map importers (bevy_ecs_ldtk, bevy_ecs_tiled, a game's own loader) spawn one tilemap per
//! layer under a parent entity. A [`LayerGroup`] on that parent makes them one map without a
//! [`LayerOf`] written by hand: the plugin picks the root, puts `LayerOf(root)` on every other
//! tilemap below the group, and follows tilemaps added, removed, despawned or re-parented.
//!
//! The rule for the root: the first tilemap met walking down from the group entity, depth
//! first, children in their `Children` order, a tilemap before its own children. Tiles
//! (entities with a `TilemapId`) are not walked into, and an entity with its own
//! `LayerGroup` starts another group: its tilemaps are not the outer group's.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TileStorage;

use crate::layers::layer_of::LayerOf;

/// Makes every tilemap below this entity (its descendants) a layer of one map.
///
/// Put it on the parent of the layers, e.g. a level entity of an importer; the plugin keeps
/// [`LayerOf`] on the tilemaps below it (a `LayerOf` set by hand on them is replaced). Which
/// tilemap is the root (where the map's `MapOpacity` and `FogOfWar` live) is decided by the
/// rule in the [module docs](self) and readable with [`LayerGroup::root`]; put the layer that
/// stays for the map's whole life first (the root's explored memory goes with it when it is
/// despawned).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// fn spawn_level(mut commands: Commands) {
///     // The level entity; an importer spawns its layer tilemaps as children.
///     commands.spawn((LayerGroup::default(), Transform::default(), Visibility::default()));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct LayerGroup {
    root: Option<Entity>,
}

impl LayerGroup {
    /// The tilemap the group's layers are `LayerOf`, once the plugin has seen it (`None`
    /// before the first update and while no tilemap is below the group).
    pub fn root(&self) -> Option<Entity> {
        self.root
    }
}

/// On a tilemap whose [`LayerOf`] a group keeps: the group entity.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GroupedBy(Entity);

/// Whether the hierarchy may have changed below a group since the last update.
#[derive(Resource, Default)]
pub(super) struct GroupsDirty(bool);

/// Run condition of [`group_layers`]: the hierarchy may have changed below a group (a frame
/// without it costs the executor nothing for the system).
pub(super) fn groups_dirty(dirty: Res<GroupsDirty>) -> bool {
    dirty.0
}

/// A group was added or removed, or a tilemap appeared or disappeared (`E` is `Add` or
/// `Remove`, `C` is `LayerGroup` or `TileStorage`).
pub(super) fn on_group_or_tilemap<E: EntityEvent, C: Component>(
    _event: On<E, C>,
    mut dirty: ResMut<GroupsDirty>,
) {
    dirty.0 = true;
}

/// An entity was re-parented (`E` is `Insert` or `Remove`); tiles (with a `TilemapId`) do not
/// change which tilemaps are below a group.
pub(super) fn on_reparented<E: EntityEvent>(
    event: On<E, ChildOf>,
    tiles: Query<(), With<TilemapId>>,
    mut dirty: ResMut<GroupsDirty>,
) {
    if !tiles.contains(event.event_target()) {
        dirty.0 = true;
    }
}

/// A tilemap whose `LayerOf` a group keeps got another one, or lost it (by hand, `E` is
/// `Insert` or `Remove`): the group puts it back at the next update. (The group's own writes
/// come here too, and the next walk finds nothing to change.)
pub(super) fn on_grouped_layer_changed<E: EntityEvent>(
    event: On<E, LayerOf>,
    grouped: Query<(), With<GroupedBy>>,
    mut dirty: ResMut<GroupsDirty>,
) {
    if grouped.contains(event.event_target()) {
        dirty.0 = true;
    }
}

/// What the walk below a group reads of each entity.
type WalkItem = (
    Option<&'static Children>,
    Has<TileStorage>,
    Has<TilemapId>,
    Has<LayerGroup>,
);

/// Keeps `LayerOf` on the tilemaps below each [`LayerGroup`] when the hierarchy changed.
pub(super) fn group_layers(
    mut dirty: ResMut<GroupsDirty>,
    mut groups: Query<(Entity, &mut LayerGroup)>,
    members: Query<(Entity, &GroupedBy)>,
    current: Query<&LayerOf>,
    walk: Query<WalkItem>,
    mut commands: Commands,
) {
    if !std::mem::take(&mut dirty.0) {
        return;
    }
    let mut wanted = EntityHashMap::default();
    for (group, mut layer_group) in &mut groups {
        let tilemaps = tilemaps_below(group, &walk);
        let root = tilemaps.first().copied();
        layer_group.set_if_neq(LayerGroup { root });
        for tilemap in tilemaps {
            wanted.insert(tilemap, (group, root.filter(|&root| root != tilemap)));
        }
    }
    for (tilemap, &GroupedBy(_)) in &members {
        if !wanted.contains_key(&tilemap) {
            commands
                .entity(tilemap)
                .try_remove::<(GroupedBy, LayerOf)>();
        }
    }
    for (tilemap, (group, root)) in wanted {
        set_layer(&mut commands, tilemap, group, root, &members, &current);
    }
}

/// Gives `tilemap` the `LayerOf` its group wants, writing only what differs.
fn set_layer(
    commands: &mut Commands,
    tilemap: Entity,
    group: Entity,
    root: Option<Entity>,
    members: &Query<(Entity, &GroupedBy)>,
    current: &Query<&LayerOf>,
) {
    let mut entity = commands.entity(tilemap);
    if members.get(tilemap).map(|(_, g)| *g) != Ok(GroupedBy(group)) {
        entity.try_insert(GroupedBy(group));
    }
    match (root, current.get(tilemap).ok()) {
        (Some(root), Some(&LayerOf(now))) if now == root => {}
        (Some(root), _) => {
            entity.try_insert(LayerOf(root));
        }
        (None, Some(_)) => {
            entity.try_remove::<LayerOf>();
        }
        (None, None) => {}
    }
}

/// The tilemaps below `group`, in the order of the root rule (the root first).
fn tilemaps_below(group: Entity, walk: &Query<WalkItem>) -> Vec<Entity> {
    let mut found = Vec::new();
    let mut stack = vec![group];
    while let Some(entity) = stack.pop() {
        let Ok((children, is_tilemap, is_tile, is_group)) = walk.get(entity) else {
            continue;
        };
        if entity != group && (is_tile || is_group) {
            continue;
        }
        if is_tilemap {
            found.push(entity);
        }
        if let Some(children) = children {
            // Reversed, so that the first child is walked first.
            stack.extend(children.iter().rev());
        }
    }
    found
}
