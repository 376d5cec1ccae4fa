//! Partial opacity: smoke, foliage, tall grass, fog banks, through which sight thins instead
//! of stopping.
//!
//! A [`DensityGrid`] gives each cell a density, and [`DensityGrid::thin`] takes a field of view
//! computed by the ordinary rules and keeps the cells that the density between them and the
//! viewer does not hide. The rule, exactly as built:
//!
//! - A density is held in 1/1024ths of a cell's worth ([`DENSITY_UNITS`]): a density `d` is
//!   `ceil(d × 1024)` units, 0 when `d` is not a number or not above 0, and 1,024 from 1 up
//!   ([`units_of`]). A cell with several sources of density holds their sum.
//! - A cell `c` that the ordinary rules show from a viewer at `v` stays seen exactly when the
//!   units of the cells *strictly between* them sum to less than 1,024: the cells whose
//!   interior the segment between the centres of `v` and `c` meets, `v` and `c` themselves
//!   not counted (a cell the segment only touches at a corner does not count).
//!
//! So one cell of density 1 or more hides what lies behind it (but is seen itself), two cells
//! of density 0.5 hide what lies behind both (Dungeon Crawl Stone Soup's "two clouds block"),
//! and a viewer standing in smoke sees out of it. The cells between `v` and `c` are the cells
//! between `c` and `v` and the sum is of integers, so the rule is symmetric: wherever the
//! ordinary rules are (between floors), a viewer at `v` sees `c` exactly when one at `c` sees
//! `v`. It never shows a cell the ordinary rules hide.
//!
//! ```
//! use viewshed_core::density::DensityGrid;
//! use viewshed_core::{field_of_view, FovOptions, OpacityGrid};
//!
//! // Two clouds of density 0.5 at (3, 2) and (4, 2), east of a viewer at (1, 2).
//! let walls = OpacityGrid::new(9, 5);
//! let smoke = DensityGrid::from_fn(9, 5, |x, y| if y == 2 && (3..5).contains(&x) { 0.5 } else { 0.0 });
//! let mut seen = field_of_view(&walls, (1, 2), FovOptions::radius(8))?;
//! smoke.thin((1, 2), &mut seen);
//! assert!(seen.contains(4, 2)); // behind one cloud: seen
//! assert!(!seen.contains(5, 2)); // behind both: hidden
//! assert!(seen.contains(5, 1)); // the segment to (5, 1) meets only one of them
//! # Ok::<(), viewshed_core::FovError>(())
//! ```

use crate::bits::{BitRows, for_each_one, low_bits};
use crate::visible::{VisibleSet, Window};

/// The units of a cell's worth of density: cells between a viewer and a cell whose units sum
/// to this or more hide it.
pub const DENSITY_UNITS: u32 = 1024;

/// The units a density `d` counts as: `ceil(d × 1024)`; 0 when `d` is not a number or not
/// above 0, 1,024 from 1 up.
///
/// ```
/// use viewshed_core::density::units_of;
/// assert_eq!(units_of(0.5), 512);
/// assert_eq!(units_of(1.0 / 3.0), 342); // three such cells hide what is behind them
/// assert_eq!(units_of(f32::NAN), 0);
/// assert_eq!(units_of(7.0), 1024);
/// ```
pub fn units_of(density: f32) -> u16 {
    if density.is_nan() || density <= 0.0 {
        return 0;
    }
    let units = (f64::from(density) * f64::from(DENSITY_UNITS)).ceil();
    units.min(f64::from(DENSITY_UNITS)) as u16
}

/// The density of every cell of a grid, in units ([`units_of`]), with a bit per cell that is
/// dense at all, so that a view with no dense cell in its window costs one look at those bits.
#[derive(Clone, Default)]
pub struct DensityGrid {
    width: u32,
    height: u32,
    /// Row by row.
    units: Vec<u16>,
    /// Which cells hold any density.
    dense: BitRows,
    /// How many cells hold any density.
    dense_count: usize,
    /// A rectangle holding every dense cell: `(x_min, y_min, x_max, y_max)`, grown as cells
    /// become dense, emptied when none is (a view whose window misses it is not looked at).
    reach: Option<(u32, u32, u32, u32)>,
}

