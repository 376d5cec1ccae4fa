//! Field of view on hexagonal maps, exact and symmetric, in the tile positions of
//! bevy_ecs_tilemap's six hexagonal coordinate systems ([`HexCoords`]).
//!
//! # The rules
//!
//! - Hexagons are regular. The viewer looks from the centre of its hexagon, which never
//!   blocks sight and is always visible. Hexagons off the map are opaque and never reported.
//! - A **floor** (transparent hexagon) `B` is visible from `A` exactly when the segment
//!   between their centres does not meet the interior of the union of the opaque hexagons.
//!   Sight may graze one wall's edge or corner, but not pass along the edge two walls share
//!   (that edge is inside their union). The rule is symmetric: if floor `A` sees floor `B`,
//!   `B` sees `A`.
//! - A **wall** (opaque hexagon) `W` is visible (with `light_walls`, the default) exactly
//!   when some point of the closed hexagon `W` is the end of a segment from `A`'s centre that
//!   does not meet the interior of the union of the *other* opaque hexagons. A single
//!   reached corner is enough, as a grazing ray is enough for a floor. Without
//!   `light_walls`, walls are not reported.
//! - [`FovMode::Permissive`] applies the wall rule to floors too: a floor is seen when sight
//!   reaches any point of it (a superset of the symmetric view, no longer symmetric).
//! - A [`Radius::Limited`] `r` keeps the hexagons at hex distance `<= r` (fewest steps between
//!   neighbours, [`hex_distance`]); it only cuts the unlimited view. Every
//!   [`DistanceShape`](crate::DistanceShape) means hex distance here: on a hexagonal map
//!   the square and diamond shapes have no meaning of their own, and the Euclidean disk
//!   through centres differs from the hexagon by a few cells only, so the shape is ignored
//!   rather than turned into an error a game would have to handle.
//! - A [`VisionCone`](crate::VisionCone) keeps the hexagons whose centre, in the true Euclidean plane of the
//!   layout (pointy-top for the `Row` systems, flat-top for the `Column` ones), lies inside
//!   it; angles count from `+x` toward `+y` (growing tile `y`, which is up in
//!   bevy_ecs_tilemap's world space).
//!
//! # How it is computed
//!
//! No float takes part in a visibility decision. An affine map keeps "a segment meets the
//! interior of a polygon", and `X = x / (sqrt(3) / 2)`, `Y = y / (1 / 2)` sends the centres of
//! pointy-top hexagons of circumradius 1 to the integer points `(2q + r, 3r)` and their
//! vertices to the integer offsets `(±1, ±1)`, `(0, ±2)`; flat-top maps are the same with
//! the axes swapped (a mirror, which changes no visibility). The plane around the viewer is
//! cut into six sextants, each scanned ring by ring outward (a hexagon's blockers all lie on
//! nearer rings), keeping the directions that sight still travels along as exact closed
//! intervals of integer vectors compared by cross products (see `scan` and `lit`). Nothing
//! recurses and, once [`HexFov`]'s buffers and the [`VisibleSet`] have grown, nothing
//! allocates.
//!
//! | module | its one job |
//! |---|---|
//! | `coords` | [`HexCoords`]: tile positions ↔ axial coordinates, [`hex_distance`] |
//! | `lit` | the lit directions of a sextant and the shadows walls cut out of them |
//! | `scan` | one sextant, ring by ring: which hexagons are seen, which directions remain |
//! | this one | the public API: the window, the six sextants, the cone |

mod coords;
mod lit;
mod scan;

pub use coords::{HexCoords, hex_distance};

use crate::grid::OpacityGrid;
use crate::options::{ConeTest, FovMode, FovOptions, Radius};
use crate::shadowcast::{FovError, origin_on_map};
use crate::visible::{VisibleSet, Window};

use coords::{axial_distance, canonical, real_position};
use scan::{HexScan, Hexagon, Scratch, Sextant};

