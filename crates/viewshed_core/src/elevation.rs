//! High ground: cells at levels `0 ..=` [`MAX_LEVEL`], and what a viewer sees from its eye.
//!
//! # The rule
//!
//! **A cell higher than the viewer's eye blocks sight beyond it, the way a wall does: its face
//! is seen, what lies behind it is not. Cells at or below the eye do not block. Walls stay
//! walls at any height.**
//!
//! The viewer's eye level is the level of its cell plus its eye height, saturating at
//! [`MAX_LEVEL`] ([`ElevationGrid::eye_level`]): an eye at [`MAX_LEVEL`] is above every cell
//! and only walls block it. A field of view with elevation is therefore the ordinary one on the
//! grid *thresholded* at the eye ([`ElevationGrid::sight_grid`]: opaque where a wall stands or
//! the level is above the eye), and every entry point here is exactly that, so the rules of
//! flat maps (symmetric floors, radius and its shapes, cones, permissive mode, light walls)
//! carry over unchanged. [`CliffFaces`] chooses whether the faces of higher cells are shown.
//!
//! # High ground is not symmetric
//!
//! A unit on a hill sees the valley; the valley does not see it, as light is not symmetric
//! either: the two look through different thresholded grids. Only viewers with the same eye
//! level look through the same grid, and between them the view is as symmetric as on a flat
//! map.
//!
//! ```
//! use viewshed_core::{field_of_view_with_elevation, ElevationGrid, ElevationOptions};
//! use viewshed_core::{FovOptions, OpacityGrid};
//!
//! // A valley at level 0 and a hill of level 2 on x = 4..=5.
//! let walls = OpacityGrid::new(9, 1);
//! let hills = ElevationGrid::from_fn(9, 1, |x, _| if (4..=5).contains(&x) { 2 } else { 0 });
//! let eye = ElevationOptions::eye_height(1);
//! let all = FovOptions::unlimited();
//! let low = field_of_view_with_elevation(&walls, &hills, (1, 0), eye, all)?;
//! assert!(low.contains(4, 0), "the cliff's face");
//! assert!(!low.contains(5, 0) && !low.contains(7, 0), "the hilltop and what is behind it");
//! let high = field_of_view_with_elevation(&walls, &hills, (5, 0), eye, all)?;
//! assert!(high.contains(1, 0) && high.contains(8, 0), "the hill sees the whole valley");
//! # Ok::<(), viewshed_core::FovError>(())
//! ```
//!
//! # Many viewers
//!
//! Viewers with the same eye level share one thresholded grid: [`SightLevels`] keeps one per
//! eye level asked for and updates them cell by cell when a wall or a level changes, and
//! tells which eye levels a change reaches ([`EyeLevels`]), so that only the views at those
//! levels need computing again.

use crate::grid::OpacityGrid;
use crate::hex::{HexCoords, hex_field_of_view};
use crate::options::FovOptions;
use crate::shadowcast::{FovError, field_of_view};
use crate::staggered::{to_diamond, view_to_tiles};
use crate::visible::VisibleSet;

/// The highest level a cell can have (levels are `0 ..= 15`); an eye at this level sees over
/// every cell.
pub const MAX_LEVEL: u8 = 15;

/// The number of eye levels, `0 ..= MAX_LEVEL`.
const LEVELS: usize = MAX_LEVEL as usize + 1;

/// Why a level could not be set, or grids could not be put together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElevationError {
    /// The level is above [`MAX_LEVEL`]; nothing was changed.
    LevelTooHigh {
        /// The level asked for.
        level: u8,
    },
    /// The cell is not on the grid; nothing was changed.
    OutsideGrid {
        /// The cell asked for.
        cell: (u32, u32),
        /// The grid's width.
        width: u32,
        /// The grid's height.
        height: u32,
    },
    /// The walls and the elevations are not the same size.
    SizeMismatch {
        /// The walls' width and height.
        walls: (u32, u32),
        /// The elevations' width and height.
        elevations: (u32, u32),
    },
}

