//! Word-level bit helpers: every bit-packed structure of the crate (the opacity grid's scan
//! lines, the visible set, a fog of war's memory) is built from these.
//!
//! Bit `i` of a word stands for cell `i` counted from the word's first cell (least significant
//! bit first), and rows are padded to whole words.

/// Number of bits in one storage word.
pub const WORD_BITS: usize = u64::BITS as usize;

/// Whole words needed for `bits` bits.
///
/// ```
/// use viewshed_core::bits::words_for;
///
/// assert_eq!(words_for(0), 0);
/// assert_eq!(words_for(64), 1);
/// assert_eq!(words_for(65), 2);
/// ```
#[inline(always)]
pub fn words_for(bits: u32) -> usize {
    (bits as usize).div_ceil(WORD_BITS)
}

/// A word with the low `n` bits set (`n >= 64` sets them all).
///
/// ```
/// use viewshed_core::bits::low_bits;
///
/// assert_eq!(low_bits(0), 0);
/// assert_eq!(low_bits(3), 0b111);
/// assert_eq!(low_bits(64), u64::MAX);
/// ```
#[inline(always)]
pub fn low_bits(n: u32) -> u64 {
    if n >= u64::BITS {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// A word with the bits `first ..= last` set, `first <= last < 64`.
///
/// ```
/// use viewshed_core::bits::bit_range;
///
/// assert_eq!(bit_range(1, 3), 0b1110);
/// assert_eq!(bit_range(0, 63), u64::MAX);
/// ```
#[inline(always)]
pub fn bit_range(first: u32, last: u32) -> u64 {
    debug_assert!(first <= last && last < u64::BITS);
    // Two shifts and no branch: this runs for every interval of every row of the scan.
    (u64::MAX >> (u64::BITS - 1 - last)) & (u64::MAX << first)
}

/// The number of bits from the lowest set bit of `word` to its highest (0 for 0).
#[inline(always)]
pub(crate) fn span(word: u64) -> u32 {
    if word == 0 {
        0
    } else {
        u64::BITS - word.leading_zeros() - word.trailing_zeros()
    }
}

/// Calls `f` with the index of every set bit of `word`, lowest first.
#[inline(always)]
pub fn for_each_one(mut word: u64, mut f: impl FnMut(u32)) {
    while word != 0 {
        f(word.trailing_zeros());
        word &= word - 1;
    }
}

/// The set bits of rows of `stride` words each, as `(row, bit)`, row by row.
pub(crate) fn ones_in_rows(words: &[u64], stride: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
    let stride = stride.max(1);
    words.iter().enumerate().flat_map(move |(index, &word)| {
        let row = (index / stride) as u32;
        let base = ((index % stride) * WORD_BITS) as u32;
        std::iter::successors((word != 0).then_some(word), |w| {
            let next = w & (w - 1);
            (next != 0).then_some(next)
        })
        .map(move |w| (row, base + w.trailing_zeros()))
    })
}

/// Equal rows of bits, each padded to whole words: the storage of a visible set, a team's
/// fog and its explored memory.
///
/// Reads and writes outside the rows are ignored (a read gives `false`), so that two grids
/// of different sizes can never make a write panic.
///
/// ```
/// use viewshed_core::bits::BitRows;
///
/// let mut rows = BitRows::new(2, 70);
/// rows.set(1, 69);
/// assert!(rows.get(1, 69));
/// assert!(!rows.get(1, 70), "outside the rows");
/// rows.set(5, 0); // ignored: there is no row 5
/// assert_eq!(rows.count_ones(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitRows {
    words: Vec<u64>,
    /// Words per row.
    stride: usize,
    /// Number of rows.
    rows: u32,
    /// Bits per row.
    bits: u32,
}

impl BitRows {
    /// `rows` empty rows of `bits` bits each.
    pub fn new(rows: u32, bits: u32) -> Self {
        let mut new = Self::default();
        new.reset(rows, bits);
        new
    }

    /// Makes `rows` empty rows of `bits` bits each, reusing the storage.
    pub fn reset(&mut self, rows: u32, bits: u32) {
        self.stride = words_for(bits);
        self.rows = rows;
        self.bits = bits;
        self.words.clear();
        self.words.resize(rows as usize * self.stride, 0);
    }

    /// Rows made from their words, as [`words`](Self::words) gives them (`words_for(bits)`
    /// words a row); `None` when there are not `rows` rows of them. Bits past a row's end are
    /// cleared.
    ///
    /// ```
    /// use viewshed_core::bits::BitRows;
    ///
    /// let rows = BitRows::from_words(2, 3, vec![0b101, u64::MAX]).unwrap();
    /// assert!(rows.get(0, 2) && !rows.get(0, 1));
    /// assert_eq!(rows.count_ones(), 5, "row 1 keeps its 3 bits");
    /// assert!(BitRows::from_words(2, 3, vec![0]).is_none());
    /// ```
    pub fn from_words(rows: u32, bits: u32, mut words: Vec<u64>) -> Option<Self> {
        let stride = words_for(bits);
        if words.len() != (rows as usize).checked_mul(stride)? {
            return None;
        }
        if !bits.is_multiple_of(u64::BITS) {
            for row in words.chunks_mut(stride) {
                row[stride - 1] &= low_bits(bits % u64::BITS);
            }
        }
        Some(Self {
            words,
            stride,
            rows,
            bits,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Bits per row.
    pub fn bits_per_row(&self) -> u32 {
        self.bits
    }

    /// Words per row.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// All the words, row after row.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// All the words, row after row, to change in place. Bits past the end of a row must
    /// stay clear.
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// The words of one row (empty outside the rows).
    pub fn row(&self, row: u32) -> &[u64] {
        let start = row as usize * self.stride;
        self.words.get(start..start + self.stride).unwrap_or(&[])
    }

    /// The index of the word holding `bit` of `row`, if it lies inside the rows.
    #[inline(always)]
    fn word_index(&self, row: u32, bit: u32) -> Option<usize> {
        (bit < self.bits && row < self.rows)
            .then(|| row as usize * self.stride + bit as usize / WORD_BITS)
    }

    /// Reads one bit (`false` outside the rows).
    #[inline(always)]
    pub fn get(&self, row: u32, bit: u32) -> bool {
        self.word_index(row, bit)
            .is_some_and(|i| self.words[i] >> (bit % u64::BITS) & 1 != 0)
    }

    /// Sets or clears one bit (nothing outside the rows).
    #[inline]
    pub fn set_to(&mut self, row: u32, bit: u32, on: bool) {
        if let Some(i) = self.word_index(row, bit) {
            let mask = 1 << (bit % u64::BITS);
            if on {
                self.words[i] |= mask;
            } else {
                self.words[i] &= !mask;
            }
        }
    }

    /// Sets one bit (nothing outside the rows).
    #[inline]
    pub fn set(&mut self, row: u32, bit: u32) {
        self.set_to(row, bit, true);
    }

    /// Sets the bits `bit .. bit + 64` of `row` that are set in `run` (bit 0 = `bit`); bits
    /// that fall outside the rows are dropped.
    #[inline]
    pub fn set_run(&mut self, row: u32, bit: u32, run: u64) {
        if row < self.rows && bit < self.bits {
            self.set_run_inside(row, bit, run & low_bits(self.bits - bit));
        }
    }

    /// [`set_run`](Self::set_run) for a caller that knows every set bit of `run` falls
    /// inside the rows (the scan writing into the window it sized).
    #[inline(always)]
    pub(crate) fn set_run_inside(&mut self, row: u32, bit: u32, run: u64) {
        debug_assert!(
            row < self.rows
                && (run == 0 || bit + (u64::BITS - 1 - run.leading_zeros()) < self.bits)
        );
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

    /// Sets every bit of every row.
    pub fn fill(&mut self) {
        let tail = low_bits(self.bits % u64::BITS);
        for row in self.words.chunks_mut(self.stride.max(1)) {
            row.fill(u64::MAX);
            if let Some(last) = row.last_mut()
                && !self.bits.is_multiple_of(u64::BITS)
            {
                *last = tail;
            }
        }
    }

    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The set bits as `(row, bit)`, row by row.
    pub fn iter_ones(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        ones_in_rows(&self.words, self.stride)
    }

    /// Copies the bits that lie inside both `self` and `other` from `other`, clearing the
    /// rest: how a memory is kept across a resize.
    pub fn copy_overlap(&mut self, other: &BitRows) {
        self.clear_all();
        let rows = self.rows().min(other.rows());
        let bits = self.bits.min(other.bits);
        let words = words_for(bits);
        for row in 0..rows as usize {
            let (to, from) = (row * self.stride, row * other.stride);
            self.words[to..to + words].copy_from_slice(&other.words[from..from + words]);
            if !bits.is_multiple_of(u64::BITS) {
                self.words[to + words - 1] &= low_bits(bits % u64::BITS);
            }
        }
    }

    /// The 64 bits of `row` from `bit` (bit 0 of the result is `bit`); bits past the row are
    /// clear.
    ///
    /// ```
    /// use viewshed_core::bits::BitRows;
    ///
    /// let mut rows = BitRows::new(1, 100);
    /// rows.set(0, 70);
    /// assert_eq!(rows.get_run(0, 60), 1 << 10);
    /// assert_eq!(rows.get_run(0, 100), 0);
    /// ```
    pub fn get_run(&self, row: u32, bit: u32) -> u64 {
        if row >= self.rows || bit >= self.bits {
            return 0;
        }
        let base = row as usize * self.stride;
        let (i, shift) = (bit as usize / WORD_BITS, bit % u64::BITS);
        let low = self.words[base + i] >> shift;
        let high = match self.words.get(base + i + 1) {
            Some(&next) if shift != 0 && i + 1 < self.stride => next << (u64::BITS - shift),
            _ => 0,
        };
        (low | high) & low_bits(self.bits - bit)
    }

    /// Copies the bits of `other` whose cells lie in both grids, when `self`'s row 0 bit 0 is
    /// cell `at` and `other`'s is cell `other_at` (cells in any shared coordinates): how a
    /// memory is kept when a map's area moves. Bits of `self` outside `other` are left as
    /// they are.
    pub fn copy_from_at(&mut self, at: (u32, u32), other: &BitRows, other_at: (u32, u32)) {
        let span = |start: u32, len: u32| (u64::from(start), u64::from(start) + u64::from(len));
        let (x0, x1) = {
            let (a, b) = (span(at.0, self.bits), span(other_at.0, other.bits));
            (a.0.max(b.0), a.1.min(b.1))
        };
        let (y0, y1) = {
            let (a, b) = (span(at.1, self.rows), span(other_at.1, other.rows));
            (a.0.max(b.0), a.1.min(b.1))
        };
        for y in y0..y1 {
            let (to_row, from_row) = (
                (y - u64::from(at.1)) as u32,
                (y - u64::from(other_at.1)) as u32,
            );
            for x in (x0..x1).step_by(WORD_BITS) {
                let mask = low_bits((x1 - x).min(64) as u32);
                let run = other.get_run(from_row, (x - u64::from(other_at.0)) as u32) & mask;
                let bit = (x - u64::from(at.0)) as u32;
                self.clear_run(to_row, bit, mask);
                self.set_run(to_row, bit, run);
            }
        }
    }

    /// Sets (`on`) or clears the `len` bits of `row` from `bit` (those inside the rows).
    ///
    /// ```
    /// use viewshed_core::bits::BitRows;
    ///
    /// let mut rows = BitRows::new(2, 100);
    /// rows.fill_span(1, 60, 30, true);
    /// assert_eq!(rows.count_ones(), 30);
    /// rows.fill_span(1, 70, 100, false);
    /// assert_eq!(rows.count_ones(), 10);
    /// ```
    pub fn fill_span(&mut self, row: u32, bit: u32, len: u32, on: bool) {
        let end = u64::from(bit) + u64::from(len);
        let end = end.min(u64::from(self.bits)) as u32;
        let mut at = bit;
        while at < end {
            let run = low_bits((end - at).min(u64::BITS));
            if on {
                self.set_run(row, at, run);
            } else {
                self.clear_run(row, at, run);
            }
            at += u64::BITS;
        }
    }

    /// Clears the bits `bit .. bit + 64` of `row` that are set in `run`.
    fn clear_run(&mut self, row: u32, bit: u32, run: u64) {
        if row >= self.rows || bit >= self.bits {
            return;
        }
        let run = run & low_bits(self.bits - bit);
        let index = row as usize * self.stride + bit as usize / WORD_BITS;
        let shift = bit % u64::BITS;
        self.words[index] &= !(run << shift);
        if shift != 0 && run >> (u64::BITS - shift) != 0 {
            self.words[index + 1] &= !(run >> (u64::BITS - shift));
        }
    }
}

/// Transposes a 64x64 bit matrix in place: bit `j` of word `i` trades places with bit `i` of
/// word `j`.
pub fn transpose_64x64(m: &mut [u64; 64]) {
    transpose_square(m);
}

/// Transposes a square bit matrix of `n = m.len()` words of `n` bits in place (`n` a power of
/// two up to 64; bits at `n` and above must be clear): bit `j` of word `i` trades places with
/// bit `i` of word `j`.
pub fn transpose_square(m: &mut [u64]) {
    match m.len() {
        64 => transpose::<64>(m.try_into().expect("64 words")),
        32 => transpose::<32>(m.try_into().expect("32 words")),
        16 => transpose::<16>(m.try_into().expect("16 words")),
        n => {
            assert!(
                n.is_power_of_two() && n <= 8,
                "{n} words is not a square block"
            );
            let mut block = [0; 8];
            block[..n].copy_from_slice(m);
            transpose::<8>(&mut block);
            m.copy_from_slice(&block[..n]);
        }
    }
}

/// Transposes an `N` x `N` bit matrix (`N` a power of two up to 64, bits at `N` and above
/// clear), swapping ever smaller off-diagonal blocks in `log2(N)` rounds of word operations.
#[inline(always)]
fn transpose<const N: usize>(m: &mut [u64; N]) {
    let mut width = N / 2;
    let mut mask = low_bits(width as u32);
    while width != 0 {
        let mut k = 0;
        while k < N {
            let swap = ((m[k] >> width) ^ m[k + width]) & mask;
            m[k] ^= swap << width;
            m[k + width] ^= swap;
            k = (k + width + 1) & !width;
        }
        width >>= 1;
        mask ^= mask << width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn transpose_moves_every_bit_across_the_diagonal() {
        let mut state = 0x1234_5678_9ABC_DEF0u64;
        let mut m = [0u64; 64];
        for word in &mut m {
            *word = xorshift(&mut state);
        }
        let original = m;
        transpose_64x64(&mut m);
        for (i, row) in m.iter().enumerate() {
            for (j, column) in original.iter().enumerate() {
                assert_eq!(row >> j & 1, column >> i & 1, "bit ({i}, {j})");
            }
        }
    }

    #[test]
    fn square_transposes_of_every_size_move_every_bit_across_the_diagonal() {
        let mut state = 0x0F1E_2D3C_4B5A_6978u64;
        for n in [1usize, 2, 4, 8, 16, 32, 64] {
            let m: Vec<u64> = (0..n)
                .map(|_| xorshift(&mut state) & low_bits(n as u32))
                .collect();
            let mut t = m.clone();
            transpose_square(&mut t);
            for (i, row) in t.iter().enumerate() {
                assert_eq!(row & !low_bits(n as u32), 0, "n {n}: no bit past the block");
                for (j, column) in m.iter().enumerate() {
                    assert_eq!(row >> j & 1, column >> i & 1, "n {n}, bit ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn ranges_and_low_bits_agree_with_bit_by_bit() {
        for n in 0..=70 {
            let expected = (0..64).filter(|&i| i < n).fold(0u64, |w, i| w | 1 << i);
            assert_eq!(low_bits(n), expected, "low_bits({n})");
        }
        for first in 0..64 {
            for last in first..64 {
                let expected = (first..=last).fold(0u64, |w, i| w | 1 << i);
                assert_eq!(
                    bit_range(first, last),
                    expected,
                    "bit_range({first}, {last})"
                );
            }
        }
    }

    #[test]
    fn words_cover_their_bits() {
        for bits in 0..300u32 {
            let words = words_for(bits);
            assert!(words * WORD_BITS >= bits as usize);
            assert!(words == 0 || (words - 1) * WORD_BITS < bits as usize);
        }
    }

    #[test]
    fn set_run_matches_setting_bits_one_by_one_and_drops_what_falls_outside() {
        let mut state = 0xDEAD_BEEF_u64;
        for bits in [1u32, 5, 63, 64, 65, 130] {
            for start in 0..bits + 3 {
                let run = xorshift(&mut state);
                let mut by_run = BitRows::new(3, bits);
                by_run.set_run(1, start, run);
                let mut by_bit = BitRows::new(3, bits);
                for_each_one(run, |i| by_bit.set(1, start.saturating_add(i)));
                assert_eq!(by_run, by_bit, "bits {bits}, start {start}");
            }
        }
        let mut rows = BitRows::new(2, 10);
        rows.set_run(2, 0, u64::MAX);
        assert_eq!(rows.count_ones(), 0, "a row past the end is ignored");
    }

    #[test]
    fn fill_iter_and_overlap() {
        let mut rows = BitRows::new(3, 70);
        rows.fill();
        assert_eq!(rows.count_ones(), 210);
        assert_eq!(rows.iter_ones().count(), 210);
        assert_eq!(rows.iter_ones().last(), Some((2, 69)));
        let mut small = BitRows::new(2, 65);
        small.copy_overlap(&rows);
        assert_eq!(small.count_ones(), 130);
        let mut big = BitRows::new(4, 100);
        big.copy_overlap(&small);
        assert_eq!(big.count_ones(), 130);
        assert!(big.get(1, 64) && !big.get(1, 65) && !big.get(2, 0));
    }
}