/// Reusable scratch space for hexagonal fields of view (the hexagonal twin of
/// [`Fov`](crate::Fov)): keep one per thread and call [`HexFov::compute`] as often as
/// needed; once warm it allocates nothing.
///
/// ```
/// use viewshed_core::{FovOptions, HexCoords, HexFov, OpacityGrid, VisibleSet};
///
/// // A wall at (3, 2) east of the viewer at (1, 2), odd rows shifted right.
/// let grid = OpacityGrid::from_fn(7, 5, |x, y| (x, y) == (3, 2));
/// let mut fov = HexFov::new();
/// let mut visible = VisibleSet::new();
/// fov.compute(&grid, HexCoords::RowOdd, (1, 2), FovOptions::unlimited(), &mut visible)?;
/// assert!(visible.contains(3, 2), "the wall is lit");
/// assert!(!visible.contains(5, 2), "what is behind it is hidden");
/// assert!(visible.contains(5, 0) && visible.contains(1, 2));
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct HexFov {
    scratch: Scratch,
}

/// Computes the hexagonal field of view of a viewer at tile `origin` into a new
/// [`VisibleSet`] (tile positions of `coords`). A loop over many viewers should reuse a
/// [`HexFov`] and a [`VisibleSet`] instead.
///
/// ```
/// use viewshed_core::{hex_field_of_view, FovOptions, HexCoords, OpacityGrid};
///
/// let grid = OpacityGrid::new(9, 9);
/// let visible = hex_field_of_view(&grid, HexCoords::ColumnEven, (4, 4), FovOptions::radius(1))?;
/// assert_eq!(visible.count(), 7, "the viewer and its six neighbours");
/// # Ok::<(), viewshed_core::FovError>(())
/// ```
///
/// # Errors
/// [`FovError::OriginOutsideMap`] when `origin` is not on the map.
pub fn hex_field_of_view(
    grid: &OpacityGrid,
    coords: HexCoords,
    origin: (u32, u32),
    options: FovOptions,
) -> Result<VisibleSet, FovError> {
    let mut visible = VisibleSet::new();
    HexFov::new().compute(grid, coords, origin, options, &mut visible)?;
    Ok(visible)
}

/// Whether the centres of tiles `a` and `b` see each other: the segment between them does
/// not meet the interior of the union of the opaque hexagons other than `a`'s and `b`'s.
/// Symmetric (`hex_line_of_sight(.., a, b) == hex_line_of_sight(.., b, a)`); between two
/// floors it is exactly the floor rule of the field of view. A tile off the map sees
/// nothing. [`HexFov::line_of_sight`] reuses its scratch space.
///
/// ```
/// use viewshed_core::{hex_line_of_sight, HexCoords, OpacityGrid};
///
/// let grid = OpacityGrid::from_fn(7, 3, |x, y| (x, y) == (3, 1));
/// assert!(!hex_line_of_sight(&grid, HexCoords::Row, (1, 1), (5, 1)));
/// assert!(hex_line_of_sight(&grid, HexCoords::Row, (1, 1), (3, 1)), "the wall itself");
/// assert!(!hex_line_of_sight(&grid, HexCoords::Row, (1, 1), (5, 0)), "through the wall too");
/// assert!(hex_line_of_sight(&grid, HexCoords::Row, (1, 1), (3, 0)), "past its corner");
/// ```
pub fn hex_line_of_sight(
    grid: &OpacityGrid,
    coords: HexCoords,
    a: (u32, u32),
    b: (u32, u32),
) -> bool {
    HexFov::new().line_of_sight(grid, coords, a, b)
}

