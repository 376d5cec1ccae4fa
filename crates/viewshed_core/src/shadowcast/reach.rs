//! How far the scan goes: the radius and its shape turned into a table of the widest column
//! inside the radius at each depth, made once per radius and kept between computations.
//!
//! The widest column never grows with depth, so cells beyond the radius can only shadow
//! cells beyond it too: the scan may simply not read them.

use crate::options::DistanceShape;

/// Which cells a limited radius keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    Unlimited,
    /// `dx*dx + dy*dy <= limit`, `limit = r*(r+1)`.
    Disk(u64),
    /// `max(|dx|, |dy|) <= r`.
    Square(u32),
    /// `|dx| + |dy| <= r`.
    Diamond(u32),
}

impl Reach {
    /// The reach of `radius` (`None`: unlimited) measured in `shape`.
    pub(super) fn new(radius: Option<u32>, shape: DistanceShape) -> Self {
        match radius {
            None => Reach::Unlimited,
            Some(r) => match shape {
                DistanceShape::Euclidean => Reach::Disk(u64::from(r) * (u64::from(r) + 1)),
                DistanceShape::Chebyshev => Reach::Square(r),
                DistanceShape::Manhattan => Reach::Diamond(r),
            },
        }
    }
}

/// The widest column `|col|` inside a reach at each depth, kept between computations so
/// that a viewer whose radius did not change finds it made.
#[derive(Clone, Debug, Default)]
pub(super) struct ReachTable {
    /// The reach the table was made for.
    made_for: Option<Reach>,
    /// `widest[d]` for every depth `d` from 0 to the deepest row inside the reach.
    widest: Vec<u32>,
    /// Whether the reach fits a small window ([`super::compact::fits`]).
    small: bool,
}

impl ReachTable {
    /// Makes the table for `reach`, unless it is made already.
    pub(super) fn make(&mut self, reach: Reach) {
        if self.made_for != Some(reach) {
            self.made_for = Some(reach);
            self.widest.clear();
            match reach {
                Reach::Disk(limit) => self.widest.extend(disk_widest(limit)),
                Reach::Square(r) => self.widest.extend((0..=r).map(|_| r)),
                Reach::Diamond(r) => self.widest.extend((0..=r).map(|d| r - d)),
                Reach::Unlimited => {}
            }
            self.small = reach != Reach::Unlimited && super::compact::fits(&self.widest);
        }
    }

    /// The widest column inside the reach made at each depth (index), up to its deepest
    /// row; `None` when the reach is unlimited.
    pub(super) fn widest(&self) -> Option<&[u32]> {
        (self.made_for != Some(Reach::Unlimited)).then_some(&self.widest[..])
    }

    /// Whether the reach made fits a small window.
    pub(super) fn fits_small_window(&self) -> bool {
        self.small
    }
}

/// `isqrt(limit - d*d)` for `d = 0 ..= isqrt(limit)`, stepping down without a square root
/// per depth. A radius that reaches the table comes from a map's size, so it fits in `u32`.
fn disk_widest(limit: u64) -> impl Iterator<Item = u32> {
    let deepest = limit.isqrt();
    let mut widest = deepest;
    (0..=deepest).map(move |d| {
        let room = limit - d * d;
        while widest * widest > room {
            widest -= 1;
        }
        widest as u32
    })
}
