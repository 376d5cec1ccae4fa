//! The result of a field-of-view computation: the visible cells inside the viewer's reach,
//! one bit per cell.

use crate::bits::{BitRows, WORD_BITS, for_each_one, low_bits, span, transpose_square};

/// The cells a viewer sees, bit-packed over a window that covers the viewer's reach.
///
/// The window is the `(2r+1) x (2r+1)` square around the viewer clipped to the map, or the
/// whole map for an unlimited radius, so its size does not grow with the map. Reuse one
/// `VisibleSet` across calls of [`Fov::compute`](crate::Fov::compute): once it has grown to the
/// largest window it needs, a call allocates nothing.
///
/// ```
/// use viewshed_core::{Fov, FovOptions, OpacityGrid, VisibleSet};
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
    /// Window row `y`, bit `x` is window cell `(x, y)`.
    rows: BitRows,
}

/// The rectangle of map cells a [`VisibleSet`] covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
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
    #[inline(always)]
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x.wrapping_sub(self.x) < self.width && y.wrapping_sub(self.y) < self.height
    }

    /// Whether the window holds no cell.
    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// The cells both windows hold (`None` when they hold none in common).
    ///
    /// ```
    /// use viewshed_core::visible::Window;
    ///
    /// let a = Window { x: 0, y: 0, width: 4, height: 4 };
    /// let b = Window { x: 2, y: 3, width: 5, height: 5 };
    /// assert_eq!(a.intersection(&b), Some(Window { x: 2, y: 3, width: 2, height: 1 }));
    /// assert_eq!(a.intersection(&Window { x: 4, y: 0, width: 1, height: 1 }), None);
    /// ```
    pub fn intersection(&self, other: &Window) -> Option<Window> {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let end_x = self.end_x().min(other.end_x());
        let end_y = self.end_y().min(other.end_y());
        let (x64, y64) = (u64::from(x), u64::from(y));
        (x64 < end_x && y64 < end_y).then(|| Window {
            x,
            y,
            width: (end_x - x64) as u32,
            height: (end_y - y64) as u32,
        })
    }

    /// The smallest window that holds both (an empty one holds nothing: the other is the union).
    ///
    /// ```
    /// use viewshed_core::visible::Window;
    ///
    /// let a = Window { x: 0, y: 0, width: 4, height: 4 };
    /// let b = Window { x: 2, y: 3, width: 5, height: 5 };
    /// assert_eq!(a.union(&b), Window { x: 0, y: 0, width: 7, height: 8 });
    /// assert_eq!(a.union(&Window::default()), a);
    /// ```
    pub fn union(&self, other: &Window) -> Window {
        if other.is_empty() {
            return *self;
        }
        if self.is_empty() {
            return *other;
        }
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        let end_x = self.end_x().max(other.end_x());
        let end_y = self.end_y().max(other.end_y());
        Window {
            x,
            y,
            width: (end_x - u64::from(x)).min(u64::from(u32::MAX)) as u32,
            height: (end_y - u64::from(y)).min(u64::from(u32::MAX)) as u32,
        }
    }

    /// The cell of a non-empty window nearest to `(x, y)` (each coordinate clamped to the
    /// window): no cell of it is nearer in any distance that grows with `|dx|` and `|dy|`.
    pub fn nearest(&self, x: u32, y: u32) -> (u32, u32) {
        let clamp = |v: u32, from: u32, len: u32| v.clamp(from, from + len.max(1) - 1);
        (clamp(x, self.x, self.width), clamp(y, self.y, self.height))
    }

    /// The cells of the window, row by row.
    pub fn cells(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (self.y..self.y + self.height)
            .flat_map(move |y| (self.x..self.x + self.width).map(move |x| (x, y)))
    }

    fn end_x(&self) -> u64 {
        u64::from(self.x) + u64::from(self.width)
    }

    fn end_y(&self) -> u64 {
        u64::from(self.y) + u64::from(self.height)
    }
}

