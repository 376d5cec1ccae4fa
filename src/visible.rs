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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
        self.window().contains(x, y) && self.rows.get(y - self.y0, x - self.x0)
    }

    /// Number of visible cells.
    pub fn count(&self) -> usize {
        self.rows
            .words
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum()
    }

    /// Whether no cell is visible.
    pub fn is_empty(&self) -> bool {
        self.rows.words.iter().all(|&w| w == 0)
    }

    /// The visible cells in map coordinates, row by row.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let stride = self.rows.stride * WORD_BITS;
        self.rows
            .words
            .view_bits::<Lsb0>()
            .iter_ones()
            .map(move |bit| {
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
        self.rows.reset(window.height, window.width);
    }

    /// Keeps only the visible cells `(x, y)` (map coordinates) for which `keep` is true.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(u32, u32) -> bool) {
        let stride = self.rows.stride;
        for (index, word) in self.rows.words.iter_mut().enumerate() {
            let mut bits = *word;
            while bits != 0 {
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                let x = self.x0 + ((index % stride) * WORD_BITS) as u32 + bit;
                let y = self.y0 + (index / stride) as u32;
                if !keep(x, y) {
                    *word &= !(1 << bit);
                }
            }
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
        let mut block = [0u64; 64];
        for block_x in (0..width).step_by(WORD_BITS) {
            let block_width = (width - block_x).min(WORD_BITS);
            for block_y in (0..height.div_ceil(WORD_BITS)).map(|w| w * WORD_BITS) {
                let word = block_y / WORD_BITS;
                let mut any = 0;
                for (i, slot) in block.iter_mut().enumerate() {
                    *slot = if i < block_width {
                        columns.words[(block_x + i) * columns.stride + word]
                    } else {
                        0
                    };
                    any |= *slot;
                }
                if any == 0 {
                    continue;
                }
                let word_x = block_x / WORD_BITS;
                let ones: u32 = block[..block_width].iter().map(|w| w.count_ones()).sum();
                if ones < SCATTER_LIMIT {
                    // Few cells: setting them one by one beats a full transpose.
                    for (i, &column) in block[..block_width].iter().enumerate() {
                        let mut bits = column;
                        while bits != 0 {
                            let j = bits.trailing_zeros() as usize;
                            self.rows.words[(block_y + j) * self.rows.stride + word_x] |= 1 << i;
                            bits &= bits - 1;
                        }
                    }
                    continue;
                }
                transpose_64x64(&mut block);
                let block_height = (height - block_y).min(WORD_BITS);
                for (j, &bits) in block.iter().take(block_height).enumerate() {
                    self.rows.words[(block_y + j) * self.rows.stride + word_x] |= bits;
                }
            }
        }
    }
}

/// Below this many cells in a 64x64 block, `merge_transposed` sets them one at a time.
const SCATTER_LIMIT: u32 = 160;

/// Equal rows of bits, each padded to whole words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct BitRows {
    words: Vec<u64>,
    /// Words per row.
    stride: usize,
}

impl BitRows {
    /// Makes `rows` empty rows of `bits` bits each, reusing the storage.
    pub fn reset(&mut self, rows: u32, bits: u32) {
        self.stride = words_for(bits);
        self.words.clear();
        self.words.resize(rows as usize * self.stride, 0);
    }

    /// Reads one bit.
    pub fn get(&self, row: u32, bit: u32) -> bool {
        let word = self.words[row as usize * self.stride + bit as usize / WORD_BITS];
        word >> (bit % u64::BITS) & 1 != 0
    }

    /// Sets or clears one bit.
    pub fn set_to(&mut self, row: u32, bit: u32, on: bool) {
        let word = &mut self.words[row as usize * self.stride + bit as usize / WORD_BITS];
        let mask = 1 << (bit % u64::BITS);
        if on {
            *word |= mask;
        } else {
            *word &= !mask;
        }
    }

    /// All the words, row after row.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// All the words, row after row, to change in place.
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Words per row.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Adds the cells of `set` (whose window is in the same coordinates as these rows).
    pub fn or_visible(&mut self, set: &VisibleSet) {
        let rows = &set.rows;
        for y in 0..set.height {
            let row = &rows.words[y as usize * rows.stride..][..rows.stride];
            for (i, &word) in row.iter().enumerate() {
                self.set_run(set.y0 + y, set.x0 + (i * WORD_BITS) as u32, word);
            }
        }
    }

    /// Sets one bit.
    #[inline]
    pub fn set(&mut self, row: u32, bit: u32) {
        self.words[row as usize * self.stride + bit as usize / WORD_BITS] |= 1 << (bit % u64::BITS);
    }

    /// Sets the bits `bit .. bit + 64` of `row` that are set in `run` (bit 0 = `bit`). Every
    /// set bit of `run` must fall inside the row.
    #[inline]
    pub fn set_run(&mut self, row: u32, bit: u32, run: u64) {
        if run == 0 {
            return;
        }
        let index = row as usize * self.stride + bit as usize / WORD_BITS;
        let shift = bit % u64::BITS;
        self.words[index] |= run << shift;
        if shift != 0 {
            let spill = run >> (u64::BITS - shift);
            if spill != 0 {
                self.words[index + 1] |= spill;
            }
        }
    }
}

/// Transposes a 64x64 bit matrix in place: bit `j` of word `i` trades places with bit `i` of
/// word `j` (swapping ever smaller off-diagonal blocks, six rounds of word operations).
fn transpose_64x64(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while width != 0 {
        let mut k = 0;
        while k < 64 {
            let swap = ((m[k] >> width) ^ m[k + width]) & mask;
            m[k] ^= swap << width;
            m[k + width] ^= swap;
            k = (k + width + 1) & !width;
        }
        width >>= 1;
        mask ^= mask << width;
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
                f.write_str(if self.rows.get(y, x) { "*" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_moves_every_bit_across_the_diagonal() {
        let mut state = 0x1234_5678_9ABC_DEF0u64;
        let mut m = [0u64; 64];
        for word in &mut m {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *word = state;
        }
        let original = m;
        transpose_64x64(&mut m);
        for (i, row) in m.iter().enumerate() {
            for (j, column) in original.iter().enumerate() {
                assert_eq!(row >> j & 1, column >> i & 1, "bit ({i}, {j})");
            }
        }
    }
}
