//! A vision cone's cells around the viewer as one mask per row, kept for the cones a
//! [`Fov`](super::Fov) meets again: cutting a view to a cone it knows is one AND per row of
//! the view instead of one cone test (a square root and a few products) per visible cell,
//! which at radius 8 costs about as much as the scan itself.
//!
//! A cone gets a mask only when it comes back (a game whose viewers face a few directions), so
//! a cone that turns a little every frame is tested cell by cell as before. A mask is made
//! with the same test, cell by cell, so both ways keep exactly the same cells. The masks live
//! in a fixed number of slots, allocated once: nothing is allocated when they are replaced.

use crate::options::{ConeTest, VisionCone};

/// The largest radius whose square a mask covers: rows of `2 * MAX_RADIUS + 1` bits.
pub(super) const MAX_RADIUS: u32 = 31;
/// How many masks, and how many cones seen once, are kept.
const SLOTS: usize = 16;
/// The rows of a mask's square.
const SIDE: usize = 2 * MAX_RADIUS as usize + 1;

/// A cone at a radius.
type Key = (VisionCone, u32);

/// The masks of the cones a [`Fov`](super::Fov) met more than once.
#[derive(Clone, Debug, Default)]
pub(super) struct ConeMasks {
    /// Made the first time a cone is cut with; `None` before.
    slots: Option<Box<Slots>>,
}

#[derive(Clone, Debug)]
struct Slots {
    /// The masks kept: bit `i` of row `j` is the cell `(i - r, j - r)` from the viewer.
    masks: [Option<(Key, [u64; SIDE])>; SLOTS],
    /// The slot the next mask goes to (the oldest one).
    next_mask: usize,
    /// Cones met once, without a mask yet.
    seen: [Option<Key>; SLOTS],
    next_seen: usize,
}

impl ConeMasks {
    /// The mask of `cone` at `radius` (rows `0 ..= 2 * radius`), when it is kept or this is
    /// the second time the cone is asked for; `None`: test the cells one by one.
    pub(super) fn mask(&mut self, cone: &VisionCone, radius: u32) -> Option<&[u64]> {
        if radius > MAX_RADIUS {
            return None;
        }
        let key = (*cone, radius);
        let slots = self.slots.get_or_insert_with(|| {
            Box::new(Slots {
                masks: std::array::from_fn(|_| None),
                next_mask: 0,
                seen: [None; SLOTS],
                next_seen: 0,
            })
        });
        let kept = slots
            .masks
            .iter()
            .position(|mask| mask.as_ref().is_some_and(|(kept, _)| *kept == key));
        let slot = match kept {
            Some(slot) => slot,
            None if slots.seen.contains(&Some(key)) => {
                let slot = slots.next_mask;
                slots.next_mask = (slot + 1) % SLOTS;
                slots.masks[slot] = Some((key, cone_rows(cone, radius)));
                slot
            }
            None => {
                slots.seen[slots.next_seen] = Some(key);
                slots.next_seen = (slots.next_seen + 1) % SLOTS;
                return None;
            }
        };
        let (_, rows) = slots.masks[slot].as_ref()?;
        Some(&rows[..=2 * radius as usize])
    }
}

/// The cells of the square of `radius` around the viewer that `cone` keeps, row by row.
fn cone_rows(cone: &VisionCone, radius: u32) -> [u64; SIDE] {
    let test = ConeTest::new(cone);
    let r = i64::from(radius);
    let mut rows = [0; SIDE];
    for (dy, row) in (-r..=r).zip(&mut rows) {
        *row = (-r..=r)
            .filter(|&dx| test.contains(dx, dy))
            .fold(0, |bits, dx| bits | 1 << (dx + r));
    }
    rows
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::options::{FovOptions, VisionCone};
    use crate::shadowcast::test_grids::grids;
    use crate::{Fov, VisibleSet};

    proptest! {
        /// A view cut with a cone's mask (from the second time on) keeps the cells the cone
        /// test keeps one by one (the first time, or a new `Fov`), also after the masks of
        /// other cones have taken every slot.
        #[test]
        fn masks_keep_what_the_cone_test_keeps(
            grid in grids(70, Just(25)),
            viewer in (0u32..70, 0u32..70),
            radius in 0u32..40,
            cones in proptest::collection::vec((0u8..8, 0u8..8), 1..40),
        ) {
            let origin = (viewer.0 % grid.width(), viewer.1 % grid.height());
            let mut fov = Fov::new();
            let (mut masked, mut tested) = (VisibleSet::new(), VisibleSet::new());
            for (facing, width) in cones.iter().chain(&cones).chain(&cones) {
                let cone = VisionCone::degrees(f64::from(*facing) * 45.0, f64::from(*width) * 50.0);
                let options = FovOptions::radius(radius).with_cone(cone);
                fov.compute(&grid, origin, options, &mut masked).unwrap();
                Fov::new().compute(&grid, origin, options, &mut tested).unwrap();
                prop_assert_eq!(masked.iter().collect::<Vec<_>>(), tested.iter().collect::<Vec<_>>());
            }
        }
    }
}
