//! How a [`TeamView`](super::TeamView)'s bit planes (seen now, explored) travel, whole or as
//! the changes of a frame: as the lengths of a plane's runs of equal tiles, row after row.
//! A plane is the number of runs but the last (LEB128), then, if there are any, one byte with
//! the orders of two Exp-Golomb codes (one for the runs of unset tiles, one for the set ones,
//! each the order that makes the plane shortest), then the runs in those codes, bit after bit,
//! padded to a whole byte. The last run is the tiles left over.
//!
//! A team's view is made of patches and a frame's changes are thin rings around them, so the
//! runs are few and short: in the 2,000-unit bench a frame's changes to one team's view (about
//! 3,500 runs of flipped tiles among 65,536) take 3.0 kB this way, 4.5 kB in Elias-gamma codes
//! and 7.0 kB as LEB128 numbers.

use viewshed_core::bits::{WORD_BITS, low_bits, words_for};

/// The most tiles a received view may have (a map of 8,192x8,192 tiles): a malformed message
/// cannot make a client allocate more.
pub(super) const MOST_TILES: u64 = 1 << 26;

/// The highest order of the codes (a run of 2^20 tiles and more is rare and costs little more).
const MOST_ORDER: u32 = 20;

/// Puts into `runs` the run lengths of a plane of `width` x `height` tiles whose word `i`
/// (rows of `words_for(width)` words) is `word(i)`: alternate runs of unset and set tiles,
/// starting with unset ones (maybe none), the last one reaching the plane's end.
pub(super) fn runs(width: u32, height: u32, word: impl Fn(usize) -> u64, runs: &mut Vec<u32>) {
    runs.clear();
    let stride = words_for(width);
    let (mut set, mut run) = (false, 0u32);
    for y in 0..height as usize {
        for i in 0..stride {
            let word = word(y * stride + i);
            let valid = (width as usize - i * WORD_BITS).min(WORD_BITS) as u32;
            let mut at = 0;
            while at < valid {
                // The tiles from `at` on that differ from the current run's.
                let differ = if set { !word } else { word } >> at;
                let same = differ.trailing_zeros().min(valid - at);
                (run, at) = (run + same, at + same);
                if at < valid {
                    runs.push(run);
                    (run, set) = (0, !set);
                }
            }
        }
    }
    runs.push(run);
}

/// The number written for run `i`: every run but the first has at least one tile.
#[inline(always)]
fn coded(i: usize, run: u32) -> u32 {
    run - u32::from(i > 0)
}

/// Bits of `value` in the Exp-Golomb code of order `order`.
#[inline(always)]
fn code_bits(value: u32, order: u32) -> u64 {
    let m = u64::from(value) + (1 << order);
    let width = u64::from(63 - m.leading_zeros());
    2 * width + 1 - u64::from(order)
}

/// The order that makes the code of the runs `first, first + 2, ...` shortest. It is near
/// the logarithm of their mean, so only the orders around it are tried.
fn best_order(runs: &[u32], first: usize) -> u32 {
    let (mut sum, mut count) = (0u64, 0u64);
    for (i, &run) in runs.iter().enumerate().skip(first).step_by(2) {
        sum += u64::from(coded(i, run));
        count += 1;
    }
    let mean = sum / count.max(1);
    let guess = (63 - (mean | 1).leading_zeros()).min(MOST_ORDER);
    let cost = |order: u32| -> u64 {
        let codes = runs.iter().enumerate().skip(first).step_by(2);
        codes.map(|(i, &run)| code_bits(coded(i, run), order)).sum()
    };
    (guess.saturating_sub(2)..=(guess + 1).min(MOST_ORDER))
        .min_by_key(|&order| cost(order))
        .unwrap_or(0)
}

/// Appends the plane whose runs are `runs` (as [`runs`] makes them) to `out`.
pub(super) fn encode(runs: &[u32], out: &mut Vec<u8>) {
    let written = &runs[..runs.len().saturating_sub(1)];
    put_leb128(written.len() as u32, out);
    if written.is_empty() {
        return;
    }
    let orders = [best_order(written, 0), best_order(written, 1)];
    out.push((orders[0] | orders[1] << 4) as u8);
    let mut bits = BitWriter {
        out,
        acc: 0,
        filled: 0,
    };
    for (i, &run) in written.iter().enumerate() {
        bits.exp_golomb(coded(i, run), orders[i % 2]);
    }
    bits.finish();
}

