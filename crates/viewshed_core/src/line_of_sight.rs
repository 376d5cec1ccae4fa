//! Line of sight between two cells by the rules of the field of view: `to` is in sight of
//! `from` exactly when it is in `from`'s unlimited, symmetric view (walls lit).

use crate::grid::OpacityGrid;
use crate::options::{DistanceShape, FovOptions};
use crate::shadowcast::{Fov, FovError};
use crate::visible::VisibleSet;

/// Whether a viewer at `from` sees the cell `to`: true exactly when `to` is in the unlimited
/// field of view of `from` with the default options (symmetric, walls lit). Between two
/// floors the answer is symmetric: `line_of_sight(a, b) == line_of_sight(b, a)`.
///
/// `to` outside the map is never in sight; `from` outside the map is an error. The work is
/// that of a field of view of radius `max(|dx|, |dy|)`; [`LineOfSight`] keeps its scratch
/// space for repeated queries.
///
/// ```
/// use viewshed_core::{line_of_sight, OpacityGrid};
///
/// // A pillar at (4, 2) between (2, 2) and (6, 2).
/// let grid = OpacityGrid::from_fn(9, 5, |x, y| (x, y) == (4, 2));
/// assert!(!line_of_sight(&grid, (2, 2), (6, 2))?);
/// assert!(line_of_sight(&grid, (2, 2), (4, 2))?, "the pillar itself is seen");
/// assert!(line_of_sight(&grid, (2, 2), (6, 4))?);
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
///
/// # Errors
/// [`FovError::OriginOutsideMap`] when `from` is not on the map.
pub fn line_of_sight(
    grid: &OpacityGrid,
    from: (u32, u32),
    to: (u32, u32),
) -> Result<bool, FovError> {
    LineOfSight::new().check(grid, from, to)
}

/// Reusable scratch space for [`line_of_sight`] queries: once warm, a query allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct LineOfSight {
    fov: Fov,
    visible: VisibleSet,
}

impl LineOfSight {
    /// Empty scratch space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a viewer at `from` sees `to` (see [`line_of_sight`]).
    ///
    /// # Errors
    /// [`FovError::OriginOutsideMap`] when `from` is not on the map.
    pub fn check(
        &mut self,
        grid: &OpacityGrid,
        from: (u32, u32),
        to: (u32, u32),
    ) -> Result<bool, FovError> {
        // The square that just holds `to`: a limited radius never changes what is seen inside
        // it, so this is the unlimited view cut to the square.
        let reach = from.0.abs_diff(to.0).max(from.1.abs_diff(to.1));
        let options = FovOptions::radius(reach).with_shape(DistanceShape::Chebyshev);
        self.fov.compute(grid, from, options, &mut self.visible)?;
        Ok(self.visible.contains(to.0, to.1))
    }
}