impl std::fmt::Display for ElevationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ElevationError::LevelTooHigh { level } => {
                write!(f, "level {level} is above the highest level, {MAX_LEVEL}")
            }
            ElevationError::OutsideGrid {
                cell: (x, y),
                width,
                height,
            } => write!(f, "cell ({x}, {y}) is outside the {width}x{height} grid"),
            ElevationError::SizeMismatch { walls, elevations } => write!(
                f,
                "the walls are {}x{} cells, the elevations {}x{}",
                walls.0, walls.1, elevations.0, elevations.1
            ),
        }
    }
}

impl std::error::Error for ElevationError {}

/// A `width` x `height` map of levels `0 ..=` [`MAX_LEVEL`], one byte per cell.
///
/// Cells off the grid are at level 0 wherever a level is read for sight
/// ([`eye_level`](Self::eye_level), [`sight_grid`](Self::sight_grid)); [`get`](Self::get)
/// tells them apart with `None`.
///
/// ```
/// use viewshed_core::{ElevationError, ElevationGrid};
///
/// let mut hills = ElevationGrid::new(4, 3);
/// assert_eq!(hills.set(2, 1, 3), Ok(0), "the old level");
/// assert_eq!(hills.get(2, 1), Some(3));
/// assert_eq!(hills.get(4, 0), None, "off the grid");
/// assert_eq!(hills.set(2, 1, 16), Err(ElevationError::LevelTooHigh { level: 16 }));
/// assert_eq!(hills.get(2, 1), Some(3), "unchanged");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ElevationGrid {
    width: u32,
    height: u32,
    /// Row by row.
    levels: Vec<u8>,
}