impl VisibleSet {
    /// An empty set (nothing visible, an empty window).
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the cell `(x, y)` (map coordinates) is visible.
    #[inline(always)]
    pub fn contains(&self, x: u32, y: u32) -> bool {
        // Outside the window the row or the column wraps past the rows' size: `get` says false.
        self.rows
            .get(y.wrapping_sub(self.y0), x.wrapping_sub(self.x0))
    }

    /// The cells `(x, y)` to `(x + 63, y)` (map coordinates) as one word: bit `i` set when cell
    /// `(x + i, y)` is visible.
    ///
    /// ```
    /// use viewshed_core::visible::{VisibleSet, Window};
    ///
    /// let window = Window { x: 10, y: 5, width: 3, height: 1 };
    /// let set = VisibleSet::from_words(window, vec![0b101]).unwrap();
    /// assert_eq!(set.run_at(10, 5), 0b101);
    /// assert_eq!(set.run_at(8, 5), 0b10100);
    /// assert_eq!(set.run_at(11, 5), 0b10);
    /// assert_eq!(set.run_at(10, 6), 0);
    /// ```
    pub fn run_at(&self, x: u32, y: u32) -> u64 {
        let row = y.wrapping_sub(self.y0);
        if x >= self.x0 {
            return self.rows.get_run(row, x - self.x0);
        }
        match self.x0 - x {
            lead @ 0..64 => self.rows.get_run(row, 0) << lead,
            _ => 0,
        }
    }

    /// Number of visible cells.
    pub fn count(&self) -> usize {
        self.rows.count_ones()
    }

    /// Whether no cell is visible.
    pub fn is_empty(&self) -> bool {
        self.rows.words().iter().all(|&w| w == 0)
    }

