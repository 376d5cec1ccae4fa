//! One quadrant of the scan: rows at depth 1, 2, ... outward from the viewer, each one lit
//! by the intervals the row before passed on, until no interval is left or the map or the
//! reach ends.

use crate::grid::Lines;

use super::Scan;
use super::row::{Row, scan_row_in_word, scan_row_wide};
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

    /// The grid line of the row at `depth`.
    #[inline(always)]
    fn line_at(&self, depth: u32) -> u32 {
        if self.forward {
            self.origin_line + depth
        } else {
            self.origin_line - depth
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

/// The lit intervals of the row being scanned and those it passes to the next row; kept
/// between computations so that the scan does not allocate.
/// `I`: how an interval is kept ([`Interval`] for any window, slope ids for a small one).
#[derive(Clone, Debug)]
pub(super) struct RowIntervals<I = Interval> {
    current: Vec<I>,
    next: Vec<I>,
}

/// An interval as a scan keeps it.
pub(super) trait LitInterval: Copy {
    /// The whole quadrant, from slope -1 to slope 1.
    fn whole_quadrant() -> Self;
}

impl LitInterval for Interval {
    fn whole_quadrant() -> Self {
        Interval::whole_quadrant()
    }
}

impl<I> Default for RowIntervals<I> {
    fn default() -> Self {
        Self {
            current: Vec::new(),
            next: Vec::new(),
        }
    }
}

impl RowIntervals {
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
        mut emit: impl FnMut(u32, u32, u64),
    ) {
        for (forward, wanted) in [(false, sides[0]), (true, sides[1])] {
            if wanted {
                let quadrant = Quadrant {
                    lines,
                    origin_line,
                    origin_cell,
                    forward,
                };
                self.scan(quadrant, scan, &mut emit);
            }
        }
    }

    /// Scans one quadrant, calling `emit(line, first_cell, cells)` with the visible cells of
    /// each row segment as bits (bit `i` = cell `first_cell + i` of grid line `line`).
    #[inline(always)]
    pub(super) fn scan(
        &mut self,
        q: Quadrant<'_>,
        scan: Scan<'_>,
        mut emit: impl FnMut(u32, u32, u64),
    ) {
        let (max_depth, widest) = match scan.widest {
            Some(widest) => (q.map_depth().min(widest.len() as u32 - 1), widest),
            None => (q.map_depth(), &[][..]),
        };
        let map_columns = q.map_columns();
        self.start_quadrant();
        for depth in 1..=max_depth {
            if self.is_dark() {
                break;
            }
            let columns = match widest.get(depth as usize) {
                Some(&reach) => map_columns.intersect(Columns {
                    min: -i64::from(reach),
                    max: i64::from(reach),
                }),
                None => map_columns,
            };
            if columns.is_empty() {
                break;
            }
            let row = Row {
                depth,
                line: q.line_at(depth),
                columns,
            };
            let (current, next) = self.rows();
            if columns.max - columns.min < i64::from(u64::BITS) {
                scan_row_in_word(&q, row, scan, current, next, &mut emit);
            } else {
                scan_row_wide(&q, row, scan, current, next, &mut emit);
            }
            self.advance();
        }
    }
}

impl<I: LitInterval> RowIntervals<I> {
    /// Starts a quadrant: its whole width is lit at depth 1.
    pub(super) fn start_quadrant(&mut self) {
        self.current.clear();
        self.current.push(I::whole_quadrant());
    }

    /// Whether no interval is lit any more: the rest of the quadrant is dark.
    pub(super) fn is_dark(&self) -> bool {
        self.current.is_empty()
    }

    /// The lit intervals of the row to scan, and the empty list of the next row's.
    pub(super) fn rows(&mut self) -> (&[I], &mut Vec<I>) {
        self.next.clear();
        (&self.current, &mut self.next)
    }

    /// Moves one row deeper: the next row's intervals become the current ones.
    pub(super) fn advance(&mut self) {
        std::mem::swap(&mut self.current, &mut self.next);
    }
}
