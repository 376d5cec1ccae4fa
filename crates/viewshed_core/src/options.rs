//! What one field-of-view computation is asked for: how far ([`Radius`]) and in which shape
//! ([`DistanceShape`]), in which directions ([`VisionCone`]), whether walls light up, and which
//! floors count as seen ([`FovMode`]). Plain data, no Bevy.

use std::f64::consts::{FRAC_PI_4, PI, TAU};
use std::hash::{Hash, Hasher};

/// How far a viewer sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum Radius {
    /// Cells within `r` of the viewer in the options' [`DistanceShape`] (by default
    /// `dx*dx + dy*dy <= r*(r+1)`, a disk of radius `r + 1/2` through cell centres).
    /// `Limited(0)` sees only the viewer's own cell.
    Limited(u32),
    /// No limit: only walls and the map's edge stop sight.
    #[default]
    Unlimited,
}

impl std::fmt::Display for Radius {
    /// The number of cells, or `unlimited`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Radius::Limited(r) => write!(f, "{r}"),
            Radius::Unlimited => f.write_str("unlimited"),
        }
    }
}

impl From<u32> for Radius {
    /// `Radius::Limited(r)`.
    fn from(r: u32) -> Self {
        Radius::Limited(r)
    }
}

/// The shape of "within the radius": which cells a [`Radius::Limited`] keeps.
///
/// Whatever the shape, cells beyond it are simply not reported: the radius never changes
/// what is visible inside it (radius `r` = the unlimited view cut to the shape).
///
/// ```text
/// radius 2:  Euclidean   Chebyshev   Manhattan
///               ...        .....         .
///              .....       .....        ...
///              ..@..       ..@..       ..@..
///              .....       .....        ...
///               ...        .....         .
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum DistanceShape {
    /// `dx*dx + dy*dy <= r*(r+1)`: a disk through cell centres, round on screen.
    #[default]
    Euclidean,
    /// `max(|dx|, |dy|) <= r`: a square, as far diagonally as straight (8-way movement).
    Chebyshev,
    /// `|dx| + |dy| <= r`: a diamond, as far as a 4-way walk.
    Manhattan,
}

impl DistanceShape {
    /// Whether the offset `(dx, dy)` from the viewer is within radius `r` in this shape.
    ///
    /// ```
    /// use viewshed_core::DistanceShape;
    ///
    /// assert!(DistanceShape::Chebyshev.contains(3, -3, 3));
    /// assert!(!DistanceShape::Manhattan.contains(2, -2, 3));
    /// assert!(DistanceShape::Euclidean.contains(3, 1, 3)); // 9 + 1 <= 3 * 4
    /// ```
    pub fn contains(self, dx: i64, dy: i64, r: u32) -> bool {
        let (ax, ay, r) = (
            u128::from(dx.unsigned_abs()),
            u128::from(dy.unsigned_abs()),
            u128::from(r),
        );
        match self {
            DistanceShape::Euclidean => ax * ax + ay * ay <= r * (r + 1),
            DistanceShape::Chebyshev => ax.max(ay) <= r,
            DistanceShape::Manhattan => ax + ay <= r,
        }
    }
}

/// Which transparent cells count as seen. Walls are the same in both modes.
///
/// What `@` sees behind two pillars (`fov_ascii --permissive` draws the right one):
///
/// ```text
/// map            Symmetric      Permissive
/// @..........    @..........    @..........
/// ...#.......    ...#  .....    ...#.......
/// .......#...    .....          .....     .
/// ...........    .......        .......
/// ```
/// Permissive adds the floors that the lit sector crosses without covering their centre: the
/// edges of the pillars' shadows, and a far cell that a thin sliver of light reaches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum FovMode {
    /// Albert Ford's rule: a floor is seen when its **centre** is inside the lit sector. If
    /// floor A sees floor B, B sees A.
    #[default]
    Symmetric,
    /// A floor is seen when the lit sector crosses it at all (the cells the scan covers, lit
    /// the way walls are). Sees more (a superset of the symmetric view, the extra cells all
    /// floors, the same walls) at the price of symmetry: A may see B while B does not see A.
    /// Still exact, still invariant under the grid's rotations and mirrors, and a radius
    /// still only cuts the view to its shape.
    Permissive,
}

