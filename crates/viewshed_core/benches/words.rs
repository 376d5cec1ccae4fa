//! The storage word of the bit grids, measured: the shadowcaster's inner read (up to one word
//! of a scan line from any cell, masked to a row's interval, its opaque cells counted) done on
//! `u64` words, as the core stores them on every target, and on `u32` words, in the same
//! criterion group. Run natively and as WebAssembly:
//!
//! ```text
//! cargo bench -p viewshed_core --bench words
//! cargo bench -p viewshed_core --bench words --target wasm32-wasip1 --no-run
//! mkdir -p $CARGO_TARGET_DIR/wasm-bench && cd $CARGO_TARGET_DIR/wasm-bench
//! node <the crate>/crates/viewshed_core/benches/wasi.mjs <the .wasm cargo printed> --bench
//! ```
//!
//! (`benches/report.py` reads the wasm32 results from `$CARGO_TARGET_DIR/wasm-bench`.)
//!
//! Each benchmark reads the same map with the same intervals, the rows of a view from the map's
//! centre reaching half the map's width (each row as wide as its distance, as an octant's), on
//! 128- and 1024-cell maps, and must count the same opaque cells (checked before timing).

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use support::{MapKind, central_floor};
use viewshed_core::OpacityGrid;

/// The operations of a storage word that the scan uses.
trait Word: Copy + Default {
    const BITS: u32;
    fn set(&mut self, bit: u32);
    /// `self >> shift | high << (BITS - shift)`, with `shift == 0` giving `self`.
    fn join(self, high: Self, shift: u32) -> Self;
    /// The low `n` bits, `n <= BITS`.
    fn low(self, n: u32) -> Self;
    fn ones(self) -> u32;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            fn set(&mut self, bit: u32) {
                *self |= 1 << bit;
            }
            #[inline(always)]
            fn join(self, high: Self, shift: u32) -> Self {
                self >> shift | high << 1 << (Self::BITS - 1 - shift)
            }
            #[inline(always)]
            fn low(self, n: u32) -> Self {
                self & (<$t>::MAX >> (Self::BITS - n))
            }
            #[inline(always)]
            fn ones(self) -> u32 {
                self.count_ones()
            }
        }
    };
}
word!(u32);
word!(u64);

/// A map's rows as padded words, with one clear word after the last, as `OpacityGrid` keeps
/// them.
struct Rows<W> {
    words: Vec<W>,
    stride: usize,
}

impl<W: Word> Rows<W> {
    fn new(grid: &OpacityGrid) -> Self {
        let stride = grid.width().div_ceil(W::BITS) as usize;
        let mut words = vec![W::default(); stride * grid.height() as usize + 1];
        for (x, y) in grid.opaque_cells() {
            words[y as usize * stride + (x / W::BITS) as usize].set(x % W::BITS);
        }
        Self { words, stride }
    }

    /// Opaque cells of row `y` in `first..=last`, read one word at a time as the scan does.
    #[inline(always)]
    fn opaque_in(&self, y: u32, first: u32, last: u32) -> u32 {
        let mut count = 0;
        let mut start = first;
        while start <= last {
            let word = y as usize * self.stride + (start / W::BITS) as usize;
            let bits = self.words[word].join(self.words[word + 1], start % W::BITS);
            let n = (last - start + 1).min(W::BITS);
            count += bits.low(n).ones();
            start += n;
        }
        count
    }
}

/// The rows of a radius-`r` square around `(cx, cy)`, clipped to the map, as `(y, first, last)`;
/// the same rows are read from the columns' side by the scan, so they stand for both.
fn intervals(grid: &OpacityGrid, (cx, cy): (u32, u32), r: u32) -> Vec<(u32, u32, u32)> {
    let clip = |v: u32, d: i64, max: u32| (i64::from(v) + d).clamp(0, i64::from(max) - 1) as u32;
    (1..=r as i64)
        .flat_map(|d| [-d, d])
        .map(|dy| {
            let y = clip(cy, dy, grid.height());
            let half = dy.abs();
            (
                y,
                clip(cx, -half, grid.width()),
                clip(cx, half, grid.width()),
            )
        })
        .collect()
}

fn scan<W: Word>(rows: &Rows<W>, intervals: &[(u32, u32, u32)]) -> u32 {
    intervals
        .iter()
        .map(|&(y, first, last)| rows.opaque_in(y, first, last))
        .sum()
}

fn words(c: &mut Criterion) {
    for kind in [MapKind::Open, MapKind::Pillars, MapKind::Dungeon] {
        for size in [128, 1024] {
            let grid = kind.generate(size, size, 7);
            let intervals = intervals(&grid, central_floor(&grid), size / 2);
            let (narrow, wide) = (Rows::<u32>::new(&grid), Rows::<u64>::new(&grid));
            let truth = intervals
                .iter()
                .map(|&(y, a, b)| (a..=b).filter(|&x| grid.is_opaque(x, y)).count() as u32)
                .sum::<u32>();
            assert_eq!(scan(&narrow, &intervals), truth);
            assert_eq!(scan(&wide, &intervals), truth);
            let mut group = c.benchmark_group(format!("words/{}/{size}", kind.name()));
            group.bench_function("u64", |b| b.iter(|| scan(black_box(&wide), &intervals)));
            group.bench_function("u32", |b| b.iter(|| scan(black_box(&narrow), &intervals)));
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = words
}
criterion_main!(benches);
