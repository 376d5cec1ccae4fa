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

    /// The grid from the counts and the chunks.
    fn fill_grid(&mut self) {
        let size = TilemapSize::new(self.area.width, self.area.height);
        self.grid = match self.kind {
            Grid::Staggered => staggered::diamond_grid(size),
            Grid::Square | Grid::Hex(_) => OpacityGrid::new(size.x, size.y),
        };
        if self.world {
            let area = self.area;
            let holes: Vec<(u32, u32)> = area.cells().filter(|&t| !self.covers(t)).collect();
            for (x, y) in holes {
                self.grid.set_opaque(x - area.x, y - area.y, true);
            }
        }
        let cells: Vec<(u32, u32)> = self.counts.keys().filter_map(|&c| self.cell(c)).collect();
        for (x, y) in cells {
            self.grid.set_opaque(x, y, true);
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

    /// A world's chunks are now `chunks` (their tiles in map coordinates), the grid covering
    /// `area`, a rectangle that holds them all. Only the tiles of the chunks that came or
    /// went are logged as changed: the views that reach them are recomputed, no other.
    pub(super) fn set_chunks(&mut self, area: Window, mut chunks: Vec<Window>) {
        chunks.sort_by_key(|w| (w.y, w.x, w.width, w.height));
        let came_or_went: Vec<Window> = symmetric_difference(&self.chunks, &chunks);
        self.world = true;
        self.area = area;
        self.chunks = chunks;
        self.fill_grid();
        for changed in came_or_went {
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
    pub fn covers(&self, (x, y): (u32, u32)) -> bool {
        self.area.contains(x, y) && (!self.world || self.chunks.iter().any(|c| c.contains(x, y)))
    }

    /// Takes out of `view` (map coordinates) the cells off the map: those of a world's area
    /// between its chunks, which block sight like walls but are never seen.
    pub(crate) fn clip(&self, view: &mut VisibleSet) {
        let window = view.window();
        let inside_one = self
            .chunks
            .iter()
            .any(|c| c.intersection(&window) == Some(window));
        if self.chunks.is_empty() || inside_one {
            return;
        }
        view.retain(|x, y| self.covers((x, y)));
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

/// The windows in one list and not in the other.
fn symmetric_difference(a: &[Window], b: &[Window]) -> Vec<Window> {
    let only = |one: &[Window], other: &[Window]| {
        let other = other.to_vec();
        one.iter()
            .filter(move |w| !other.contains(w))
            .copied()
            .collect::<Vec<_>>()
    };
    let mut changed = only(a, b);
    changed.extend(only(b, a));
    changed
}
