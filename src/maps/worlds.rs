//! Worlds: many tilemaps side by side as one map. A [`WorldMap`] entity is the map (its
//! [`MapOpacity`], fog and light live there); each of its chunks ([`ChunkOf`]: a root tilemap
//! with its layers) lies at an offset in the world's tiles, from its [`ChunkPos`] or from its
//! transform. A view near a border is one view over every chunk, exactly what the same viewer
//! would see on one big map holding the same walls; a chunk that comes or goes changes only
//! the views that reach it.
//!
//! The world's tiles are numbered from [`WORLD_ORIGIN`]: chunk `(0, 0)`'s tile `(0, 0)` is
//! world tile `(WORLD_ORIGIN, WORLD_ORIGIN)`, so chunks at negative positions have tiles too.
//! [`ChunkPlacement`] converts between a chunk's tiles and the world's.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::helpers::hex_grid::axial::AxialPos;
use bevy_ecs_tilemap::helpers::hex_grid::offset::{ColEvenPos, ColOddPos, RowEvenPos, RowOddPos};
use bevy_ecs_tilemap::helpers::square_grid::diamond::DiamondPos;
use bevy_ecs_tilemap::helpers::square_grid::staggered::StaggeredPos;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::maps::layers::LayerOf;
use crate::maps::map_opacity::MapOpacity;
use crate::maps::map_opacity::grid_of;
use viewshed_core::visible::Window;

/// World tile of chunk `(0, 0)`'s tile `(0, 0)`, on both axes: a world's tiles are
/// `WORLD_ORIGIN + offset` for offsets from about minus a billion to plus three billion tiles.
/// Even, so that hexagonal offset coordinates keep their row and column parity.
pub const WORLD_ORIGIN: u32 = 1 << 30;

/// Makes a map of many tilemaps side by side (chunks, levels of a Tiled world, sectors of an
/// open world): put it on an entity; every root tilemap below it (its descendants, each with
/// its layers), and every tilemap with a [`ChunkOf`] naming it, is a chunk of it. The world
/// entity gets the map's [`MapOpacity`], `FogOfWar`, `Lighting` and `LastSeen`; viewers,
/// lights, walls and targets stand on chunks as on any tilemap, and their views cross from one
/// chunk to the next.
///
/// A chunk lies where its [`ChunkPos`] says (in chunks of its own size), or else where its
/// transform puts it relative to the world entity (bevy_ecs_tilemap's chunking example, Tiled
/// worlds). Chunks share one grid: the same `TilemapType` and grid size (a chunk of another
/// grid is warned about and left out). Square, diamond isometric and hexagonal grids make
/// worlds; on hexagonal grids with offset coordinates (`RowEven`, `RowOdd`, `ColumnEven`,
/// `ColumnOdd`) chunks lie at even offsets across their rows (or columns).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_viewshed::prelude::*;
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
pub struct WorldMap;

/// Makes a tilemap (the root of its layers) a chunk of the [`WorldMap`] it names. Tilemaps
/// below a world entity get one from the plugin.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship(relationship_target = WorldChunks)]
pub struct ChunkOf(pub Entity);

/// The chunks of a world (kept by Bevy from the [`ChunkOf`] components).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship_target(relationship = ChunkOf)]
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

/// What the chunks of a world share, kept on the world by the plugin: the grid entities
/// placed by `Transform` on the world itself are found on.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(clone_behavior = Ignore)]
pub(crate) struct WorldGrid {
    pub(crate) grid: TilemapGridSize,
    pub(crate) map_type: TilemapType,
}

