//! The result of a field-of-view computation: the visible cells inside the viewer's reach,
//! one bit per cell.

use bitvec::prelude::*;

use crate::grid::{WORD_BITS, words_for};

/// The cells a viewer sees, bit-packed over a window that covers the viewer's reach.
///
/// The window is the `(2r+1) x (2r+1)` square around the viewer clipped to the map, or the
/// whole map for an unlimited radius, so its size does not grow with the map. Reuse one
/// `VisibleSet` across calls of [`Fov::compute`](crate::Fov::compute): once it has grown to the
/// largest window it needs, a call allocates nothing.
///
/// ```
/// use bevy_viewshed::{Fov, FovOptions, OpacityGrid, VisibleSet};
///
/// let grid = OpacityGrid::new(10, 10);
/// let mut visible = VisibleSet::default();
/// Fov::default()
///     .compute(&grid, (5, 5), FovOptions::radius(1), &mut visible)
///     .unwrap();
/// assert_eq!(visible.count(), 9);
/// assert!(visible.contains(4, 6));
/// assert!(!visible.contains(3, 5));
/// assert_eq!(visible.iter().next(), Some((4, 4)));
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct VisibleSet {
    /// Left column of the window on the map.
    x0: u32,
    /// Top row of the window on the map.
    y0: u32,
    width: u32,
    height: u32,
    /// Row-major bits, each row padded to whole words.
    bits: BitVec<u64, Lsb0>,
}

/// The rectangle of map cells a [`VisibleSet`] covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Window {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Number of columns.
    pub width: u32,
    /// Number of rows.
    pub height: u32,
}

impl Window {
    /// Whether `(x, y)` lies inside the window.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x.wrapping_sub(self.x) < self.width && y.wrapping_sub(self.y) < self.height
    }
}

impl VisibleSet {
    /// An empty set (nothing visible, an empty window).
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the cell `(x, y)` (map coordinates) is visible.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        if !self.window().contains(x, y) {
            return false;
        }
        self.bits[self.bit(x - self.x0, y - self.y0)]
    }

    /// Number of visible cells.
    pub fn count(&self) -> usize {
        self.bits.count_ones()
    }

    /// Whether no cell is visible.
    pub fn is_empty(&self) -> bool {
        self.bits.not_any()
    }

    /// The visible cells in map coordinates, row by row.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let stride = words_for(self.width) * WORD_BITS;
        self.bits.iter_ones().map(move |bit| {
            (
                self.x0 + (bit % stride) as u32,
                self.y0 + (bit / stride) as u32,
            )
        })
    }

    /// The rectangle of the map this set covers; cells outside it are never visible.
    pub fn window(&self) -> Window {
        Window {
            x: self.x0,
            y: self.y0,
            width: self.width,
            height: self.height,
        }
    }

    /// Empties the set and its window.
    pub fn clear(&mut self) {
        self.reset(Window::default());
    }

    /// Empties the set and makes it cover `window`, reusing its storage.
    pub(crate) fn reset(&mut self, window: Window) {
        self.x0 = window.x;
        self.y0 = window.y;
        self.width = window.width;
        self.height = window.height;
        let len = window.height as usize * words_for(window.width) * WORD_BITS;
        self.bits.clear();
        self.bits.resize(len, false);
    }

    /// Marks one cell visible; the coordinates are relative to the window.
    #[inline]
    pub(crate) fn insert_local(&mut self, x: u32, y: u32) {
        let bit = self.bit(x, y);
        self.bits.set(bit, true);
    }

    /// Marks visible the cells `x .. x + 64` of window row `y` whose bit is set in `cells`
    /// (bit 0 = cell `x`). Every set bit must fall inside the window.
    #[inline]
    pub(crate) fn insert_run_local(&mut self, x: u32, y: u32, cells: u64) {
        if cells == 0 {
            return;
        }
        let stride = words_for(self.width);
        let words = self.bits.as_raw_mut_slice();
        let index = y as usize * stride + x as usize / WORD_BITS;
        let shift = x % u64::BITS;
        words[index] |= cells << shift;
        if shift != 0 {
            let spill = cells >> (u64::BITS - shift);
            if spill != 0 {
                words[index + 1] |= spill;
            }
        }
    }

    fn bit(&self, x: u32, y: u32) -> usize {
        y as usize * words_for(self.width) * WORD_BITS + x as usize
    }
}

impl std::fmt::Debug for VisibleSet {
    /// Draws the window, `*` for visible and `.` for other cells.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "VisibleSet {} cells in {:?}",
            self.count(),
            self.window()
        )?;
        for y in 0..self.height {
            for x in 0..self.width {
                let on = self.bits[self.bit(x, y)];
                f.write_str(if on { "*" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
