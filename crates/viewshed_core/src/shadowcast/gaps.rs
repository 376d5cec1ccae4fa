//! The scan of a shallow window (rows end by depth [`MAX_DEPTH`]: any radius up to 10) on
//! x86-64 CPUs with BMI2, where the lit sector of a quadrant is a set of *gaps* and each row
//! is a handful of word operations, with no list of intervals.
//!
//! Every slope such a window can meet (a cell's edge `(2*col ± 1) / (2*d)` or centre
//! `col / d`, `d <= 10`, clipped to the quadrant's -1..1) cuts the quadrant; the 128 open
//! gaps between consecutive cuts are the bits of one `u128`. At any depth `d`, the cells
//! `-d..=d` of the row split the gaps into runs (each cell's *span*, between its edges), and
//! Ford's rules come down to this (see the module [`super`]):
//! - a cell is covered by the scan when some gap of its span is lit;
//! - a floor's centre is inside the lit sector when a gap next to its centre is lit;
//! - the next row's lit gaps are this row's without the spans of this row's walls (a run of
//!   floors passes on the sector between the edges of the walls around it).
//!
//! So the scan of a row is: the gaps that are lit, gathered into the row's cells (`pext`),
//! and the walls' spans removed (`pdep` spreads the walls to their first and last gaps, a
//! subtraction fills the runs between). Cells outside the map or the reach never shadow a
//! cell inside them (their spans lie past every centre inside; see [`super::reach`]), so only
//! the walls inside count. The slope intervals of [`super::compact`] do the same on other
//! CPUs and deeper windows, and a test compares the two.

use std::sync::OnceLock;

use super::Scan;
use super::compact::{QuadrantLight, WordRow};

/// The deepest row the gap scan reads.
pub(super) const MAX_DEPTH: u32 = 10;

/// A proof that the CPU has BMI2 and POPCNT: only [`Bmi2::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bmi2(());

impl Bmi2 {
    /// Whether this CPU runs the gap scan, and runs it fast: it has BMI2 and POPCNT, and its
    /// `pext` and `pdep` take a few cycles, not dozens (AMD CPUs before Zen 3, such as the
    /// Steam Deck's Zen 2, run them in microcode: those keep the interval scan).
    pub(super) fn detect() -> Option<Self> {
        static FAST: OnceLock<bool> = OnceLock::new();
        let fast = *FAST.get_or_init(|| {
            is_x86_feature_detected!("bmi2")
                && is_x86_feature_detected!("popcnt")
                && pext_in_hardware()
        });
        fast.then_some(Bmi2(()))
    }

    /// The bits of `x` under `mask`, packed from bit 0 (at most 64 of them).
    #[inline(always)]
    fn pext(self, x: u128, mask: u128) -> u64 {
        // SAFETY: `self` proves the CPU has BMI2 and POPCNT.
        unsafe { pext(x, mask) }
    }

    /// The low bits of `bits` spread to the set bits of `mask`, lowest first.
    #[inline(always)]
    fn pdep(self, bits: u64, mask: u128) -> u128 {
        // SAFETY: `self` proves the CPU has BMI2 and POPCNT.
        unsafe { pdep(bits, mask) }
    }
}

/// The gaps of each cell of a row at one depth, as masks over the 128 gaps.
#[derive(Clone, Copy, Debug, Default)]
struct RowGaps {
    /// The first gap of each cell's span (cells `-d..=d`).
    first: u128,
    /// The last gap of each cell's span.
    last: u128,
    /// The gap just before each cell's centre, cells `-d + 1..=d` (cell `-d`'s centre is
    /// slope -1, before gap 0).
    centres: u128,
}

/// The gaps of every depth's cells, made once per program.
struct GapTable {
    /// Entry `d` for depths 1 to [`MAX_DEPTH`]; 16 entries, so that a depth masked to 4 bits
    /// needs no bounds check.
    depths: [RowGaps; 16],
}

