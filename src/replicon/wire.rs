//! How a [`TeamView`](super::TeamView)'s bit planes (seen now, explored) travel: as the
//! lengths of their runs of equal tiles, row after row. A team's view is made of patches and
//! its explored memory of large areas, so the runs are few and most fit in one byte, where the
//! planes' words would take up to ten bytes each.

use viewshed_core::bits::{WORD_BITS, words_for};

/// The most tiles a received view may have (a map of 8,192x8,192 tiles): a malformed message
/// cannot make a client allocate more.
const MOST_TILES: u64 = 1 << 26;

/// The runs of a plane of `width` x `height` tiles held in `words` (rows of
/// `words_for(width)` words; missing words count as unset).
pub(super) fn runs(words: &[u64], width: u32, height: u32) -> Vec<u32> {
    let stride = words_for(width);
    let mut runs = Vec::new();
    let (mut set, mut run) = (false, 0u32);
    for y in 0..height as usize {
        for i in 0..stride {
            let word = words.get(y * stride + i).copied().unwrap_or(0);
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
    runs
}

/// The plane of `width` x `height` tiles that `runs` describe, or why they cannot be one.
pub(super) fn words(runs: &[u32], width: u32, height: u32) -> Result<Vec<u64>, String> {
    let tiles = u64::from(width) * u64::from(height);
    if tiles > MOST_TILES {
        return Err(format!(
            "a team view of {width}x{height} tiles is too large"
        ));
    }
    let stride = words_for(width);
    let mut words = vec![0u64; stride * height as usize];
    let (mut tile, mut set) = (0u64, false);
    for &run in runs {
        let end = tile + u64::from(run);
        if end > tiles {
            return Err(format!("a team view's runs pass its {tiles} tiles"));
        }
        if set {
            for at in tile..end {
                let (x, y) = (
                    (at % u64::from(width)) as usize,
                    (at / u64::from(width)) as usize,
                );
                words[y * stride + x / WORD_BITS] |= 1 << (x % WORD_BITS);
            }
        }
        (tile, set) = (end, !set);
    }
    if tile != tiles {
        return Err(format!(
            "a team view's runs cover {tile} of its {tiles} tiles"
        ));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_plane_comes_back_from_its_runs(width in 1u32..150, height in 1u32..20, seed: u64) {
            let stride = words_for(width);
            let mut state = seed | 1;
            let mut words: Vec<u64> = (0..stride * height as usize)
                .map(|_| {
                    // Patches: long stretches of equal bits, as views have.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    if state % 3 == 0 { u64::MAX } else if state % 3 == 1 { 0 } else { state }
                })
                .collect();
            for row in words.chunks_mut(stride) {
                if !(width as usize).is_multiple_of(WORD_BITS) {
                    row[stride - 1] &= (1 << (width as usize % WORD_BITS)) - 1;
                }
            }
            let runs = runs(&words, width, height);
            prop_assert_eq!(runs.iter().map(|&r| u64::from(r)).sum::<u64>(), u64::from(width * height));
            prop_assert_eq!(super::words(&runs, width, height).unwrap(), words);
        }
    }

    #[test]
    fn malformed_runs_are_an_error_not_a_panic_or_a_huge_allocation() {
        assert!(words(&[3, 2], 2, 2).is_err(), "5 tiles of 4");
        assert!(words(&[1, 1], 2, 2).is_err(), "2 tiles of 4");
        assert!(words(&[u32::MAX], u32::MAX, u32::MAX).is_err(), "too large");
        assert_eq!(words(&[1, 2, 1], 2, 2).unwrap(), vec![0b10, 0b01]);
        assert_eq!(runs(&[], 3, 1), vec![3], "missing words are unset");
    }
}