    /// The visible cells in map coordinates, row by row.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.rows
            .iter_ones()
            .map(move |(y, x)| (self.x0 + x, self.y0 + y))
    }

    /// Moves the set by `(dx, dy)` cells: a view computed on a part of a larger map (a grid
    /// whose cell `(0, 0)` is the larger map's cell `(dx, dy)`), brought to the larger map's
    /// coordinates.
    ///
    /// ```
    /// use viewshed_core::{Fov, FovOptions, OpacityGrid, VisibleSet};
    ///
    /// let mut visible = VisibleSet::new();
    /// Fov::default().compute(&OpacityGrid::new(5, 5), (2, 2), FovOptions::radius(1), &mut visible)?;
    /// visible.shift(100, 200);
    /// assert!(visible.contains(102, 202) && !visible.contains(2, 2));
    /// # Ok::<(), viewshed_core::FovError>(())
    /// ```
    pub fn shift(&mut self, dx: u32, dy: u32) {
        self.x0 += dx;
        self.y0 += dy;
    }

    /// Adds the visible cells to `rows`, whose row `y` bit `x` stands for map cell
    /// `(origin.0 + x, origin.1 + y)` (a team's view of a map whose grid starts at `origin`).
    /// Cells outside `rows` are dropped.
    #[inline]
    pub fn or_into_at(&self, rows: &mut BitRows, (ox, oy): (u32, u32)) {
        if self.x0 >= ox && self.y0 >= oy {
            let mut moved = self.window();
            (moved.x, moved.y) = (self.x0 - ox, self.y0 - oy);
            return self.or_window_into(moved, rows);
        }
        // The window starts before the rows (a view of a map whose grid has since moved):
        // cell by cell, dropping what falls outside.
        for (x, y) in self.iter() {
            if x >= ox && y >= oy {
                rows.set_run(y - oy, x - ox, 1);
            }
        }
    }

    /// Adds the visible cells to `rows`, whose row `y` bit `x` stands for map cell `(x, y)`
    /// (a map-sized grid such as a team's view). Cells outside `rows` are dropped, so a view
    /// larger than the grid never writes out of bounds.
    pub fn or_into(&self, rows: &mut BitRows) {
        self.or_window_into(self.window(), rows);
    }

    /// [`or_into`](Self::or_into) with the window placed at `at` in `rows`.
    fn or_window_into(&self, at: Window, rows: &mut BitRows) {
        if self.rows.stride() == 1 {
            self.or_narrow_into(at, rows);
            return;
        }
        // Row by row of words, not of the window's height: a window 0 cells wide has no
        // words however tall it is.
        for (y, row) in self.word_rows() {
            for (i, &word) in row.iter().enumerate() {
                rows.set_run(at.y + y, at.x + (i * WORD_BITS) as u32, word);
            }
        }
    }

    /// [`or_into`](Self::or_into) for a window at most 64 cells wide (a radius up to 31):
    /// one word per row, each shifted into at most two words of `rows`, the clipping to
    /// `rows` worked out once.
    fn or_narrow_into(&self, at: Window, rows: &mut BitRows) {
        let (x0, y0) = (at.x, at.y);
        if x0 >= rows.bits_per_row() || y0 >= rows.rows() {
            return;
        }
        let inside = low_bits(rows.bits_per_row() - x0);
        let (stride, column) = (rows.stride(), x0 as usize / WORD_BITS);
        let shift = x0 % u64::BITS;
        let spills = shift != 0 && column + 1 < stride;
        let height = self.height.min(rows.rows() - y0) as usize;
        let targets = rows.words_mut()[y0 as usize * stride..].chunks_exact_mut(stride);
        let pairs = targets.zip(&self.rows.words()[..height]);
        // Two loops rather than a test per row, each row's target words taken as one slice.
        if spills {
            let back = u64::BITS - shift;
            for (target, &word) in pairs {
                if let [low, high, ..] = &mut target[column..] {
                    let word = word & inside;
                    *low |= word << shift;
                    *high |= word >> back;
                }
            }
        } else {
            for (target, &word) in pairs {
                target[column] |= (word & inside) << shift;
            }
        }
    }

    /// The window's rows of words with their row number (none when the window has no cell).
    fn word_rows(&self) -> impl Iterator<Item = (u32, &[u64])> {
        // A window 0 cells wide has stride 0 and no words: `max(1)` makes that no chunks.
        let stride = self.rows.stride().max(1);
        (0..).zip(self.rows.words().chunks_exact(stride))
    }

    /// The rectangle of the map this set covers; cells outside it are never visible.
    #[inline]
    pub fn window(&self) -> Window {
        Window {
            x: self.x0,
            y: self.y0,
            width: self.width,
            height: self.height,
        }
    }

    /// The rows of words of the window, as [`from_words`](Self::from_words) takes them: row
    /// `y` of the window, bit `x % 64` of word `x / 64` for cell `x` (`words_for(width)`
    /// words a row).
    pub fn words(&self) -> &[u64] {
        self.rows.words()
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
        self.rows.reset(window.height, window.width);
    }

    /// Keeps only the visible cells `(x, y)` (map coordinates) for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(u32, u32) -> bool) {
        let stride = self.rows.stride();
        let (x0, y0) = (self.x0, self.y0);
        for (index, word) in self.rows.words_mut().iter_mut().enumerate() {
            let (x, y) = (
                x0 + ((index % stride) * WORD_BITS) as u32,
                y0 + (index / stride) as u32,
            );
            let mut kept = *word;
            for_each_one(*word, |bit| {
                if !keep(x + bit, y) {
                    kept &= !(1 << bit);
                }
            });
            *word = kept;
        }
    }

    /// The window's rows, to write into (coordinates relative to the window).
    pub(crate) fn rows_mut(&mut self) -> &mut BitRows {
        &mut self.rows
    }

    /// Adds the cells of `columns`, whose row `x` bit `y` stands for window cell `(x, y)`
    /// (the window transposed), 64x64 cells at a time.
    pub(crate) fn merge_transposed(&mut self, columns: &BitRows) {
        let (width, height) = (self.width as usize, self.height as usize);
        for block_x in (0..width).step_by(WORD_BITS) {
            let block_width = (width - block_x).min(WORD_BITS);
            for block_y in (0..height).step_by(WORD_BITS) {
                let block_height = (height - block_y).min(WORD_BITS);
                let word = block_y / WORD_BITS;
                let mut block = [0u64; WORD_BITS];
                for (i, slot) in block[..block_width].iter_mut().enumerate() {
                    *slot = columns.words()[(block_x + i) * columns.stride() + word];
                }
                let side = block_width.max(block_height).next_power_of_two();
                self.merge_transposed_block(&mut block[..side], block_x, block_y);
            }
        }
    }

    /// Adds one block of `columns` (see [`merge_transposed`](Self::merge_transposed)): word
    /// `i` bit `j` is window cell `(block_x + i, block_y + j)`; the block is square, its side
    /// a power of two, and its bits outside the window are clear.
    pub(crate) fn merge_transposed_block(
        &mut self,
        block: &mut [u64],
        block_x: usize,
        block_y: usize,
    ) {
        let (stride, word_x) = (self.rows.stride(), block_x / WORD_BITS);
        let rows = (self.height as usize - block_y).min(block.len());
        let words = self.rows.words_mut();
        // Few cells: setting them one by one beats a transpose, which costs the same however
        // few cells the block holds. A word's span bounds its cells without counting them.
        let most_cells: u32 = block.iter().map(|&word| span(word)).sum();
        if most_cells <= scatter_budget(block.len()) {
            for (i, &column) in block.iter().enumerate() {
                for_each_one(column, |j| {
                    words[(block_y + j as usize) * stride + word_x] |= 1 << i;
                });
            }
            return;
        }
        transpose_square(block);
        for (j, &bits) in block[..rows].iter().enumerate() {
            words[(block_y + j) * stride + word_x] |= bits;
        }
    }
}

