//! [`MapOpacity`]: one map's grids, as the field of view reads them: which cells block sight,
//! how dense each is, and which tiles of a world lie on a chunk. The opacity domain writes
//! them (`cells.rs`), from its own tallies, and logs every change.
//!
//! A map's tiles are an area of map coordinates: `(0, 0)` to its size for a tilemap, the
//! union of its chunks for a world ([`WorldMap`](crate::WorldMap), numbered from
//! [`WORLD_ORIGIN`](crate::worlds::chunks::WORLD_ORIGIN)). The grid covers the area's bounding
//! rectangle; its cells outside every chunk are off the map: they block sight and are never
//! seen.

use bevy::prelude::*;
use bevy_ecs_tilemap::map::{HexCoordSystem, IsoCoordSystem, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::TilePos;

use viewshed_core::bits::{BitRows, low_bits};
use viewshed_core::density::DensityGrid;
use viewshed_core::elevation::{CliffFaces, ElevationGrid, SightLevels};
use viewshed_core::grid::OpacityGrid;
use viewshed_core::hex::HexCoords;
use viewshed_core::staggered;
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
    /// [`staggered`](viewshed_core::staggered)).
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

/// The opacity of one map, kept on its root tilemap (or its world) entity by the plugin: the
/// grids the field of view is computed on, read through its methods.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::MapOpacity;
/// fn is_wall(maps: Query<&MapOpacity>, map: Single<Entity, With<TileStorage>>) {
///     let opacity = maps.get(*map).unwrap();
///     let _ = opacity.is_opaque(TilePos { x: 3, y: 4 });
/// }
/// ```
///
/// It holds only the grids: what stands on each tile (the `Opaque` and `Density` entities,
/// the painted cells) is the plugin's own bookkeeping beside it, so a `MapOpacity` inserted by
/// a game (another map's clone, a reflected copy, a scene's) is drawn again from this map's
/// own walls at the next update. It is `Reflect` as an opaque value (an inspector shows its
/// `Debug` form).
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct MapOpacity {
    /// Cell `(x, y)` is tile `(area.x + x, area.y + y)` (a staggered map: see [`staggered`]).
    grid: OpacityGrid,
    /// How dense each tile is ([`Density`](crate::Density) entities and
    /// [`DensityCells`](crate::DensityCells)), on the same cells.
    density: DensityGrid,
    /// The map's high ground ([`Elevation`](crate::Elevation), [`ElevationCells`](crate::ElevationCells)),
    /// on the same cells: the levels and one grid per eye level thresholded there, kept in
    /// step with `grid` (none while every tile is at level 0: a flat map keeps no more).
    levels: Option<SightLevels>,
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
    /// The version of the grids (the map's change log's).
    version: u64,
    /// Drawn anew from one count for every map at each layout, so that the tallies of each
    /// kind know to fill grids that are not the ones they filled.
    layout: u64,
}

/// The next layout of any map (see `MapOpacity::layout`).
fn next_layout() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl MapOpacity {
    /// An empty map of `size` tiles: its cells are filled from what stands on them.
    pub(super) fn tilemap(size: TilemapSize, map_type: TilemapType) -> Self {
        let mut opacity = Self {
            kind: grid_of(&map_type),
            map_type,
            ..default()
        };
        opacity.lay_out(whole(size));
        opacity
    }

    /// An empty world: its area follows its layout.
    pub(super) fn world(map_type: TilemapType) -> Self {
        Self {
            kind: grid_of(&map_type),
            map_type,
            world: true,
            ..default()
        }
    }

    /// Makes empty grids for `area` and the map's kind: in a world, every cell off its chunks
    /// opaque. Each kind fills them again from what stands on the tiles.
    pub(super) fn lay_out(&mut self, area: Window) {
        self.area = area;
        self.layout = next_layout();
        let size = TilemapSize::new(area.width, area.height);
        self.grid = match self.kind {
            Grid::Staggered => staggered::diamond_grid(size.x, size.y),
            Grid::Square | Grid::Hex(_) => OpacityGrid::new(size.x, size.y),
        };
        self.density = DensityGrid::new(self.grid.width(), self.grid.height());
        self.levels = None;
        if self.world {
            self.grid.fill(true);
            for chunk in self.chunks.clone() {
                for tile in chunk.intersection(&area).iter().flat_map(Window::cells) {
                    self.set_opaque(tile, false);
                }
            }
        }
    }

    /// The map's `TilemapType` is now `map_type`; returns whether the grid's kind changed (the
    /// cells must then be laid out anew).
    pub(super) fn set_type(&mut self, map_type: TilemapType) -> bool {
        self.map_type = map_type;
        let kind = grid_of(&map_type);
        std::mem::replace(&mut self.kind, kind) != kind
    }

    /// A world's chunks are now `chunks`, covering the tiles `coverage` of `area`; the cells
    /// are not written (lay the grids out, or rewrite the tiles of the chunks that came and
    /// went).
    pub(super) fn set_chunks(&mut self, chunks: &[Window], coverage: &BitRows) {
        self.chunks = chunks.to_vec();
        self.coverage.clone_from(coverage);
    }

    /// Sets whether the cell of `tile` blocks sight (a tile of a world off its chunks always
    /// does); returns whether it changed.
    pub(super) fn set_opaque(&mut self, tile: (u32, u32), opaque: bool) -> bool {
        let opaque = opaque || !self.covers(tile);
        let Some((x, y)) = self.cell(tile) else {
            return false;
        };
        if let Some(levels) = &mut self.levels {
            let _ = levels.set_wall(x, y, opaque);
        }
        self.grid.set_opaque(x, y, opaque)
    }

    /// Sets the level of the cell of `tile`; returns whether it changed. The first level above
    /// 0 makes the map's grids per eye level (all fifteen at once, so that views computed in
    /// parallel only read them).
    pub(super) fn set_elevation(&mut self, tile: (u32, u32), level: u8) -> bool {
        let Some((x, y)) = self.cell(tile) else {
            return false;
        };
        if self.levels.is_none() && level == 0 {
            return false;
        }
        let (width, height) = (self.grid.width(), self.grid.height());
        let levels = self.levels.get_or_insert_with(|| {
            let flat = ElevationGrid::new(width, height);
            let mut levels = SightLevels::new(self.grid.clone(), flat)
                .expect("the levels are made the size of the walls");
            for eye in 0..viewshed_core::elevation::MAX_LEVEL {
                levels.grid_for_eye(eye);
            }
            levels
        });
        let was = levels.elevations().get(x, y);
        let _ = levels.set_elevation(x, y, level);
        was != Some(level)
    }

    /// Sets how dense the cell of `tile` is, in units; returns whether it changed.
    pub(super) fn set_density(&mut self, tile: (u32, u32), units: u16) -> bool {
        self.cell(tile)
            .is_some_and(|(x, y)| self.density.set_units(x, y, units))
    }

    /// The map's version is now `version` (its change log's).
    pub(super) fn set_version(&mut self, version: u64) {
        self.version = version;
    }

    /// Which layout of the grids this is: a kind whose tallies filled another fills these.
    pub(super) fn layout(&self) -> u64 {
        self.layout
    }

    /// The grid cell of a tile (none for a tile outside the grid's area); on a staggered map
    /// its diamond cell.
    fn cell(&self, tile: (u32, u32)) -> Option<(u32, u32)> {
        cell_in(self.kind, self.area, tile)
    }

    /// How dense `tile` is, as the field of view takes it: the sum of its
    /// [`Density`](crate::Density) entities and [`DensityCells`](crate::DensityCells), in
    /// 1/1024ths rounded up, at most 1 (0 off the map). See [`viewshed_core::density`] for the
    /// rule.
    pub fn density(&self, tile: TilePos) -> f32 {
        self.cell((tile.x, tile.y))
            .map_or(0.0, |(x, y)| self.density.density(x, y))
    }

    /// The density of every cell of [`grid`](Self::grid), as the field of view is thinned
    /// with it.
    pub fn density_grid(&self) -> &DensityGrid {
        &self.density
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
        (self.grid.row_bits(y, 0) << before) | low_bits(before)
    }

    /// The grid a viewer whose eye is at level `eye` sees on: [`grid`](Self::grid) with every
    /// cell above `eye` blocking sight (the grid itself on a flat map).
    /// Applies a viewer's choice of [`CliffFaces`] to `view`, computed from an eye at level
    /// `eye` on this map's grid (in grid coordinates): on a flat map nothing is above any eye.
    pub(crate) fn apply_cliff_faces(&self, (faces, eye): (CliffFaces, u8), view: &mut VisibleSet) {
        if let Some(levels) = &self.levels {
            faces.apply(view, levels.elevations(), eye);
        }
    }

    pub(crate) fn sight_grid(&self, eye: u8) -> &OpacityGrid {
        match &self.levels {
            Some(levels) => levels.cached_grid(eye).unwrap_or(levels.walls()),
            None => &self.grid,
        }
    }

    /// The level of `tile`'s ground (0 on a flat map, beyond it or off it).
    pub fn elevation(&self, tile: TilePos) -> u8 {
        let level = |(x, y)| self.levels.as_ref()?.elevations().get(x, y);
        self.cell((tile.x, tile.y)).and_then(level).unwrap_or(0)
    }

    /// The eye level of a viewer standing on `tile` whose eye is `eye_height` above the
    /// ground (at most 15).
    pub(crate) fn eye_level(&self, tile: (u32, u32), eye_height: u8) -> u8 {
        let ground = self.elevation(TilePos::new(tile.0, tile.1));
        ground
            .saturating_add(eye_height)
            .min(viewshed_core::elevation::MAX_LEVEL)
    }

    /// Whether `tile` blocks sight (tiles off the map do).
    pub fn is_opaque(&self, tile: TilePos) -> bool {
        !self.covers((tile.x, tile.y))
            || self
                .cell((tile.x, tile.y))
                .is_none_or(|(x, y)| self.grid.is_opaque(x, y))
    }

    /// The version of the grids: it grows with every change, so a game that keeps it knows
    /// whether the walls changed since.
    pub fn version(&self) -> u64 {
        self.version
    }
}

/// The area of a tilemap of `size`: `(0, 0)` to its size.
pub(super) fn whole(size: TilemapSize) -> Window {
    Window {
        x: 0,
        y: 0,
        width: size.x,
        height: size.y,
    }
}

/// The grid cell of a tile on a map of this kind whose grid covers `area` (none for a tile
/// outside it); on a staggered map its diamond cell.
fn cell_in(kind: Grid, area: Window, (x, y): (u32, u32)) -> Option<(u32, u32)> {
    if !area.contains(x, y) {
        return None;
    }
    let local = (x - area.x, y - area.y);
    Some(match kind {
        Grid::Staggered => staggered::to_diamond(local),
        Grid::Square | Grid::Hex(_) => local,
    })
}
