//! The six hexagonal coordinate systems of bevy_ecs_tilemap: how a tile position `(x, y)`
//! maps to axial coordinates `(q, r)` and back, and where a hexagon's centre lies.
//!
//! The formulas are those of bevy_ecs_tilemap 0.19 (`helpers/hex_grid/axial.rs`): Rust's
//! truncating division for the odd systems, `ceiled_division_by_2` for the even ones, so a
//! `TilePos` passed in and a tile position read out name the same tile as in the tilemap.

/// A hexagonal coordinate system: which tile position `(x, y)` names which hexagon.
///
/// Each variant is the bevy_ecs_tilemap `HexCoordSystem` of the same name (in a
/// `TilemapType::Hexagon(..)`); the core itself knows nothing of Bevy.
///
/// | variant | hexagons | tile `(x, y)` is |
/// |---|---|---|
/// | `Row` | pointy-top | axial `(q, r) = (x, y)` |
/// | `Column` | flat-top | axial `(q, r) = (x, y)` |
/// | `RowEven` | pointy-top | offset rows, even rows shifted right: `q = x - (y + 1) / 2` |
/// | `RowOdd` | pointy-top | offset rows, odd rows shifted right: `q = x - y / 2` |
/// | `ColumnEven` | flat-top | offset columns, even columns shifted up: `r = y - (x + 1) / 2` |
/// | `ColumnOdd` | flat-top | offset columns, odd columns shifted up: `r = y - x / 2` |
///
/// Axial `(q, r)` has its centre at `(q + r / 2, r * sqrt(3) / 2)` (pointy-top) or at
/// `(q * sqrt(3) / 2, r + q / 2)` (flat-top), in units of the distance between neighbours:
/// `+y` is the direction of growing tile `y`, as in bevy_ecs_tilemap's world space.
///
/// ```
/// use viewshed_core::HexCoords;
///
/// assert_eq!(HexCoords::RowOdd.to_axial((4, 3)), (3, 3));
/// assert_eq!(HexCoords::RowOdd.from_axial((3, 3)), Some((4, 3)));
/// assert_eq!(HexCoords::ColumnEven.to_axial((3, 5)), (3, 3));
/// assert_eq!(HexCoords::Row.from_axial((-1, 0)), None, "no tile left of x = 0");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum HexCoords {
    /// Pointy-top hexagons, axial coordinates (bevy_ecs_tilemap `HexCoordSystem::Row`).
    #[default]
    Row,
    /// Flat-top hexagons, axial coordinates (`HexCoordSystem::Column`).
    Column,
    /// Pointy-top, even rows shifted right (`HexCoordSystem::RowEven`).
    RowEven,
    /// Pointy-top, odd rows shifted right (`HexCoordSystem::RowOdd`).
    RowOdd,
    /// Flat-top, even columns shifted up (`HexCoordSystem::ColumnEven`).
    ColumnEven,
    /// Flat-top, odd columns shifted up (`HexCoordSystem::ColumnOdd`).
    ColumnOdd,
}

impl HexCoords {
    /// The name `fov_ascii --hex` and the reference cases use: `row`, `column`, `row-even`,
    /// `row-odd`, `column-even`, `column-odd`.
    pub const fn name(self) -> &'static str {
        match self {
            HexCoords::Row => "row",
            HexCoords::Column => "column",
            HexCoords::RowEven => "row-even",
            HexCoords::RowOdd => "row-odd",
            HexCoords::ColumnEven => "column-even",
            HexCoords::ColumnOdd => "column-odd",
        }
    }
}

impl std::str::FromStr for HexCoords {
    type Err = String;

    /// Reads a [`name`](HexCoords::name).
    ///
    /// ```
    /// use viewshed_core::HexCoords;
    ///
    /// assert_eq!("row-odd".parse(), Ok(HexCoords::RowOdd));
    /// assert!("hex".parse::<HexCoords>().is_err());
    /// ```
    fn from_str(name: &str) -> Result<Self, String> {
        HexCoords::ALL.into_iter().find(|c| c.name() == name).ok_or_else(|| {
            format!("a hex coordinate system is row, column, row-even, row-odd, column-even or column-odd, not {name:?}")
        })
    }
}

