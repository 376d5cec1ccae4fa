//! The opacity grid: which cells of a map block sight, packed one bit per cell.
//!
//! Nothing here knows about Bevy. The grid keeps two bit-packed copies of the same data, one
//! row by row and one column by column, so that the shadowcaster can read any scan line of
//! any quadrant as consecutive machine words.

use crate::bits::{WORD_BITS, ones_in_rows, words_for};

/// A `width` x `height` map of opaque (sight-blocking) and transparent cells.
///
/// Cells are addressed by `(x, y)` with `0 <= x < width` and `0 <= y < height`. Cells outside
/// the map read as opaque, which is how the field of view treats the map's edge.
///
/// ```
/// use viewshed_core::OpacityGrid;
///
/// let mut grid = OpacityGrid::new(8, 4);
/// grid.set_opaque(3, 1, true);
/// assert!(grid.is_opaque(3, 1));
/// assert!(!grid.is_opaque(2, 1));
/// assert!(grid.is_opaque(8, 0), "cells outside the map are opaque");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct OpacityGrid {
    width: u32,
    height: u32,
    /// Row-major bits, each row padded to whole words: bit `x` of row `y` is cell `(x, y)`
    /// (bit `i % 64` of word `i / 64`); one clear word after the last row (see `Lines::bits`).
    /// Plain `u64` words on every target: wasm32 has native 64-bit integers, so the scan reads
    /// 64 cells a word there too.
    rows: Vec<u64>,
    /// Column-major bits, each column padded to whole words: bit `y` of column `x`; one
    /// clear word after the last column.
    columns: Vec<u64>,
    /// Opaque cells, kept so that "is anything opaque?" and clones of empty maps stay cheap.
    opaque_count: usize,
}

impl OpacityGrid {
    /// A grid of `width` x `height` transparent cells.
    pub fn new(width: u32, height: u32) -> Self {
        // One word more than the lines need, always clear: `Lines::bits` reads the word after
        // the one a cell is in without testing whether there is one.
        let words = |lines: u32, cells: u32| lines as usize * words_for(cells) + 1;
        let rows = vec![0; words(height, width)];
        let columns = vec![0; words(width, height)];
        Self {
            width,
            height,
            rows,
            columns,
            opaque_count: 0,
        }
    }

    /// A grid whose cell `(x, y)` is opaque when `is_opaque(x, y)` returns true.
    ///
    /// ```
    /// use viewshed_core::OpacityGrid;
    ///
    /// // A 5x5 room with walls around it.
    /// let grid = OpacityGrid::from_fn(5, 5, |x, y| x == 0 || y == 0 || x == 4 || y == 4);
    /// assert_eq!(grid.opaque_count(), 16);
    /// ```
    pub fn from_fn(width: u32, height: u32, mut is_opaque: impl FnMut(u32, u32) -> bool) -> Self {
        let mut grid = Self::new(width, height);
        for y in 0..height {
            for x in 0..width {
                if is_opaque(x, y) {
                    grid.set_opaque(x, y, true);
                }
            }
        }
        grid
    }

