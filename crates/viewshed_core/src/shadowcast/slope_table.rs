//! Every slope the scan of a small window can meet, rounded at every depth it can be read
//! at, computed once for the whole program.
//!
//! In a small window, whose rows end by depth [`MAX_DEPTH`], an interval's ends are the
//! quadrant's edges (slopes -1 and 1) or the left edge of a column `col` of a row at depth
//! `d < MAX_DEPTH`, `(2*col - 1) / (2*d)` with `-d < col <= d` (those made at the last depth
//! are never read): under two thousand slopes. Each gets a [`SlopeId`], and
//! [`SlopeTable::at`] gives its four roundings at a depth, exactly as [`Slope`] computes them.
//! The scan then carries two `u16`s per interval and never steps a slope from one row to the
//! next. The table is laid out depth by depth, and the ids of the slopes made before depth
//! `d` are the first ones: a row reads one contiguous stretch of it.

use std::sync::OnceLock;

use super::slope::Slope;

/// The deepest row a small window scans.
pub(super) const MAX_DEPTH: u32 = 43;
/// The index of a slope in the table.
pub(super) type SlopeId = u16;

/// Slope -1: the start of a quadrant.
pub(super) const MINUS_ONE: SlopeId = 0;
/// Slope 1: the end of a quadrant.
pub(super) const PLUS_ONE: SlopeId = 1;

/// The number of ids, rounded up to a power of two: the stride of the table, one stretch
/// per depth (a shift, not a multiplication, finds a depth's stretch).
const IDS: usize = (first_left_edge(MAX_DEPTH + 1) as usize).next_power_of_two();

/// The id of the left edge of column `col` at depth `depth`, for `-depth < col <= depth`
/// and `1 <= depth <= MAX_DEPTH`.
#[inline(always)]
pub(super) fn left_edge(col: i64, depth: u32) -> SlopeId {
    debug_assert!((1..=MAX_DEPTH).contains(&depth) && -i64::from(depth) < col);
    debug_assert!(col <= i64::from(depth));
    (first_left_edge(depth) + col + i64::from(depth) - 1) as SlopeId
}

/// The id column 0 of a window whose viewer is at column `viewer` would have at `depth` if
/// the ids went on past `-depth < col`: the window's column `i` has id `this + i` (wrapping).
#[inline(always)]
pub(super) fn column_zero_edge(viewer: u32, depth: u32) -> SlopeId {
    (first_left_edge(depth) + i64::from(depth) - 1 - i64::from(viewer)) as SlopeId
}

/// The id of the left edge of column `-depth + 1` at `depth`: ids 0 and 1 are the quadrant's
/// edges, then `2*d` ids for each depth `d` from 1 on.
#[inline(always)]
pub(super) const fn first_left_edge(depth: u32) -> i64 {
    let d = depth as i64;
    2 + d * (d - 1)
}

/// A slope's value `v` at one depth, rounded four ways (columns relative to the viewer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Rounded {
    /// `floor(v + 1/2)`: the first column an interval starting here covers.
    pub(super) ties_up: i8,
    /// `ceil(v - 1/2)`: the last column an interval ending here covers.
    pub(super) ties_down: i8,
    /// `ceil(v)`: the first column whose centre is not before the slope.
    pub(super) ceil: i8,
    /// `floor(v)`: the last column whose centre is not past it.
    pub(super) floor: i8,
}

/// Every slope's roundings at every depth: entry `depth * IDS + id`.
pub(super) struct SlopeTable {
    entries: Box<[Rounded]>,
}

impl SlopeTable {
    /// The table, made the first time it is asked for.
    pub(super) fn get() -> &'static SlopeTable {
        static TABLE: OnceLock<SlopeTable> = OnceLock::new();
        TABLE.get_or_init(SlopeTable::make)
    }

    /// Slope `id` at `depth` (which must not be before the row the slope was made for).
    #[inline(always)]
    pub(super) fn at(&self, id: SlopeId, depth: u32) -> Rounded {
        self.entries[depth as usize * IDS + usize::from(id)]
    }

    fn make() -> Self {
        let mut entries = vec![Rounded::default(); (MAX_DEPTH as usize + 1) * IDS];
        let mut fill = |id: SlopeId, first_depth: u32, mut slope: Slope| {
            for depth in first_depth..=MAX_DEPTH {
                entries[depth as usize * IDS + usize::from(id)] = Rounded {
                    ties_up: small(slope.round_ties_up()),
                    ties_down: small(slope.round_ties_down()),
                    ceil: small(slope.ceil()),
                    floor: small(slope.floor()),
                };
                slope = slope.next_depth();
            }
        };
        fill(MINUS_ONE, 1, Slope::at_depth_one(-1));
        fill(PLUS_ONE, 1, Slope::at_depth_one(1));
        for depth in 1..=MAX_DEPTH {
            let d = i64::from(depth);
            for col in -d + 1..=d {
                fill(
                    left_edge(col, depth),
                    depth + 1,
                    Slope::left_edge_next_depth(col, depth),
                );
            }
        }
        Self {
            entries: entries.into_boxed_slice(),
        }
    }
}

/// A rounded slope of a small window: at most `MAX_DEPTH` in size.
fn small(column: i64) -> i8 {
    i8::try_from(column).expect("a small window's columns fit in i8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_distinct() {
        let mut seen = vec![false; first_left_edge(MAX_DEPTH + 1) as usize];
        seen[usize::from(MINUS_ONE)] = true;
        seen[usize::from(PLUS_ONE)] = true;
        for depth in 1..=MAX_DEPTH {
            let d = i64::from(depth);
            for col in -d + 1..=d {
                let id = usize::from(left_edge(col, depth));
                assert!(!seen[id], "id {id} given twice");
                seen[id] = true;
            }
        }
        assert!(seen.iter().all(|&s| s), "every id is used");
    }

    #[test]
    fn entries_round_like_the_slopes() {
        let table = SlopeTable::get();
        // The left edge of column 1 at depth 2, (2 - 1) / 4 = 1/4: at depth 6 it is 1.5.
        let at_six = table.at(left_edge(1, 2), 6);
        assert_eq!(
            at_six,
            Rounded {
                ties_up: 2,
                ties_down: 1,
                ceil: 2,
                floor: 1
            }
        );
        // Slope -1 at the deepest depth is exactly minus that depth.
        let edge = table.at(MINUS_ONE, MAX_DEPTH);
        let deepest = -(MAX_DEPTH as i8);
        assert_eq!(
            (edge.ties_up, edge.ceil, edge.floor),
            (deepest, deepest, deepest)
        );
    }
}
