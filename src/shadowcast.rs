//! Symmetric shadowcasting (Albert Ford's rules) over an [`OpacityGrid`], in exact integer
//! arithmetic.
//!
//! The map around the viewer is cut into four quadrants. Each quadrant is scanned row by row
//! outward from the viewer; a row at depth `d` is one scan line of the grid (a grid row for the
//! north and south quadrants, a grid column for east and west), so the scan reads 64 cells at
//! a time from the bit-packed grid and finds whole runs of walls and floors with bit tricks.
//! The lit sector of a row is a list of intervals between two slopes; walls split it and
//! narrow it for the next row. Nothing recurses and nothing allocates once the scratch
//! buffers have grown.
//!
//! The rules, for a row at depth `d` and an interval from slope `s` to slope `e`:
//! - the row covers the columns `floor(d*s + 1/2) ..= ceil(d*e - 1/2)`;
//! - a wall (opaque cell) there is visible (unless light walls are off);
//! - a floor there is visible only when its centre is inside the interval,
//!   `d*s <= col <= d*e`, which is what makes the result symmetric;
//! - a run of floors continues into the next row between the slopes of its outer edges,
//!   `(2*col - 1) / (2*d)` for the left edge of a cell after a wall and of a wall after floors;
//! - cells outside the map are opaque and never visible; cells beyond the radius
//!   (`dx*dx + dy*dy > r*(r+1)`) are never visible and can shadow only cells beyond it too.

use crate::grid::{Lines, OpacityGrid};
use crate::visible::{VisibleSet, Window};

/// How far a viewer sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Radius {
    /// Cells with `dx*dx + dy*dy <= r*(r+1)` around the viewer (a disk of radius `r + 1/2`
    /// through cell centres). `Limited(0)` sees only the viewer's own cell.
    Limited(u32),
    /// No limit: only walls and the map's edge stop sight.
    #[default]
    Unlimited,
}

/// Options of one field-of-view computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FovOptions {
    /// How far the viewer sees.
    pub radius: Radius,
    /// Whether opaque cells that sight reaches are visible (true, the default: walls light
    /// up) or not reported (false: only transparent cells and the viewer's own cell).
    pub light_walls: bool,
}

impl Default for FovOptions {
    fn default() -> Self {
        Self::unlimited()
    }
}

impl FovOptions {
    /// Unlimited radius, walls lit.
    pub const fn unlimited() -> Self {
        Self {
            radius: Radius::Unlimited,
            light_walls: true,
        }
    }

    /// Radius `r` (see [`Radius::Limited`]), walls lit.
    pub const fn radius(r: u32) -> Self {
        Self {
            radius: Radius::Limited(r),
            light_walls: true,
        }
    }

    /// The same options with light walls switched on or off.
    pub const fn with_light_walls(mut self, light_walls: bool) -> Self {
        self.light_walls = light_walls;
        self
    }
}

/// Why a field of view could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
/// use bevy_viewshed::{Fov, FovOptions, OpacityGrid, VisibleSet};
///
/// // A wall segment east of the viewer hides what is behind it.
/// let grid = OpacityGrid::from_fn(9, 9, |x, y| x == 5 && (3..=5).contains(&y));
/// let mut fov = Fov::new();
/// let mut visible = VisibleSet::new();
/// fov.compute(&grid, (3, 4), FovOptions::unlimited(), &mut visible)?;
/// assert!(visible.contains(5, 4), "the wall itself is lit");
/// assert!(!visible.contains(7, 4), "the cell behind it is not");
/// assert!(visible.contains(3, 0));
/// # Ok::<(), bevy_viewshed::FovError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Fov {
    current: Vec<Interval>,
    next: Vec<Interval>,
}