impl GapTable {
    fn get() -> &'static GapTable {
        static TABLE: OnceLock<GapTable> = OnceLock::new();
        TABLE.get_or_init(GapTable::make)
    }

    fn make() -> GapTable {
        // Slopes in units of 1/UNIT, whole for every edge and centre up to MAX_DEPTH.
        const UNIT: i64 = 5040;
        let edge = |col: i64, d: i64| ((2 * col - 1) * (UNIT / (2 * d))).clamp(-UNIT, UNIT);
        let centre = |col: i64, d: i64| col * (UNIT / d);
        let depths = 1..=i64::from(MAX_DEPTH);
        let mut cuts: Vec<i64> = depths
            .clone()
            .flat_map(|d| (-d..=d + 1).flat_map(move |col| [edge(col, d), centre(col.min(d), d)]))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        debug_assert_eq!(cuts.len(), 129, "128 gaps between the cuts");
        // The gap that starts at a cut.
        let gap_after = |slope: i64| cuts.binary_search(&slope).expect("every slope is a cut");
        let mut table = GapTable {
            depths: [RowGaps::default(); 16],
        };
        for d in depths {
            let row = &mut table.depths[d as usize];
            for col in -d..=d {
                row.first |= 1 << gap_after(edge(col, d));
                row.last |= 1 << (gap_after(edge(col + 1, d)) - 1);
                if col > -d {
                    row.centres |= 1 << (gap_after(centre(col, d)) - 1);
                }
            }
        }
        table
    }
}

/// The lit gaps of the quadrant being scanned.
pub(super) struct GapLight {
    lit: u128,
    table: &'static GapTable,
    cpu: Bmi2,
}

impl GapLight {
    pub(super) fn new(cpu: Bmi2) -> Self {
        Self {
            lit: 0,
            table: GapTable::get(),
            cpu,
        }
    }
}

impl QuadrantLight for GapLight {
    #[inline(always)]
    fn start_quadrant(&mut self) {
        self.lit = u128::MAX;
    }

    #[inline(always)]
    fn is_dark(&self) -> bool {
        self.lit == 0
    }

    /// Cell `j` of the row (`j = col + depth`) is bit `j` of the gathered gaps.
    #[inline(always)]
    fn scan_row(&mut self, row: &WordRow, scan: Scan<'_>) -> u64 {
        let cpu = self.cpu;
        let gaps = &self.table.depths[row.depth as usize & 15];
        // The row's bit `i` is cell `i - viewer`: shift it to `i - viewer + depth`.
        let shift = row.depth - row.viewer;
        let inside = row.inside << shift;
        let walls = row.walls << shift & inside;
        let lit_walls = row.lit_walls << shift;
        let lit = self.lit;
        // In each span, `(lit | last) - first` keeps its last bit unless every gap below it
        // is dark (the borrow stops inside the span).
        let covered = cpu.pext(
            lit & gaps.last | (lit | gaps.last).wrapping_sub(gaps.first) & gaps.last,
            gaps.last,
        );
        let centred = cpu.pext(lit | lit >> 1, gaps.centres) << 1 | (lit & 1) as u64;
        let lit_floors = if scan.permissive { covered } else { centred };
        let lit_cells = inside & (walls & covered & lit_walls | !walls & lit_floors);
        // Each wall's span, from its first gap to its last: 2^(last + 1) - 2^first.
        let shadow = (cpu.pdep(walls, gaps.last) << 1).wrapping_sub(cpu.pdep(walls, gaps.first));
        self.lit = lit & !shadow;
        lit_cells >> shift
    }
}

/// Whether `pext` and `pdep` run in hardware: on every Intel CPU that has them, and on AMD
/// from Zen 3 (family 19h) on; other vendors are not counted on.
fn pext_in_hardware() -> bool {
    use std::arch::x86_64::__cpuid;
    // The vendor's name, four letters per register.
    let vendor = |name: &[u8; 12]| {
        let word = |i: usize| u32::from_le_bytes([name[i], name[i + 1], name[i + 2], name[i + 3]]);
        [word(0), word(4), word(8)]
    };
    let id = __cpuid(0);
    let signature = __cpuid(1).eax;
    let (base, extended) = ((signature >> 8) & 0xF, (signature >> 20) & 0xFF);
    let family = if base == 0xF { base + extended } else { base };
    let name = [id.ebx, id.edx, id.ecx];
    name == vendor(b"GenuineIntel") || name == vendor(b"AuthenticAMD") && family >= 0x19
}