/// Reads a plane of `tiles` tiles from the front of `bytes` into `runs` (every run, the last
/// included) and returns the bytes after it, or why `bytes` do not hold one.
pub(super) fn decode<'a>(
    bytes: &'a [u8],
    tiles: u64,
    runs: &mut Vec<u32>,
) -> Result<&'a [u8], String> {
    runs.clear();
    let (count, mut rest) = take_leb128(bytes)?;
    // Each run but the first covers a tile.
    if u64::from(count) > tiles + 1 {
        return Err(format!("{count} runs in a plane of {tiles} tiles"));
    }
    let mut covered = 0u64;
    if count > 0 {
        let (&orders, after) = rest.split_first().ok_or("a plane ends before its codes")?;
        let orders = [u32::from(orders & 15), u32::from(orders >> 4)];
        if orders.iter().any(|&order| order > MOST_ORDER) {
            return Err(format!("a run code of order {orders:?}"));
        }
        let mut bits = BitReader::new(after);
        for i in 0..count as usize {
            let run = bits.exp_golomb(orders[i % 2])? + u64::from(i > 0);
            covered += run;
            if covered > tiles {
                return Err(format!("a plane's runs pass its {tiles} tiles"));
            }
            runs.push(run as u32);
        }
        rest = bits.rest();
    }
    let last = tiles - covered;
    if count > 0 && last == 0 {
        return Err("a plane's last run is empty".into());
    }
    runs.push(last as u32);
    Ok(rest)
}

/// Flips, in a plane of rows of `words_for(width)` words, the tiles of the set runs of `runs`
/// (runs that [`decode`] checked against the plane's tiles).
pub(super) fn flip_runs(runs: &[u32], width: u32, words: &mut [u64]) {
    let stride = words_for(width);
    let mut tile = 0u64;
    for (i, &run) in runs.iter().enumerate() {
        if i % 2 == 1 {
            flip_span(words, stride, width, tile, u64::from(run));
        }
        tile += u64::from(run);
    }
}

/// Flips `len` tiles from tile `start` on, row after row.
fn flip_span(words: &mut [u64], stride: usize, width: u32, start: u64, len: u64) {
    let width = u64::from(width);
    let (mut y, mut x, mut left) = (start / width, start % width, len);
    while left > 0 {
        let n = left.min(width - x);
        let row = &mut words[y as usize * stride..][..stride];
        let (mut at, end) = (x as usize, (x + n) as usize);
        while at < end {
            let (word, bit) = (at / WORD_BITS, at % WORD_BITS);
            let take = (WORD_BITS - bit).min(end - at);
            row[word] ^= low_bits(take as u32) << bit;
            at += take;
        }
        (y, x, left) = (y + 1, 0, left - n);
    }
}

fn put_leb128(mut value: u32, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn take_leb128(bytes: &[u8]) -> Result<(u32, &[u8]), String> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(5) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            let value = u32::try_from(value).map_err(|_| "a run count past u32")?;
            return Ok((value, &bytes[i + 1..]));
        }
    }
    Err("a plane's run count is cut or too long".into())
}

/// Bits written lowest first into bytes.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    filled: u32,
}

impl BitWriter<'_> {
    /// Appends the low `n` bits of `bits` (`n` at most 56), and every whole byte filled.
    #[inline(always)]
    fn put(&mut self, bits: u64, n: u32) {
        self.acc |= bits << self.filled;
        self.filled += n;
        let whole = self.filled / 8;
        self.out
            .extend_from_slice(&self.acc.to_le_bytes()[..whole as usize]);
        self.acc = self.acc.checked_shr(whole * 8).unwrap_or(0);
        self.filled %= 8;
    }

    /// `value` in the Exp-Golomb code of order `order`: with `m = value + 2^order` of `w + 1`
    /// bits, `w - order` zeros, a one (`m`'s top bit), then `m`'s low `w` bits, put at once
    /// (a run of at most 2^26 tiles and an order of at most 20 make at most 53 bits).
    fn exp_golomb(&mut self, value: u32, order: u32) {
        let m = u64::from(value) + (1 << order);
        let width = 63 - m.leading_zeros();
        let zeros = width - order;
        let code = (1 | (m & low_bits(width)) << 1) << zeros;
        self.put(code, zeros + 1 + width);
    }

    fn finish(self) {
        if self.filled > 0 {
            self.out.push(self.acc as u8);
        }
    }
}

