//! Exact slopes and the lit intervals between them: the arithmetic of Ford's rules.
//!
//! A [`Slope`] carries its value at the depth of the row being scanned as a whole part and a
//! remainder, so the rounding rules (`round_ties_up`, `round_ties_down`, and the centre test
//! of `is_symmetric`) are comparisons and the scan divides nothing.

/// An exact slope `num / den` (`den > 0`, `|num| <= den`) together with its value at the
/// depth `d` of the row being scanned: `d * num / den = whole + rem / den`, `0 <= rem < den`.
///
/// Going one row deeper adds `num / den`, which is at most 1 in size, so the value steps
/// forward with an addition and one correction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slope {
    num: i64,
    den: i64,
    whole: i64,
    rem: i64,
}

impl Slope {
    /// The slope `num / 1` (`num` is -1 or 1) at depth 1.
    pub(super) fn at_depth_one(num: i64) -> Self {
        Self {
            num,
            den: 1,
            whole: num,
            rem: 0,
        }
    }

    /// The same slope one row deeper.
    #[inline(always)]
    pub(super) fn next_depth(mut self) -> Self {
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

    /// Ford's `slope(tile)`: the slope of the left edge of column `col` of the row at
    /// `depth`, `(2*col - 1) / (2*depth)`, valued one row deeper. Needs `|col| <= depth`.
    #[inline(always)]
    pub(super) fn left_edge_next_depth(col: i64, depth: u32) -> Self {
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

    /// `floor(d*s + 1/2)`: the value at this depth rounded to a column, a half rounded up.
    #[inline(always)]
    pub(super) fn round_ties_up(&self) -> i64 {
        self.whole + i64::from(2 * self.rem >= self.den)
    }

    /// `ceil(d*s - 1/2)`: the value at this depth rounded to a column, a half rounded down.
    #[inline(always)]
    pub(super) fn round_ties_down(&self) -> i64 {
        self.whole + i64::from(2 * self.rem > self.den)
    }

    /// `ceil(d*s)`: the first column whose centre is not before the slope.
    #[inline(always)]
    pub(super) fn ceil(&self) -> i64 {
        self.whole + i64::from(self.rem > 0)
    }

    /// `floor(d*s)`: the last column whose centre is not past the slope.
    #[inline(always)]
    pub(super) fn floor(&self) -> i64 {
        self.whole
    }
}

/// The lit part of a row, between two slopes (Ford's `Row` without its depth, which the scan
/// keeps once for all the intervals of a row).
#[derive(Clone, Copy, Debug)]
pub(super) struct Interval {
    pub(super) start: Slope,
    pub(super) end: Slope,
}

impl Interval {
    /// The whole quadrant, from slope -1 to slope 1, at depth 1.
    pub(super) fn whole_quadrant() -> Self {
        Self {
            start: Slope::at_depth_one(-1),
            end: Slope::at_depth_one(1),
        }
    }

    /// The same interval one row deeper.
    #[inline(always)]
    pub(super) fn next_depth(self) -> Self {
        Self {
            start: self.start.next_depth(),
            end: self.end.next_depth(),
        }
    }

    /// Ford's `Row::tiles`: the columns the row covers,
    /// `round_ties_up(d*start) ..= round_ties_down(d*end)`.
    #[inline(always)]
    pub(super) fn covered_columns(&self) -> Columns {
        Columns {
            min: self.start.round_ties_up(),
            max: self.end.round_ties_down(),
        }
    }

    /// Ford's `is_symmetric`: the columns whose centre lies inside the interval,
    /// `ceil(d*start) ..= floor(d*end)` (the floors the symmetric rule lights).
    #[inline(always)]
    pub(super) fn centre_inside_columns(&self) -> Columns {
        Columns {
            min: self.start.ceil(),
            max: self.end.floor(),
        }
    }
}

/// The columns `min ..= max` of a row (relative to the viewer), empty when `min > max`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Columns {
    pub(super) min: i64,
    pub(super) max: i64,
}

impl Columns {
    /// The columns in both.
    #[inline(always)]
    pub(super) fn intersect(self, other: Columns) -> Columns {
        Columns {
            min: self.min.max(other.min),
            max: self.max.min(other.max),
        }
    }

    /// Whether there is no column.
    #[inline(always)]
    pub(super) fn is_empty(self) -> bool {
        self.min > self.max
    }
}