/// [`Bmi2::pext`].
#[target_feature(enable = "bmi2,popcnt")]
#[inline]
fn pext(x: u128, mask: u128) -> u64 {
    use std::arch::x86_64::_pext_u64;
    let (low_mask, high_mask) = (mask as u64, (mask >> 64) as u64);
    let low = _pext_u64(x as u64, low_mask);
    let high = _pext_u64((x >> 64) as u64, high_mask);
    // A row has at most 21 cells: no mask holds 64 bits, the shift is below 64.
    low | high.wrapping_shl(low_mask.count_ones())
}

/// [`Bmi2::pdep`].
#[target_feature(enable = "bmi2,popcnt")]
#[inline]
fn pdep(bits: u64, mask: u128) -> u128 {
    use std::arch::x86_64::_pdep_u64;
    let (low_mask, high_mask) = (mask as u64, (mask >> 64) as u64);
    let low = _pdep_u64(bits, low_mask);
    let high = _pdep_u64(bits.wrapping_shr(low_mask.count_ones()), high_mask);
    u128::from(low) | u128::from(high) << 64
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::options::{DistanceShape, FovMode, FovOptions, VisionCone};
    use crate::shadowcast::test_grids::grids;
    use crate::{Fov, VisibleSet};

    proptest! {
        /// The gap scan and the interval scan see the same cells, for every reach the gap
        /// scan takes and every option.
        #[test]
        fn gaps_see_what_intervals_see(
            grid in grids(30, 0u8..70),
            viewer in (0u32..30, 0u32..30),
            radius in 0u32..=MAX_DEPTH,
            shape in prop_oneof![
                Just(DistanceShape::Euclidean),
                Just(DistanceShape::Chebyshev),
                Just(DistanceShape::Manhattan),
            ],
            light_walls: bool,
            permissive: bool,
            cone in proptest::option::of((-4.0f64..4.0, 0.0f64..7.0)),
        ) {
            if Bmi2::detect().is_none() {
                // No gap scan on this CPU: every scan takes the intervals.
                return Ok(());
            }
            let origin = (viewer.0 % grid.width(), viewer.1 % grid.height());
            let mut options = FovOptions::radius(radius)
                .with_shape(shape)
                .with_light_walls(light_walls)
                .with_mode(if permissive { FovMode::Permissive } else { FovMode::Symmetric });
            if let Some((facing, width)) = cone {
                options = options.with_cone(VisionCone::new(facing, width));
            }
            let (mut with_gaps, mut without) = (VisibleSet::new(), VisibleSet::new());
            Fov::new().compute(&grid, origin, options, &mut with_gaps).unwrap();
            let mut intervals = Fov::new();
            intervals.small.no_gaps = true;
            intervals.compute(&grid, origin, options, &mut without).unwrap();
            let cells = |v: &VisibleSet| v.iter().collect::<Vec<_>>();
            prop_assert_eq!(cells(&with_gaps), cells(&without));
        }
    }

    #[test]
    fn the_spans_of_each_row_split_the_gaps_and_hold_their_centres() {
        let table = GapTable::get();
        for d in 1..=MAX_DEPTH {
            let row = table.depths[d as usize];
            let cells = 2 * d + 1;
            assert_eq!(row.first.count_ones(), cells, "depth {d}");
            assert_eq!(row.last.count_ones(), cells, "depth {d}");
            assert_eq!(row.centres.count_ones(), cells - 1, "depth {d}");
            // Spans are back to back: each first gap follows the last gap before it.
            assert_eq!(row.first, row.last << 1 | 1, "depth {d}");
            assert_eq!(row.last >> 127, 1, "the last span ends at slope 1");
            // The gap before the centre of cell j > 0 lies in its span.
            let bits = |mask: u128| (0..128).filter(move |&g| mask >> g & 1 == 1);
            let spans: Vec<(u32, u32)> = bits(row.first).zip(bits(row.last)).collect();
            for ((first, last), centre) in spans[1..].iter().zip(bits(row.centres)) {
                assert!(*first <= centre && centre <= *last, "depth {d}");
            }
        }
    }
}