/// Up to how many cells [`VisibleSet::merge_transposed_block`] sets one by one rather than
/// transpose a block of `side` x `side` cells (`side * log2(side) / 2` word swaps).
fn scatter_budget(side: usize) -> u32 {
    side as u32 * side.trailing_zeros() / 2
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
        // Only windows with cells are drawn: one 0 cells wide may be 2^32 rows tall.
        if self.width > 0 {
            for y in 0..self.height {
                for x in 0..self.width {
                    f.write_str(if self.rows.get(y, x) { "*" } else { "." })?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

/// Why saved data does not make a valid [`VisibleSet`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VisibleSetError {
    /// The window does not fit in `u32` coordinates.
    WindowOverflow(Window),
    /// The rows are not `height` rows of `width.div_ceil(64)` words.
    WrongShape {
        /// The window the rows should cover.
        window: Window,
        /// Words per row in the data.
        stride: usize,
        /// Words in the data.
        words: usize,
    },
    /// A row has bits set past the window's width.
    BitsOutsideWindow {
        /// The row (relative to the window).
        row: u32,
    },
}

impl std::fmt::Display for VisibleSetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VisibleSetError::WindowOverflow(w) => write!(
                f,
                "window {}x{} at ({}, {}) runs past u32 coordinates",
                w.width, w.height, w.x, w.y
            ),
            VisibleSetError::WrongShape {
                window,
                stride,
                words,
            } => write!(
                f,
                "a {}x{} window needs {} rows of {} words, the data has {words} words of \
                 {stride} per row",
                window.width,
                window.height,
                window.height,
                crate::bits::words_for(window.width)
            ),
            VisibleSetError::BitsOutsideWindow { row } => {
                write!(f, "row {row} has cells set past the window's width")
            }
        }
    }
}

impl std::error::Error for VisibleSetError {}

impl VisibleSet {
    /// A set over `window` from its rows of words (row `y` of the window, bit `x % 64` of
    /// word `x / 64` for cell `x`), as saved data holds them. Checks that the data fits the
    /// window before using it.
    ///
    /// # Errors
    /// [`VisibleSetError`] when the window overflows, the rows have another shape, or cells
    /// past the window's width are set.
    pub fn from_words(window: Window, words: Vec<u64>) -> Result<Self, VisibleSetError> {
        Self::from_saved(window, crate::bits::words_for(window.width), words)
    }