/// Equal when every cell holds the same density (however the grids came to hold it).
impl PartialEq for DensityGrid {
    fn eq(&self, other: &Self) -> bool {
        (self.width, self.height) == (other.width, other.height) && self.units == other.units
    }
}

impl Eq for DensityGrid {}

impl DensityGrid {
    /// A `width` x `height` grid with no density anywhere.
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            units: vec![0; width as usize * height as usize],
            dense: BitRows::new(height, width),
            dense_count: 0,
            reach: None,
        }
    }

    /// A grid whose cell `(x, y)` has density `density(x, y)`.
    pub fn from_fn(width: u32, height: u32, mut density: impl FnMut(u32, u32) -> f32) -> Self {
        let mut grid = Self::new(width, height);
        for y in 0..height {
            for x in 0..width {
                grid.set_units(x, y, units_of(density(x, y)));
            }
        }
        grid
    }

    /// The width in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The height in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The units of cell `(x, y)` (0 outside the grid).
    pub fn units(&self, x: u32, y: u32) -> u16 {
        if x < self.width && y < self.height {
            self.units[y as usize * self.width as usize + x as usize]
        } else {
            0
        }
    }

    /// The density of cell `(x, y)`, as held: its units / 1,024.
    pub fn density(&self, x: u32, y: u32) -> f32 {
        f32::from(self.units(x, y)) / DENSITY_UNITS as f32
    }

    /// Sets cell `(x, y)` to `density` ([`units_of`]); returns whether it changed (nothing
    /// outside the grid).
    pub fn set(&mut self, x: u32, y: u32, density: f32) -> bool {
        self.set_units(x, y, units_of(density))
    }

    /// Sets cell `(x, y)` to `units` (above 1,024 counts as 1,024); returns whether it changed
    /// (nothing outside the grid).
    pub fn set_units(&mut self, x: u32, y: u32, units: u16) -> bool {
        if x >= self.width || y >= self.height {
            return false;
        }
        let units = units.min(DENSITY_UNITS as u16);
        let cell = &mut self.units[y as usize * self.width as usize + x as usize];
        if *cell == units {
            return false;
        }
        match (*cell > 0, units > 0) {
            (false, true) => self.dense_count += 1,
            (true, false) => self.dense_count -= 1,
            _ => {}
        }
        *cell = units;
        self.dense.set_to(y, x, units > 0);
        if self.dense_count == 0 {
            self.reach = None;
        } else if units > 0 {
            let (x0, y0, x1, y1) = self.reach.unwrap_or((x, y, x, y));
            self.reach = Some((x0.min(x), y0.min(y), x1.max(x), y1.max(y)));
        }
        true
    }

    /// Whether no cell holds any density.
    pub fn is_clear(&self) -> bool {
        self.dense_count == 0
    }

    /// How many cells hold any density.
    pub fn dense_count(&self) -> usize {
        self.dense_count
    }

    /// Whether a cell of `window` (clipped to the grid) holds any density.
    pub fn any_dense_in(&self, window: Window) -> bool {
        let Some((x0, y0, x1, y1)) = self.reach else {
            return false;
        };
        let (x_start, y_start) = (window.x.max(x0), window.y.max(y0));
        let x_end = window.x.saturating_add(window.width).min(x1 + 1);
        let y_end = window.y.saturating_add(window.height).min(y1 + 1);
        if x_start >= x_end {
            return false;
        }
        (y_start..y_end).any(|y| row_has_bits(self.dense.row(y), x_start, x_end))
    }

    /// The units of the cells strictly between cells `a` and `b`: those whose interior the
    /// segment between their centres meets, `a` and `b` not counted, summed up to
    /// [`DENSITY_UNITS`] (the sum stops there). The same both ways.
    pub fn units_between(&self, a: (u32, u32), b: (u32, u32)) -> u32 {
        let mut sum = 0;
        for_cells_between(a, b, |x, y| {
            sum += u32::from(self.units(x, y));
            sum < DENSITY_UNITS
        });
        sum.min(DENSITY_UNITS)
    }

    /// Whether the density strictly between `a` and `b` hides one from the other (their
    /// units sum to [`DENSITY_UNITS`] or more).
    pub fn hides(&self, a: (u32, u32), b: (u32, u32)) -> bool {
        self.units_between(a, b) >= DENSITY_UNITS
    }

    /// Keeps the cells of `visible` (a field of view from `origin`) that the density between
    /// them and `origin` does not hide. A view whose window holds no dense cell is left as it
    /// is after one look at the dense bits of that window. Allocates the list of shadows it
    /// needs; [`thin_with`](Self::thin_with) reuses one.
    pub fn thin(&self, origin: (u32, u32), visible: &mut VisibleSet) {
        self.thin_with(origin, visible, &mut Shadows::default());
    }

    /// [`thin`](Self::thin), with `shadows` kept from call to call (nothing is allocated once
    /// it has held as many dense cells as a view's window).
    ///
    /// Only the cells that lie behind a dense cell are walked: a cell nearer the viewer (in
    /// rows or columns) than every dense cell of the window, or whose direction falls in none
    /// of their shadows (the directions in which each dense cell's square is seen, a little
    /// wider), has no dense cell strictly between it and the viewer.
    pub fn thin_with(&self, origin: (u32, u32), visible: &mut VisibleSet, shadows: &mut Shadows) {
        let window = visible.window();
        if !self.any_dense_in(window) {
            return;
        }
        shadows.cast(self, origin, window);
        visible.retain(|x, y| !shadows.may_hide(origin, (x, y)) || !self.hides(origin, (x, y)));
    }

    /// Resizes the grid, keeping the density of the cells inside both sizes.
    pub fn resize(&mut self, width: u32, height: u32) {
        let mut resized = Self::new(width, height);
        for y in 0..height.min(self.height) {
            for x in 0..width.min(self.width) {
                resized.set_units(x, y, self.units(x, y));
            }
        }
        *self = resized;
    }
}