impl ElevationGrid {
    /// A `width` x `height` grid, every cell at level 0.
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            levels: vec![0; width as usize * height as usize],
        }
    }

    /// A grid whose cell `(x, y)` is at `level(x, y)`; levels above [`MAX_LEVEL`] count as
    /// [`MAX_LEVEL`] (as a generator's noise is cut to the range, rather than refused).
    ///
    /// ```
    /// use viewshed_core::ElevationGrid;
    ///
    /// let ramp = ElevationGrid::from_fn(20, 1, |x, _| x as u8);
    /// assert_eq!(ramp.get(3, 0), Some(3));
    /// assert_eq!(ramp.get(19, 0), Some(15));
    /// ```
    pub fn from_fn(width: u32, height: u32, mut level: impl FnMut(u32, u32) -> u8) -> Self {
        let mut grid = Self::new(width, height);
        let cells = (0..height).flat_map(|y| (0..width).map(move |x| (x, y)));
        for (slot, (x, y)) in grid.levels.iter_mut().zip(cells) {
            *slot = level(x, y).min(MAX_LEVEL);
        }
        grid
    }

    /// Width of the map in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height of the map in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether `(x, y)` lies on the grid.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x < self.width && y < self.height
    }

    /// The level of cell `(x, y)`, or `None` off the grid.
    pub fn get(&self, x: u32, y: u32) -> Option<u8> {
        self.index(x, y).map(|i| self.levels[i])
    }

    /// Sets cell `(x, y)` to `level` and returns its old level.
    ///
    /// # Errors
    /// [`ElevationError::OutsideGrid`] when the cell is off the grid,
    /// [`ElevationError::LevelTooHigh`] when `level` is above [`MAX_LEVEL`]; the grid is then
    /// unchanged.
    pub fn set(&mut self, x: u32, y: u32, level: u8) -> Result<u8, ElevationError> {
        let index = self.index(x, y).ok_or(ElevationError::OutsideGrid {
            cell: (x, y),
            width: self.width,
            height: self.height,
        })?;
        if level > MAX_LEVEL {
            return Err(ElevationError::LevelTooHigh { level });
        }
        Ok(std::mem::replace(&mut self.levels[index], level))
    }

    /// The eye level of a viewer standing on `(x, y)` with its eye `eye_height` levels above
    /// the cell: the cell's level (0 off the grid) plus `eye_height`, saturating at
    /// [`MAX_LEVEL`], where the eye is above every cell.
    ///
    /// ```
    /// use viewshed_core::ElevationGrid;
    ///
    /// let hills = ElevationGrid::from_fn(3, 1, |x, _| 6 * x as u8);
    /// assert_eq!(hills.eye_level(1, 0, 2), 8);
    /// assert_eq!(hills.eye_level(2, 0, 200), 15, "above every cell");
    /// assert_eq!(hills.eye_level(9, 9, 1), 1, "off the grid: on level 0");
    /// ```
    pub fn eye_level(&self, x: u32, y: u32, eye_height: u8) -> u8 {
        self.level_or_ground(x, y)
            .saturating_add(eye_height)
            .min(MAX_LEVEL)
    }

    /// The grid a viewer whose eye is at level `eye` looks through: `walls`, plus every cell
    /// above the eye. This *is* the rule (see the [module docs](self)): a cell higher than the
    /// eye blocks sight as a wall does, cells at or below it do not, walls block at any
    /// height. An `eye` above [`MAX_LEVEL`] counts as [`MAX_LEVEL`] (the grid is `walls`).
    ///
    /// The grid is the size of `walls`; cells of `walls` off this grid are at level 0.
    ///
    /// ```
    /// use viewshed_core::{ElevationGrid, OpacityGrid};
    ///
    /// let walls = OpacityGrid::from_fn(4, 1, |x, _| x == 0);
    /// let hills = ElevationGrid::from_fn(4, 1, |x, _| x as u8); // levels 0, 1, 2, 3
    /// let sight = hills.sight_grid(&walls, 1);
    /// let blocked: Vec<bool> = (0..4).map(|x| sight.is_opaque(x, 0)).collect();
    /// assert_eq!(blocked, [true, false, true, true]);
    /// ```
    pub fn sight_grid(&self, walls: &OpacityGrid, eye: u8) -> OpacityGrid {
        let mut grid = walls.clone();
        for (x, y) in self.cells_above(eye) {
            grid.set_opaque(x, y, true);
        }
        grid
    }

    /// The cells above level `eye`, row by row (none above [`MAX_LEVEL`]).
    fn cells_above(&self, eye: u8) -> impl Iterator<Item = (u32, u32)> + '_ {
        // A grid 0 cells wide has no levels: `max(1)` makes that no rows.
        let rows = self.levels.chunks_exact(self.width.max(1) as usize);
        (0..).zip(rows).flat_map(move |(y, row)| {
            (0..)
                .zip(row)
                .filter(move |&(_, &level)| level > eye)
                .map(move |(x, _)| (x, y))
        })
    }

    /// The level of `(x, y)`, 0 off the grid.
    fn level_or_ground(&self, x: u32, y: u32) -> u8 {
        self.get(x, y).unwrap_or(0)
    }

    fn index(&self, x: u32, y: u32) -> Option<usize> {
        self.contains(x, y)
            .then(|| y as usize * self.width as usize + x as usize)
    }
}

