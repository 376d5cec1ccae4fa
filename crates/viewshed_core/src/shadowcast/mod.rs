//! Symmetric shadowcasting (Albert Ford's rules) over an [`OpacityGrid`], in exact integer
//! arithmetic.
//!
//! The map around the viewer is cut into four quadrants. Each quadrant is scanned row by row
//! outward from the viewer; a row at depth `d` is one scan line of the grid (a grid row for the
//! north and south quadrants, a grid column for east and west), so the scan reads 64 cells at
//! a time from the bit-packed grid and finds whole runs of walls and floors with bit tricks.
//! The lit sector of a row is a list of intervals between two slopes; walls split it and
//! narrow it for the next row (a small window scans a row's intervals together, a larger one
//! follows each interval outward on its own). Nothing recurses and nothing allocates once the
//! scratch buffers have grown.
//!
//! The rules, for a row at depth `d` and an interval from slope `s` to slope `e`:
//! - the row covers the columns `floor(d*s + 1/2) ..= ceil(d*e - 1/2)`;
//! - a wall (opaque cell) there is visible (unless light walls are off);
//! - a floor there is visible only when its centre is inside the interval,
//!   `d*s <= col <= d*e`, which is what makes the result symmetric;
//! - a run of floors continues into the next row between the slopes of its outer edges,
//!   `(2*col - 1) / (2*d)` for the left edge of a cell after a wall and of a wall after floors;
//! - cells outside the map are opaque and never visible; cells beyond the radius
//!   (`dx*dx + dy*dy > r*(r+1)`, or the square or diamond of the options' shape) are never
//!   visible and can shadow only cells beyond it too;
//! - in the permissive mode every floor the row covers is lit, like walls;
//! - a vision cone skips the quadrants it cannot reach and then keeps the cells whose centre
//!   it contains.
//!
//! | module | its step |
//! |---|---|
//! | this one | the window, the quadrants, the cone, which kernel: [`Fov::compute`] |
//! | `compact` | the kernel when each quadrant row fits a word (radius up to 31, disk up to 43) |
//! | `gaps` | the kernel for rows that end by depth 10 on CPUs with BMI2: sets of slope gaps |
//! | `quadrant` | one quadrant of any window, one lit interval at a time |
//! | `row` | one interval on one row: the covered cells, the lit cells, the runs of floors |
//! | `slope` | exact slopes and their rounding (`round_ties_up`, `round_ties_down`) |
//! | `slope_table` | the slopes of a small window, rounded at every depth once for all |
//! | `reach` | the radius: a table of the widest column at each depth, kept per radius |
//! | `cone_masks` | the cells of the vision cones met again, as row masks |

mod compact;
mod cone_masks;
#[cfg(target_arch = "x86_64")]
mod gaps;
mod quadrant;
mod reach;
mod row;
mod slope;
mod slope_table;

use std::f64::consts::{FRAC_PI_2, PI};

use crate::bits::{BitRows, WORD_BITS, for_each_one, span};
use crate::grid::OpacityGrid;
use crate::options::{ConeTest, FovMode, FovOptions, Radius, VisionCone};
use crate::visible::{VisibleSet, Window};

use compact::{QuadrantLight, SmallIntervals, WindowLines};
use cone_masks::ConeMasks;
use quadrant::{Beams, LitRuns};
use reach::{Reach, ReachTable};
use slope::{Columns, Interval};
use slope_table::SlopeTable;

/// Why a field of view could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FovError {
    /// The viewer stands outside the map.
    OriginOutsideMap {
        /// The viewer's position.
        origin: (u32, u32),
        /// The map's width.
        width: u32,
        /// The map's height.
        height: u32,
    },
}

/// `Ok` when `origin` is on `grid`; otherwise empties `visible` and says why.
pub(crate) fn origin_on_map(
    grid: &OpacityGrid,
    origin: (u32, u32),
    visible: &mut VisibleSet,
) -> Result<(), FovError> {
    if grid.contains(origin.0, origin.1) {
        return Ok(());
    }
    visible.clear();
    Err(FovError::OriginOutsideMap {
        origin,
        width: grid.width(),
        height: grid.height(),
    })
}

