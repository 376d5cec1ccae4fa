//! The scan of a small window: when every row of every quadrant spans at most
//! [`MAX_HALF_SPAN`] cells each side of the viewer's column and the reach ends by depth
//! [`MAX_DEPTH`], each row is one word: any radius up to 31, and a disk up to radius 43 (its
//! rows span at most `min(d, widest(d))` each way, about 0.7 of the radius).
//!
//! Bit `i` of a row is the window's column `lo + i`, where `lo` is the row's first cell, so a
//! row's cells, the cells an interval covers and the cells it lights are all masks of one
//! word, and the runs of floors are found with two shifts. An interval is two [`SlopeId`]s whose roundings at each depth
//! come from the [`SlopeTable`]: nothing is stepped from row to row. North and south write
//! their rows straight into the visible set; east and west, which scan the window's columns,
//! set their lit cells in it one by one (a quadrant lights at most a few hundred cells, fewer
//! than a transpose of the window would touch). Same rules as [`super::row`], in fewer steps.

use crate::bits::{WORD_BITS, bit_range};
use crate::grid::Lines;

use super::Scan;
use super::slope_table::{self, MAX_DEPTH, MINUS_ONE, PLUS_ONE, SlopeId, SlopeTable};

/// A lit interval of a small window: its two ends.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ends {
    start: SlopeId,
    end: SlopeId,
}

/// The lit intervals of the row of a small window being scanned and those it passes to the
/// next row; kept between computations so that the scan does not allocate.
#[derive(Clone, Debug, Default)]
pub(super) struct SmallIntervals {
    current: Vec<Ends>,
    next: Vec<Ends>,
}

impl SmallIntervals {
    /// Starts a quadrant: its whole width, from slope -1 to slope 1, is lit at depth 1.
    #[inline(always)]
    fn start_quadrant(&mut self) {
        self.current.clear();
        self.current.push(Ends {
            start: MINUS_ONE,
            end: PLUS_ONE,
        });
    }

    /// Whether no interval is lit any more: the rest of the quadrant is dark.
    #[inline(always)]
    fn is_dark(&self) -> bool {
        self.current.is_empty()
    }

    /// The lit intervals of the row to scan, and the empty list of the next row's.
    #[inline(always)]
    fn rows(&mut self) -> (&[Ends], &mut Vec<Ends>) {
        self.next.clear();
        (&self.current, &mut self.next)
    }

    /// Moves one row deeper: the next row's intervals become the current ones.
    #[inline(always)]
    fn advance(&mut self) {
        std::mem::swap(&mut self.current, &mut self.next);
    }
}

/// The most cells a row of a small window spans on each side of the viewer's column.
pub(super) const MAX_HALF_SPAN: u32 = (WORD_BITS as u32 - 1) / 2;

/// Whether a reach (`widest[d]`: the widest column at depth `d`) fits a small window: it
/// ends by depth [`MAX_DEPTH`] and no row spans more than [`MAX_HALF_SPAN`] cells each way
/// (a row at depth `d` covers at most `d` columns each way, slopes being at most 1), nor
/// reaches past bit 62 with an interval's columns.
pub(super) fn fits(widest: &[u32]) -> bool {
    // An interval's columns lie within `depth` of the viewer, whose bit is at most the row's
    // half span: `depth + half` bounds the bits `WordRow::columns` shifts by.
    widest.len() as u32 <= MAX_DEPTH + 1
        && (0u32..).zip(widest).all(|(depth, &reach)| {
            let half = depth.min(reach);
            half <= MAX_HALF_SPAN && depth + half <= 2 * MAX_HALF_SPAN
        })
}

/// One axis of the window as the scan of two opposite quadrants sees it: its rows are grid
/// lines, their cells run along the lines.
#[derive(Clone, Copy)]
pub(super) struct WindowLines<'a> {
    pub(super) lines: Lines<'a>,
    /// The grid line of the window's first row, and the viewer's row in the window.
    pub(super) first_line: u32,
    pub(super) viewer_line: u32,
    /// The grid cell of the window's first column, the viewer's column in the window, and
    /// the number of columns.
    pub(super) first_cell: u32,
    pub(super) viewer_cell: u32,
    pub(super) cells: u32,
    /// The number of rows.
    pub(super) rows: u32,
}

/// What lights a small window's quadrant row after row: slope intervals ([`SlopeIntervals`])
/// or, for a shallow window, gap sets ([`super::gaps`]).
pub(super) trait QuadrantLight {
    /// Lights the whole quadrant, before its first row.
    fn start_quadrant(&mut self);
    /// Whether nothing is lit any more: the rest of the quadrant is dark.
    fn is_dark(&self) -> bool;
    /// Returns `row`'s lit cells and narrows the light to what passes on to the next row.
    fn scan_row(&mut self, row: &WordRow, scan: Scan<'_>) -> u64;
}

/// The lit intervals of a small window with the table of their slopes.
pub(super) struct SlopeIntervals<'a> {
    pub(super) intervals: &'a mut SmallIntervals,
    pub(super) table: &'static SlopeTable,
}

impl QuadrantLight for SlopeIntervals<'_> {
    #[inline(always)]
    fn start_quadrant(&mut self) {
        self.intervals.start_quadrant();
    }

    #[inline(always)]
    fn is_dark(&self) -> bool {
        self.intervals.is_dark()
    }

    #[inline(always)]
    fn scan_row(&mut self, row: &WordRow, scan: Scan<'_>) -> u64 {
        let (current, next) = self.intervals.rows();
        let lit = row.scan(self.table, scan, current, next);
        self.intervals.advance();
        lit
    }
}