/// Reads what [`BitWriter`] wrote.
struct BitReader<'a> {
    bytes: &'a [u8],
    /// The next byte to take into `acc`.
    next: usize,
    acc: u64,
    filled: u32,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            next: 0,
            acc: 0,
            filled: 0,
        }
    }

    fn refill(&mut self) {
        while self.filled <= 56 {
            let Some(&byte) = self.bytes.get(self.next) else {
                return;
            };
            self.acc |= u64::from(byte) << self.filled;
            self.filled += 8;
            self.next += 1;
        }
    }

    /// The next `n` bits (`n` at most 56).
    fn take(&mut self, n: u32) -> Result<u64, String> {
        self.refill();
        if self.filled < n {
            return Err("a plane's codes are cut".into());
        }
        let bits = self.acc & low_bits(n);
        self.acc = self.acc.checked_shr(n).unwrap_or(0);
        self.filled -= n;
        Ok(bits)
    }

    fn exp_golomb(&mut self, order: u32) -> Result<u64, String> {
        self.refill();
        let zeros = self.acc.trailing_zeros();
        // A run of at most 2^26 tiles has a code of at most 27 zeros.
        if zeros >= self.filled || zeros > 27 {
            return Err("a run's code is cut or too long".into());
        }
        self.take(zeros + 1)?;
        let width = zeros + order;
        let m = (1 << width) | self.take(width)?;
        Ok(m - (1 << order))
    }

    /// The bytes after the last one read from (the padding of the last byte skipped): the
    /// whole bytes taken into `acc` and not read are handed back.
    fn rest(self) -> &'a [u8] {
        &self.bytes[self.next - (self.filled / 8) as usize..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A plane of patches (long stretches of equal bits, as views have), bits past each row's
    /// end clear.
    fn patches(width: u32, height: u32, seed: u64) -> Vec<u64> {
        let stride = words_for(width);
        let mut state = seed | 1;
        let mut words: Vec<u64> = (0..stride * height as usize)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                match state % 4 {
                    0 => u64::MAX,
                    1 | 2 => 0,
                    _ => state,
                }
            })
            .collect();
        if !(width as usize).is_multiple_of(WORD_BITS) {
            for row in words.chunks_mut(stride) {
                row[stride - 1] &= low_bits(width % 64);
            }
        }
        words
    }

    fn round_trip(width: u32, height: u32, words: &[u64]) -> Vec<u64> {
        let mut found = Vec::new();
        runs(width, height, |i| words[i], &mut found);
        let mut bytes = Vec::new();
        encode(&found, &mut bytes);
        bytes.extend_from_slice(b"next");
        let mut read = Vec::new();
        let tiles = u64::from(width) * u64::from(height);
        let rest = decode(&bytes, tiles, &mut read).unwrap();
        assert_eq!(rest, b"next", "the plane ends where it was written");
        assert_eq!(read, found);
        let mut back = vec![0; words.len()];
        flip_runs(&read, width, &mut back);
        back
    }

    proptest! {
        #[test]
        fn a_plane_comes_back_from_its_runs(width in 1u32..200, height in 1u32..20, seed: u64) {
            let words = patches(width, height, seed);
            prop_assert_eq!(round_trip(width, height, &words), words);
        }

        #[test]
        fn a_change_flips_exactly_the_changed_tiles(width in 1u32..200, height in 1u32..20, a: u64, b: u64) {
            let (old, new) = (patches(width, height, a), patches(width, height, b));
            let change: Vec<u64> = old.iter().zip(&new).map(|(o, n)| o ^ n).collect();
            let mut now = old.clone();
            let flips = round_trip(width, height, &change);
            for (word, flip) in now.iter_mut().zip(flips) {
                *word ^= flip;
            }
            prop_assert_eq!(now, new);
        }

        /// Whatever the bytes, reading them gives a plane of the right tiles or an error.
        #[test]
        fn any_bytes_give_a_plane_or_an_error(bytes: Vec<u8>, tiles in 0u64..5000) {
            let mut read = Vec::new();
            if decode(&bytes, tiles, &mut read).is_ok() {
                prop_assert_eq!(read.iter().map(|&r| u64::from(r)).sum::<u64>(), tiles);
            }
        }
    }

    #[test]
    fn malformed_planes_are_an_error_not_a_panic() {
        let mut read = Vec::new();
        assert!(decode(&[], 4, &mut read).is_err(), "no count");
        assert!(decode(&[0x80], 4, &mut read).is_err(), "a cut count");
        assert!(decode(&[9], 4, &mut read).is_err(), "more runs than tiles");
        assert!(decode(&[1], 4, &mut read).is_err(), "no orders");
        assert!(decode(&[1, 0x00], 4, &mut read).is_err(), "no codes");
        assert!(
            decode(&[1, 0xff, 0xff], 4, &mut read).is_err(),
            "an order past 20"
        );
        // One run of 4 (order 0: m = 5 = 0b101, two zeros, a one, then 0b01), none left.
        assert!(
            decode(&[1, 0x00, 0b0000_1100], 4, &mut read).is_err(),
            "an empty last run"
        );
        assert_eq!(decode(&[0], 4, &mut read).unwrap(), &[] as &[u8]);
        assert_eq!(read, vec![4], "no run written: all unset");
    }

    #[test]
    fn a_plane_is_written_bit_for_bit_as_documented() {
        // Tile 2 of 8 set: runs 2, 1 and the last 5; two runs written, both codes of order 0
        // (2 as 0b011 lowest bit first: a zero, a one, then m = 3's low bit; 0 as a one).
        let mut found = Vec::new();
        runs(8, 1, |_| 0b100, &mut found);
        assert_eq!(found, vec![2, 1, 5]);
        let mut bytes = Vec::new();
        encode(&found, &mut bytes);
        assert_eq!(bytes, vec![2, 0x00, 0b1110]);
    }

    #[test]
    fn an_empty_plane_is_one_byte() {
        let mut found = Vec::new();
        runs(256, 256, |_| 0, &mut found);
        let mut bytes = Vec::new();
        encode(&found, &mut bytes);
        assert_eq!(bytes, vec![0]);
    }
}
