//! A brute-force reading of the hexagonal FOV rules (`viewshed_core::hex`), written apart
//! from the scan: for every hexagon on the map, exact integer tests of segments against
//! hexagons, against the edges two walls share and the corners three walls share (the
//! interior of the union, not only of each hexagon), and for walls a search over every
//! direction where the answer can change. Slow; the scan is compared with it.
//!
//! Geometry is in the frame `X = x / (sqrt 3 / 2)`, `Y = 2y` of pointy-top hexagons of
//! circumradius 1: canonical `(a, b)` (axial `(q, r)`, or `(r, q)` for flat-top maps, a
//! mirror) has its centre at `(2a + b, 3b)` and its vertices at offsets `(±1, ±1)`, `(0, ±2)`.
//! Points carry a common denominator `s` (`(x, y, s)` is `(x / s, y / s)`), so the end of a
//! segment on a wall's boundary stays exact.
#![allow(dead_code)]

use std::collections::BTreeSet;

use viewshed_core::{FovMode, FovOptions, HexCoords, OpacityGrid, Radius};

type P = (i128, i128);

/// Vertex offsets, counter-clockwise.
const VERTICES: [P; 6] = [(1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1), (0, -2)];
/// Axial neighbour offsets.
const NEIGHBOURS: [(i64, i64); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

fn cross(u: P, v: P) -> i128 {
    u.0 * v.1 - u.1 * v.0
}

fn sub(u: P, v: P) -> P {
    (u.0 - v.0, u.1 - v.1)
}

fn scale(u: P, s: i128) -> P {
    (u.0 * s, u.1 * s)
}

fn centre((a, b): (i64, i64)) -> P {
    (i128::from(2 * a + b), i128::from(3 * b))
}

/// bevy_ecs_tilemap's tile ↔ axial formulas, written out again.
fn tile_to_axial(coords: HexCoords, (x, y): (u32, u32)) -> (i64, i64) {
    let (x, y) = (i64::from(x), i64::from(y));
    let ceil_half = |v: i64| if v < 0 { (v - 1) / 2 } else { (v + 1) / 2 };
    match coords {
        HexCoords::Row | HexCoords::Column => (x, y),
        HexCoords::RowOdd => (x - y / 2, y),
        HexCoords::RowEven => (x - ceil_half(y), y),
        HexCoords::ColumnOdd => (x, y - x / 2),
        HexCoords::ColumnEven => (x, y - ceil_half(x)),
    }
}

fn axial_to_tile(coords: HexCoords, (q, r): (i64, i64)) -> (i64, i64) {
    let ceil_half = |v: i64| if v < 0 { (v - 1) / 2 } else { (v + 1) / 2 };
    match coords {
        HexCoords::Row | HexCoords::Column => (q, r),
        HexCoords::RowOdd => (q + r / 2, r),
        HexCoords::RowEven => (q + ceil_half(r), r),
        HexCoords::ColumnOdd => (q, r + q / 2),
        HexCoords::ColumnEven => (q, r + ceil_half(q)),
    }
}

fn flat(coords: HexCoords) -> bool {
    matches!(
        coords,
        HexCoords::Column | HexCoords::ColumnEven | HexCoords::ColumnOdd
    )
}

/// A map seen from one viewer, in canonical coordinates relative to the viewer.
pub struct HexWorld<'a> {
    pub grid: &'a OpacityGrid,
    pub coords: HexCoords,
    viewer: (i64, i64),
}

impl<'a> HexWorld<'a> {
    pub fn new(grid: &'a OpacityGrid, coords: HexCoords, viewer: (u32, u32)) -> Self {
        Self {
            grid,
            coords,
            viewer: tile_to_axial(coords, viewer),
        }
    }

    /// Canonical offset from the viewer of tile `t`.
    pub fn offset(&self, t: (u32, u32)) -> (i64, i64) {
        let (q, r) = tile_to_axial(self.coords, t);
        let (dq, dr) = (q - self.viewer.0, r - self.viewer.1);
        if flat(self.coords) {
            (dr, dq)
        } else {
            (dq, dr)
        }
    }