impl std::fmt::Display for FovError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FovError::OriginOutsideMap {
                origin: (x, y),
                width,
                height,
            } => write!(
                f,
                "viewer at ({x}, {y}) is outside the {width}x{height} map"
            ),
        }
    }
}

impl std::error::Error for FovError {}

/// Reusable scratch space for field-of-view computations.
///
/// Keep one per thread (or per system) and call [`Fov::compute`] as often as needed: after the
/// first calls have grown its buffers, computing a field of view allocates nothing.
///
/// ```
/// use viewshed_core::{Fov, FovOptions, OpacityGrid, VisibleSet};
///
/// // A wall segment east of the viewer hides what is behind it.
/// let grid = OpacityGrid::from_fn(9, 9, |x, y| x == 5 && (3..=5).contains(&y));
/// let mut fov = Fov::new();
/// let mut visible = VisibleSet::new();
/// fov.compute(&grid, (3, 4), FovOptions::unlimited(), &mut visible)?;
/// assert!(visible.contains(5, 4), "the wall itself is lit");
/// assert!(!visible.contains(7, 4), "the cell behind it is not");
/// assert!(visible.contains(3, 0));
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Fov {
    beams: Beams,
    /// The scan of a small window (see [`compact::fits`]).
    small: SmallWindow,
    reach: ReachTable,
    /// What the east and west quadrants see, transposed (window column `x` is row `x`).
    columns: BitRows,
    /// The masks of the vision cones met more than once.
    cones: ConeMasks,
}

/// Computes the field of view of a viewer at `origin` on `grid` into a new [`VisibleSet`].
///
/// A convenience for one-off calls; a loop over many viewers should reuse a [`Fov`] and a
/// [`VisibleSet`] instead.
///
/// ```
/// use viewshed_core::{field_of_view, FovOptions, OpacityGrid};
///
/// let grid = OpacityGrid::new(5, 5);
/// let visible = field_of_view(&grid, (2, 2), FovOptions::radius(0))?;
/// assert_eq!(visible.iter().collect::<Vec<_>>(), vec![(2, 2)]);
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
///
/// # Errors
/// [`FovError::OriginOutsideMap`] when `origin` is not on the map.
pub fn field_of_view(
    grid: &OpacityGrid,
    origin: (u32, u32),
    options: FovOptions,
) -> Result<VisibleSet, FovError> {
    let mut visible = VisibleSet::new();
    Fov::new().compute(grid, origin, options, &mut visible)?;
    Ok(visible)
}

impl Fov {
    /// Empty scratch space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes what a viewer at `origin` sees on `grid` and stores it in `visible`, replacing
    /// what it held.
    ///
    /// The viewer's own cell is always visible and never blocks sight, even when it is
    /// opaque.
    ///
    /// # Errors
    /// [`FovError::OriginOutsideMap`] when `origin` is not on the map; `visible` is then
    /// empty.
    pub fn compute(
        &mut self,
        grid: &OpacityGrid,
        origin: (u32, u32),
        options: FovOptions,
        visible: &mut VisibleSet,
    ) -> Result<(), FovError> {
        origin_on_map(grid, origin, visible)?;
        let (ox, oy) = origin;
        let radius = radius_inside_map(options.radius, grid);
        let window = reach_window(grid, origin, radius);
        visible.reset(window);
        visible.rows_mut().set(oy - window.y, ox - window.x);
        let scan = Scan {
            widest: {
                self.reach.make(Reach::new(radius, options.shape));
                self.reach.widest()
            },
            light_walls: options.light_walls,
            permissive: options.mode == FovMode::Permissive,
        };
        // The quadrants the cone reaches (all four without a cone).
        let [north, south, west, east] = [-FRAC_PI_2, FRAC_PI_2, PI, 0.0]
            .map(|direction| options.cone.is_none_or(|c| c.reaches_sector(direction)));
        let quadrants = Quadrants {
            origin,
            window,
            sides: [[north, south], [west, east]],
        };
        match scan.widest {
            Some(widest) if self.reach.fits_small_window() => {
                self.small.scan(grid, &quadrants, scan, widest, visible);
            }
            _ => self
                .beams
                .scan_any_window(grid, &quadrants, scan, &mut self.columns, visible),
        }
        if let Some(cone) = options.cone {
            keep_inside_cone(visible, origin, &cone, radius, &mut self.cones);
        }
        Ok(())
    }
}

