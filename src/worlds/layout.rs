//! Each world's layout: where its chunks lie in its tiles ([`ChunkPlacement`]), the grid they
//! share, and which of the world's tiles lie on a chunk ([`WorldLayout`]), laid out again when
//! chunks come, go or move, or the world itself moves.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use super::chunks::{ChunkOf, ChunkPlacement, ChunkPos, WORLD_ORIGIN, WorldChunks, WorldMap};
use super::positions::grid_position;
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// The grid a world's chunks share (and entities placed by `Transform` on the world itself
/// are found on).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChunkGrid {
    pub(crate) grid: TilemapGridSize,
    pub(crate) map_type: TilemapType,
}

impl ChunkGrid {
    /// The order a tie between grids is broken in: by the kind of map, then the grid size.
    fn rank(&self) -> (u8, u32, u32) {
        let kind = match self.map_type {
            TilemapType::Square => 0,
            TilemapType::Isometric(IsoCoordSystem::Diamond) => 1,
            TilemapType::Isometric(IsoCoordSystem::Staggered) => 2,
            TilemapType::Hexagon(system) => 3 + system as u8,
        };
        (kind, self.grid.x.to_bits(), self.grid.y.to_bits())
    }
}

/// Where a world's chunks lie, kept by the plugin on each world: the grid they share, the
/// rectangle of world tiles the world's map covers (its chunks with a margin, so that chunks
/// streamed in around them fit without laying the map out again), its chunks' tiles, and
/// which tiles of that rectangle lie on a chunk. The worlds' bookkeeping, read by placement
/// and opacity.
#[derive(Component, Clone, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(crate) struct WorldLayout {
    grid: Option<ChunkGrid>,
    area: Window,
    chunks: Vec<Window>,
    /// One bit per tile of `area` (row `y`, bit `x`): on a chunk.
    coverage: BitRows,
}

impl WorldLayout {
    /// The grid the world's chunks share (none without a chunk).
    pub(crate) fn grid(&self) -> Option<ChunkGrid> {
        self.grid
    }

    /// The world's map type (square without a chunk).
    pub(crate) fn map_type(&self) -> TilemapType {
        self.grid
            .map_or_else(TilemapType::default, |grid| grid.map_type)
    }

    /// The rectangle of world tiles the world's map covers.
    pub(crate) fn area(&self) -> Window {
        self.area
    }

    /// The tiles of the world's chunks, sorted.
    pub(crate) fn chunks(&self) -> &[Window] {
        &self.chunks
    }

    /// One bit per tile of [`area`](Self::area) (row `y`, bit `x`): set on a chunk.
    pub(crate) fn coverage(&self) -> &BitRows {
        &self.coverage
    }

    /// Whether world tile `(x, y)` lies on a chunk.
    #[inline]
    pub(crate) fn covers(&self, (x, y): (u32, u32)) -> bool {
        let area = self.area;
        area.contains(x, y) && self.coverage.get(y - area.y, x - area.x)
    }