/// Gives a [`ChunkOf`] to the root tilemaps below a [`WorldMap`]: new tilemaps (a chunk
/// streamed in), and every tilemap below a world entity that is new.
pub(super) fn join_chunks(
    new_roots: Query<Entity, (Added<TileStorage>, Without<LayerOf>, Without<ChunkOf>)>,
    new_worlds: Query<Entity, Added<WorldMap>>,
    roots: Query<(), (With<TileStorage>, Without<LayerOf>, Without<ChunkOf>)>,
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

/// What a chunk's place in its world is worked out from.
#[derive(QueryData)]
pub(super) struct ChunkShape {
    size: &'static TilemapSize,
    grid: Option<&'static TilemapGridSize>,
    tile_size: Option<&'static TilemapTileSize>,
    map_type: Option<&'static TilemapType>,
    anchor: Option<&'static TilemapAnchor>,
    transform: Option<&'static GlobalTransform>,
    pos: Option<&'static ChunkPos>,
}

/// Chunks whose place may have changed.
type ChunkMoved = Or<(
    Changed<ChunkOf>,
    Changed<TilemapSize>,
    Changed<ChunkPos>,
    Changed<GlobalTransform>,
    Changed<TilemapType>,
    Changed<TilemapGridSize>,
    Changed<TilemapAnchor>,
)>;

/// Worlds whose chunks may have come, gone or moved since the last update.
#[derive(Resource, Default)]
pub(super) struct WorldsDirty(EntityHashSet);

/// Problems with chunks already warned about, so that each is logged once.
#[derive(Resource, Default)]
pub(super) struct ChunkWarnings(EntityHashSet);

/// A chunk left its world (its `ChunkOf` removed, or it was despawned): the world lays out
/// its chunks again.
pub(super) fn on_chunk_left(
    event: On<Remove, ChunkOf>,
    chunks: Query<&ChunkOf>,
    mut dirty: ResMut<WorldsDirty>,
    mut commands: Commands,
) {
    if let Ok(&ChunkOf(world)) = chunks.get(event.entity) {
        dirty.0.insert(world);
    }
    if let Ok(mut chunk) = commands.get_entity(event.entity) {
        chunk.try_remove::<ChunkPlacement>();
    }
}

/// What laying out the worlds reads and writes.
#[derive(SystemParam)]
pub(super) struct Layout<'w, 's> {
    moved: Query<'w, 's, &'static ChunkOf, ChunkMoved>,
    new_worlds: Query<'w, 's, Entity, Added<WorldMap>>,
    worlds: Query<
        'w,
        's,
        (
            Option<&'static WorldChunks>,
            Option<&'static GlobalTransform>,
        ),
        With<WorldMap>,
    >,
    shapes: Query<'w, 's, ChunkShape>,
    placements: Query<'w, 's, &'static mut ChunkPlacement>,
    opacities: Query<'w, 's, &'static mut MapOpacity, With<WorldMap>>,
    dirty: ResMut<'w, WorldsDirty>,
    warned: ResMut<'w, ChunkWarnings>,
    commands: Commands<'w, 's>,
}

/// Lays out the worlds whose chunks came, went or moved: each chunk's [`ChunkPlacement`], and
/// the world's [`MapOpacity`] over them (the tiles of the chunks that came or went are
/// logged as changed, so only the views that reach them are recomputed).
pub(super) fn place_chunks(mut layout: Layout) {
    let mut dirty = std::mem::take(&mut layout.dirty.0);
    dirty.extend(layout.moved.iter().map(|chunk| chunk.0));
    dirty.extend(layout.new_worlds.iter());
    for world in dirty {
        layout.lay_out(world);
    }
}

impl Layout<'_, '_> {
    /// Places every chunk of `world` and gives the world its opacity over them.
    fn lay_out(&mut self, world: Entity) {
        let Ok((chunks, world_transform)) = self.worlds.get(world) else {
            return;
        };
        let chunks: Vec<Entity> = chunks.map(|c| c.iter().collect()).unwrap_or_default();
        let frame = world_transform.copied().unwrap_or_default();
        let mut shared: Option<WorldGrid> = None;
        let mut areas = Vec::new();
        for chunk in chunks {
            let placed = self.place(world, chunk, &frame, &mut shared);
            areas.extend(placed);
        }
        let map_type = shared.map_or_else(TilemapType::default, |shared| shared.map_type);
        let area = bounding(&areas);
        match self.opacities.get_mut(world) {
            Ok(mut opacity) => opacity.set_chunks(area, areas),
            Err(_) => {
                let mut opacity =
                    MapOpacity::new(TilemapSize::new(0, 0), map_type, grid_of(&map_type));
                opacity.set_chunks(area, areas);
                self.commands.entity(world).try_insert(opacity);
            }
        }
        match shared {
            Some(shared) => self.commands.entity(world).try_insert(shared),
            None => self.commands.entity(world).try_remove::<WorldGrid>(),
        };
    }

    /// Places one chunk of `world` (whose transform is `frame`) if it has the grid the
    /// world's first chunk set; returns its tiles in the world's.
    fn place(
        &mut self,
        world: Entity,
        chunk: Entity,
        frame: &GlobalTransform,
        shared: &mut Option<WorldGrid>,
    ) -> Option<Window> {
        let shape = self.shapes.get(chunk).ok()?;
        let grid = WorldGrid {
            grid: shape.grid.copied().unwrap_or_default(),
            map_type: shape.map_type.copied().unwrap_or_default(),
        };
        let fits = shared.get_or_insert(grid) == &grid && joinable(grid.map_type);
        let offset = offset_of(&shape, frame).filter(|_| fits);
        let Some(offset) = offset.filter(|&o| keeps_parity(grid.map_type, o)) else {
            self.warn(chunk, world, fits);
            self.commands.entity(chunk).try_remove::<ChunkPlacement>();
            return None;
        };
        let first = TilePos::new(
            WORLD_ORIGIN.wrapping_add_signed(offset.x),
            WORLD_ORIGIN.wrapping_add_signed(offset.y),
        );
        let placement = ChunkPlacement {
            world,
            first,
            size: *shape.size,
        };
        match self.placements.get_mut(chunk) {
            Ok(mut old) => {
                old.set_if_neq(placement);
            }
            Err(_) => {
                self.commands.entity(chunk).try_insert(placement);
            }
        }
        self.warned.0.remove(&chunk);
        Some(placement.area())
    }

    /// Warns once that `chunk` is left out of `world`, and why.
    fn warn(&mut self, chunk: Entity, world: Entity, fits: bool) {
        if !self.warned.0.insert(chunk) {
            return;
        }
        let why = if fits {
            "it lies at an odd offset across the rows (or columns) of its hexagonal offset \
             coordinates, which would change which tiles are neighbours; move it by an even \
             number of tiles"
        } else {
            "its grid (TilemapType or grid size) differs from the world's other chunks, or it \
             is a staggered isometric map (which a world cannot join); give every chunk the \
             same square, diamond or hexagonal grid"
        };
        warn!("bevy_viewshed: chunk {chunk} of world {world} is left out of it: {why}");
    }
}

/// Whether chunks of this grid can make a world (a staggered isometric map's tiles are not a
/// square grid of their own coordinates).
fn joinable(map_type: TilemapType) -> bool {
    map_type != TilemapType::Isometric(IsoCoordSystem::Staggered)
}

/// Whether a chunk moved by `offset` keeps the parity its hexagonal offset coordinates need.
fn keeps_parity(map_type: TilemapType, offset: IVec2) -> bool {
    match map_type {
        TilemapType::Hexagon(HexCoordSystem::RowEven | HexCoordSystem::RowOdd) => offset.y % 2 == 0,
        TilemapType::Hexagon(HexCoordSystem::ColumnEven | HexCoordSystem::ColumnOdd) => {
            offset.x % 2 == 0
        }
        _ => true,
    }
}

/// The tile of the world's tiles (from [`WORLD_ORIGIN`]) of a chunk's tile `(0, 0)`: its
/// [`ChunkPos`] times its size, or where its transform puts it relative to the world's
/// `frame`.
fn offset_of(shape: &ChunkShapeItem, frame: &GlobalTransform) -> Option<IVec2> {
    let size = shape.size;
    if let Some(pos) = shape.pos {
        let size = IVec2::new(size.x as i32, size.y as i32);
        return pos.0.checked_mul(size);
    }
    let grid = shape.grid.copied().unwrap_or_default();
    let map_type = shape.map_type.copied().unwrap_or_default();
    let tile_size = shape.tile_size.copied().unwrap_or_default();
    let anchor = shape.anchor.copied().unwrap_or_default();
    let start = anchor.as_offset(size, &grid, &tile_size, &map_type);
    let transform = shape.transform.copied().unwrap_or_default();
    let in_world = transform.transform_point(start.extend(0.0));
    let local = frame
        .affine()
        .inverse()
        .transform_point3(in_world)
        .truncate();
    local
        .is_finite()
        .then(|| grid_position(local, &grid, &map_type))
}

/// The tile under `pos` on an endless grid of this type whose tile `(0, 0)` is centred on the
/// origin (bevy_ecs_tilemap's formulas, without the map's bounds).
pub(crate) fn grid_position(pos: Vec2, grid: &TilemapGridSize, map_type: &TilemapType) -> IVec2 {
    let (x, y) = match map_type {
        TilemapType::Square => (
            (pos.x / grid.x + 0.5).floor() as i32,
            (pos.y / grid.y + 0.5).floor() as i32,
        ),
        TilemapType::Isometric(IsoCoordSystem::Diamond) => {
            let p = DiamondPos::from_world_pos(&pos, grid);
            (p.x, p.y)
        }
        TilemapType::Isometric(IsoCoordSystem::Staggered) => {
            let p = StaggeredPos::from_world_pos(&pos, grid);
            (p.x, p.y)
        }
        TilemapType::Hexagon(system) => hex_position(pos, grid, *system),
    };
    IVec2::new(x, y)
}

/// [`grid_position`] on a hexagonal grid.
fn hex_position(pos: Vec2, grid: &TilemapGridSize, system: HexCoordSystem) -> (i32, i32) {
    match system {
        HexCoordSystem::RowEven => {
            let p = RowEvenPos::from_world_pos(&pos, grid);
            (p.q, p.r)
        }
        HexCoordSystem::RowOdd => {
            let p = RowOddPos::from_world_pos(&pos, grid);
            (p.q, p.r)
        }
        HexCoordSystem::ColumnEven => {
            let p = ColEvenPos::from_world_pos(&pos, grid);
            (p.q, p.r)
        }
        HexCoordSystem::ColumnOdd => {
            let p = ColOddPos::from_world_pos(&pos, grid);
            (p.q, p.r)
        }
        HexCoordSystem::Row => {
            let p = AxialPos::from_world_pos_row(&pos, grid);
            (p.q, p.r)
        }
        HexCoordSystem::Column => {
            let p = AxialPos::from_world_pos_col(&pos, grid);
            (p.q, p.r)
        }
    }
}

/// The rectangle around `areas` (empty without any).
fn bounding(areas: &[Window]) -> Window {
    let Some(first) = areas.first() else {
        return Window::default();
    };
    let (mut x0, mut y0) = (first.x, first.y);
    let (mut x1, mut y1) = (u64::from(first.x), u64::from(first.y));
    for area in areas {
        x0 = x0.min(area.x);
        y0 = y0.min(area.y);
        x1 = x1.max(u64::from(area.x) + u64::from(area.width));
        y1 = y1.max(u64::from(area.y) + u64::from(area.height));
    }
    Window {
        x: x0,
        y: y0,
        width: (x1 - u64::from(x0)).min(u64::from(u32::MAX)) as u32,
        height: (y1 - u64::from(y0)).min(u64::from(u32::MAX)) as u32,
    }
}