impl std::fmt::Debug for ElevationGrid {
    /// Draws the map, one hexadecimal digit (`0` to `f`) per cell.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "ElevationGrid {}x{}", self.width, self.height)?;
        for row in self.levels.chunks_exact(self.width.max(1) as usize) {
            for &level in row {
                write!(f, "{level:x}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// A set of eye levels (`0 ..=` [`MAX_LEVEL`]), one bit each: the levels whose views a change
/// can reach ([`SightLevels::set_elevation`], [`SightLevels::set_wall`]), or the levels whose
/// grid a [`SightLevels`] keeps. An eye above [`MAX_LEVEL`] counts as [`MAX_LEVEL`].
///
/// ```
/// use viewshed_core::EyeLevels;
///
/// // A cell raised from 2 to 5 now blocks eyes at 2, 3 and 4; eyes at 5 and up see over it
/// // as before, and eyes below 2 were blocked already.
/// let changed = EyeLevels::between(5, 2);
/// assert_eq!(changed.iter().collect::<Vec<u8>>(), [2, 3, 4]);
/// assert!(!changed.contains(5) && !changed.contains(1));
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct EyeLevels(u16);

impl EyeLevels {
    /// No eye level.
    pub const NONE: Self = Self(0);
    /// Every eye level, `0 ..= MAX_LEVEL`.
    pub const ALL: Self = Self(u16::MAX);

    /// The eye levels at which a cell of level `a` and one of level `b` differ (one is above
    /// the eye, the other is not): `min(a, b) .. max(a, b)`. So these are the eye levels whose
    /// views a change of a cell's level from `a` to `b` can reach: their thresholded grid
    /// changes there (unless a wall stands on the cell), and so does what
    /// [`CliffFaces::Hidden`] takes out (wall or not). Views at other eye levels see the same.
    pub fn between(a: u8, b: u8) -> Self {
        Self(below(a.max(b)) & !below(a.min(b)))
    }

    /// The eye levels at or above `level`: those that see over a cell of that level, where a
    /// wall coming or going on it changes the thresholded grid (the other levels are blocked
    /// by the cell itself).
    pub fn at_or_above(level: u8) -> Self {
        Self(!below(level))
    }

    /// Whether the set holds `eye` (above [`MAX_LEVEL`]: whether it holds [`MAX_LEVEL`]).
    pub fn contains(self, eye: u8) -> bool {
        self.0 & (1 << eye.min(MAX_LEVEL)) != 0
    }

    /// Whether the set holds no level.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many levels the set holds.
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The levels of both sets.
    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The levels the two sets share.
    pub fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// The set with `eye` added (above [`MAX_LEVEL`]: [`MAX_LEVEL`]).
    pub fn with(self, eye: u8) -> Self {
        Self(self.0 | 1 << eye.min(MAX_LEVEL))
    }

    /// The levels, lowest first.
    pub fn iter(self) -> impl Iterator<Item = u8> {
        (0..=MAX_LEVEL).filter(move |&eye| self.contains(eye))
    }
}

/// The bits of the levels below `level` (every level from [`MAX_LEVEL`] + 1 up).
fn below(level: u8) -> u16 {
    1u16.checked_shl(u32::from(level))
        .map_or(u16::MAX, |bit| bit - 1)
}

impl std::fmt::Debug for EyeLevels {
    /// The levels, as a set: `{2, 3, 4}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// What a viewer on low ground sees of the cells above its eye. (With `light_walls` off,
/// cells above the eye are walls that are not reported, and both choices see the same.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum CliffFaces {
    /// The face of a higher cell is seen, as a wall's is (with `light_walls`, the default):
    /// what it hides is what lies behind it. Tactics games show the cliff a unit stands
    /// under and what stands on its edge, as XCOM shows the edges of roofs: the player sees
    /// where the high ground begins.
    #[default]
    Seen,
    /// Low ground sees nothing of high ground, as in StarCraft II: the visible cells above
    /// the eye are taken out of the view ([`hide_cliff_faces`]). What lies at or below the eye
    /// is the same in both.
    Hidden,
}

impl CliffFaces {
    /// Applies the choice to `view`, computed from an eye at level `eye` on the grid
    /// thresholded there: [`Hidden`](Self::Hidden) takes out the cells above the eye,
    /// [`Seen`](Self::Seen) leaves the view as it is.
    pub fn apply(self, view: &mut VisibleSet, elevations: &ElevationGrid, eye: u8) {
        if self == CliffFaces::Hidden {
            hide_cliff_faces(view, elevations, eye);
        }
    }
}

/// Takes out of `view` the cells above level `eye` ([`CliffFaces::Hidden`]): walls and floors
/// on high ground alike; walls at or below the eye stay. `view` and `elevations` are in the
/// same coordinates (on a staggered map, the diamond view before [`view_to_tiles`]). The
/// viewer's own cell is at or below its eye, so it stays.
///
/// ```
/// use viewshed_core::{field_of_view, hide_cliff_faces, ElevationGrid, FovOptions, OpacityGrid};
///
/// let walls = OpacityGrid::new(6, 1);
/// let hills = ElevationGrid::from_fn(6, 1, |x, _| if x >= 3 { 4 } else { 0 });
/// let eye = hills.eye_level(0, 0, 1);
/// let mut view = field_of_view(&hills.sight_grid(&walls, eye), (0, 0), FovOptions::unlimited())?;
/// assert!(view.contains(3, 0), "the cliff's face");
/// hide_cliff_faces(&mut view, &hills, eye);
/// assert_eq!(view.iter().collect::<Vec<_>>(), [(0, 0), (1, 0), (2, 0)]);
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
pub fn hide_cliff_faces(view: &mut VisibleSet, elevations: &ElevationGrid, eye: u8) {
    if eye < MAX_LEVEL {
        view.retain(|x, y| elevations.level_or_ground(x, y) <= eye);
    }
}

/// How a viewer stands on high ground: its eye's height above its cell, and what it sees of
/// the cells above its eye.
///
/// ```
/// use viewshed_core::{CliffFaces, ElevationOptions};
///
/// let scout = ElevationOptions::eye_height(2).with_cliff_faces(CliffFaces::Hidden);
/// assert_eq!(ElevationOptions::default(), ElevationOptions::eye_height(0));
/// # let _ = scout;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct ElevationOptions {
    /// Levels from the viewer's cell up to its eye (0, the default: a cell one level above
    /// the viewer's blocks it). See [`ElevationGrid::eye_level`].
    pub eye_height: u8,
    /// What the viewer sees of cells above its eye (their faces, by default).
    pub cliff_faces: CliffFaces,
}

impl ElevationOptions {
    /// An eye `eye_height` levels above the viewer's cell, cliff faces seen.
    pub const fn eye_height(eye_height: u8) -> Self {
        Self {
            eye_height,
            cliff_faces: CliffFaces::Seen,
        }
    }

    /// The same options with this choice of what is seen of higher cells.
    pub const fn with_cliff_faces(mut self, cliff_faces: CliffFaces) -> Self {
        self.cliff_faces = cliff_faces;
        self
    }
}

/// The field of view of a viewer at `origin` on a square grid of `walls` and `elevations`:
/// [`field_of_view`] on the grid thresholded at the viewer's eye
/// ([`ElevationGrid::sight_grid`] at [`ElevationGrid::eye_level`]), then
/// [`CliffFaces`]. High ground is not symmetric: a viewer on a hill sees the valley, the
/// valley does not see it (see the [module docs](self), which have an example). A loop over
/// many viewers should share the thresholded grids of a [`SightLevels`] instead.
///
/// # Errors
/// [`FovError::OriginOutsideMap`] when `origin` is not on `walls`.
pub fn field_of_view_with_elevation(
    walls: &OpacityGrid,
    elevations: &ElevationGrid,
    origin: (u32, u32),
    elevation: ElevationOptions,
    options: FovOptions,
) -> Result<VisibleSet, FovError> {
    seen_from_eye(walls, elevations, origin, elevation, |sight| {
        field_of_view(sight, origin, options)
    })
}

/// [`field_of_view_with_elevation`] on a hexagonal map: [`hex_field_of_view`] on the grid
/// thresholded at the eye of the viewer at tile `origin`, then [`CliffFaces`]. `walls` and
/// `elevations` are indexed by tile position. High ground is not symmetric here either.
///
/// ```
/// use viewshed_core::{hex_field_of_view_with_elevation, ElevationGrid, ElevationOptions};
/// use viewshed_core::{FovOptions, HexCoords, OpacityGrid};
///
/// // A ridge of level 3 on column 3 between a viewer at (1, 2) and the tile (5, 2).
/// let walls = OpacityGrid::new(7, 5);
/// let ridge = ElevationGrid::from_fn(7, 5, |x, _| if x == 3 { 3 } else { 0 });
/// let (coords, all) = (HexCoords::RowOdd, FovOptions::unlimited());
/// let view = |eye_height| {
///     let eye = ElevationOptions::eye_height(eye_height);
///     hex_field_of_view_with_elevation(&walls, &ridge, coords, (1, 2), eye, all)
/// };
/// let low = view(1)?;
/// assert!(low.contains(3, 2) && !low.contains(5, 2));
/// let tall = view(3)?;
/// assert!(tall.contains(5, 2), "an eye at the ridge's level sees over it");
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
///
/// # Errors
/// [`FovError::OriginOutsideMap`] when `origin` is not on `walls`.
pub fn hex_field_of_view_with_elevation(
    walls: &OpacityGrid,
    elevations: &ElevationGrid,
    coords: HexCoords,
    origin: (u32, u32),
    elevation: ElevationOptions,
    options: FovOptions,
) -> Result<VisibleSet, FovError> {
    seen_from_eye(walls, elevations, origin, elevation, |sight| {
        hex_field_of_view(sight, coords, origin, options)
    })
}

/// [`field_of_view_with_elevation`] on a staggered isometric map `tiles_high` tiles high,
/// kept as its diamond grid (see [`staggered`](crate::staggered)): `walls` as
/// [`diamond_grid`](crate::staggered::diamond_grid) makes it, with the tiles' walls at their
/// [`to_diamond`] cells, and `elevations` on the same cells. The view is computed on the
/// thresholded diamond grid from `to_diamond(origin)` and comes back as tiles. High ground is
/// not symmetric here either.
///
/// ```
/// use viewshed_core::staggered::{diamond_grid, to_diamond};
/// use viewshed_core::{staggered_field_of_view_with_elevation, ElevationGrid};
/// use viewshed_core::{ElevationOptions, FovOptions};
///
/// let walls = diamond_grid(6, 5);
/// let mut hills = ElevationGrid::new(walls.width(), walls.height());
/// let (u, v) = to_diamond((3, 2));
/// hills.set(u, v, 5).unwrap();
/// let (eye, options) = (ElevationOptions::eye_height(1), FovOptions::radius(3));
/// let view = staggered_field_of_view_with_elevation(&walls, &hills, 5, (2, 2), eye, options)?;
/// assert!(view.contains(3, 2), "the hill's face");
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
///
/// # Errors
/// [`FovError::OriginOutsideMap`] when `origin` is not a tile of the map (its `x` is not
/// below `walls.width()` or its `y` below `tiles_high`).
pub fn staggered_field_of_view_with_elevation(
    walls: &OpacityGrid,
    elevations: &ElevationGrid,
    tiles_high: u32,
    origin: (u32, u32),
    elevation: ElevationOptions,
    options: FovOptions,
) -> Result<VisibleSet, FovError> {
    if origin.0 >= walls.width() || origin.1 >= tiles_high {
        return Err(FovError::OriginOutsideMap {
            origin,
            width: walls.width(),
            height: tiles_high,
        });
    }
    let diamond = to_diamond(origin);
    let view = seen_from_eye(walls, elevations, diamond, elevation, |sight| {
        field_of_view(sight, diamond, options)
    })?;
    let mut tiles = VisibleSet::new();
    view_to_tiles(&view, tiles_high, &mut tiles);
    Ok(tiles)
}

/// The view `compute` makes of the grid thresholded at the eye of a viewer on `cell`, with
/// the faces above the eye taken out when they are hidden.
fn seen_from_eye(
    walls: &OpacityGrid,
    elevations: &ElevationGrid,
    cell: (u32, u32),
    elevation: ElevationOptions,
    compute: impl FnOnce(&OpacityGrid) -> Result<VisibleSet, FovError>,
) -> Result<VisibleSet, FovError> {
    let eye = elevations.eye_level(cell.0, cell.1, elevation.eye_height);
    let mut view = compute(&elevations.sight_grid(walls, eye))?;
    elevation.cliff_faces.apply(&mut view, elevations, eye);
    Ok(view)
}

/// The walls and levels of a map, and the grid thresholded at each eye level that has been
/// asked for, kept up to date cell by cell: every viewer with the same eye level looks
/// through one shared grid, which a change of a wall or a level updates in place (a bit per
/// kept level), never rebuilding it.
///
/// **Memory**: each kept level is an [`OpacityGrid`], which holds every cell twice (a copy
/// by rows and one by columns, for the scan): 2 bits per cell per kept level, so 16 KiB for
/// a 256x256 map, 240 KiB if all 15 levels below [`MAX_LEVEL`] are kept. The grid of
/// [`MAX_LEVEL`] is the walls themselves and costs nothing. A level's grid is built (once,
/// from scratch) the first time it is asked for; [`forget`](Self::forget) lets it go.
///
/// ```
/// use viewshed_core::{ElevationGrid, EyeLevels, Fov, FovOptions, OpacityGrid};
/// use viewshed_core::{SightLevels, VisibleSet};
///
/// let walls = OpacityGrid::new(9, 1);
/// let mut levels = SightLevels::new(walls, ElevationGrid::new(9, 1))?;
/// let (mut fov, mut view) = (Fov::new(), VisibleSet::new());
/// let eye = levels.eye_level(1, 0, 1); // level 0 + eye height 1
/// fov.compute(levels.grid_for_eye(eye), (1, 0), FovOptions::unlimited(), &mut view)?;
/// assert!(view.contains(8, 0));
///
/// // A hill of level 3 rises at (4, 0): eyes at 0, 1 and 2 now stop at it.
/// let changed = levels.set_elevation(4, 0, 3)?;
/// assert_eq!(changed, EyeLevels::between(0, 3));
/// if changed.contains(eye) {
///     fov.compute(levels.grid_for_eye(eye), (1, 0), FovOptions::unlimited(), &mut view)?;
/// }
/// assert!(view.contains(4, 0) && !view.contains(8, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct SightLevels {
    walls: OpacityGrid,
    elevations: ElevationGrid,
    /// `grids[eye]`: the grid thresholded at `eye`, once asked for (the last level,
    /// [`MAX_LEVEL`], is `walls` and never kept here).
    grids: [Option<OpacityGrid>; LEVELS - 1],
}

impl SightLevels {
    /// The levels of a map of `walls` and `elevations`, no grid built yet.
    ///
    /// # Errors
    /// [`ElevationError::SizeMismatch`] when the two are not the same size.
    pub fn new(walls: OpacityGrid, elevations: ElevationGrid) -> Result<Self, ElevationError> {
        let sizes = (
            (walls.width(), walls.height()),
            (elevations.width(), elevations.height()),
        );
        if sizes.0 != sizes.1 {
            return Err(ElevationError::SizeMismatch {
                walls: sizes.0,
                elevations: sizes.1,
            });
        }
        Ok(Self {
            walls,
            elevations,
            grids: Default::default(),
        })
    }

    /// Which cells are walls.
    pub fn walls(&self) -> &OpacityGrid {
        &self.walls
    }

    /// The level of every cell.
    pub fn elevations(&self) -> &ElevationGrid {
        &self.elevations
    }

    /// The eye level of a viewer on `(x, y)` with its eye `eye_height` above the cell
    /// ([`ElevationGrid::eye_level`]).
    pub fn eye_level(&self, x: u32, y: u32, eye_height: u8) -> u8 {
        self.elevations.eye_level(x, y, eye_height)
    }

    /// The grid thresholded at `eye` ([`ElevationGrid::sight_grid`]; above [`MAX_LEVEL`]
    /// counts as [`MAX_LEVEL`]), built the first time it is asked for and kept.
    pub fn grid_for_eye(&mut self, eye: u8) -> &OpacityGrid {
        let Some(slot) = self.grids.get_mut(usize::from(eye)) else {
            return &self.walls;
        };
        slot.get_or_insert_with(|| self.elevations.sight_grid(&self.walls, eye))
    }

    /// The grid thresholded at `eye` if it is kept (that of [`MAX_LEVEL`] always is): for
    /// many viewers reading it at once, after [`grid_for_eye`](Self::grid_for_eye) built it.
    pub fn cached_grid(&self, eye: u8) -> Option<&OpacityGrid> {
        match self.grids.get(usize::from(eye)) {
            Some(slot) => slot.as_ref(),
            None => Some(&self.walls),
        }
    }

    /// The eye levels whose grid is kept ([`MAX_LEVEL`] always).
    pub fn cached_levels(&self) -> EyeLevels {
        (0..)
            .zip(&self.grids)
            .filter(|(_, grid)| grid.is_some())
            .fold(EyeLevels::NONE.with(MAX_LEVEL), |set, (eye, _)| {
                set.with(eye)
            })
    }

    /// Lets go of the grids of `eyes` (they are built again when next asked for).
    pub fn forget(&mut self, eyes: EyeLevels) {
        for eye in eyes.iter() {
            if let Some(slot) = self.grids.get_mut(usize::from(eye)) {
                *slot = None;
            }
        }
    }

    /// Sets the level of `(x, y)` and returns the eye levels whose views the change can
    /// reach, their grid kept or not: `min(old, new) .. max(old, new)`
    /// ([`EyeLevels::between`]). Their thresholded grids change there, unless a wall stands
    /// on the cell (a wall blocks at any height), and so does what [`CliffFaces::Hidden`]
    /// takes out, wall or not; views at other eye levels are unchanged with either
    /// [`CliffFaces`]. The kept grids are updated in place. A viewer standing on the cell has
    /// a new eye level: its view changes whatever the returned set.
    ///
    /// # Errors
    /// [`ElevationError::OutsideGrid`] or [`ElevationError::LevelTooHigh`], nothing changed.
    pub fn set_elevation(
        &mut self,
        x: u32,
        y: u32,
        level: u8,
    ) -> Result<EyeLevels, ElevationError> {
        let old = self.elevations.set(x, y, level)?;
        let changed = EyeLevels::between(old, level);
        self.refresh(x, y, changed);
        Ok(changed)
    }

    /// Puts up (`opaque`) or takes down a wall on `(x, y)` and returns the eye levels whose
    /// thresholded grid (and so whose views) the change can reach, kept or not: those at or
    /// above the cell's level ([`EyeLevels::at_or_above`]; a higher cell blocks the lower eyes
    /// anyway, and [`CliffFaces::Hidden`] takes it out of their views wall or not), none when
    /// the wall was already so. The kept grids of those levels are updated in place.
    ///
    /// # Errors
    /// [`ElevationError::OutsideGrid`], nothing changed.
    pub fn set_wall(&mut self, x: u32, y: u32, opaque: bool) -> Result<EyeLevels, ElevationError> {
        let level = self
            .elevations
            .get(x, y)
            .ok_or(ElevationError::OutsideGrid {
                cell: (x, y),
                width: self.walls.width(),
                height: self.walls.height(),
            })?;
        if !self.walls.set_opaque(x, y, opaque) {
            return Ok(EyeLevels::NONE);
        }
        let changed = EyeLevels::at_or_above(level);
        self.refresh(x, y, changed);
        Ok(changed)
    }

    /// Writes cell `(x, y)` again in the kept grids of `eyes`.
    fn refresh(&mut self, x: u32, y: u32, eyes: EyeLevels) {
        let wall = self.walls.is_opaque(x, y);
        let level = self.elevations.level_or_ground(x, y);
        for eye in eyes.iter() {
            if let Some(Some(grid)) = self.grids.get_mut(usize::from(eye)) {
                grid.set_opaque(x, y, wall || level > eye);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eye_level_sets_are_the_ranges_they_say() {
        assert_eq!(EyeLevels::between(3, 3), EyeLevels::NONE);
        assert_eq!(EyeLevels::between(0, 16), EyeLevels::ALL);
        assert_eq!(EyeLevels::at_or_above(0), EyeLevels::ALL);
        assert_eq!(EyeLevels::at_or_above(15).iter().collect::<Vec<_>>(), [15]);
        assert!(EyeLevels::at_or_above(16).is_empty());
        assert_eq!(EyeLevels::ALL.len(), 16);
        assert!(EyeLevels::NONE.with(200).contains(15));
        assert_eq!(format!("{:?}", EyeLevels::between(1, 3)), "{1, 2}");
    }

    #[test]
    fn the_grid_above_every_cell_is_the_walls() {
        let walls = OpacityGrid::from_fn(5, 4, |x, y| x == y);
        let hills = ElevationGrid::from_fn(5, 4, |x, y| (x * 4 + y) as u8);
        let mut levels = SightLevels::new(walls.clone(), hills).unwrap();
        assert_eq!(levels.grid_for_eye(MAX_LEVEL), &walls);
        assert_eq!(levels.grid_for_eye(u8::MAX), &walls);
        assert_eq!(levels.cached_levels(), EyeLevels::NONE.with(MAX_LEVEL));
        levels.grid_for_eye(3);
        assert_eq!(levels.cached_levels().iter().collect::<Vec<_>>(), [3, 15]);
        levels.forget(EyeLevels::ALL);
        assert_eq!(levels.cached_grid(MAX_LEVEL), Some(&walls));
        assert_eq!(levels.cached_grid(3), None);
    }
}
