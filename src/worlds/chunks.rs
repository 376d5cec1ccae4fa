//! Worlds: many tilemaps side by side as one map. A [`WorldMap`] entity is the map (its
//! `MapOpacity`, fog and light live there); each of its chunks ([`ChunkOf`]: a root tilemap
//! with its layers) lies at an offset in the world's tiles, from its [`ChunkPos`] or from its
//! transform. A view near a border is one view over every chunk, exactly what the same viewer
//! would see on one big map holding the same walls; a chunk that comes or goes changes only
//! the views that reach it.
//!
//! The world's tiles are numbered from [`WORLD_ORIGIN`]: chunk `(0, 0)`'s tile `(0, 0)` is
//! world tile `(WORLD_ORIGIN, WORLD_ORIGIN)`, so chunks at negative positions have tiles too.
//! [`ChunkPlacement`] converts between a chunk's tiles and the world's.

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::layers::layer_of::LayerOf;
use viewshed_core::visible::Window;

/// World tile of chunk `(0, 0)`'s tile `(0, 0)`, on both axes: a world's tiles are
/// `WORLD_ORIGIN + offset` for offsets from about minus a billion to plus three billion tiles.
/// Even, so that hexagonal offset coordinates keep their row and column parity.
pub const WORLD_ORIGIN: u32 = 1 << 30;

/// Makes a map of many tilemaps side by side (chunks, levels of a Tiled world, sectors of an
/// open world): put it on an entity; every root tilemap below it (its descendants, each with
/// its layers), and every tilemap with a [`ChunkOf`] naming it, is a chunk of it. The world
/// entity gets the map's `MapOpacity`, `FogOfWar`, `Lighting` and `LastSeen`; viewers,
/// lights, walls and targets stand on chunks as on any tilemap, and their views cross from one
/// chunk to the next.
///
/// A chunk lies where its [`ChunkPos`] says (in chunks of its own size), or else where its
/// transform puts it relative to the world entity (bevy_ecs_tilemap's chunking example, Tiled
/// worlds; a chunk placed by its transform follows it, and the world entity's own transform).
/// Chunks share one grid: the same `TilemapType` and grid size. The world takes the grid most
/// of its chunks have (on a tie, the first in the order square, diamond isometric, hexagonal
/// `Row`, `Column`, `RowEven`, `RowOdd`, `ColumnEven`, `ColumnOdd`, then the smaller grid
/// size), whatever order they joined in; a chunk of another grid is warned about and left out.
/// Square, diamond isometric and hexagonal grids make worlds; on hexagonal grids with offset
/// coordinates (`RowEven`, `RowOdd`, `ColumnEven`, `ColumnOdd`) chunks lie at even offsets
/// across their rows (or columns).
///
/// A `TilePos` with the `TilemapId` of the world itself (not of one of its chunks) is a world
/// tile, counted from [`WORLD_ORIGIN`]: `TilePos { x: WORLD_ORIGIN + 2, y: WORLD_ORIGIN }` is
/// chunk `(0, 0)`'s tile `(2, 0)`. Placed by `Transform` with the `TilemapId` of the world,
/// an entity stands on the tile under it on whichever chunk is there.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::{ChunkOf, ChunkPos, MapOpacity};
/// use bevy_viewshed::WORLD_ORIGIN;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugins::default()));
/// let world = app.world_mut().spawn(WorldMap).id();
/// let size = TilemapSize::new(8, 8);
/// for x in [-1, 0] {
///     // Two empty chunks side by side, at chunk positions -1 and 0.
///     let chunk = (TileStorage::empty(size), size, ChunkOf(world), ChunkPos(IVec2::new(x, 0)));
///     app.world_mut().spawn(chunk);
/// }
/// app.update();
/// let opacity = app.world().get::<MapOpacity>(world).unwrap();
/// // Chunk -1's tile (0, 0) and chunk 0's tile (7, 7) are tiles of the world; no chunk 1.
/// assert!(opacity.covers((WORLD_ORIGIN - 8, WORLD_ORIGIN)));
/// assert!(opacity.covers((WORLD_ORIGIN + 7, WORLD_ORIGIN + 7)));
/// assert!(!opacity.covers((WORLD_ORIGIN + 8, WORLD_ORIGIN)));
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct WorldMap;