/// The shadows the dense cells of a view's window cast from its viewer: the nearest of them (in
/// rows or columns) and the directions they cover, merged, a little wider than exact, so that
/// a cell outside them has no dense cell between it and the viewer.
#[derive(Clone, Debug, Default)]
pub struct Shadows {
    nearest: u32,
    /// Intervals of [`pseudo_angle`]s in `[0, 4]`, sorted and merged.
    arcs: Vec<(f64, f64)>,
}

/// How much wider than exact a shadow is taken: far more than the rounding of a division, so
/// no cell in a shadow is missed (a cell just outside one is walked for nothing, never
/// misjudged).
const SHADOW_MARGIN: f64 = 1e-9;

impl Shadows {
    /// The shadows of the dense cells of `window` seen from `origin`.
    fn cast(&mut self, density: &DensityGrid, origin: (u32, u32), window: Window) {
        self.nearest = u32::MAX;
        self.arcs.clear();
        let x_end = window.x.saturating_add(window.width).min(density.width);
        let y_end = window.y.saturating_add(window.height).min(density.height);
        if window.x >= x_end {
            return;
        }
        let (first, last) = (window.x / 64, (x_end - 1) / 64);
        for y in window.y..y_end {
            let row = density.dense.row(y);
            for word in first..=last {
                let bits = row.get(word as usize).copied().unwrap_or(0);
                for_each_one(bits, |bit| {
                    let x = word * 64 + bit;
                    if (window.x..x_end).contains(&x) && (x, y) != origin {
                        self.add(origin, (x, y));
                    }
                });
            }
        }
        self.arcs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut kept = 0;
        for read in 0..self.arcs.len() {
            let (lo, hi) = self.arcs[read];
            if kept > 0 && lo <= self.arcs[kept - 1].1 {
                self.arcs[kept - 1].1 = self.arcs[kept - 1].1.max(hi);
            } else {
                self.arcs[kept] = (lo, hi);
                kept += 1;
            }
        }
        self.arcs.truncate(kept);
    }

