//! [`MapOpacity`]: one map's bit-packed opacity grid, the count of opaque entities and
//! painted cells on each tile, and the versioned log of the tiles whose opacity changed.
//!
//! A map's tiles are an area of map coordinates: `(0, 0)` to its size for a tilemap, the
//! union of its chunks for a world ([`WorldMap`](crate::WorldMap), numbered from
//! [`WORLD_ORIGIN`](crate::maps::worlds::WORLD_ORIGIN)). The grid covers the area's bounding
//! rectangle; its cells outside every chunk are off the map: they block sight and are never
//! seen.

use bevy::ecs::entity::EntityHashMap;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{HexCoordSystem, IsoCoordSystem, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::changes::ChangeLog;
use crate::staggered;
use viewshed_core::bits::{BitRows, low_bits};
use viewshed_core::grid::OpacityGrid;
use viewshed_core::hex::HexCoords;
use viewshed_core::visible::{VisibleSet, Window};

/// Which field of view a map's grid gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Grid {
    /// Square maps, and diamond isometric maps (a square grid drawn turned).
    #[default]
    Square,
    /// Hexagonal maps, in one of bevy_ecs_tilemap's six coordinate systems.
    Hex(HexCoords),
    /// Staggered isometric maps: a square grid in other coordinates (see
    /// [`staggered`](crate::staggered)).
    Staggered,
}

/// The field of view of a tilemap of this type.
pub(crate) fn grid_of(map_type: &TilemapType) -> Grid {
    let hex = |system: &HexCoordSystem| match system {
        HexCoordSystem::Row => HexCoords::Row,
        HexCoordSystem::Column => HexCoords::Column,
        HexCoordSystem::RowEven => HexCoords::RowEven,
        HexCoordSystem::RowOdd => HexCoords::RowOdd,
        HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
        HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
    };
    match map_type {
        TilemapType::Square | TilemapType::Isometric(IsoCoordSystem::Diamond) => Grid::Square,
        TilemapType::Hexagon(system) => Grid::Hex(hex(system)),
        TilemapType::Isometric(IsoCoordSystem::Staggered) => Grid::Staggered,
    }
}

/// The opacity of one map, kept on its root tilemap (or its world) entity by the plugin.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// fn is_wall(maps: Query<&MapOpacity>, map: Single<Entity, With<TileStorage>>) {
///     let opacity = maps.get(*map).unwrap();
///     let _ = opacity.is_opaque(TilePos { x: 3, y: 4 });
/// }
/// ```
///
/// It is `Reflect` as an opaque value (an inspector shows its `Debug` form); the plugin keeps
/// it, so read it through its methods.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
pub struct MapOpacity {
    /// Cell `(x, y)` is tile `(area.x + x, area.y + y)` (a staggered map: see [`staggered`]).
    grid: OpacityGrid,
    /// How many opaque entities stand on each tile, plus one for each source of painted
    /// cells that paints it, also tiles outside the current area (so that shrinking and
    /// growing a map back loses nothing).
    counts: HashMap<(u32, u32), u32>,
    /// The tiles each source (a tilemap's `OpaqueCells`) paints opaque, each counted once in
    /// `counts`.
    painted: EntityHashMap<HashSet<(u32, u32)>>,
    /// Versions and the latest changed tiles (map coordinates).
    changes: ChangeLog,
    /// Which field of view the map's grid gets (from its `TilemapType`).
    kind: Grid,
    /// The map's `TilemapType` (its chunks' in a world).
    map_type: TilemapType,
    /// The rectangle of map coordinates the grid covers (a staggered map's grid is larger).
    area: Window,
    /// A world's chunks: the tiles of `area` outside all of them are off the map. Empty for
    /// a tilemap, whose whole area is on the map.
    chunks: Vec<Window>,
    /// Whether it is a world's (its area follows its chunks).
    world: bool,
    /// A world's tiles on a chunk, one bit per tile of `area` (row `y`, bit `x`).
    coverage: BitRows,
}

impl MapOpacity {
    pub(super) fn new(size: TilemapSize, map_type: TilemapType, kind: Grid) -> Self {
        let mut opacity = Self {
            kind,
            map_type,
            ..default()
        };
        opacity.rebuild(whole(size));
        opacity
    }

    /// Makes the grid anew for `area` and the map's kind from the opaque tiles counted.
    fn rebuild(&mut self, area: Window) {
        self.area = area;
        self.fill_grid();
        self.changes.reset();
    }

    /// The grid from the counts and, in a world, the chunks (and their coverage).
    fn fill_grid(&mut self) {
        let size = TilemapSize::new(self.area.width, self.area.height);
        self.grid = match self.kind {
            Grid::Staggered => staggered::diamond_grid(size),
            Grid::Square | Grid::Hex(_) => OpacityGrid::new(size.x, size.y),
        };
        if self.world {
            self.coverage.reset(size.y, size.x);
            self.grid.fill(true);
            for chunk in self.chunks.clone() {
                self.cover(chunk, true);
            }
            return;
        }
        let cells: Vec<(u32, u32)> = self.counts.keys().filter_map(|&c| self.cell(c)).collect();
        for (x, y) in cells {
            self.grid.set_opaque(x, y, true);
        }
    }