impl HexFov {
    /// Empty scratch space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes what a viewer at tile `origin` sees on `grid`, whose tile positions are those
    /// of `coords`, and stores it in `visible` (tile positions too), replacing what it held.
    /// See the [module docs](self) for the rules.
    ///
    /// # Errors
    /// [`FovError::OriginOutsideMap`] when `origin` is not on the map; `visible` is then
    /// empty.
    pub fn compute(
        &mut self,
        grid: &OpacityGrid,
        coords: HexCoords,
        origin: (u32, u32),
        options: FovOptions,
        visible: &mut VisibleSet,
    ) -> Result<(), FovError> {
        origin_on_map(grid, origin, visible)?;
        let (ox, oy) = origin;
        let farthest = farthest_ring(grid, coords, origin);
        let (last_ring, window) = match options.radius {
            Radius::Limited(r) if u64::from(r) < farthest => {
                (u64::from(r), square_window(grid, origin, r))
            }
            _ => (
                farthest,
                Window {
                    x: 0,
                    y: 0,
                    width: grid.width(),
                    height: grid.height(),
                },
            ),
        };
        visible.reset(window);
        visible.rows_mut().set(oy - window.y, ox - window.x);
        let scan = HexScan {
            grid,
            coords,
            origin: coords.to_axial(origin),
            last_ring,
            light_walls: options.light_walls,
            permissive: options.mode == FovMode::Permissive,
        };
        for sextant in 0..6 {
            scan.sextant(Sextant(sextant), &mut self.scratch, |x, y| {
                if window.contains(x, y) {
                    visible.rows_mut().set(y - window.y, x - window.x);
                }
            });
        }
        if let Some(cone) = options.cone.filter(|c| !c.is_full()) {
            let test = ConeTest::new(&cone);
            let viewer = coords.to_axial(origin);
            visible.retain(|x, y| {
                let (q, r) = coords.to_axial((x, y));
                let (px, py) =
                    real_position(coords, canonical(coords, (q - viewer.0, r - viewer.1)));
                test.contains_point(px, py)
            });
        }
        Ok(())
    }

    /// [`hex_line_of_sight`] with this scratch space: once warm, a query allocates nothing.
    pub fn line_of_sight(
        &mut self,
        grid: &OpacityGrid,
        coords: HexCoords,
        a: (u32, u32),
        b: (u32, u32),
    ) -> bool {
        if !grid.contains(a.0, a.1) || !grid.contains(b.0, b.1) {
            return false;
        }
        let (from, to) = (coords.to_axial(a), coords.to_axial(b));
        let k = axial_distance(from, to);
        if k <= 1 {
            return true;
        }
        let delta = canonical(coords, (to.0 - from.0, to.1 - from.1));
        let (sextant, (_, i)) = sextant_of(delta);
        let scan = HexScan {
            grid,
            coords,
            origin: from,
            last_ring: k - 1,
            light_walls: true,
            permissive: false,
        };
        scan.sextant(sextant, &mut self.scratch, |_, _| {});
        self.scratch
            .lit()
            .contains(Hexagon::new(k as i64, i).centre)
    }
}

/// The sextant holding canonical offset `delta` (not zero) and its position `(a, b)` there.
fn sextant_of(delta: (i64, i64)) -> (Sextant, (i64, i64)) {
    let mut ab = delta;
    for sextant in 0..6 {
        if ab.0 > 0 && ab.1 >= 0 {
            return (Sextant(sextant), ab);
        }
        // Turn back by 60 degrees.
        ab = (ab.0 + ab.1, -ab.0);
    }
    (Sextant(0), ab)
}

/// One more than the hex distance from `origin` to the farthest tile of the map: rings
/// beyond hold no tile.
fn farthest_ring(grid: &OpacityGrid, coords: HexCoords, origin: (u32, u32)) -> u64 {
    let viewer = coords.to_axial(origin);
    let (right, bottom) = (
        grid.width().saturating_sub(1),
        grid.height().saturating_sub(1),
    );
    [(0, 0), (right, 0), (0, bottom), (right, bottom)]
        .map(|corner| axial_distance(viewer, coords.to_axial(corner)))
        .into_iter()
        .max()
        .unwrap_or(0)
        + 1
}

/// The tiles within `r` steps of `origin` lie within `r` columns and rows of it in every
/// system: the square around it clipped to the map.
fn square_window(grid: &OpacityGrid, (ox, oy): (u32, u32), r: u32) -> Window {
    let (x, y) = (ox.saturating_sub(r), oy.saturating_sub(r));
    Window {
        x,
        y,
        width: ox.saturating_add(r).min(grid.width() - 1) - x + 1,
        height: oy.saturating_add(r).min(grid.height() - 1) - y + 1,
    }
}
