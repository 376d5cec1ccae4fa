//! The scan of one sextant, ring after ring, with the exact directions of [`lit`](super::lit).
//!
//! The sextant's hexagons are those at canonical `(a, b)` with `a, b >= 0` (rotated into
//! place by [`Sextant`]); ring `k` is the row `W_i = (k - i, i)`, `i = 0 ..= k`, centres at
//! `(2k - i, 3i)`, in the order of their directions. What the scan relies on (each checked
//! against the brute-force oracle of the tests, on every kind of map):
//!
//! - a segment from the viewer to a centre of ring `k` meets no other hexagon of ring `k`
//!   or beyond, so the lit directions left by rings `< k` decide a floor of ring `k`;
//! - sight reaches a hexagon of ring `k` through its inner neighbours (ring `k - 1`), and
//!   away from the row's middle also through the one row neighbour it faces
//!   ([`Hexagon::front`]): when that neighbour is opaque, only the directions up to the
//!   vertex where the two meet ([`Hexagon::junction`]) still reach it;
//! - the only edges that lie along a ray from the viewer are those between the two middle
//!   hexagons of an odd ring, on the sextant's bisector: when both are opaque that one ray
//!   is cut too ("sight does not pass between two walls that share an edge").

use super::coords::HexCoords;
use super::lit::{Dir, Lit, Span};
use crate::grid::OpacityGrid;

/// The first direction of the sextant (toward canonical `(1, 0)`).
const FIRST: Dir = Dir::new(1, 0);
/// The last direction of the sextant (toward canonical `(0, 1)`).
const LAST: Dir = Dir::new(1, 3);
/// The sextant's bisector, along the edges between the middle hexagons of odd rings.
const BISECTOR: Dir = Dir::new(1, 1);

/// One of the six sextants around the viewer: where its canonical `(a, b)` lie on the map.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sextant(pub u8);

impl Sextant {
    /// The canonical offset from the viewer of sextant-0 position `(a, b)` turned by
    /// `60 * self` degrees counter-clockwise.
    #[inline(always)]
    pub fn turn(self, (a, b): (i64, i64)) -> (i64, i64) {
        match self.0 % 6 {
            0 => (a, b),
            1 => (-b, a + b),
            2 => (-a - b, a),
            3 => (-a, -b),
            4 => (b, -a - b),
            _ => (a + b, -a),
        }
    }
}

/// One hexagon of ring `k` of a sextant: where it is and which directions reach it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hexagon {
    /// Its ring.
    pub k: i64,
    /// Its index in the ring's row.
    pub i: i64,
    /// The direction of its centre.
    pub centre: Dir,
    /// Its first and last directions (vertices), not clipped to the sextant.
    pub shadow: Span,
    /// The row neighbour whose shared edge faces the viewer, if any.
    pub front: Option<i64>,
    /// The vertex shared by the inner edges and the front edge.
    pub junction: Dir,
}

impl Hexagon {
    #[inline(always)]
    pub fn new(k: i64, i: i64) -> Self {
        let (cx, cy) = (2 * k - i, 3 * i);
        let at = |dx: i64, dy: i64| Dir::new(cx + dx, cy + dy);
        let (bottom, top, upper_left, lower_right) = (at(0, -2), at(0, 2), at(-1, 1), at(1, -1));
        let (shadow, front, junction) = if 2 * i < k - 1 {
            // Near the first edge of the sextant: the edge toward W_(i+1) faces the viewer.
            (
                Span {
                    from: bottom,
                    to: top,
                },
                Some(i + 1),
                upper_left,
            )
        } else if 2 * i > k + 1 {
            (
                Span {
                    from: lower_right,
                    to: upper_left,
                },
                Some(i - 1),
                bottom,
            )
        } else {
            (
                Span {
                    from: bottom,
                    to: upper_left,
                },
                None,
                bottom,
            )
        };
        Self {
            k,
            i,
            centre: Dir::new(cx, cy),
            shadow,
            front,
            junction,
        }
    }

    /// The directions of the sextant that reach this hexagon when its front neighbour is
    /// `front_opaque` (a closed span, or `None` when it lies outside the sextant).
    #[inline(always)]
    pub fn reach(&self, front_opaque: bool) -> Option<Span> {
        let (mut from, mut to) = (self.shadow.from, self.shadow.to);
        if front_opaque {
            match self.front {
                Some(j) if j > self.i => to = self.junction,
                Some(_) => from = self.junction,
                None => {}
            }
        }
        if from.before(FIRST) {
            from = FIRST;
        }
        if LAST.before(to) {
            to = LAST;
        }
        from.not_after(to).then_some(Span { from, to })
    }
}