    /// Puts the tiles of `chunk` on the map (`on`: their cells from the counts) or takes them
    /// off (their cells opaque): the work of one chunk that comes or goes.
    fn cover(&mut self, chunk: Window, on: bool) {
        let Some(part) = chunk.intersection(&self.area) else {
            return;
        };
        let area = self.area;
        for y in part.y..part.y + part.height {
            self.coverage
                .fill_span(y - area.y, part.x - area.x, part.width, on);
            for x in part.x..part.x + part.width {
                let opaque = !on || self.counts.contains_key(&(x, y));
                self.grid.set_opaque(x - area.x, y - area.y, opaque);
            }
        }
    }

    /// The grid cell of a tile (none for a tile outside the grid's area); on a staggered map
    /// its diamond cell.
    fn cell(&self, (x, y): (u32, u32)) -> Option<(u32, u32)> {
        let area = self.area;
        if !area.contains(x, y) {
            return None;
        }
        let local = (x - area.x, y - area.y);
        Some(match self.kind {
            Grid::Staggered => staggered::to_diamond(local),
            Grid::Square | Grid::Hex(_) => local,
        })
    }

    /// Follows a change of the map's `TilemapType`.
    pub(super) fn set_type(&mut self, map_type: TilemapType, kind: Grid) {
        self.map_type = map_type;
        if kind != self.kind {
            self.kind = kind;
            self.rebuild(self.area);
        }
    }

    /// Follows a tilemap's new size.
    pub(super) fn resize(&mut self, size: TilemapSize) {
        if whole(size) != self.area {
            self.rebuild(whole(size));
        }
    }

    /// A world's chunks are now `chunks` (their tiles in map coordinates), which `bounds`
    /// holds. The grid keeps its area while that holds them without being many times larger
    /// (chunks streamed around a player come and go inside it), so that a chunk that comes or
    /// goes costs its own tiles; else it is laid out anew over `bounds` and a margin. Only the
    /// tiles of the chunks that came or went are logged as changed: the views that reach them
    /// are recomputed, no other.
    pub(super) fn set_chunks(&mut self, bounds: Window, mut chunks: Vec<Window>) {
        chunks.sort_by_key(|w| (w.y, w.x, w.width, w.height));
        let came = only_in(&chunks, &self.chunks);
        let went = only_in(&self.chunks, &chunks);
        self.chunks = chunks;
        let area = if self.world {
            grown(self.area, bounds, self.map_type)
        } else {
            None
        };
        self.world = true;
        match area {
            None => {
                self.area = margin(bounds, self.map_type);
                self.fill_grid();
            }
            Some(_) => {
                for &chunk in &went {
                    self.cover(chunk, false);
                }
                for &chunk in &came {
                    self.cover(chunk, true);
                }
            }
        }
        for changed in came.into_iter().chain(went) {
            self.changes.note_area(changed);
        }
    }

    /// The size of the map's grid area in tiles (a tilemap's size).
    pub(crate) fn size(&self) -> TilemapSize {
        TilemapSize::new(self.area.width, self.area.height)
    }

    /// The rectangle of map coordinates the map's tiles lie in: `(0, 0)` and its size for a
    /// tilemap, the rectangle around its chunks for a world.
    pub fn area(&self) -> Window {
        self.area
    }

    /// The map tile of the grid's cell `(0, 0)`.
    #[inline]
    pub(crate) fn grid_origin(&self) -> (u32, u32) {
        (self.area.x, self.area.y)
    }

    /// The map's area if it is fixed (a tilemap's, until it is resized), `None` for a world,
    /// whose area follows its chunks.
    pub(crate) fn fixed_area(&self) -> Option<Window> {
        (!self.world).then_some(self.area)
    }

    /// A world's chunks, in map coordinates (none for a tilemap).
    pub(crate) fn chunks(&self) -> &[Window] {
        &self.chunks
    }

    /// Whether `tile` is a tile of the map (in its area and, in a world, in one of its
    /// chunks).
    #[inline]
    pub fn covers(&self, (x, y): (u32, u32)) -> bool {
        let area = self.area;
        area.contains(x, y) && (!self.world || self.coverage.get(y - area.y, x - area.x))
    }

    /// Takes out of `view` (map coordinates) the cells off the map: those of a world's area
    /// outside its chunks, which block sight like walls but are never seen. Nothing to do for
    /// a view whose window lies on chunks (told 64 tiles at a time).
    pub(crate) fn clip(&self, view: &mut VisibleSet) {
        if self.world && !self.all_covered(view.window()) {
            view.retain(|x, y| self.covers((x, y)));
        }
    }