/// Scans the two quadrants of `window` that `sides` asks for (`[toward lower lines, toward
/// higher ones]`) with `light`, calling `emit(row, lo, cells)` with the lit cells of each row
/// of the window (bit `i` = the row's cell `lo + i`).
#[inline(always)]
pub(super) fn scan_window(
    light: &mut impl QuadrantLight,
    window: WindowLines<'_>,
    sides: [bool; 2],
    scan: Scan<'_>,
    widest: &[u32],
    mut emit: impl FnMut(u32, u32, u64),
) {
    let deepest = [window.viewer_line, window.rows - 1 - window.viewer_line];
    for (forward, wanted) in [(false, sides[0]), (true, sides[1])] {
        if !wanted {
            continue;
        }
        let max_depth = deepest[usize::from(forward)].min(widest.len() as u32 - 1);
        light.start_quadrant();
        for depth in 1..=max_depth {
            if light.is_dark() {
                break;
            }
            let row = if forward {
                window.viewer_line + depth
            } else {
                window.viewer_line - depth
            };
            // The row's cells: within the reach, the quadrant and the window.
            let half = depth.min(widest[depth as usize]);
            let lo = window.viewer_cell.saturating_sub(half);
            let hi = (window.viewer_cell + half).min(window.cells - 1);
            let viewer = window.viewer_cell - lo;
            let walls = window
                .lines
                .bits(window.first_line + row, window.first_cell + lo);
            let cells = WordRow {
                depth,
                viewer,
                first_edge: slope_table::column_zero_edge(viewer, depth),
                inside: bit_range(0, hi - lo),
                walls,
                lit_walls: if scan.light_walls { walls } else { 0 },
            };
            emit(row, lo, light.scan_row(&cells, scan));
        }
    }
}

/// One row of the window: bit `i` is the row's cell `i`, from its first one.
pub(super) struct WordRow {
    pub(super) depth: u32,
    /// The viewer's column (at most `depth`).
    pub(super) viewer: u32,
    /// The id of the left edge of the window's column 0 at this depth: the column at `bit`
    /// has id `first_edge + bit` (only ids of columns inside the reach are used).
    first_edge: SlopeId,
    /// The columns on the map and inside the reach.
    pub(super) inside: u64,
    /// The walls among them (and maybe other bits outside them).
    pub(super) walls: u64,
    /// The walls that light up: all of them, or none when walls are not lit.
    pub(super) lit_walls: u64,
}

impl WordRow {
    /// The row's bits from the viewer's column `from` to `to` (relative columns), or none.
    /// Both lie within `depth` of the viewer and the row spans at most 31 cells each side of
    /// it, so `from` is at most 62 bits in and `to` at least -31 bits before the row: two
    /// shifts make the mask (cut to the row by `inside`), with no branch.
    #[inline(always)]
    fn columns(&self, from: i8, to: i8) -> u64 {
        let (from, to, viewer) = (i64::from(from), i64::from(to), i64::from(self.viewer));
        let first = (from + viewer).max(0);
        let last = (to + viewer).max(-1);
        debug_assert!(first < 63 && last < 63);
        (u64::MAX >> 1 >> (62 - last)) & (u64::MAX << first) & self.inside
    }

    /// Lights the row's cells for each interval of `current` and pushes the intervals of
    /// the next row; returns the lit cells.
    #[inline(always)]
    fn scan(
        &self,
        table: &SlopeTable,
        scan: Scan<'_>,
        current: &[Ends],
        next: &mut Vec<Ends>,
    ) -> u64 {
        let mut lit = 0;
        for interval in current {
            let (start, end) = (
                table.at(interval.start, self.depth),
                table.at(interval.end, self.depth),
            );
            let covered = self.columns(start.ties_up, end.ties_down);
            if covered == 0 {
                continue;
            }
            let floors = covered & !self.walls;
            // Floors light when their centre is inside the interval, or all of them when
            // permissive.
            let lit_floors = if scan.permissive {
                covered
            } else {
                self.columns(start.ceil, end.floor)
            };
            lit |= floors & lit_floors | covered & self.lit_walls;
            self.push_floor_runs(interval, covered, floors, next);
        }
        lit
    }

    /// Every run of floors among the `covered` cells of `interval` lights the next row from
    /// the left edge of its first cell (the interval's start if the run starts the covered
    /// cells) to the left edge of the wall that ends it (the interval's end if none does).
    #[inline(always)]
    fn push_floor_runs(&self, interval: &Ends, covered: u64, floors: u64, next: &mut Vec<Ends>) {
        let first = covered.trailing_zeros();
        let last = WORD_BITS as u32 - 1 - covered.leading_zeros();
        let mut starts = floors & !(floors << 1);
        let mut ends = floors & !(floors >> 1);
        while starts != 0 {
            let (start, end) = (starts.trailing_zeros(), ends.trailing_zeros());
            starts &= starts - 1;
            ends &= ends - 1;
            next.push(Ends {
                start: if start == first {
                    interval.start
                } else {
                    self.left_edge(start)
                },
                end: if end == last {
                    interval.end
                } else {
                    self.left_edge(end + 1)
                },
            });
        }
    }

    /// The id of the left edge of the window's column `bit` at this depth.
    #[inline(always)]
    fn left_edge(&self, bit: u32) -> SlopeId {
        let id = self.first_edge.wrapping_add(bit as SlopeId);
        debug_assert_eq!(
            id,
            slope_table::left_edge(i64::from(bit) - i64::from(self.viewer), self.depth)
        );
        id
    }
}