    /// Adds the shadow of the dense cell `cell`: the directions from `origin` through its
    /// square, between its extreme corners (split where it crosses east, where the angles
    /// start again).
    fn add(&mut self, origin: (u32, u32), cell: (u32, u32)) {
        let (dx, dy) = offset(origin, cell);
        self.nearest = self
            .nearest
            .min(dx.unsigned_abs().max(dy.unsigned_abs()) as u32);
        let (mut low, mut high) = (f64::MAX, f64::MIN);
        // Angles below 2 (north of east, and west), and from 2 on (south).
        let (mut low_half, mut high_half) = (f64::MIN, f64::MAX);
        for (cx, cy) in [(-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)] {
            let angle = pseudo_angle(dx as f64 + cx, dy as f64 + cy);
            (low, high) = (low.min(angle), high.max(angle));
            if angle < 2.0 {
                low_half = low_half.max(angle);
            } else {
                high_half = high_half.min(angle);
            }
        }
        if high - low > 2.0 {
            // Across east: from the south corners round to the north ones.
            self.arcs.push((high_half - SHADOW_MARGIN, 4.0));
            self.arcs.push((0.0, low_half + SHADOW_MARGIN));
        } else {
            self.arcs.push((low - SHADOW_MARGIN, high + SHADOW_MARGIN));
        }
    }

    /// Whether a dense cell may lie strictly between `origin` and `cell`.
    fn may_hide(&self, origin: (u32, u32), cell: (u32, u32)) -> bool {
        let (dx, dy) = offset(origin, cell);
        if (dx.unsigned_abs().max(dy.unsigned_abs()) as u32) < self.nearest {
            return false;
        }
        let angle = pseudo_angle(dx as f64, dy as f64);
        let after = self.arcs.partition_point(|&(lo, _)| lo <= angle);
        after > 0 && angle <= self.arcs[after - 1].1
    }
}

/// A number in `[0, 4)` that grows with the angle of `(dx, dy)` counterclockwise from east
/// (one division, where an angle takes an arctangent): `dy / (|dx| + |dy|)` folded by quadrant.
fn pseudo_angle(dx: f64, dy: f64) -> f64 {
    let p = dy / (dx.abs() + dy.abs());
    if dx < 0.0 {
        2.0 - p
    } else if dy < 0.0 {
        4.0 + p
    } else {
        p
    }
}

/// `cell - origin`.
fn offset(origin: (u32, u32), cell: (u32, u32)) -> (i64, i64) {
    (
        i64::from(cell.0) - i64::from(origin.0),
        i64::from(cell.1) - i64::from(origin.1),
    )
}

/// Whether bits `start..end` of a row of words hold a one.
fn row_has_bits(row: &[u64], start: u32, end: u32) -> bool {
    let (first, last) = (start / 64, (end - 1) / 64);
    (first..=last).any(|word| {
        let mut bits = row.get(word as usize).copied().unwrap_or(0);
        if word == first {
            bits &= !low_bits(start % 64);
        }
        if word == last && !end.is_multiple_of(64) {
            bits &= low_bits(end % 64);
        }
        bits != 0
    })
}

