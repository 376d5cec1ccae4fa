//! One quadrant of the scan of a window of any size, one lit interval at a time: an interval
//! (a beam) is followed outward row after row, kept in registers, until a wall splits it (the
//! other parts wait on a stack), it covers no cell or only walls, or the map or the reach
//! ends. The intervals a row passes on do not depend on each other, so following them one by
//! one lights what a scan row by row lights, without gathering a row's intervals in a list.

use crate::grid::Lines;

use super::Scan;
use super::row::{CoveredCells, FloorRuns, Passes, Row, scan_interval};
use super::slope::{Columns, Interval};

/// One quadrant: the row at depth `d` is grid line `origin_line ± d`, its columns run along
/// the line, column 0 being the viewer's.
pub(super) struct Quadrant<'a> {
    lines: Lines<'a>,
    origin_line: u32,
    origin_cell: u32,
    /// Whether the rows go toward higher line numbers.
    forward: bool,
}

impl Quadrant<'_> {
    /// The deepest row on the map.
    fn map_depth(&self) -> u32 {
        if self.forward {
            self.lines.count - 1 - self.origin_line
        } else {
            self.origin_line
        }
    }

    /// The grid line of the row at `depth`; wraps (and means nothing) for a depth past the
    /// map's edge, which [`Rows::columns`] turns away before the line is read.
    #[inline(always)]
    fn line_at(&self, depth: u32) -> u32 {
        if self.forward {
            self.origin_line.wrapping_add(depth)
        } else {
            self.origin_line.wrapping_sub(depth)
        }
    }

    /// The columns that lie on the map.
    fn map_columns(&self) -> Columns {
        let origin = i64::from(self.origin_cell);
        Columns {
            min: -origin,
            max: i64::from(self.lines.len) - 1 - origin,
        }
    }

    /// Up to 64 cells of grid line `line` from `column` on (which must be on the map) as
    /// the first cell's index on the line and a word whose set bits are walls. Bits past the
    /// line's end are clear.
    #[inline(always)]
    pub(super) fn cells(&self, line: u32, column: i64) -> (u32, u64) {
        let cell = (i64::from(self.origin_cell) + column) as u32;
        (cell, self.lines.bits(line, cell))
    }
}

/// Where a scan puts the visible cells it finds.
pub(super) trait LitRuns {
    /// Adds cell `first_cell + i` of grid line `line` for each bit `i` of `run`.
    fn add(&mut self, line: u32, first_cell: u32, run: u64);
}

/// The parts of the quadrant's light waiting to be followed; kept between computations so
/// that the scan does not allocate.
#[derive(Clone, Debug, Default)]
pub(super) struct Beams {
    waiting: Vec<Beam>,
}

/// A lit interval and the depth of the row it lights next (its slopes valued there).
#[derive(Clone, Copy, Debug)]
struct Beam {
    depth: u32,
    interval: Interval,
}

/// The rows of a quadrant: how deep they go and which of their columns lie on the map and
/// inside the reach.
struct Rows<'a> {
    max_depth: u32,
    /// The widest column at each depth, or empty when there is no radius.
    widest: &'a [u32],
    map_columns: Columns,
}

impl Rows<'_> {
    /// The columns of the row at `depth` on the map and inside the reach, or `None` past
    /// the last row.
    #[inline(always)]
    fn columns(&self, depth: u32) -> Option<Columns> {
        if depth > self.max_depth {
            return None;
        }
        let columns = match self.widest.get(depth as usize) {
            Some(&reach) => self.map_columns.intersect(Columns {
                min: -i64::from(reach),
                max: i64::from(reach),
            }),
            None => self.map_columns,
        };
        (!columns.is_empty()).then_some(columns)
    }
}

impl Beams {
    /// Scans the quadrants on either side of the viewer's line and cell `origin` along
    /// `lines` that `sides` asks for: `[toward lower line numbers, toward higher ones]`.
    /// `emit` as in [`scan`](Self::scan).
    #[inline(always)]
    pub(super) fn scan_both_sides(
        &mut self,
        lines: Lines<'_>,
        (origin_line, origin_cell): (u32, u32),
        sides: [bool; 2],
        scan: Scan<'_>,
        emit: &mut impl LitRuns,
    ) {
        for (forward, wanted) in [(false, sides[0]), (true, sides[1])] {
            if wanted {
                let quadrant = Quadrant {
                    lines,
                    origin_line,
                    origin_cell,
                    forward,
                };
                self.scan(quadrant, scan, emit);
            }
        }
    }

    /// Scans one quadrant, adding the visible cells of row segments to `emit`.
    #[inline(always)]
    pub(super) fn scan(&mut self, q: Quadrant<'_>, scan: Scan<'_>, emit: &mut impl LitRuns) {
        let rows = match scan.widest {
            Some(widest) => Rows {
                max_depth: q.map_depth().min(widest.len() as u32 - 1),
                widest,
                map_columns: q.map_columns(),
            },
            None => Rows {
                max_depth: q.map_depth(),
                widest: &[],
                map_columns: q.map_columns(),
            },
        };
        self.waiting.clear();
        self.waiting.push(Beam {
            depth: 1,
            interval: Interval::whole_quadrant(),
        });
        while let Some(beam) = self.waiting.pop() {
            self.follow(&q, beam, &rows, scan, emit);
        }
    }

    /// Follows `beam` outward until it ends or a wall splits it, leaving the parts waiting.
    #[inline(always)]
    fn follow(
        &mut self,
        q: &Quadrant<'_>,
        beam: Beam,
        rows: &Rows<'_>,
        scan: Scan<'_>,
        emit: &mut impl LitRuns,
    ) {
        let (mut depth, mut interval) = (beam.depth, beam.interval);
        // The row's grid line, stepped along with the depth (a wrapping step of -1 or 1).
        let (mut line, step) = (q.line_at(depth), if q.forward { 1 } else { u32::MAX });
        while let Some(columns) = rows.columns(depth) {
            let row = Row {
                depth,
                line,
                columns,
            };
            let covered = interval.covered_columns().intersect(columns);
            if covered.is_empty() {
                return;
            }
            let waiting = &mut self.waiting;
            let mut split = |interval| {
                waiting.push(Beam {
                    depth: depth + 1,
                    interval,
                });
            };
            if covered.max - covered.min < i64::from(u64::BITS) {
                // Most rows: one word, and often no wall, so the interval goes on whole.
                // `scan_interval` would give the same, but its word loop and eager run
                // state cost this scan 11 to 42% more instructions (forest/unlimited
                // 541,327 against 380,170), so the one-word row is written out here.
                let (cell, word) = q.cells(row.line, covered.min);
                let cells = CoveredCells::new(word, covered.min, covered);
                emit.add(
                    row.line,
                    cell,
                    cells.lit(scan, scan.lit_floors(&interval, covered)),
                );
                if cells.walls != 0 {
                    let mut runs = FloorRuns::new(&interval, covered.min);
                    runs.walk(&cells, depth, &mut split);
                    runs.finish(&interval, &mut split);
                    return;
                }
            } else if let Passes::Parts = scan_interval(q, row, scan, &interval, &mut split, emit) {
                return;
            }
            interval = interval.next_depth();
            depth += 1;
            line = line.wrapping_add(step);
        }
    }
}