/// Computes the field of view of a viewer at `origin` on `grid` into a new [`VisibleSet`].
///
/// A convenience for one-off calls; a loop over many viewers should reuse a [`Fov`] and a
/// [`VisibleSet`] instead.
///
/// ```
/// use bevy_viewshed::{field_of_view, FovOptions, OpacityGrid};
///
/// let grid = OpacityGrid::new(5, 5);
/// let visible = field_of_view(&grid, (2, 2), FovOptions::radius(0))?;
/// assert_eq!(visible.iter().collect::<Vec<_>>(), vec![(2, 2)]);
/// # Ok::<(), bevy_viewshed::FovError>(())
/// ```
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
    /// opaque. A viewer outside the map gets [`FovError::OriginOutsideMap`] and an empty
    /// `visible`.
    pub fn compute(
        &mut self,
        grid: &OpacityGrid,
        origin: (u32, u32),
        options: FovOptions,
        visible: &mut VisibleSet,
    ) -> Result<(), FovError> {
        let (ox, oy) = origin;
        if !grid.contains(ox, oy) {
            visible.clear();
            return Err(FovError::OriginOutsideMap {
                origin,
                width: grid.width(),
                height: grid.height(),
            });
        }
        // A radius that covers the whole map is the same as no radius.
        let radius = match options.radius {
            Radius::Limited(r) if u64::from(r) < u64::from(grid.width()) + u64::from(grid.height()) => {
                Some(r)
            }
            _ => None,
        };
        let window = match radius {
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
        };
        visible.reset(window);
        visible.insert_local(ox - window.x, oy - window.y);
        let limit = radius.map(|r| u64::from(r) * (u64::from(r) + 1));
        let scan = Scan {
            limit,
            light_walls: options.light_walls,
        };

        // North and south: rows of the grid, cells along x.
        let rows = grid.row_lines();
        for forward in [false, true] {
            let quadrant = Quadrant {
                lines: rows,
                origin_line: oy,
                origin_cell: ox,
                forward,
            };
            self.scan(quadrant, scan, |y, x, cells| {
                visible.insert_run_local(x - window.x, y - window.y, cells);
            });
        }
        // East and west: columns of the grid, cells along y.
        let columns = grid.column_lines();
        for forward in [false, true] {
            let quadrant = Quadrant {
                lines: columns,
                origin_line: ox,
                origin_cell: oy,
                forward,
            };
            self.scan(quadrant, scan, |x, y, mut cells| {
                while cells != 0 {
                    let bit = cells.trailing_zeros();
                    visible.insert_local(x - window.x, y + bit - window.y);
                    cells &= cells - 1;
                }
            });
        }
        Ok(())
    }

    /// Scans one quadrant, calling `emit(line, first_cell, cells)` with the visible cells of
    /// each row segment as bits (bit `i` = cell `first_cell + i` of grid line `line`).
    #[inline(always)]
    fn scan(&mut self, q: Quadrant<'_>, scan: Scan, mut emit: impl FnMut(u32, u32, u64)) {
        let max_depth = if q.forward {
            q.lines.count - 1 - q.origin_line
        } else {
            q.origin_line
        };
        let max_depth = match scan.limit {
            // Depth r+1 is beyond the disk: (r+1)^2 > r*(r+1).
            Some(limit) => max_depth.min(limit.isqrt() as u32),
            None => max_depth,
        };
        let origin = i64::from(q.origin_cell);
        // Columns (relative to the viewer) that lie on the map.
        let map_min = -origin;
        let map_max = i64::from(q.lines.len) - 1 - origin;

        self.current.clear();
        self.current.push(Interval {
            start: Slope { num: -1, den: 1 },
            end: Slope { num: 1, den: 1 },
        });
        for depth in 1..=max_depth {
            if self.current.is_empty() {
                break;
            }
            let line = if q.forward {
                q.origin_line + depth
            } else {
                q.origin_line - depth
            };
            let d = i64::from(depth);
            let (mut col_min, mut col_max) = (map_min, map_max);
            if let Some(limit) = scan.limit {
                let reach = (limit - u64::from(depth) * u64::from(depth)).isqrt() as i64;
                col_min = col_min.max(-reach);
                col_max = col_max.min(reach);
            }
            self.next.clear();
            for index in 0..self.current.len() {
                let Interval { start, end } = self.current[index];
                // Columns the row covers: round d*start half up, d*end half down.
                let lo = floor_div(2 * d * start.num + start.den, 2 * start.den).max(col_min);
                let hi = ceil_div(2 * d * end.num - end.den, 2 * end.den).min(col_max);
                if lo > hi {
                    continue;
                }
                // Floors whose centre lies inside the interval.
                let lit_min = ceil_div(d * start.num, start.den);
                let lit_max = floor_div(d * end.num, end.den);

                let mut in_floor = false;
                let mut floor_start = start;
                let mut col = lo;
                while col <= hi {
                    let len = (hi - col + 1).min(64) as u32;
                    let mask = low_bits(len);
                    let cell = (origin + col) as u32;
                    let walls = q.lines.bits(line, cell) & mask;
                    let floors = !walls & mask;

                    let mut lit = if scan.light_walls { walls } else { 0 };
                    let a = lit_min.max(col);
                    let b = lit_max.min(col + i64::from(len) - 1);
                    if a <= b {
                        lit |= floors & (low_bits((b - col + 1) as u32) & !low_bits((a - col) as u32));
                    }
                    emit(line, cell, lit);

                    // Walk the runs of floors: each one lights the next row between its edges.
                    let mut pos = 0;
                    while pos < len {
                        let rest = if in_floor { walls } else { floors } >> pos;
                        if rest == 0 {
                            break;
                        }
                        pos += rest.trailing_zeros();
                        let at = col + i64::from(pos);
                        if in_floor {
                            self.next.push(Interval {
                                start: floor_start,
                                end: Slope::left_edge(at, d),
                            });
                        } else if at != lo {
                            floor_start = Slope::left_edge(at, d);
                        }
                        in_floor = !in_floor;
                    }
                    col += i64::from(len);
                }
                if in_floor {
                    self.next.push(Interval {
                        start: floor_start,
                        end,
                    });
                }
            }
            std::mem::swap(&mut self.current, &mut self.next);
        }
    }
}

/// What stays the same for every quadrant of one computation.
#[derive(Clone, Copy)]
struct Scan {
    /// `r*(r+1)` for a limited radius.
    limit: Option<u64>,
    light_walls: bool,
}

/// One quadrant: rows at depth `d` are grid line `origin_line ± d`, columns run along it.
struct Quadrant<'a> {
    lines: Lines<'a>,
    origin_line: u32,
    origin_cell: u32,
    forward: bool,
}

/// An exact slope `num / den` with `den > 0`.
#[derive(Clone, Copy, Debug)]
struct Slope {
    num: i64,
    den: i64,
}

impl Slope {
    /// The slope of the left edge of column `col` at depth `d`: `(2*col - 1) / (2*d)`.
    fn left_edge(col: i64, d: i64) -> Self {
        Self {
            num: 2 * col - 1,
            den: 2 * d,
        }
    }
}

/// The lit part of a row, between two slopes.
#[derive(Clone, Copy, Debug)]
struct Interval {
    start: Slope,
    end: Slope,
}

/// `floor(a / b)` for `b > 0`.
#[inline(always)]
fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// `ceil(a / b)` for `b > 0`.
#[inline(always)]
fn ceil_div(a: i64, b: i64) -> i64 {
    -(-a).div_euclid(b)
}

/// A word with the low `n` bits set, `n <= 64`.
#[inline(always)]
fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}
