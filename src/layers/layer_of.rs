//! Which tilemaps are layers of one map: [`LayerOf`] and [`Layers`], and the lookup of a
//! tilemap's root map, where the map's opacity, viewers and fog of war live.
//!
//! A layer may itself be a layer of another (nested layers), up to [`MAX_LAYER_DEPTH`] steps.
//! A chain that loops back on itself or runs deeper than that has no root: its tilemaps are
//! no map at all, and the plugin says so once per tilemap, as it does for a layer whose
//! size differs from its root's.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;

/// Makes a tilemap a layer of another: layers that share a grid (terrain, decorations, a fog
/// overlay) form one map, whose opacity, viewers and fog of war live on the root tilemap.
///
/// Put it on every layer but the root; opaque tiles and viewers may sit on any layer. A layer
/// of a layer counts as a layer of the root.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::{LayerOf};
/// # fn spawn(mut commands: Commands, ground: Entity) {
/// // Decorations drawn over the ground tilemap: one map with it.
/// let decorations = commands.spawn(TileStorage::empty(TilemapSize::new(32, 32))).id();
/// commands.entity(decorations).insert(LayerOf(ground));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship(relationship_target = Layers)]
#[type_path = "bevy_viewshed"]
pub struct LayerOf(pub Entity);

/// The layers of a tilemap (kept by Bevy from the [`LayerOf`] components).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship_target(relationship = LayerOf)]
#[type_path = "bevy_viewshed"]
pub struct Layers(Vec<Entity>);

impl Layers {
    /// The tilemaps that are direct layers of this one.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.0.iter().copied()
    }
}

/// How many [`LayerOf`] steps are followed from a layer to its root.
pub const MAX_LAYER_DEPTH: usize = 16;

/// Why a tilemap has no root map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LayerProblem {
    /// Its chain of `LayerOf` comes back to a tilemap already on it.
    Cycle,
    /// Its chain of `LayerOf` is longer than [`MAX_LAYER_DEPTH`].
    TooDeep,
}

/// The root map of `tilemap`: itself, or the tilemap at the end of its chain of [`LayerOf`].
pub(crate) fn root_of(tilemap: Entity, layers: &Query<&LayerOf>) -> Result<Entity, LayerProblem> {
    let mut chain = [tilemap; MAX_LAYER_DEPTH + 1];
    let mut map = tilemap;
    for depth in 1..=MAX_LAYER_DEPTH + 1 {
        let Ok(&LayerOf(next)) = layers.get(map) else {
            return Ok(map);
        };
        if chain[..depth].contains(&next) {
            return Err(LayerProblem::Cycle);
        }
        if depth > MAX_LAYER_DEPTH {
            break;
        }
        chain[depth] = next;
        map = next;
    }
    Err(LayerProblem::TooDeep)
}

/// Every tilemap of the map rooted at `root`: the root, its layers, their layers.
pub(crate) fn map_tilemaps(root: Entity, children: &Query<&Layers>, mut f: impl FnMut(Entity)) {
    let mut stack = vec![(root, 0)];
    while let Some((tilemap, depth)) = stack.pop() {
        f(tilemap);
        if depth < MAX_LAYER_DEPTH
            && let Ok(layers) = children.get(tilemap)
        {
            stack.extend(layers.iter().filter(|&l| l != root).map(|l| (l, depth + 1)));
        }
    }
}

/// Counts the changes of [`LayerOf`] anywhere: every root lookup may have changed.
#[derive(Resource, Default)]
pub(crate) struct LayerEpoch(pub u64);

impl LayerEpoch {
    /// Whether layers changed since the epoch `seen`, which is brought up to date.
    pub(crate) fn changed_since(&self, seen: &mut u64) -> bool {
        std::mem::replace(seen, self.0) != self.0
    }
}

/// A tilemap became or stopped being a layer (`E` is `Insert` or `Remove`).
pub(super) fn on_layers_changed<E: EntityEvent>(
    _event: On<E, LayerOf>,
    mut epoch: ResMut<LayerEpoch>,
) {
    epoch.0 += 1;
}

/// Tilemaps already warned about, so that each problem is logged once.
#[derive(Resource, Default)]
pub(super) struct LayerWarnings(EntityHashSet);

/// Layers that changed root or size.
type LayerChanged = Or<(Changed<LayerOf>, Changed<TilemapSize>)>;

/// Warns once about each layer that has no root (a cycle, a chain too deep) or whose size
/// differs from its root's.
pub(super) fn check_layers(
    changed: Query<(Entity, &LayerOf), LayerChanged>,
    layers: Query<&LayerOf>,
    sizes: Query<&TilemapSize>,
    mut warned: ResMut<LayerWarnings>,
) {
    for (layer, &LayerOf(parent)) in &changed {
        let problem = match root_of(layer, &layers) {
            Err(LayerProblem::Cycle) => Some(format!(
                "its LayerOf chain loops back on itself (through {parent}); it belongs to no \
                 map until one tilemap of the chain is the root (has no LayerOf)"
            )),
            Err(LayerProblem::TooDeep) => Some(format!(
                "its LayerOf chain is longer than {MAX_LAYER_DEPTH} steps; it belongs to no map \
                 until it points nearer to a root tilemap"
            )),
            Ok(root) => match (sizes.get(layer), sizes.get(root)) {
                (Ok(size), Ok(root_size)) if size != root_size => Some(format!(
                    "it is {}x{} but its root tilemap {root} is {}x{}; its tiles beyond the \
                     root's size get no fog, give both the same TilemapSize",
                    size.x, size.y, root_size.x, root_size.y
                )),
                _ => None,
            },
        };
        match problem {
            Some(problem) if warned.0.insert(layer) => {
                warn!("bevy_viewshed: tilemap layer {layer}: {problem}");
            }
            Some(_) => {}
            None => {
                warned.0.remove(&layer);
            }
        }
    }
}