/// A vision cone: the viewer sees only cells whose centre lies within `width / 2` of the
/// `facing` direction (angles in radians; 0 faces +x, `PI / 2` faces +y, counter-clockwise).
///
/// The viewer's own cell is always seen. A cell exactly on the cone's edge is inside: the test
/// allows a rounding error of 1e-9 radians, so a 90-degree cone facing a grid direction keeps
/// both diagonals (angles are `f64` for that reason: an `f32` angle is off by up to 1e-7).
/// A `width` of `2 * PI` or more sees all around; 0 sees a single ray. The quadrants of the
/// scan that the cone cannot reach are not scanned at all.
///
/// Angles that are not numbers are normalised, never a reason to recompute
/// ([`VisionCone::facing`], [`VisionCone::width`]):
///
/// | value | counts as | sees |
/// |---|---|---|
/// | `facing` NaN, +inf or -inf | 0 | as facing +x |
/// | `facing` -0.0 | 0.0 | as facing +x |
/// | `width` NaN, -inf, negative or -0.0 | 0.0 | its own cell and a single ray |
/// | `width` +inf or above `2 * PI` | `2 * PI` | all around |
///
/// The cell test and the choice of quadrants to scan both use these values, and so do
/// equality and hashing: a NaN cone equals itself and 0.0 equals -0.0, so an unchanged cone
/// never looks changed.
///
/// The cone only takes cells away: inside it, the view is exactly the view without it.
///
/// ```
/// use viewshed_core::VisionCone;
///
/// let east = VisionCone::toward_degrees(1, 0, 90.0); // a 90-degree cone facing +x
/// assert!(east.contains(5, 0));
/// assert!(east.contains(3, 3) && east.contains(3, -3)); // the diagonals are its edges
/// assert!(!east.contains(2, 3));
/// assert!(!east.contains(-1, 0));
/// ```
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct VisionCone {
    /// The direction the viewer faces, in radians (0 = +x, counter-clockwise).
    pub facing: f64,
    /// The full opening angle, in radians.
    pub width: f64,
}

/// Rounding allowance of the cone test, in radians.
const CONE_EPSILON: f64 = 1e-9;

impl VisionCone {
    /// A cone facing `facing` radians, `width` radians wide (its fields; the same as
    /// [`radians`](Self::radians)).
    pub const fn new(facing: f64, width: f64) -> Self {
        Self { facing, width }
    }

    /// A cone facing `facing` radians, `width` radians wide.
    pub const fn radians(facing: f64, width: f64) -> Self {
        Self::new(facing, width)
    }

    /// A cone facing `facing` degrees, `width` degrees wide.
    pub fn degrees(facing: f64, width: f64) -> Self {
        Self::new(facing.to_radians(), width.to_radians())
    }

    /// A cone facing the direction of the grid step `(dx, dy)` (e.g. `(1, 1)` is the +x +y
    /// diagonal), `width` radians wide. `(0, 0)` faces +x.
    pub fn toward_radians(dx: i32, dy: i32, width: f64) -> Self {
        let facing = if (dx, dy) == (0, 0) {
            0.0
        } else {
            f64::from(dy).atan2(f64::from(dx))
        };
        Self::new(facing, width)
    }

    /// A cone facing the direction of the grid step `(dx, dy)`, `width` degrees wide.
    /// `(0, 0)` faces +x.
    pub fn toward_degrees(dx: i32, dy: i32, width: f64) -> Self {
        Self::toward_radians(dx, dy, width.to_radians())
    }

    /// [`toward_radians`](Self::toward_radians): its width is in radians, which its name did
    /// not say.
    #[deprecated(note = "use `toward_radians` (or `toward_degrees`): the unit is in the name")]
    pub fn toward(dx: i32, dy: i32, width: f64) -> Self {
        Self::toward_radians(dx, dy, width)
    }

    /// The facing the cone is tested with: a NaN or infinite facing counts as 0 (+x), and
    /// -0.0 as 0.0.
    pub fn facing(&self) -> f64 {
        if self.facing.is_finite() {
            self.facing + 0.0
        } else {
            0.0
        }
    }

    /// The opening the cone is tested with, in `0 ..= 2 * PI`: a NaN or negative width
    /// counts as 0 (a single ray), +infinity as `2 * PI` (all around).
    pub fn width(&self) -> f64 {
        if self.width.is_nan() || self.width <= 0.0 {
            0.0
        } else {
            self.width.min(TAU)
        }
    }

    /// Whether the cone sees in every direction.
    pub fn is_full(&self) -> bool {
        self.width() >= TAU - CONE_EPSILON
    }

    /// Half the opening, in `0 ..= PI`.
    fn half(&self) -> f64 {
        (self.width() / 2.0).clamp(0.0, PI)
    }