/// bevy_ecs_tilemap's `ceiled_division_by_2`.
fn ceiled_half(x: i64) -> i64 {
    if x < 0 { (x - 1) / 2 } else { (x + 1) / 2 }
}

impl HexCoords {
    /// All six systems.
    pub const ALL: [HexCoords; 6] = [
        HexCoords::Row,
        HexCoords::Column,
        HexCoords::RowEven,
        HexCoords::RowOdd,
        HexCoords::ColumnEven,
        HexCoords::ColumnOdd,
    ];

    /// Whether the hexagons have a vertex at the top (the `Row` systems) rather than an edge
    /// (the `Column` systems).
    pub const fn is_pointy_top(self) -> bool {
        matches!(
            self,
            HexCoords::Row | HexCoords::RowEven | HexCoords::RowOdd
        )
    }

    /// How far the offset systems shift the other coordinate at line `line`.
    fn shift(self, line: i64) -> i64 {
        match self {
            HexCoords::Row | HexCoords::Column => 0,
            HexCoords::RowOdd | HexCoords::ColumnOdd => line / 2,
            HexCoords::RowEven | HexCoords::ColumnEven => ceiled_half(line),
        }
    }

    /// The axial coordinates `(q, r)` of tile `(x, y)`.
    pub fn to_axial(self, (x, y): (u32, u32)) -> (i64, i64) {
        let (x, y) = (i64::from(x), i64::from(y));
        if self.is_pointy_top() {
            (x - self.shift(y), y)
        } else {
            (x, y - self.shift(x))
        }
    }

    /// The tile position of axial `(q, r)`, or `None` when it has a coordinate outside
    /// `u32` (no map holds it).
    pub fn from_axial(self, (q, r): (i64, i64)) -> Option<(u32, u32)> {
        let (x, y) = if self.is_pointy_top() {
            (q + self.shift(r), r)
        } else {
            (q, r + self.shift(q))
        };
        Some((u32::try_from(x).ok()?, u32::try_from(y).ok()?))
    }
}

/// Hex distance between two axial positions: the fewest steps between neighbours.
#[inline]
pub(crate) fn axial_distance((q1, r1): (i64, i64), (q2, r2): (i64, i64)) -> u64 {
    let (dq, dr) = (q1 - q2, r1 - r2);
    dq.unsigned_abs()
        .max(dr.unsigned_abs())
        .max((dq + dr).unsigned_abs())
}

/// The number of steps between neighbouring hexagons from tile `a` to tile `b` in `coords`
/// (positions need not be on any map).
///
/// ```
/// use viewshed_core::{hex_distance, HexCoords};
///
/// assert_eq!(hex_distance(HexCoords::RowOdd, (0, 0), (0, 1)), 1);
/// assert_eq!(hex_distance(HexCoords::RowOdd, (0, 0), (1, 2)), 2);
/// assert_eq!(hex_distance(HexCoords::Row, (0, 0), (3, 0)), 3);
/// ```
pub fn hex_distance(coords: HexCoords, a: (u32, u32), b: (u32, u32)) -> u64 {
    axial_distance(coords.to_axial(a), coords.to_axial(b))
}

/// A hexagon's position in the scan's own frame, "canonical axial" `(a, b)`: the axial
/// `(q, r)` of a pointy-top system, `(r, q)` of a flat-top one. Flat-top maps are pointy-top
/// maps mirrored across the line `x = y`, and a mirror changes no visibility, so the scan
/// handles pointy-top hexagons only; the vision cone uses [`real_position`].
#[inline]
pub(crate) fn canonical(coords: HexCoords, (q, r): (i64, i64)) -> (i64, i64) {
    if coords.is_pointy_top() {
        (q, r)
    } else {
        (r, q)
    }
}

/// The position of canonical offset `(a, b)` in the plane, neighbours 1 apart, `+y` toward
/// growing tile `y`: what the vision cone tests.
pub(crate) fn real_position(coords: HexCoords, (a, b): (i64, i64)) -> (f64, f64) {
    let half_sqrt3 = 3f64.sqrt() / 2.0;
    // Pointy-top centre of (a, b): (a + b / 2, b * sqrt(3) / 2).
    let along = a as f64 + b as f64 / 2.0;
    let across = b as f64 * half_sqrt3;
    if coords.is_pointy_top() {
        (along, across)
    } else {
        (across, along)
    }
}