/// Where the viewer stands, the window around it and the quadrants to scan.
struct Quadrants {
    origin: (u32, u32),
    window: Window,
    /// `[[north, south], [west, east]]`: whether each quadrant is scanned.
    sides: [[bool; 2]; 2],
}

impl Beams {
    /// Scans a window of any size, one lit interval at a time ([`quadrant`]): north and south
    /// read the grid's rows and write the window's; east and west read the grid's columns
    /// and set their cells one by one, or, for runs of many cells, in a transposed copy of
    /// the window merged into it 64x64 cells at a time ([`ColumnCells`]).
    fn scan_any_window(
        &mut self,
        grid: &OpacityGrid,
        quadrants: &Quadrants,
        scan: Scan<'_>,
        columns: &mut BitRows,
        visible: &mut VisibleSet,
    ) {
        let Quadrants {
            origin: (ox, oy),
            window,
            sides: [north_south, west_east],
        } = *quadrants;
        let rows = visible.rows_mut();
        let north_south_cells = &mut RowCells { rows, window };
        self.scan_both_sides(
            grid.row_lines(),
            (oy, ox),
            north_south,
            scan,
            north_south_cells,
        );
        if west_east.contains(&true) {
            let mut cells = ColumnCells {
                rows: north_south_cells.rows,
                columns,
                transposed: false,
                window,
            };
            let lines = grid.column_lines();
            self.scan_both_sides(lines, (ox, oy), west_east, scan, &mut cells);
            if cells.transposed {
                visible.merge_transposed(columns);
            }
        }
    }
}

/// Where the north and south quadrants of a window of any size put their lit cells: the
/// view's rows.
struct RowCells<'a> {
    rows: &'a mut BitRows,
    window: Window,
}

impl LitRuns for RowCells<'_> {
    #[inline(always)]
    fn add(&mut self, y: u32, x: u32, run: u64) {
        self.rows
            .set_run_inside(y - self.window.y, x - self.window.x, run);
    }
}

/// Where the east and west quadrants of a window of any size put the lit cells of the
/// window's columns: a few cells are set one by one in the view's rows, more go to the
/// transposed copy of the window, cleared only when first needed and merged at the end.
struct ColumnCells<'a> {
    rows: &'a mut BitRows,
    columns: &'a mut BitRows,
    /// Whether `columns` holds cells.
    transposed: bool,
    window: Window,
}

impl ColumnCells<'_> {
    /// Up to how many cells apart the lit cells of a column are set one by one.
    const FEW: u32 = 8;
}

impl LitRuns for ColumnCells<'_> {
    #[inline(always)]
    fn add(&mut self, x: u32, y: u32, run: u64) {
        let (x, y) = (x - self.window.x, y - self.window.y);
        if span(run) <= Self::FEW {
            self.rows.column(x, y, run);
        } else {
            if !self.transposed {
                self.columns.reset(self.window.width, self.window.height);
                self.transposed = true;
            }
            self.columns.set_run_inside(x, y, run);
        }
    }
}

/// The intervals of a small window's scan, kept between computations.
#[derive(Clone, Debug, Default)]
struct SmallWindow {
    intervals: SmallIntervals,
    /// Never scan with gap sets (tests comparing the two scans set it).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    no_gaps: bool,
}

impl SmallWindow {
    /// Scans a small window: with gap sets when its rows end by [`gaps::MAX_DEPTH`] and the
    /// CPU runs `pext`/`pdep` in hardware ([`gaps::Bmi2::detect`]), with slope intervals
    /// otherwise.
    fn scan(
        &mut self,
        grid: &OpacityGrid,
        quadrants: &Quadrants,
        scan: Scan<'_>,
        widest: &[u32],
        visible: &mut VisibleSet,
    ) {
        #[cfg(target_arch = "x86_64")]
        if !self.no_gaps
            && widest.len() <= gaps::MAX_DEPTH as usize + 1
            && let Some(cpu) = gaps::Bmi2::detect()
        {
            // SAFETY: `cpu` proves the CPU has BMI2 and POPCNT.
            unsafe { scan_gaps_bmi2(cpu, grid, quadrants, scan, widest, visible) };
            return;
        }
        let light = &mut compact::SlopeIntervals {
            intervals: &mut self.intervals,
            table: SlopeTable::get(),
        };
        scan_small_window(light, grid, quadrants, scan, widest, visible);
    }
}