/// What one computation scans: the map, its coordinate system, the viewer and how far.
#[derive(Clone, Copy)]
pub(crate) struct HexScan<'a> {
    pub grid: &'a OpacityGrid,
    pub coords: HexCoords,
    /// The viewer's axial position.
    pub origin: (i64, i64),
    /// The last ring to scan.
    pub last_ring: u64,
    pub light_walls: bool,
    /// Floors count as seen when sight reaches any part of them, as walls do.
    pub permissive: bool,
}

/// The scratch space of the scan.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    lit: Lit,
    /// The open intervals that the walls of the current ring hide.
    shadows: Vec<Span>,
}

impl Scratch {
    /// The directions still lit after the last scan.
    pub fn lit(&self) -> &Lit {
        &self.lit
    }
}

impl HexScan<'_> {
    /// The tile at sextant-0 position `(a, b)` of `sextant`, if it lies on the map.
    #[inline(always)]
    fn tile(&self, sextant: Sextant, ab: (i64, i64)) -> Option<(u32, u32)> {
        let (da, db) = sextant.turn(ab);
        let (dq, dr) = if self.coords.is_pointy_top() {
            (da, db)
        } else {
            (db, da)
        };
        let tile = self
            .coords
            .from_axial((self.origin.0 + dq, self.origin.1 + dr))?;
        self.grid.contains(tile.0, tile.1).then_some(tile)
    }

    /// Whether the hexagon at `(a, b)` blocks sight (off the map: yes).
    #[inline(always)]
    fn opaque(&self, sextant: Sextant, ab: (i64, i64)) -> bool {
        self.tile(sextant, ab)
            .is_none_or(|(x, y)| self.grid.is_opaque(x, y))
    }

    /// Scans one sextant, calling `see` with every tile it finds visible (a tile on the
    /// sextant's edges may come twice, once from each sextant).
    pub fn sextant(&self, sextant: Sextant, scratch: &mut Scratch, mut see: impl FnMut(u32, u32)) {
        let Scratch { lit, shadows } = scratch;
        lit.reset(FIRST, LAST);
        let mut k = 1i64;
        while !lit.is_empty() && k as u64 <= self.last_ring {
            shadows.clear();
            let mut next_i = 0;
            for index in 0..lit.spans().len() {
                let (first, last) = hexagons_of(k, lit.spans()[index]);
                for i in first.max(next_i)..=last {
                    self.look_at(sextant, Hexagon::new(k, i), lit, shadows, &mut see);
                }
                next_i = next_i.max(last + 1);
            }
            lit.cut(shadows, self.bisector_cut(sextant, k).then_some(BISECTOR));
            k += 1;
        }
    }

    /// Decides one hexagon of the current ring and records its shadow.
    #[inline(always)]
    fn look_at(
        &self,
        sextant: Sextant,
        hex: Hexagon,
        lit: &Lit,
        shadows: &mut Vec<Span>,
        see: &mut impl FnMut(u32, u32),
    ) {
        let ring = hex.k;
        let tile = self.tile(sextant, (ring - hex.i, hex.i));
        let opaque = tile.is_none_or(|(x, y)| self.grid.is_opaque(x, y));
        if opaque {
            shadows.push(hex.shadow);
        }
        let Some((x, y)) = tile else { return };
        let visible = if opaque && !self.light_walls {
            false
        } else if !opaque && !self.permissive {
            lit.contains(hex.centre)
        } else {
            let front_opaque = hex
                .front
                .is_some_and(|j| self.opaque(sextant, (ring - j, j)));
            hex.reach(front_opaque)
                .is_some_and(|s| lit.meets(s.from, s.to))
        };
        if visible {
            see(x, y);
        }
    }

    /// Whether the two middle hexagons of ring `k` are both opaque and so cut the bisector.
    fn bisector_cut(&self, sextant: Sextant, k: i64) -> bool {
        let j = (k - 1) / 2;
        k % 2 == 1 && self.opaque(sextant, (k - j, j)) && self.opaque(sextant, (k - j - 1, j + 1))
    }
}

/// The indices of ring `k`'s hexagons that may meet the directions of `span` (a few more
/// is harmless: each hexagon is tested exactly).
#[inline(always)]
fn hexagons_of(k: i64, span: Span) -> (i64, i64) {
    // The ray `d` crosses the row's line `3x + y = 6k` at index `2k * d.y / (3 d.x + d.y)`;
    // a hexagon's vertices lie within 4/3 of its own index.
    let index = |d: Dir| {
        let (num, den) = (
            2 * i128::from(k) * i128::from(d.y),
            3 * i128::from(d.x) + i128::from(d.y),
        );
        num.div_euclid(den) as i64
    };
    ((index(span.from) - 2).max(0), (index(span.to) + 3).min(k))
}