    /// The angle from the facing direction to `direction`, in `0 ..= PI`.
    fn off_axis(&self, direction: f64) -> f64 {
        let diff = (direction - self.facing()).rem_euclid(TAU);
        diff.min(TAU - diff)
    }

    /// Whether the centre of the cell at offset `(dx, dy)` from the viewer lies inside the
    /// cone. The viewer's own cell (`(0, 0)`) always does.
    pub fn contains(&self, dx: i64, dy: i64) -> bool {
        ConeTest::new(self).contains(dx, dy)
    }

    /// Whether the point `(x, y)` (relative to the viewer, in any unit) lies inside the cone:
    /// the test [`contains`](Self::contains) makes for cell centres, for the centres of
    /// hexagons, which are not on an integer grid. The viewer's own point always does.
    ///
    /// ```
    /// use viewshed_core::VisionCone;
    ///
    /// let cone = VisionCone::degrees(30.0, 60.0); // from 0 to 60 degrees
    /// assert!(cone.contains_point(0.5, 0.75f64.sqrt())); // exactly 60 degrees: on the edge
    /// assert!(!cone.contains_point(-0.5, 0.75f64.sqrt()));
    /// ```
    pub fn contains_point(&self, x: f64, y: f64) -> bool {
        ConeTest::new(self).contains_point(x, y)
    }

    /// Whether the cone reaches into the 90-degree sector centred on `center` radians (a scan
    /// quadrant, edges included).
    pub(crate) fn reaches_sector(&self, center: f64) -> bool {
        self.is_full() || self.off_axis(center) <= self.half() + FRAC_PI_4 + CONE_EPSILON
    }
}

/// The cone test prepared once for many cells: a cell is inside when the cosine of its angle
/// to the facing direction is at least the cosine of half the opening (plus the allowance),
/// which needs no trigonometry per cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConeTest {
    full: bool,
    cos_facing: f64,
    sin_facing: f64,
    /// cos(min(half + allowance, PI)), lowered by a last rounding allowance.
    threshold: f64,
}

impl ConeTest {
    pub(crate) fn new(cone: &VisionCone) -> Self {
        let limit = (cone.half() + CONE_EPSILON).min(PI);
        Self {
            full: cone.is_full(),
            cos_facing: cone.facing().cos(),
            sin_facing: cone.facing().sin(),
            threshold: limit.cos() - 1e-12,
        }
    }

    #[inline]
    pub(crate) fn contains(&self, dx: i64, dy: i64) -> bool {
        self.contains_point(dx as f64, dy as f64)
    }

    /// [`contains`](Self::contains) for a point anywhere in the plane (a hexagon's centre).
    #[inline]
    pub(crate) fn contains_point(&self, x: f64, y: f64) -> bool {
        if self.full || (x == 0.0 && y == 0.0) {
            return true;
        }
        x * self.cos_facing + y * self.sin_facing >= self.threshold * (x * x + y * y).sqrt()
    }
}

impl PartialEq for VisionCone {
    /// Cones are equal when they see the same: compared by [`facing`](Self::facing) and
    /// [`width`](Self::width), so NaN cones equal themselves and 0.0 equals -0.0.
    fn eq(&self, other: &Self) -> bool {
        self.facing().to_bits() == other.facing().to_bits()
            && self.width().to_bits() == other.width().to_bits()
    }
}

impl Eq for VisionCone {}

impl Hash for VisionCone {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.facing().to_bits().hash(state);
        self.width().to_bits().hash(state);
    }
}

/// Options of one field-of-view computation.
///
/// ```
/// use viewshed_core::{VisionCone, DistanceShape, FovMode, FovOptions};
///
/// let guard = FovOptions::radius(8)
///     .with_shape(DistanceShape::Chebyshev)
///     .with_cone(VisionCone::degrees(90.0, 120.0))
///     .with_mode(FovMode::Permissive)
///     .with_light_walls(false);
/// assert_eq!(FovOptions::default(), FovOptions::unlimited());
/// # let _ = guard;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct FovOptions {
    /// How far the viewer sees.
    pub radius: Radius,
    /// The shape a limited radius keeps (a disk by default).
    pub shape: DistanceShape,
    /// Whether opaque cells that sight reaches are visible (true, the default: walls light
    /// up) or not reported (false: only transparent cells and the viewer's own cell).
    pub light_walls: bool,
    /// Sees only inside this cone (`None`, the default: all around).
    pub cone: Option<VisionCone>,
    /// Which floors count as seen (symmetric by default).
    pub mode: FovMode,
}