/// Scans a small window (its reach [`fits`](compact::fits): each row of each quadrant is
/// one word) with `light`: see [`compact`].
#[inline]
fn scan_small_window(
    light: &mut impl QuadrantLight,
    grid: &OpacityGrid,
    quadrants: &Quadrants,
    scan: Scan<'_>,
    widest: &[u32],
    visible: &mut VisibleSet,
) {
    let Quadrants {
        origin: (ox, oy),
        window,
        sides,
    } = *quadrants;
    let lines = [
        window_lines(grid, window, (ox, oy), false),
        window_lines(grid, window, (ox, oy), true),
    ];
    let view = visible.rows_mut();
    if view.stride() == 1 {
        let view = &mut OneWordRows(view.words_mut());
        scan_into(light, lines, sides, scan, widest, view);
    } else {
        scan_into(light, lines, sides, scan, widest, view);
    }
}

/// Scans the quadrants along the window's rows, then those along its columns, into `view`.
#[inline(always)]
fn scan_into(
    light: &mut impl QuadrantLight,
    [rows, columns]: [WindowLines<'_>; 2],
    [north_south, west_east]: [[bool; 2]; 2],
    scan: Scan<'_>,
    widest: &[u32],
    view: &mut impl LitCells,
) {
    compact::scan_window(light, rows, north_south, scan, widest, |y, lo, cells| {
        view.row(y, lo, cells);
    });
    if west_east.contains(&true) {
        compact::scan_window(light, columns, west_east, scan, widest, |x, lo, cells| {
            view.column(x, lo, cells);
        });
    }
}

/// [`scan_small_window`] with gap sets, compiled for BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn scan_gaps_bmi2(
    cpu: gaps::Bmi2,
    grid: &OpacityGrid,
    quadrants: &Quadrants,
    scan: Scan<'_>,
    widest: &[u32],
    visible: &mut VisibleSet,
) {
    scan_small_window(
        &mut gaps::GapLight::new(cpu),
        grid,
        quadrants,
        scan,
        widest,
        visible,
    );
}

/// The window's rows (or, `transposed`, its columns) as the lines a small window's scan
/// reads, for a viewer at `(ox, oy)`.
#[inline(always)]
fn window_lines(
    grid: &OpacityGrid,
    window: Window,
    (ox, oy): (u32, u32),
    transposed: bool,
) -> WindowLines<'_> {
    let (lines, line_axis, cell_axis) = if transposed {
        (
            grid.column_lines(),
            (window.x, ox, window.width),
            (window.y, oy, window.height),
        )
    } else {
        (
            grid.row_lines(),
            (window.y, oy, window.height),
            (window.x, ox, window.width),
        )
    };
    let ((first_line, viewer_line, rows), (first_cell, viewer_cell, cells)) =
        (line_axis, cell_axis);
    WindowLines {
        lines,
        first_line,
        viewer_line: viewer_line - first_line,
        first_cell,
        viewer_cell: viewer_cell - first_cell,
        cells,
        rows,
    }
}

/// Where a small window's scan puts its lit cells: the rows of the view.
trait LitCells {
    /// Row `y`'s cells `lo + i` for each bit `i` of `cells`.
    fn row(&mut self, y: u32, lo: u32, cells: u64);
    /// Column `x`'s cells `lo + i` (rows of the view) for each bit `i` of `cells`.
    fn column(&mut self, x: u32, lo: u32, cells: u64);
}

impl LitCells for BitRows {
    #[inline(always)]
    fn row(&mut self, y: u32, lo: u32, cells: u64) {
        self.set_run_inside(y, lo, cells);
    }

    #[inline(always)]
    fn column(&mut self, x: u32, lo: u32, cells: u64) {
        let (stride, word, bit) = (self.stride(), x as usize / WORD_BITS, x % u64::BITS);
        let words = self.words_mut();
        for_each_one(cells, |i| {
            words[(lo + i) as usize * stride + word] |= 1 << bit
        });
    }
}

/// The rows of a view at most 64 cells wide: one word each.
struct OneWordRows<'a>(&'a mut [u64]);

