//! How far the scan goes: the radius and its shape turned into a deepest row and, row by
//! row, the widest column inside the radius.
//!
//! The widest column never grows with depth, so cells beyond the radius can only shadow
//! cells beyond it too: the scan may simply not read them.

use crate::options::DistanceShape;

/// Which cells a limited radius keeps.
#[derive(Clone, Copy)]
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

    /// The deepest row with a cell inside the reach, at most `map_depth`.
    pub(super) fn max_depth(self, map_depth: u32) -> u32 {
        match self {
            // Depth r+1 is beyond the disk: (r+1)^2 > r*(r+1).
            Reach::Disk(limit) => map_depth.min(limit.isqrt() as u32),
            Reach::Square(r) | Reach::Diamond(r) => map_depth.min(r),
            Reach::Unlimited => map_depth,
        }
    }
}

/// The widest column inside the reach, row after row of one quadrant.
pub(super) struct WidestColumn {
    reach: Reach,
    /// For a disk: the widest column at the last depth asked (at depth 1 it is r itself).
    disk: u64,
}

impl WidestColumn {
    /// Starts before depth 1.
    pub(super) fn new(reach: Reach) -> Self {
        let disk = match reach {
            Reach::Disk(limit) => limit.isqrt(),
            _ => 0,
        };
        Self { reach, disk }
    }

    /// The widest column `|col|` inside the reach at `depth` (`None`: no limit). Depths must
    /// be asked in increasing order, each at most the reach's `max_depth`.
    #[inline(always)]
    pub(super) fn at_depth(&mut self, depth: u32) -> Option<i64> {
        match self.reach {
            Reach::Unlimited => None,
            Reach::Disk(limit) => {
                let room = limit - u64::from(depth) * u64::from(depth);
                while self.disk * self.disk > room {
                    self.disk -= 1;
                }
                Some(self.disk as i64)
            }
            Reach::Square(r) => Some(i64::from(r)),
            Reach::Diamond(r) => Some(i64::from(r - depth)),
        }
    }
}