/// Makes a tilemap (the root of its layers) a chunk of the [`WorldMap`] it names. Tilemaps
/// below a world entity get one from the plugin.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship(relationship_target = WorldChunks)]
#[type_path = "bevy_viewshed"]
pub struct ChunkOf(pub Entity);

/// The chunks of a world (kept by Bevy from the [`ChunkOf`] components).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship_target(relationship = ChunkOf)]
#[type_path = "bevy_viewshed"]
pub struct WorldChunks(Vec<Entity>);

impl WorldChunks {
    /// The chunks of the world.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.0.iter().copied()
    }
}

/// Where a chunk lies in its world, in chunks of its own size: chunk `(x, y)`'s tile `(0, 0)`
/// is the world's tile `(x * width, y * height)` from [`WORLD_ORIGIN`]. Negative positions
/// are fine. Without it, a chunk lies where its transform puts it.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct ChunkPos(pub IVec2);

/// Where a chunk lies in its world, kept by the plugin on each chunk: read it to turn a
/// chunk's tiles into the world's (what `Placed`, `Viewshed`, `FogOfWar` and `Lighting` of a
/// world speak in) and back.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(clone_behavior = Ignore)]
pub struct ChunkPlacement {
    world: Entity,
    first: TilePos,
    size: TilemapSize,
}

impl ChunkPlacement {
    pub(super) fn new(world: Entity, first: TilePos, size: TilemapSize) -> Self {
        Self { world, first, size }
    }

    /// The world the chunk belongs to.
    pub fn world(&self) -> Entity {
        self.world
    }

    /// The world tile of the chunk's tile `(0, 0)`.
    pub fn first(&self) -> TilePos {
        self.first
    }

    /// The chunk's tiles in the world's tiles.
    pub fn area(&self) -> Window {
        Window {
            x: self.first.x,
            y: self.first.y,
            width: self.size.x,
            height: self.size.y,
        }
    }

    /// The world tile of the chunk's tile `local` (which may lie beyond the chunk).
    pub fn to_world(&self, local: TilePos) -> TilePos {
        TilePos::new(self.first.x + local.x, self.first.y + local.y)
    }

    /// The chunk's tile at world tile `tile`, if it lies on the chunk.
    pub fn to_local(&self, tile: TilePos) -> Option<TilePos> {
        self.area()
            .contains(tile.x, tile.y)
            .then(|| TilePos::new(tile.x - self.first.x, tile.y - self.first.y))
    }
}

/// Root tilemaps that are no chunk (yet).
type Unjoined = (Without<LayerOf>, Without<ChunkOf>);

/// Gives a [`ChunkOf`] to the root tilemaps below a [`WorldMap`]: new tilemaps (a chunk
/// streamed in), and every tilemap below a world entity that is new.
pub(super) fn join_chunks(
    new_roots: Query<Entity, (Added<TileStorage>, Unjoined)>,
    new_worlds: Query<Entity, Added<WorldMap>>,
    roots: Query<(), (With<TileStorage>, Unjoined)>,
    (parents, children): (Query<&ChildOf>, Query<&Children>),
    worlds: Query<(), With<WorldMap>>,
    mut commands: Commands,
) {
    for tilemap in &new_roots {
        let world = parents
            .iter_ancestors(tilemap)
            .find(|&up| worlds.contains(up));
        if let Some(world) = world {
            commands.entity(tilemap).insert(ChunkOf(world));
        }
    }
    for world in &new_worlds {
        for below in children.iter_descendants(world) {
            if roots.contains(below) && !new_roots.contains(below) {
                commands.entity(below).insert(ChunkOf(world));
            }
        }
    }
}

/// The map a tilemap's tiles lie on and the map tile of its tile `(0, 0)`: its root tilemap's
/// own (`(0, 0)`), or its world's at its chunk's place. `None` for a tilemap with no root.
pub(crate) fn map_of_tilemap(
    tilemap: Entity,
    layers: &Query<&LayerOf>,
    placements: &Query<&ChunkPlacement>,
) -> Option<(Entity, TilePos)> {
    let root = crate::layers::layer_of::root_of(tilemap, layers).ok()?;
    Some(match placements.get(root) {
        Ok(place) => (place.world(), place.first()),
        Err(_) => (root, TilePos::new(0, 0)),
    })
}