impl LitCells for OneWordRows<'_> {
    #[inline(always)]
    fn row(&mut self, y: u32, lo: u32, cells: u64) {
        self.0[y as usize] |= cells << lo;
    }

    #[inline(always)]
    fn column(&mut self, x: u32, lo: u32, cells: u64) {
        for_each_one(cells, |i| self.0[(lo + i) as usize] |= 1 << x);
    }
}

/// The radius, or `None` when there is none or it covers the whole map (which is the same).
fn radius_inside_map(radius: Radius, grid: &OpacityGrid) -> Option<u32> {
    match radius {
        Radius::Limited(r) if u64::from(r) < u64::from(grid.width()) + u64::from(grid.height()) => {
            Some(r)
        }
        _ => None,
    }
}

/// The cells the viewer at `origin` can reach: the square of `radius` around it clipped to
/// the map, or the whole map.
fn reach_window(grid: &OpacityGrid, (ox, oy): (u32, u32), radius: Option<u32>) -> Window {
    match radius {
        Some(r) => {
            let (x, y) = (ox.saturating_sub(r), oy.saturating_sub(r));
            Window {
                x,
                y,
                width: ox.saturating_add(r).min(grid.width() - 1) - x + 1,
                height: oy.saturating_add(r).min(grid.height() - 1) - y + 1,
            }
        }
        None => Window {
            x: 0,
            y: 0,
            width: grid.width(),
            height: grid.height(),
        },
    }
}

/// Keeps the visible cells whose centre lies inside the cone: with the cone's mask when
/// `masks` has one for it (the window being the square of `radius` around the viewer, cut to
/// the map), else cell by cell.
fn keep_inside_cone(
    visible: &mut VisibleSet,
    (ox, oy): (u32, u32),
    cone: &VisionCone,
    radius: Option<u32>,
    masks: &mut ConeMasks,
) {
    if cone.is_full() {
        return;
    }
    if let Some(r) = radius
        && let Some(mask) = masks.mask(cone, r)
    {
        // A mask's radius is at most 31: the window is at most 63 cells wide, one word a row.
        let window = visible.window();
        debug_assert_eq!(visible.rows_mut().stride(), 1);
        // The window starts `ox - window.x` cells left of the viewer, the mask `r`.
        let (skip_x, skip_y) = (r - (ox - window.x), (r - (oy - window.y)) as usize);
        for (row, &mask) in visible
            .rows_mut()
            .words_mut()
            .iter_mut()
            .zip(&mask[skip_y..])
        {
            *row &= mask >> skip_x;
        }
        return;
    }
    let (ox, oy) = (i64::from(ox), i64::from(oy));
    let test = ConeTest::new(cone);
    visible.retain(|x, y| test.contains(i64::from(x) - ox, i64::from(y) - oy));
}

/// What stays the same for every quadrant of one computation.
#[derive(Clone, Copy)]
struct Scan<'a> {
    /// The widest column inside the radius at each depth (`None`: no radius).
    widest: Option<&'a [u32]>,
    light_walls: bool,
    /// Floors are lit when the row covers them, not only when their centre is in the sector.
    permissive: bool,
}

impl Scan<'_> {
    /// The floors that `interval` lights among the columns it covers: those whose centre is
    /// inside it, or all of them when permissive.
    #[inline(always)]
    fn lit_floors(self, interval: &Interval, covered: Columns) -> Columns {
        if self.permissive {
            covered
        } else {
            interval.centre_inside_columns()
        }
    }
}

/// Random maps for the scan's unit tests.
#[cfg(test)]
mod test_grids {
    use proptest::prelude::*;

    use crate::OpacityGrid;

    /// Maps up to `max_side` cells wide and high, each cell opaque with a chance of
    /// `density` percent (itself drawn from `density`).
    pub(super) fn grids(
        max_side: u32,
        density: impl Strategy<Value = u8>,
    ) -> impl Strategy<Value = OpacityGrid> {
        (1..=max_side, 1..=max_side, density).prop_flat_map(|(width, height, density)| {
            proptest::collection::vec(0u8..100, (width * height) as usize).prop_map(move |cells| {
                OpacityGrid::from_fn(width, height, |x, y| {
                    cells[(y * width + x) as usize] < density
                })
            })
        })
    }
}