    pub fn tile(&self, (a, b): (i64, i64)) -> Option<(u32, u32)> {
        let (dq, dr) = if flat(self.coords) { (b, a) } else { (a, b) };
        let (x, y) = axial_to_tile(self.coords, (self.viewer.0 + dq, self.viewer.1 + dr));
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.grid.contains(x, y).then_some((x, y))
    }

    /// Opaque: a wall on the map or any hexagon off it; never the viewer's own.
    pub fn opaque(&self, h: (i64, i64)) -> bool {
        h != (0, 0) && self.tile(h).is_none_or(|(x, y)| self.grid.is_opaque(x, y))
    }
}

/// Whether the segment `p -> q` (denominator `s`) meets the open hexagon around `c`.
fn meets_interior(p: P, q: P, s: i128, c: P) -> bool {
    // Along p + t (q - p), t in [0, 1], every edge function must be > 0.
    let (mut lo, mut lo_open, mut hi, mut hi_open) = ((0i128, 1i128), false, (1i128, 1i128), false);
    for j in 0..6 {
        let u = scale((c.0 + VERTICES[j].0, c.1 + VERTICES[j].1), s);
        let w = scale(
            (c.0 + VERTICES[(j + 1) % 6].0, c.1 + VERTICES[(j + 1) % 6].1),
            s,
        );
        let e = sub(w, u);
        let (alpha, beta) = (cross(e, sub(p, u)), cross(e, sub(q, p)));
        // alpha + t beta > 0
        if beta == 0 {
            if alpha <= 0 {
                return false;
            }
        } else if beta > 0 {
            let bound = (-alpha, beta); // t > -alpha / beta
            if bound.0 * lo.1 >= lo.0 * bound.1 {
                lo = bound;
                lo_open = true;
            }
        } else {
            let bound = (alpha, -beta); // t < alpha / -beta
            if bound.0 * hi.1 <= hi.0 * bound.1 {
                hi = bound;
                hi_open = true;
            }
        }
    }
    let (l, h) = (lo.0 * hi.1, hi.0 * lo.1);
    l < h || (l == h && !lo_open && !hi_open)
}

/// Whether segment `p -> q` (denominator `s`) meets the open segment `u -> w`.
fn meets_open_segment(p: P, q: P, s: i128, u: P, w: P) -> bool {
    let (u, w) = (scale(u, s), scale(w, s));
    let d = sub(q, p);
    let e = sub(w, u);
    let denom = cross(d, e);
    if denom == 0 {
        if cross(d, sub(u, p)) != 0 {
            return false;
        }
        // Collinear: compare positions along e.
        let along = |x: P| (x.0 - u.0) * e.0 + (x.1 - u.1) * e.1;
        let (a, b) = (along(p), along(q));
        let (lo, hi) = (a.min(b), a.max(b));
        let len = e.0 * e.0 + e.1 * e.1;
        return lo < len && hi > 0 && (lo < hi || lo > 0);
    }
    // p + t d = u + v e: t = cross(u - p, e) / denom, v = cross(u - p, d) / denom.
    let (t, v) = (cross(sub(u, p), e), cross(sub(u, p), d));
    let (t, v, denom) = if denom < 0 {
        (-t, -v, -denom)
    } else {
        (t, v, denom)
    };
    (0..=denom).contains(&t) && v > 0 && v < denom
}

fn on_segment(p: P, q: P, s: i128, x: P) -> bool {
    let x = scale(x, s);
    cross(sub(q, p), sub(x, p)) == 0
        && x.0 >= p.0.min(q.0)
        && x.0 <= p.0.max(q.0)
        && x.1 >= p.1.min(q.1)
        && x.1 <= p.1.max(q.1)
}