/// Calls `visit` with each cell strictly between `a` and `b` whose interior the segment between
/// their centres meets, from `a`'s side, until it returns `false`.
///
/// The segment leaves a cell through a side (to the next cell along x or along y) or exactly
/// through a corner (to the diagonal cell: the two cells beside the corner are only touched).
/// With `(ax, ay)` the distances, it crosses its `i`-th side across x at `(2i + 1) / (2 ax)` of
/// its length and its `j`-th across y at `(2j + 1) / (2 ay)`: the earlier crossing is the next
/// step, found by comparing `(2i + 1) ay` with `(2j + 1) ax`.
pub(crate) fn for_cells_between(
    a: (u32, u32),
    b: (u32, u32),
    mut visit: impl FnMut(u32, u32) -> bool,
) {
    let (ax, ay) = (a.0.abs_diff(b.0), a.1.abs_diff(b.1));
    let step = |from: u32, to: u32| if to > from { 1i64 } else { -1 };
    let (sx, sy) = (step(a.0, b.0), step(a.1, b.1));
    let (mut x, mut y) = (i64::from(a.0), i64::from(a.1));
    let (mut i, mut j) = (0u64, 0u64);
    let (ax, ay) = (u64::from(ax), u64::from(ay));
    loop {
        let across_x = (2 * i + 1) * ay;
        let across_y = (2 * j + 1) * ax;
        let (step_x, step_y) = match (i < ax, j < ay) {
            (false, false) => return,
            (true, false) => (true, false),
            (false, true) => (false, true),
            (true, true) => (across_x <= across_y, across_y <= across_x),
        };
        if step_x {
            (x, i) = (x + sx, i + 1);
        }
        if step_y {
            (y, j) = (y + sy, j + 1);
        }
        if (i, j) == (ax, ay) || !visit(x as u32, y as u32) {
            return;
        }
    }
}

impl std::fmt::Debug for DensityGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DensityGrid {}x{} ({} dense cells)",
            self.width, self.height, self.dense_count
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn between(a: (u32, u32), b: (u32, u32)) -> Vec<(u32, u32)> {
        let mut cells = Vec::new();
        for_cells_between(a, b, |x, y| {
            cells.push((x, y));
            true
        });
        cells
    }

    #[test]
    fn the_cells_between_neighbours_are_none() {
        for b in [(1, 0), (0, 1), (1, 1), (2, 1), (2, 2)] {
            assert_eq!(between((1, 1), b), vec![], "{b:?}");
        }
    }

    #[test]
    fn a_diagonal_passes_corners_and_takes_no_side_cell() {
        assert_eq!(between((0, 0), (3, 3)), vec![(1, 1), (2, 2)]);
        assert_eq!(between((3, 3), (0, 0)), vec![(2, 2), (1, 1)]);
    }

    #[test]
    fn a_knight_move_meets_two_cells() {
        // (0, 0) to (2, 1): y = x / 2 crosses y = 0.5 at x = 1, inside a side.
        assert_eq!(between((0, 0), (2, 1)), vec![(1, 0), (1, 1)]);
        assert_eq!(between((2, 1), (0, 0)), vec![(1, 1), (1, 0)]);
        assert_eq!(
            between((0, 0), (4, 2)),
            vec![(1, 0), (1, 1), (2, 1), (3, 1), (3, 2)]
        );
        // y = x / 3 passes the corner (1.5, 0.5): (1, 0) then (2, 1), not (2, 0) nor (1, 1).
        assert_eq!(between((0, 0), (3, 1)), vec![(1, 0), (2, 1)]);
    }

    #[test]
    fn walks_stop_when_asked() {
        let mut seen = 0;
        for_cells_between((0, 0), (9, 0), |_, _| {
            seen += 1;
            seen < 3
        });
        assert_eq!(seen, 3);
    }

    #[test]
    fn dense_bits_follow_the_units() {
        let mut grid = DensityGrid::new(130, 3);
        assert!(grid.is_clear());
        assert!(grid.set(129, 2, 0.25));
        assert!(!grid.set(129, 2, 0.25));
        let window = |x, width| Window {
            x,
            y: 0,
            width,
            height: 3,
        };
        assert!(grid.any_dense_in(window(64, 66)));
        assert!(!grid.any_dense_in(window(0, 129)));
        assert!(grid.any_dense_in(window(129, 1)));
        assert!(grid.set(129, 2, 0.0));
        assert!(grid.is_clear());
        assert!(!grid.any_dense_in(window(0, 130)));
    }
}
