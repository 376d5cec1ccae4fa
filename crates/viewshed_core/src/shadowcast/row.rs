//! One row of a quadrant: which of its cells are lit, and which intervals it passes on to
//! the next row.
//!
//! The cells a lit interval covers are read from the grid a word (64 cells) at a time: the
//! scan takes the word's cells the interval covers ([`CoveredCells`]), lights walls and the
//! floors its rule allows, and walks the runs of floors ([`FloorRuns`]): every run becomes an
//! interval of the next row, between the slopes of its outer edges ([`scan_interval`]).

use crate::bits::bit_range;

use super::Scan;
use super::quadrant::{LitRuns, Quadrant};
use super::slope::{Columns, Interval, Slope};

/// The row of a quadrant being scanned.
#[derive(Clone, Copy)]
pub(super) struct Row {
    /// Distance from the viewer's line.
    pub(super) depth: u32,
    /// The grid line the row lies on.
    pub(super) line: u32,
    /// The row's columns that lie on the map and inside the reach.
    pub(super) columns: Columns,
}

/// The cells of one grid word that an interval covers: bit `i` stands for column `base + i`,
/// and only the bits of the columns `covered` are kept.
pub(super) struct CoveredCells {
    base: i64,
    covered: Columns,
    pub(super) walls: u64,
    floors: u64,
}

impl CoveredCells {
    /// The columns `covered` (at most 64, from `base` on) of `word`, whose set bits are
    /// walls.
    #[inline(always)]
    pub(super) fn new(word: u64, base: i64, covered: Columns) -> Self {
        let range = bit_range((covered.min - base) as u32, (covered.max - base) as u32);
        Self {
            base,
            covered,
            walls: word & range,
            floors: !word & range,
        }
    }

    /// The lit cells: the walls (when they light up) and the floors in `lit_floors`.
    #[inline(always)]
    pub(super) fn lit(&self, scan: Scan<'_>, lit_floors: Columns) -> u64 {
        let mut lit = if scan.light_walls { self.walls } else { 0 };
        let floors = lit_floors.intersect(self.covered);
        if !floors.is_empty() {
            let (first, last) = (floors.min - self.base, floors.max - self.base);
            lit |= self.floors & bit_range(first as u32, last as u32);
        }
        lit
    }
}

/// The walk over the runs of floors of one interval, word after word: each run lights the
/// next row from the left edge of its first cell (or the interval's start) to the left edge
/// of the wall that ends it (or the interval's end).
pub(super) struct FloorRuns {
    /// Whether the last cell walked is a floor.
    in_floor: bool,
    /// The start of the current run of floors, valued at the next depth.
    floor_start: Slope,
    /// The interval's first covered column: a run starting there starts at the interval's
    /// start.
    first_column: i64,
}

impl FloorRuns {
    /// A walk over `interval`, whose first covered column is `first_column`.
    #[inline(always)]
    pub(super) fn new(interval: &Interval, first_column: i64) -> Self {
        Self {
            in_floor: false,
            floor_start: interval.start.next_depth(),
            first_column,
        }
    }

    /// Walks the covered cells of one word, the next after those already walked, passing on
    /// the runs of floors that a wall ends.
    #[inline(always)]
    pub(super) fn walk(
        &mut self,
        cells: &CoveredCells,
        depth: u32,
        next: &mut impl FnMut(Interval),
    ) {
        if self.in_floor && cells.walls == 0 {
            // All floors, continuing the open run.
            return;
        }
        let mut pos = (cells.covered.min - cells.base) as u32;
        loop {
            let rest = if self.in_floor {
                cells.walls
            } else {
                cells.floors
            } >> pos;
            if rest == 0 {
                return;
            }
            pos += rest.trailing_zeros();
            let column = cells.base + i64::from(pos);
            if self.in_floor {
                next(Interval {
                    start: self.floor_start,
                    end: Slope::left_edge_next_depth(column, depth),
                });
            } else if column != self.first_column {
                self.floor_start = Slope::left_edge_next_depth(column, depth);
            }
            self.in_floor = !self.in_floor;
        }
    }

    /// Ends the walk at the interval's end: a run of floors still open reaches it.
    #[inline(always)]
    pub(super) fn finish(self, interval: &Interval, next: &mut impl FnMut(Interval)) {
        if self.in_floor {
            next(Interval {
                start: self.floor_start,
                end: interval.end.next_depth(),
            });
        }
    }
}

/// What an interval passes on to the next row.
pub(super) enum Passes {
    /// All of it: it covers floors and no wall.
    Whole,
    /// The parts passed to `next` (none when it covers no floor).
    Parts,
}

/// Lights the cells of `row` that `interval` covers and says what it passes on to the next
/// row, passing the parts a wall splits it into to `next`: the covered cells are read a word at a time,
/// and each word's lit cells are added to `emit` and its runs of
/// floors walked.
#[inline(always)]
pub(super) fn scan_interval(
    q: &Quadrant<'_>,
    row: Row,
    scan: Scan<'_>,
    interval: &Interval,
    next: &mut impl FnMut(Interval),
    emit: &mut impl LitRuns,
) -> Passes {
    let covered = interval.covered_columns().intersect(row.columns);
    if covered.is_empty() {
        return Passes::Parts;
    }
    let mut walls = 0;
    let lit_floors = scan.lit_floors(interval, covered);
    let mut runs = FloorRuns::new(interval, covered.min);
    let mut column = covered.min;
    while column <= covered.max {
        let in_word = Columns {
            min: column,
            max: covered.max.min(column + i64::from(u64::BITS) - 1),
        };
        let (cell, word) = q.cells(row.line, column);
        let cells = CoveredCells::new(word, column, in_word);
        emit.add(row.line, cell, cells.lit(scan, lit_floors));
        runs.walk(&cells, row.depth, next);
        walls |= cells.walls;
        column = in_word.max + 1;
    }
    if walls == 0 {
        return Passes::Whole;
    }
    runs.finish(interval, next);
    Passes::Parts
}