    /// Width of the map in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height of the map in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether `(x, y)` lies on the map.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x < self.width && y < self.height
    }

    /// Whether the cell blocks sight. Cells outside the map are opaque.
    pub fn is_opaque(&self, x: u32, y: u32) -> bool {
        if !self.contains(x, y) {
            return true;
        }
        get_bit(&self.rows, self.row_bit(x, y))
    }

    /// Up to 64 cells of row `y` from column `x` as bits (bit `i` is cell `(x + i, y)`, set
    /// when opaque): the cells off the map (past its width, or a row or column past its
    /// end) are opaque, as [`is_opaque`](Self::is_opaque) has them.
    ///
    /// ```
    /// use viewshed_core::OpacityGrid;
    ///
    /// let mut grid = OpacityGrid::new(10, 3);
    /// grid.set_opaque(3, 1, true);
    /// assert_eq!(grid.row_bits(1, 2), !0xff | 0b10, "cell 3 and the cells past the width");
    /// assert_eq!(grid.row_bits(5, 0), u64::MAX);
    /// ```
    #[inline]
    pub fn row_bits(&self, y: u32, x: u32) -> u64 {
        if !self.contains(x, y) {
            return u64::MAX;
        }
        let inside = crate::bits::low_bits(self.width - x);
        (self.row_lines().bits(y, x) & inside) | !inside
    }

    /// Makes a cell opaque or transparent, returning whether it changed.
    ///
    /// A cell outside the map cannot change: the call returns `false` and does nothing.
    pub fn set_opaque(&mut self, x: u32, y: u32, opaque: bool) -> bool {
        if !self.contains(x, y) {
            return false;
        }
        let row_bit = self.row_bit(x, y);
        if get_bit(&self.rows, row_bit) == opaque {
            return false;
        }
        set_bit(&mut self.rows, row_bit, opaque);
        let column_bit = x as usize * words_for(self.height) * WORD_BITS + y as usize;
        set_bit(&mut self.columns, column_bit, opaque);
        if opaque {
            self.opaque_count += 1;
        } else {
            self.opaque_count -= 1;
        }
        true
    }

    /// Makes every cell opaque or transparent.
    pub fn fill(&mut self, opaque: bool) {
        *self = Self::new(self.width, self.height);
        if opaque {
            for y in 0..self.height {
                for x in 0..self.width {
                    self.set_opaque(x, y, true);
                }
            }
        }
    }

    /// Changes the map's size, keeping the cells that lie inside both the old and the new
    /// size; new cells are transparent.
    pub fn resize(&mut self, width: u32, height: u32) {
        if (width, height) == (self.width, self.height) {
            return;
        }
        let old = std::mem::replace(self, Self::new(width, height));
        for (x, y) in old.opaque_cells() {
            self.set_opaque(x, y, true);
        }
    }

    /// Number of opaque cells on the map.
    pub fn opaque_count(&self) -> usize {
        self.opaque_count
    }

    /// The opaque cells, row by row.
    pub fn opaque_cells(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let rows = &self.rows[..self.rows.len() - 1];
        ones_in_rows(rows, words_for(self.width)).map(|(y, x)| (x, y))
    }

    fn row_bit(&self, x: u32, y: u32) -> usize {
        y as usize * words_for(self.width) * WORD_BITS + x as usize
    }

    /// The row-major scan lines: line `y` holds the cells `(0..width, y)`.
    pub(crate) fn row_lines(&self) -> Lines<'_> {
        Lines {
            words: &self.rows,
            stride: words_for(self.width),
            len: self.width,
            count: self.height,
        }
    }

    /// The column-major scan lines: line `x` holds the cells `(x, 0..height)`.
    pub(crate) fn column_lines(&self) -> Lines<'_> {
        Lines {
            words: &self.columns,
            stride: words_for(self.height),
            len: self.height,
            count: self.width,
        }
    }
}

/// Bit `bit` of `words` (bit `i % 64` of word `i / 64`).
#[inline(always)]
fn get_bit(words: &[u64], bit: usize) -> bool {
    words[bit / WORD_BITS] >> (bit % WORD_BITS) & 1 != 0
}

/// Sets bit `bit` of `words` to `on`.
#[inline(always)]
fn set_bit(words: &mut [u64], bit: usize, on: bool) {
    let mask = 1 << (bit % WORD_BITS);
    if on {
        words[bit / WORD_BITS] |= mask;
    } else {
        words[bit / WORD_BITS] &= !mask;
    }
}

impl Default for OpacityGrid {
    /// An empty 0x0 grid.
    fn default() -> Self {
        Self::new(0, 0)
    }
}

impl std::fmt::Debug for OpacityGrid {
    /// Draws the map, `#` for opaque and `.` for transparent cells.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "OpacityGrid {}x{}", self.width, self.height)?;
        for y in 0..self.height {
            for x in 0..self.width {
                f.write_str(if self.is_opaque(x, y) { "#" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// A read-only view of the grid as equal scan lines of padded words.
#[derive(Clone, Copy)]
pub(crate) struct Lines<'a> {
    words: &'a [u64],
    /// Words per line.
    stride: usize,
    /// Cells per line.
    pub len: u32,
    /// Number of lines.
    pub count: u32,
}

impl Lines<'_> {
    /// Up to 64 cells of line `line` starting at cell `start`, as bits (bit 0 = cell `start`).
    /// Bits past the end of the line are those of the next line (or clear after the last
    /// one): the caller masks to the cells it needs.
    #[inline(always)]
    pub fn bits(&self, line: u32, start: u32) -> u64 {
        debug_assert!(line < self.count && start < self.len);
        let word = line as usize * self.stride + start as usize / WORD_BITS;
        let shift = start % u64::BITS;
        // The grid keeps a clear word after its last line, so the pair is always there; the
        // high word shifted in two steps contributes nothing when `shift` is 0.
        let pair = &self.words[word..word + 2];
        (pair[0] >> shift) | (pair[1] << 1 << (u64::BITS - 1 - shift))
    }
}