    fn from_saved(window: Window, stride: usize, words: Vec<u64>) -> Result<Self, VisibleSetError> {
        if window.x.checked_add(window.width).is_none()
            || window.y.checked_add(window.height).is_none()
        {
            return Err(VisibleSetError::WindowOverflow(window));
        }
        let shape = VisibleSetError::WrongShape {
            window,
            stride,
            words: words.len(),
        };
        if stride != crate::bits::words_for(window.width)
            || (window.height as usize).checked_mul(stride) != Some(words.len())
        {
            return Err(shape);
        }
        // Row by row of the data, not of the window's height: a window 0 cells wide has no
        // words (stride 0; `max(1)` makes that no chunks) however tall it is. Only a row's
        // last word can hold cells past the width.
        let last =
            crate::bits::low_bits(window.width - (stride.saturating_sub(1) * WORD_BITS) as u32);
        for (y, row) in (0..).zip(words.chunks_exact(stride.max(1))) {
            if row.last().is_some_and(|&word| word & !last != 0) {
                return Err(VisibleSetError::BitsOutsideWindow { row: y });
            }
        }
        let mut set = VisibleSet::new();
        set.reset(window);
        // The same shape as the set's rows (`words_for(width)` words a row), checked above.
        set.rows.words_mut().copy_from_slice(&words);
        Ok(set)
    }
}

#[cfg(feature = "serde")]
mod saved {
    //! The saved form of a [`VisibleSet`]: its window and rows of words, checked on the way in.
    use super::{VisibleSet, Window};

    #[derive(serde::Serialize, serde::Deserialize)]
    struct SavedRows {
        words: Vec<u64>,
        stride: usize,
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    struct SavedVisibleSet {
        x0: u32,
        y0: u32,
        width: u32,
        height: u32,
        rows: SavedRows,
    }

    impl serde::Serialize for VisibleSet {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            SavedVisibleSet {
                x0: self.x0,
                y0: self.y0,
                width: self.width,
                height: self.height,
                rows: SavedRows {
                    words: self.rows.words().to_vec(),
                    stride: self.rows.stride(),
                },
            }
            .serialize(serializer)
        }
    }

    impl<'de> serde::Deserialize<'de> for VisibleSet {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let saved = SavedVisibleSet::deserialize(deserializer)?;
            let window = Window {
                x: saved.x0,
                y: saved.y0,
                width: saved.width,
                height: saved.height,
            };
            VisibleSet::from_saved(window, saved.rows.stride, saved.rows.words)
                .map_err(serde::de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `or_into` adds exactly the set's cells that fall on the grid, for windows at every
    /// offset inside, across and past the grid's words and edges.
    #[test]
    fn or_into_adds_the_cells_on_the_grid_and_drops_the_rest() {
        let mut seed = 7u64;
        let mut random = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            seed >> 11
        };
        for (grid_width, grid_height) in [(70, 50), (130, 40), (64, 64), (200, 9)] {
            for _ in 0..300 {
                let window = Window {
                    x: (random() % 210) as u32,
                    y: (random() % 70) as u32,
                    width: 1 + (random() % 64) as u32,
                    height: 1 + (random() % 40) as u32,
                };
                let mut set = VisibleSet::new();
                set.reset(window);
                for y in 0..window.height {
                    for x in 0..window.width {
                        if random() % 3 == 0 {
                            set.rows_mut().set(y, x);
                        }
                    }
                }
                let mut grid = BitRows::new(grid_height, grid_width);
                grid.set(0, 0);
                set.or_into(&mut grid);
                let mut expected = BitRows::new(grid_height, grid_width);
                expected.set(0, 0);
                for (x, y) in set.iter() {
                    expected.set(y, x);
                }
                assert_eq!(
                    grid.words(),
                    expected.words(),
                    "{window:?} on {grid_width}x{grid_height}"
                );
            }
        }
    }
}