/// Every hexagon whose closed hexagon may meet one of `segments` (float bounds with a
/// margin: a superset, each is then tested exactly).
fn candidates(segments: &[(P, P, i128)]) -> BTreeSet<(i64, i64)> {
    let mut out = BTreeSet::new();
    let f = |v: i128, s: i128| v as f64 / s as f64;
    let ys = segments
        .iter()
        .flat_map(|&(p, q, s)| [f(p.1, s), f(q.1, s)]);
    let (min_y, max_y) = ys.fold((f64::MAX, f64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    for b in ((min_y - 3.0) / 3.0).floor() as i64..=((max_y + 3.0) / 3.0).ceil() as i64 {
        let (band_lo, band_hi) = (3.0 * b as f64 - 2.5, 3.0 * b as f64 + 2.5);
        let mut x_range = (f64::MAX, f64::MIN);
        for &(p, q, s) in segments {
            let (px, py, qx, qy) = (f(p.0, s), f(p.1, s), f(q.0, s), f(q.1, s));
            let (t0, t1) = if (qy - py).abs() < 1e-12 {
                if py < band_lo - 0.5 || py > band_hi + 0.5 {
                    continue;
                } else {
                    (0.0, 1.0)
                }
            } else {
                let (a, b) = ((band_lo - py) / (qy - py), (band_hi - py) / (qy - py));
                (a.min(b).max(0.0), a.max(b).min(1.0))
            };
            if t0 > t1 + 1e-9 {
                continue;
            }
            for t in [t0, t1] {
                let x = px + t * (qx - px);
                x_range = (x_range.0.min(x), x_range.1.max(x));
            }
        }
        if x_range.0 > x_range.1 {
            continue;
        }
        let a_lo = ((x_range.0 - 3.0 - b as f64) / 2.0).floor() as i64;
        let a_hi = ((x_range.1 + 3.0 - b as f64) / 2.0).ceil() as i64;
        out.extend((a_lo..=a_hi).map(|a| (a, b)));
    }
    out
}

/// Whether segment `p -> q` (denominator `s`) meets the interior of the union of the
/// opaque hexagons other than `except`.
fn blocked(world: &HexWorld, p: P, q: P, s: i128, except: (i64, i64)) -> bool {
    let wall = |h: (i64, i64)| h != except && world.opaque(h);
    // Nearest first: most blocked segments are blocked near the viewer.
    let mut near: Vec<(i64, i64)> = candidates(&[(p, q, s)])
        .into_iter()
        .filter(|&h| wall(h))
        .collect();
    near.sort_by_key(|&h| distance(h));
    near.into_iter().any(|h| {
        let c = centre(h);
        let corner_of = |n: (i64, i64), x: P| {
            VERTICES.iter().any(|&w| (centre(n).0 + w.0, centre(n).1 + w.1) == x)
        };
        let neighbours = NEIGHBOURS.map(|(da, db)| (h.0 + da, h.1 + db));
        meets_interior(p, q, s, c)
            // A corner inside the union: the hexagons around it are all walls.
            || VERTICES.iter().any(|v| {
                let x = (c.0 + v.0, c.1 + v.1);
                neighbours.iter().filter(|&&n| corner_of(n, x)).all(|&n| wall(n))
                    && on_segment(p, q, s, x)
            })
            // An edge inside the union: the hexagons on both sides are walls.
            || neighbours.iter().any(|&n| {
                let mut shared = VERTICES.iter().map(|v| (c.0 + v.0, c.1 + v.1)).filter(|&x| corner_of(n, x));
                let (u, w) = (shared.next().unwrap(), shared.next().unwrap());
                wall(n) && meets_open_segment(p, q, s, u, w)
            })
    })
}

/// Floor rule: the segment between the centres avoids the opaque union.
pub fn centre_visible(world: &HexWorld, h: (i64, i64)) -> bool {
    !blocked(world, (0, 0), centre(h), 1, h)
}

/// Wall rule: some point of the closed hexagon `h` ends a segment from the viewer's centre
/// that avoids the union of the other opaque hexagons. The directions where the answer can
/// change are those through vertices of nearby hexagons: each of them, and a direction
/// strictly between each two neighbouring ones, is tried.
pub fn reached(world: &HexWorld, h: (i64, i64)) -> bool {
    let c = centre(h);
    let corners: Vec<P> = VERTICES.iter().map(|v| (c.0 + v.0, c.1 + v.1)).collect();
    // Directions within h's angular range: those not strictly outside any of its corners.
    let first = *corners
        .iter()
        .find(|&&u| corners.iter().all(|&w| cross(u, w) >= 0))
        .unwrap();
    let last = *corners
        .iter()
        .find(|&&u| corners.iter().all(|&w| cross(w, u) >= 0))
        .unwrap();
    let inside = |d: P| cross(first, d) >= 0 && cross(d, last) >= 0;
    let segments: Vec<(P, P, i128)> = corners.iter().map(|&u| ((0, 0), u, 1)).collect();
    // Only walls' corners (and h's own) are where the answer can change.
    let mut directions: Vec<P> = candidates(&segments)
        .into_iter()
        .filter(|&n| n == h || world.opaque(n))
        .flat_map(|n| {
            let cn = centre(n);
            VERTICES.map(|v| (cn.0 + v.0, cn.1 + v.1))
        })
        .filter(|&d| inside(d))
        .collect();
    directions.sort_by(|&u, &w| 0.cmp(&cross(u, w)));
    directions.dedup_by(|u, w| cross(*u, *w) == 0);
    let between: Vec<P> = directions
        .windows(2)
        .map(|w| (w[0].0 + w[1].0, w[0].1 + w[1].1))
        .collect();
    directions.into_iter().chain(between).any(|d| {
        entry(c, d).is_some_and(|(num, den)| !blocked(world, (0, 0), scale(d, num), den, h))
    })
}

/// Where the ray `t d` first meets the closed hexagon around `c`: `t = num / den`.
fn entry(c: P, d: P) -> Option<(i128, i128)> {
    let (mut t, mut t_max) = ((0i128, 1i128), None::<(i128, i128)>);
    for j in 0..6 {
        let u = (c.0 + VERTICES[j].0, c.1 + VERTICES[j].1);
        let w = (c.0 + VERTICES[(j + 1) % 6].0, c.1 + VERTICES[(j + 1) % 6].1);
        let e = sub(w, u);
        // cross(e, t d - u) >= 0  <=>  t beta >= gamma
        let (beta, gamma) = (cross(e, d), cross(e, u));
        if beta > 0 {
            if gamma * t.1 > t.0 * beta {
                t = (gamma, beta);
            }
        } else if beta < 0 {
            let bound = (-gamma, -beta); // t <= gamma / beta
            if t_max.is_none_or(|m| bound.0 * m.1 < m.0 * bound.1) {
                t_max = Some(bound);
            }
        } else if gamma > 0 {
            return None;
        }
    }
    t_max.is_none_or(|m| t.0 * m.1 <= m.0 * t.1).then_some(t)
}

/// The hex distance of canonical offset `(a, b)` from the viewer.
pub fn distance((a, b): (i64, i64)) -> u64 {
    a.unsigned_abs()
        .max(b.unsigned_abs())
        .max((a + b).unsigned_abs())
}

/// The centre of canonical offset `(a, b)` in the plane (neighbours 1 apart), as the cone
/// sees it.
pub fn real_position(coords: HexCoords, (a, b): (i64, i64)) -> (f64, f64) {
    let along = a as f64 + b as f64 / 2.0;
    let across = b as f64 * (3f64.sqrt() / 2.0);
    if flat(coords) {
        (across, along)
    } else {
        (along, across)
    }
}

/// Everything the viewer at tile `viewer` sees, by the rules read plainly.
pub fn hex_oracle(
    grid: &OpacityGrid,
    coords: HexCoords,
    viewer: (u32, u32),
    options: FovOptions,
) -> BTreeSet<(u32, u32)> {
    let world = HexWorld::new(grid, coords, viewer);
    let mut seen = BTreeSet::new();
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let h = world.offset((x, y));
            if let Radius::Limited(r) = options.radius
                && distance(h) > u64::from(r)
            {
                continue;
            }
            if let Some(cone) = options.cone {
                let (px, py) = real_position(coords, h);
                if !cone.contains_point(px, py) {
                    continue;
                }
            }
            let wall = world.opaque(h);
            let visible = if h == (0, 0) {
                true
            } else if wall {
                options.light_walls && reached(&world, h)
            } else if options.mode == FovMode::Permissive {
                reached(&world, h)
            } else {
                centre_visible(&world, h)
            };
            if visible {
                seen.insert((x, y));
            }
        }
    }
    seen
}
