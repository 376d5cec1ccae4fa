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
//!   (`dx*dx + dy*dy > r*(r+1)`, or the square or diamond of the options' shape) are never
//!   visible and can shadow only cells beyond it too;
//! - in the permissive mode every floor the row covers is lit, like walls;
//! - a vision cone skips the quadrants it cannot reach and then keeps the cells whose centre
//!   it contains.

use std::f64::consts::{FRAC_PI_2, PI};

use crate::grid::{Lines, OpacityGrid};
use crate::options::{ConeTest, DistanceShape, FovMode, FovOptions, Radius};
use crate::visible::{BitRows, VisibleSet, Window};

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
    /// What the east and west quadrants see, transposed (window column `x` is row `x`).
    columns: BitRows,
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
            Radius::Limited(r)
                if u64::from(r) < u64::from(grid.width()) + u64::from(grid.height()) =>
            {
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
        visible.rows_mut().set(oy - window.y, ox - window.x);
        let scan = Scan {
            reach: match radius {
                None => Reach::Unlimited,
                Some(r) => match options.shape {
                    DistanceShape::Euclidean => Reach::Disk(u64::from(r) * (u64::from(r) + 1)),
                    DistanceShape::Chebyshev => Reach::Square(r),
                    DistanceShape::Manhattan => Reach::Diamond(r),
                },
            },
            light_walls: options.light_walls,
            permissive: options.mode == FovMode::Permissive,
        };
        // A quadrant the cone cannot reach is not scanned.
        let reaches = |direction: f64| options.cone.is_none_or(|c| c.reaches_sector(direction));

        // North and south: rows of the grid, cells along x, straight into the window's rows.
        let rows = visible.rows_mut();
        for (forward, direction) in [(false, -FRAC_PI_2), (true, FRAC_PI_2)] {
            if !reaches(direction) {
                continue;
            }
            let quadrant = Quadrant {
                lines: grid.row_lines(),
                origin_line: oy,
                origin_cell: ox,
                forward,
            };
            self.scan(quadrant, scan, |y, x, cells| {
                rows.set_run(y - window.y, x - window.x, cells);
            });
        }
        // East and west: columns of the grid, cells along y, into the transposed window,
        // which is then merged into the window 64x64 cells at a time.
        if reaches(0.0) || reaches(PI) {
            let mut columns = std::mem::take(&mut self.columns);
            columns.reset(window.width, window.height);
            for (forward, direction) in [(false, PI), (true, 0.0)] {
                if !reaches(direction) {
                    continue;
                }
                let quadrant = Quadrant {
                    lines: grid.column_lines(),
                    origin_line: ox,
                    origin_cell: oy,
                    forward,
                };
                self.scan(quadrant, scan, |x, y, cells| {
                    columns.set_run(x - window.x, y - window.y, cells);
                });
            }
            visible.merge_transposed(&columns);
            self.columns = columns;
        }
        if let Some(cone) = options.cone.filter(|cone| !cone.is_full()) {
            let (ox, oy) = (i64::from(ox), i64::from(oy));
            let test = ConeTest::new(&cone);
            visible.retain(|x, y| test.contains(i64::from(x) - ox, i64::from(y) - oy));
        }
        Ok(())
    }

    /// Scans the interval `self.current[index]` of a row whose cells `col_min ..= col_max`
    /// (at most 64) are `row_walls` (bit 0 = `col_min`); pushes the lit intervals of the next
    /// row and returns the row's lit cells.
    #[inline(always)]
    fn scan_interval_in_word(
        &mut self,
        index: usize,
        depth: u32,
        col_min: i64,
        col_max: i64,
        row_walls: u64,
        scan: Scan,
    ) -> u64 {
        let Interval { start, end } = self.current[index];
        let lo = (start.whole + i64::from(2 * start.rem >= start.den)).max(col_min);
        let hi = (end.whole + i64::from(2 * end.rem > end.den)).min(col_max);
        if lo > hi {
            return 0;
        }
        let (first, last) = ((lo - col_min) as u32, (hi - col_min) as u32);
        let range = bit_range(first, last);
        let walls = row_walls & range;
        let floors = !row_walls & range;
        let mut lit = if scan.light_walls { walls } else { 0 };
        if scan.permissive {
            lit |= floors;
        } else {
            let lit_min = (start.whole + i64::from(start.rem > 0)).max(lo);
            let lit_max = end.whole.min(hi);
            if lit_min <= lit_max {
                lit |= floors & bit_range((lit_min - col_min) as u32, (lit_max - col_min) as u32);
            }
        }

        // Walk the runs of floors: each one lights the next row between its edges.
        let mut in_floor = false;
        let mut floor_start = start.next_depth();
        let mut pos = first;
        loop {
            let rest = if in_floor { walls } else { floors } >> pos;
            if rest == 0 {
                break;
            }
            pos += rest.trailing_zeros();
            let at = col_min + i64::from(pos);
            if in_floor {
                self.next.push(Interval {
                    start: floor_start,
                    end: Slope::left_edge_next_depth(at, depth),
                });
            } else if pos != first {
                floor_start = Slope::left_edge_next_depth(at, depth);
            }
            in_floor = !in_floor;
        }
        if in_floor {
            self.next.push(Interval {
                start: floor_start,
                end: end.next_depth(),
            });
        }
        lit
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
        let max_depth = match scan.reach {
            // Depth r+1 is beyond the disk: (r+1)^2 > r*(r+1).
            Reach::Disk(limit) => max_depth.min(limit.isqrt() as u32),
            Reach::Square(r) | Reach::Diamond(r) => max_depth.min(r),
            Reach::Unlimited => max_depth,
        };
        let origin = i64::from(q.origin_cell);
        // Columns (relative to the viewer) that lie on the map.
        let map_min = -origin;
        let map_max = i64::from(q.lines.len) - 1 - origin;

        // Widest column inside the disk, updated per depth (at depth 1 it is r itself).
        let mut disk_reach = match scan.reach {
            Reach::Disk(limit) => limit.isqrt(),
            _ => 0,
        };
        self.current.clear();
        self.current.push(Interval {
            start: Slope::at_depth_one(-1),
            end: Slope::at_depth_one(1),
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
            let (mut col_min, mut col_max) = (map_min, map_max);
            // The widest column inside the radius at this depth (it never grows with depth,
            // so cells beyond the radius can only shadow cells beyond it too).
            let reach = match scan.reach {
                Reach::Unlimited => None,
                Reach::Disk(limit) => {
                    let room = limit - u64::from(depth) * u64::from(depth);
                    while disk_reach * disk_reach > room {
                        disk_reach -= 1;
                    }
                    Some(disk_reach as i64)
                }
                Reach::Square(r) => Some(i64::from(r)),
                Reach::Diamond(r) => Some(i64::from(r - depth)),
            };
            if let Some(reach) = reach {
                col_min = col_min.max(-reach);
                col_max = col_max.min(reach);
            }
            self.next.clear();
            if col_min > col_max {
                break;
            }
            if col_max - col_min < 64 {
                // The whole row fits in one word: read it and write what it lights once.
                let cell = (origin + col_min) as u32;
                let row_walls = q.lines.bits(line, cell) & low_bits((col_max - col_min + 1) as u32);
                let mut row_lit = 0;
                for index in 0..self.current.len() {
                    row_lit |=
                        self.scan_interval_in_word(index, depth, col_min, col_max, row_walls, scan);
                }
                emit(line, cell, row_lit);
                std::mem::swap(&mut self.current, &mut self.next);
                continue;
            }
            for index in 0..self.current.len() {
                let Interval { start, end } = self.current[index];
                // Columns the row covers: d*start rounded half up ..= d*end rounded half down.
                let lo = (start.whole + i64::from(2 * start.rem >= start.den)).max(col_min);
                let hi = (end.whole + i64::from(2 * end.rem > end.den)).min(col_max);
                if lo > hi {
                    continue;
                }
                // Lit floors: those whose centre lies inside the interval,
                // ceil(d*start) ..= floor(d*end), or every covered one when permissive.
                let (lit_min, lit_max) = if scan.permissive {
                    (lo, hi)
                } else {
                    (start.whole + i64::from(start.rem > 0), end.whole)
                };

                let mut in_floor = false;
                // The start of the current run of floors, for the next row.
                let mut floor_start = start.next_depth();
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
                        lit |=
                            floors & (low_bits((b - col + 1) as u32) & !low_bits((a - col) as u32));
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
                                end: Slope::left_edge_next_depth(at, depth),
                            });
                        } else if at != lo {
                            floor_start = Slope::left_edge_next_depth(at, depth);
                        }
                        in_floor = !in_floor;
                    }
                    col += i64::from(len);
                }
                if in_floor {
                    self.next.push(Interval {
                        start: floor_start,
                        end: end.next_depth(),
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
    reach: Reach,
    light_walls: bool,
    /// Floors are lit when the row covers them, not only when their centre is in the sector.
    permissive: bool,
}

/// Which cells a limited radius keeps.
#[derive(Clone, Copy)]
enum Reach {
    Unlimited,
    /// `dx*dx + dy*dy <= limit`, `limit = r*(r+1)`.
    Disk(u64),
    /// `max(|dx|, |dy|) <= r`.
    Square(u32),
    /// `|dx| + |dy| <= r`.
    Diamond(u32),
}

/// One quadrant: rows at depth `d` are grid line `origin_line ± d`, columns run along it.
struct Quadrant<'a> {
    lines: Lines<'a>,
    origin_line: u32,
    origin_cell: u32,
    forward: bool,
}

/// An exact slope `num / den` (`den > 0`, `|num| <= den`) together with its value at the
/// depth `d` of the row being scanned: `d * num / den = whole + rem / den`, `0 <= rem < den`.
///
/// Going one row deeper adds `num / den`, which is at most 1 in size, so the value steps
/// forward with an addition and one correction: the scan divides nothing.
#[derive(Clone, Copy, Debug)]
struct Slope {
    num: i64,
    den: i64,
    whole: i64,
    rem: i64,
}

impl Slope {
    /// The slope `num / 1` (`num` is -1 or 1) at depth 1.
    fn at_depth_one(num: i64) -> Self {
        Self {
            num,
            den: 1,
            whole: num,
            rem: 0,
        }
    }

    /// The same slope one row deeper.
    #[inline(always)]
    fn next_depth(mut self) -> Self {
        self.rem += self.num;
        if self.rem >= self.den {
            self.rem -= self.den;
            self.whole += 1;
        } else if self.rem < 0 {
            self.rem += self.den;
            self.whole -= 1;
        }
        self
    }

    /// The slope of the left edge of column `col` of the row at `depth`,
    /// `(2*col - 1) / (2*depth)`, valued one row deeper. Needs `|col| <= depth`.
    #[inline(always)]
    fn left_edge_next_depth(col: i64, depth: u32) -> Self {
        let d = i64::from(depth);
        // At `depth` itself the value is col - 1/2 = (col - 1) + d / (2d).
        Self {
            num: 2 * col - 1,
            den: 2 * d,
            whole: col - 1,
            rem: d,
        }
        .next_depth()
    }
}

/// The lit part of a row, between two slopes.
#[derive(Clone, Copy, Debug)]
struct Interval {
    start: Slope,
    end: Slope,
}

/// A word with the bits `first ..= last` set, `first <= last < 64`.
#[inline(always)]
fn bit_range(first: u32, last: u32) -> u64 {
    low_bits(last + 1) & !low_bits(first)
}

/// A word with the low `n` bits set, `n <= 64`.
#[inline(always)]
fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}