impl Default for FovOptions {
    fn default() -> Self {
        Self::unlimited()
    }
}

impl FovOptions {
    /// Unlimited radius, walls lit, all around, symmetric.
    pub const fn unlimited() -> Self {
        Self {
            radius: Radius::Unlimited,
            shape: DistanceShape::Euclidean,
            light_walls: true,
            cone: None,
            mode: FovMode::Symmetric,
        }
    }

    /// Radius `r` (see [`Radius::Limited`]), walls lit, all around, symmetric.
    pub const fn radius(r: u32) -> Self {
        Self {
            radius: Radius::Limited(r),
            ..Self::unlimited()
        }
    }

    /// The same options with this radius.
    pub const fn with_radius(mut self, radius: Radius) -> Self {
        self.radius = radius;
        self
    }

    /// The same options with light walls switched on or off.
    pub const fn with_light_walls(mut self, light_walls: bool) -> Self {
        self.light_walls = light_walls;
        self
    }

    /// The same options with a limited radius measured in `shape`.
    pub const fn with_shape(mut self, shape: DistanceShape) -> Self {
        self.shape = shape;
        self
    }

    /// The same options restricted to a vision cone.
    pub const fn with_cone(mut self, cone: VisionCone) -> Self {
        self.cone = Some(cone);
        self
    }

    /// The same options with this floor rule.
    pub const fn with_mode(mut self, mode: FovMode) -> Self {
        self.mode = mode;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    /// Angles of every kind: not numbers, infinite, signed zeros, ordinary, past a turn.
    const ANGLES: [f64; 11] = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        1.0,
        -1.0,
        FRAC_PI_2,
        PI,
        TAU,
        7.0,
    ];

    /// The scan quadrants that hold the cell at offset `(dx, dy)`, by the direction of their
    /// centre (a diagonal cell lies in two, the viewer's own in none).
    fn quadrant_of(dx: i64, dy: i64) -> [Option<f64>; 4] {
        [
            (dx > 0 && dy.abs() <= dx).then_some(0.0),
            (dy > 0 && dx.abs() <= dy).then_some(FRAC_PI_2),
            (dx < 0 && dy.abs() <= -dx).then_some(PI),
            (dy < 0 && dx.abs() <= -dy).then_some(-FRAC_PI_2),
        ]
    }

    /// Whatever the angles, the quadrants the scan skips hold no cell the cone test keeps,
    /// and a cone decides everything as its normalised form does.
    #[test]
    fn quadrant_choice_and_cell_test_use_the_same_normalised_cone() {
        for facing in ANGLES {
            for width in ANGLES {
                let cone = VisionCone::new(facing, width);
                let normal = VisionCone::new(cone.facing(), cone.width());
                assert!(normal.facing().is_finite() && (0.0..=TAU).contains(&normal.width()));
                assert_eq!(cone, normal, "{cone:?}");
                for center in [0.0, FRAC_PI_2, PI, -FRAC_PI_2] {
                    assert_eq!(cone.reaches_sector(center), normal.reaches_sector(center));
                }
                for dx in -6..=6 {
                    for dy in -6..=6 {
                        let inside = cone.contains(dx, dy);
                        assert_eq!(inside, normal.contains(dx, dy), "{cone:?} ({dx}, {dy})");
                        for center in quadrant_of(dx, dy).into_iter().flatten() {
                            assert!(
                                !inside || cone.reaches_sector(center),
                                "{cone:?} keeps ({dx}, {dy}) but skips its quadrant {center}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn what_non_finite_cones_count_as() {
        for facing in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0] {
            let cone = VisionCone::new(facing, 1.0);
            assert_eq!(cone.facing().to_bits(), 0.0f64.to_bits(), "{facing}");
            assert!(cone.reaches_sector(0.0) && !cone.reaches_sector(PI));
        }
        for width in [f64::NAN, f64::NEG_INFINITY, -1.0, -0.0] {
            let cone = VisionCone::new(0.0, width);
            assert_eq!(cone.width().to_bits(), 0.0f64.to_bits(), "{width}");
            assert!(!cone.is_full());
            assert!(cone.contains(3, 0) && !cone.contains(3, 1) && cone.contains(0, 0));
        }
        for width in [f64::INFINITY, TAU, 100.0] {
            let cone = VisionCone::new(f64::NAN, width);
            assert!(cone.is_full(), "{width}");
            assert!([0.0, FRAC_PI_2, PI, -FRAC_PI_2].map(|c| cone.reaches_sector(c)) == [true; 4]);
            assert!(cone.contains(-3, 1));
        }
    }
}