    /// The world's chunks are now `chunks`, of `grid`: the area is kept while it holds them
    /// without being many times larger (chunks streamed around a player come and go inside
    /// it), else laid out anew around them.
    fn set(&mut self, grid: Option<ChunkGrid>, mut chunks: Vec<Window>) {
        chunks.sort_by_key(|w| (w.y, w.x, w.width, w.height));
        let map_type = grid.map_or_else(TilemapType::default, |grid| grid.map_type);
        let bounds = bounding(&chunks);
        let kept = (self.grid == grid && !self.chunks.is_empty())
            .then(|| grown(self.area, bounds, map_type))
            .flatten();
        self.area = kept.unwrap_or_else(|| margin(bounds, map_type));
        self.grid = grid;
        self.coverage.reset(self.area.height, self.area.width);
        for chunk in &chunks {
            let Some(part) = chunk.intersection(&self.area) else {
                continue;
            };
            for y in part.y..part.y + part.height {
                let (row, bit) = (y - self.area.y, part.x - self.area.x);
                self.coverage.fill_span(row, bit, part.width, true);
            }
        }
        self.chunks = chunks;
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

impl ChunkShapeItem<'_, '_> {
    fn grid(&self) -> ChunkGrid {
        ChunkGrid {
            grid: self.grid.copied().unwrap_or_default(),
            map_type: self.map_type.copied().unwrap_or_default(),
        }
    }
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

/// Worlds whose chunks may have come, gone or moved since the last update, and the chunks
/// that left them.
#[derive(Resource, Default)]
pub(super) struct WorldsDirty {
    worlds: EntityHashSet,
    left: EntityHashSet,
    left_areas: Vec<(Entity, Window)>,
}

/// What `place_chunks` changed, written by it alone, anew each update: the tiles of the chunks
/// that came, went or moved, by world (the entities there are placed again; a chunk that
/// takes the place of another counts, though the world's tiles stay), and the chunks that
/// left (their tilemaps' removal moves nothing else).
#[derive(Resource, Default)]
pub(crate) struct ChunkChanges {
    areas: Vec<(Entity, Window)>,
    left: EntityHashSet,
}

impl ChunkChanges {
    /// The tiles of the chunks that came, went or moved, by world.
    pub(crate) fn areas(&self) -> &[(Entity, Window)] {
        &self.areas
    }

    /// The chunks that left their world.
    pub(crate) fn left(&self) -> &EntityHashSet {
        &self.left
    }
}

/// Problems with chunks already warned about, so that each is logged once.
#[derive(Resource, Default)]
pub(super) struct ChunkWarnings(EntityHashSet);

/// A chunk left its world (its `ChunkOf` removed, or it was despawned): the world lays out
/// its chunks again.
pub(super) fn on_chunk_left(
    event: On<Remove, ChunkOf>,
    chunks: Query<(&ChunkOf, Option<&ChunkPlacement>)>,
    mut dirty: ResMut<WorldsDirty>,
    mut commands: Commands,
) {
    if let Ok((&ChunkOf(world), placement)) = chunks.get(event.entity) {
        dirty.worlds.insert(world);
        dirty.left.insert(event.entity);
        if let Some(placement) = placement {
            dirty.left_areas.push((world, placement.area()));
        }
    }
    if let Ok(mut chunk) = commands.get_entity(event.entity) {
        chunk.try_remove::<ChunkPlacement>();
    }
}

/// A world as it is laid out.
type WorldItem<'a> = (
    Option<&'a WorldChunks>,
    Option<&'a GlobalTransform>,
    Option<&'a mut WorldLayout>,
);

/// New worlds, and worlds that moved.
type NewOrMoved = (
    With<WorldMap>,
    Or<(Added<WorldMap>, Changed<GlobalTransform>)>,
);

/// What laying out the worlds reads and writes.
#[derive(SystemParam)]
pub(super) struct ChunkPlacer<'w, 's> {
    moved: Query<'w, 's, &'static ChunkOf, ChunkMoved>,
    /// New worlds, and worlds that moved (their chunks placed by transform move in them).
    new_or_moved: Query<'w, 's, Entity, NewOrMoved>,
    worlds: Query<'w, 's, WorldItem<'static>, With<WorldMap>>,
    shapes: Query<'w, 's, ChunkShape>,
    placements: Query<'w, 's, &'static mut ChunkPlacement>,
    dirty: ResMut<'w, WorldsDirty>,
    changes: ResMut<'w, ChunkChanges>,
    warned: ResMut<'w, ChunkWarnings>,
    commands: Commands<'w, 's>,
}

/// Lays out the worlds whose chunks came, went or moved, or that moved themselves: each
/// chunk's [`ChunkPlacement`] and the world's [`WorldLayout`].
pub(super) fn place_chunks(mut layout: ChunkPlacer) {
    let WorldsDirty {
        worlds: mut dirty,
        left,
        left_areas,
    } = std::mem::take(&mut *layout.dirty);
    dirty.extend(layout.moved.iter().map(|chunk| chunk.0));
    dirty.extend(layout.new_or_moved.iter());
    layout.changes.areas = left_areas;
    layout.changes.left = left;
    for world in dirty {
        layout.lay_out(world);
    }
}

impl ChunkPlacer<'_, '_> {
    /// Places every chunk of `world` that has the world's grid, and keeps the world's layout.
    fn lay_out(&mut self, world: Entity) {
        let Ok((chunks, world_transform, _)) = self.worlds.get(world) else {
            return;
        };
        let chunks: Vec<Entity> = chunks.map(|c| c.iter().collect()).unwrap_or_default();
        let frame = world_transform.copied().unwrap_or_default();
        let grid = self.shared_grid(&chunks);
        let mut areas = Vec::new();
        for chunk in chunks {
            areas.extend(self.place(world, chunk, &frame, grid));
        }
        match self.worlds.get_mut(world) {
            Ok((_, _, Some(mut layout))) => layout.set(grid, areas),
            Ok((_, _, None)) => {
                let mut layout = WorldLayout::default();
                layout.set(grid, areas);
                self.commands.entity(world).try_insert(layout);
            }
            Err(_) => {}
        }
    }

    /// The grid most of `chunks` share (of those that can make a world), ties broken by
    /// [`ChunkGrid::rank`]: whatever order the chunks joined in, the same grid.
    fn shared_grid(&self, chunks: &[Entity]) -> Option<ChunkGrid> {
        let mut counts: Vec<(ChunkGrid, usize)> = Vec::new();
        for shape in self.shapes.iter_many(chunks) {
            let grid = shape.grid();
            if !joinable(grid.map_type) {
                continue;
            }
            match counts.iter_mut().find(|(g, _)| *g == grid) {
                Some((_, count)) => *count += 1,
                None => counts.push((grid, 1)),
            }
        }
        let best = counts
            .iter()
            .map(|(g, count)| (std::cmp::Reverse(*count), g.rank(), *g));
        best.min_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
            .map(|(.., g)| g)
    }

    /// Places one chunk of `world` (whose transform is `frame`) if it has the world's `grid`;
    /// returns its tiles in the world's.
    fn place(
        &mut self,
        world: Entity,
        chunk: Entity,
        frame: &GlobalTransform,
        grid: Option<ChunkGrid>,
    ) -> Option<Window> {
        let shape = self.shapes.get(chunk).ok()?;
        let chunk_grid = shape.grid();
        let fits = grid == Some(chunk_grid);
        let offset = offset_of(&shape, frame).filter(|_| fits);
        let Some(offset) = offset.filter(|&o| keeps_parity(chunk_grid.map_type, o)) else {
            self.warn(chunk, world, (fits, chunk_grid, grid));
            if let Ok(old) = self.placements.get(chunk) {
                self.changes.areas.push((world, old.area()));
            }
            self.commands.entity(chunk).try_remove::<ChunkPlacement>();
            return None;
        };
        let first = TilePos::new(
            WORLD_ORIGIN.wrapping_add_signed(offset.x),
            WORLD_ORIGIN.wrapping_add_signed(offset.y),
        );
        let placement = ChunkPlacement::new(world, first, *shape.size);
        let moved = &mut self.changes.areas;
        match self.placements.get_mut(chunk) {
            Ok(mut old) => {
                let was = old.area();
                if old.set_if_neq(placement) {
                    moved.extend([(world, was), (world, placement.area())]);
                }
            }
            Err(_) => {
                moved.push((world, placement.area()));
                self.commands.entity(chunk).try_insert(placement);
            }
        }
        self.warned.0.remove(&chunk);
        Some(placement.area())
    }

    /// Warns once that `chunk` is left out of `world`, and why: it `fits` the world's grid but
    /// lies at an odd offset, or its grid (`chunk_grid`) is not the world's (`grid`).
    fn warn(
        &mut self,
        chunk: Entity,
        world: Entity,
        (fits, chunk_grid, grid): (bool, ChunkGrid, Option<ChunkGrid>),
    ) {
        if !self.warned.0.insert(chunk) {
            return;
        }
        let why = if fits {
            "it lies at an odd offset across the rows (or columns) of its hexagonal offset \
             coordinates, which would change which tiles are neighbours; move it by an even \
             number of tiles"
                .to_string()
        } else if !joinable(chunk_grid.map_type) {
            "it is a staggered isometric map, which a world cannot join; give every chunk the \
             same square, diamond or hexagonal grid"
                .to_string()
        } else {
            let world_grid = grid.map_or_else(|| "none".into(), |g| describe(&g));
            format!(
                "its grid ({}) is not the one most of the world's chunks share ({world_grid}); \
                 give every chunk the same TilemapType and grid size",
                describe(&chunk_grid)
            )
        };
        warn!("bevy_viewshed: chunk {chunk} of world {world} is left out of it: {why}");
    }
}

/// A grid as a warning names it.
fn describe(grid: &ChunkGrid) -> String {
    format!("{:?}, {}x{}", grid.map_type, grid.grid.x, grid.grid.y)
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
    let ChunkGrid { grid, map_type } = shape.grid();
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

/// `area` if it still suits chunks within `bounds`: it holds them and has at most 16 times
/// their tiles (a margin of 1.5 times their size each way).
fn grown(area: Window, bounds: Window, map_type: TilemapType) -> Option<Window> {
    let cells = |w: Window| u64::from(w.width) * u64::from(w.height);
    let holds = bounds.is_empty() || area.intersection(&bounds) == Some(bounds);
    (holds && cells(area) <= 16 * cells(bounds).max(1) && even(area, map_type)).then_some(area)
}

/// `bounds` with a margin of half its size each way, so that chunks streamed in around it fit
/// for a while; its corner on even tiles on hexagonal grids (their offset coordinates keep
/// their parity).
fn margin(bounds: Window, map_type: TilemapType) -> Window {
    let (mx, my) = (bounds.width / 2, bounds.height / 2);
    let (mut x, mut y) = (bounds.x.saturating_sub(mx), bounds.y.saturating_sub(my));
    if matches!(map_type, TilemapType::Hexagon(_)) {
        (x, y) = (x & !1, y & !1);
    }
    let end = |from: u32, len: u32, m: u32| from.saturating_add(len).saturating_add(m);
    Window {
        x,
        y,
        width: end(bounds.x, bounds.width, mx) - x,
        height: end(bounds.y, bounds.height, my) - y,
    }
}

/// Whether `area`'s corner suits the grid (even tiles on hexagonal grids).
fn even(area: Window, map_type: TilemapType) -> bool {
    !matches!(map_type, TilemapType::Hexagon(_))
        || (area.x.is_multiple_of(2) && area.y.is_multiple_of(2))
}