    /// Whether every tile of `window` is on a chunk.
    fn all_covered(&self, window: Window) -> bool {
        let area = self.area;
        if window.intersection(&area) != Some(window) {
            return window.is_empty();
        }
        let (x0, y0) = (window.x - area.x, window.y - area.y);
        (y0..y0 + window.height).all(|y| {
            (0..window.width).step_by(64).all(|dx| {
                let want = low_bits((window.width - dx).min(u64::BITS));
                self.coverage.get_run(y, x0 + dx) & want == want
            })
        })
    }

    /// Which field of view the map's grid gets.
    pub(crate) fn kind(&self) -> Grid {
        self.kind
    }

    /// The map's `TilemapType` (the neighbours of a tile on it).
    pub(crate) fn map_type(&self) -> TilemapType {
        self.map_type
    }

    /// The bit-packed grid the FOV is computed on: cell `(x, y)` is tile
    /// `(area.x + x, area.y + y)` (see [`area`](Self::area)), except on a staggered isometric
    /// map, whose tile `(x, y)` is cell `(x, x + y)` of a diamond grid (use
    /// [`is_opaque`](Self::is_opaque) to ask about a tile on any map).
    pub fn grid(&self) -> &OpacityGrid {
        &self.grid
    }

    /// Up to 64 tiles of row `y` from column `x` (map coordinates) as bits, set when opaque
    /// (tiles off the map are), on a square or hexagonal map.
    #[inline]
    pub(crate) fn row_bits(&self, y: u32, x: u32) -> u64 {
        let area = self.area;
        if !(area.y..area.y.saturating_add(area.height)).contains(&y) {
            return u64::MAX;
        }
        let y = y - area.y;
        if x >= area.x {
            return self.grid.row_bits(y, x - area.x);
        }
        // The run starts left of the grid: those tiles are off the map.
        let before = area.x - x;
        if before >= u64::BITS {
            return u64::MAX;
        }
        (self.grid.row_bits(y, 0) << before) | viewshed_core::bits::low_bits(before)
    }

    /// Whether `tile` blocks sight (tiles off the map do).
    pub fn is_opaque(&self, tile: TilePos) -> bool {
        !self.covers((tile.x, tile.y))
            || self
                .cell((tile.x, tile.y))
                .is_none_or(|(x, y)| self.grid.is_opaque(x, y))
    }

    /// How many [`Opaque`](crate::Opaque) entities stand on `tile`.
    pub fn opaque_entities_at(&self, tile: TilePos) -> u32 {
        let cell = (tile.x, tile.y);
        let counted = self.counts.get(&cell).copied().unwrap_or(0);
        let painted = self.painted.values().filter(|p| p.contains(&cell)).count();
        counted - painted as u32
    }

    /// The version of the grid: it grows with every change.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    /// Whether opacity changed after version `since` in an area for which `in_reach` holds
    /// (tiles beyond a view's reach cannot change what is seen inside it).
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn(Window) -> bool) -> bool {
        self.changes.changed_within(since, in_reach)
    }

    /// The areas whose opacity changed after version `since` (`None`: not all known any
    /// more, see [`ChangeLog::changes_since`](crate::changes::ChangeLog::changes_since)).
    pub(crate) fn changes_since(&self, since: u64) -> Option<impl Iterator<Item = Window>> {
        self.changes.changes_since(since)
    }

    /// `source` paints `cells` opaque, and no longer the cells it painted before and not now.
    pub(super) fn paint(&mut self, source: Entity, cells: HashSet<(u32, u32)>) {
        let before = self.painted.remove(&source).unwrap_or_default();
        for &cell in before.difference(&cells) {
            self.remove(cell);
        }
        for &cell in cells.difference(&before) {
            self.add(cell);
        }
        if !cells.is_empty() {
            self.painted.insert(source, cells);
        }
    }

    /// One more opaque thing on `cell`.
    pub(super) fn add(&mut self, cell: (u32, u32)) {
        let count = self.counts.entry(cell).or_insert(0);
        *count += 1;
        if *count == 1
            && let Some((x, y)) = self.cell(cell)
            && self.covers(cell)
            && self.grid.set_opaque(x, y, true)
        {
            self.changes.note_change(cell);
        }
    }

    /// One opaque thing less on `cell`.
    pub(super) fn remove(&mut self, cell: (u32, u32)) {
        let Some(count) = self.counts.get_mut(&cell) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.counts.remove(&cell);
            if let Some((x, y)) = self.cell(cell)
                && self.covers(cell)
                && self.grid.set_opaque(x, y, false)
            {
                self.changes.note_change(cell);
            }
        }
    }
}

/// The area of a tilemap of `size`: `(0, 0)` to its size.
fn whole(size: TilemapSize) -> Window {
    Window {
        x: 0,
        y: 0,
        width: size.x,
        height: size.y,
    }
}

/// The windows of `a` that are not in `b`.
fn only_in(a: &[Window], b: &[Window]) -> Vec<Window> {
    a.iter().filter(|w| !b.contains(w)).copied().collect()
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
