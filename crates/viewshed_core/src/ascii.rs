//! The plain-text map format used by the reference cases, the tests and the `fov_ascii`
//! example: reading a map and drawing what a viewer sees on it.
//!
//! ```text
//! radius 8        <- optional; without it the radius is unlimited
//! ##########
//! #....#...#      <- '#' opaque, '.' transparent
//! #..@.....#      <- '@' the viewer, exactly one, on a transparent cell
//! ##########
//! ```

use crate::grid::OpacityGrid;
use crate::hex::HexCoords;
use crate::options::Radius;
use crate::visible::VisibleSet;

/// A map read from text: the grid, the viewer and the radius.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsciiMap {
    /// Which cells block sight.
    pub grid: OpacityGrid,
    /// The viewer's cell (the `@`).
    pub viewer: (u32, u32),
    /// The radius from the `radius N` line, or unlimited without one.
    pub radius: Radius,
    /// The map rows as written.
    rows: Vec<Vec<u8>>,
}

/// Why a text map could not be read. `line` counts from 1, as an editor does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseError {
    /// The line the problem is on (1-based), or the last line for problems of the whole map.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    fn new(line: usize, message: String) -> Self {
        Self { line, message }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The viewer found so far: `(x, y, line)`.
type Viewer = Option<(u32, u32, usize)>;

impl AsciiMap {
    /// Reads a map. See the [module docs](self) for the format.
    ///
    /// ```
    /// use viewshed_core::ascii::AsciiMap;
    /// use viewshed_core::Radius;
    ///
    /// let map = AsciiMap::parse("radius 3\n#..\n.@.\n")?;
    /// assert_eq!(map.viewer, (1, 1));
    /// assert_eq!(map.radius, Radius::Limited(3));
    /// assert!(map.grid.is_opaque(0, 0));
    ///
    /// let error = AsciiMap::parse("#..\n.@\n").unwrap_err();
    /// assert_eq!(error.to_string(), "line 2: row has 2 cells, the first row has 3");
    /// # Ok::<(), viewshed_core::ascii::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// [`ParseError`] naming the line when the radius is not a whole number that fits in
    /// `u32`, a cell is not `#`, `.` or `@`, rows differ in length, or the map has no rows,
    /// no viewer or more than one.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
            .collect();
        // Blank lines after the map are not rows.
        while lines.last().is_some_and(|(_, l)| l.is_empty()) {
            lines.pop();
        }
        let last_line = lines.last().map_or(1, |(number, _)| *number);
        let mut lines = lines.into_iter().peekable();
        let mut radius = Radius::Unlimited;
        if let Some(&(number, line)) = lines.peek()
            && let Some(value) = line.trim_end().strip_prefix("radius")
        {
            radius = parse_radius(number, value)?;
            lines.next();
        }

        let mut rows: Vec<Vec<u8>> = Vec::new();
        let mut viewer = None;
        for (number, line) in lines {
            let row = parse_row(number, line, rows.len() as u32, &mut viewer)?;
            if let Some(first) = rows.first()
                && row.len() != first.len()
            {
                let message = format!(
                    "row has {} cells, the first row has {}",
                    row.len(),
                    first.len()
                );
                return Err(ParseError::new(number, message));
            }
            rows.push(row);
        }
        if rows.is_empty() || rows[0].is_empty() {
            return Err(ParseError::new(last_line, "the map has no rows".into()));
        }
        let Some((vx, vy, _)) = viewer else {
            return Err(ParseError::new(
                last_line,
                "the map has no viewer '@'".into(),
            ));
        };
        let (width, height) = (rows[0].len() as u32, rows.len() as u32);
        let grid = OpacityGrid::from_fn(width, height, |x, y| rows[y as usize][x as usize] == b'#');
        Ok(Self {
            grid,
            viewer: (vx, vy),
            radius,
            rows,
        })
    }

    /// The map rows with every cell that is not in `visible` replaced by a space, one line
    /// per row (the format of the reference cases' expected output).
    pub fn draw_visible(&self, visible: &VisibleSet) -> String {
        let mut out = String::with_capacity(self.rows.len() * (self.rows[0].len() + 1));
        for (y, row) in self.rows.iter().enumerate() {
            for (x, &cell) in row.iter().enumerate() {
                out.push(if visible.contains(x as u32, y as u32) {
                    cell as char
                } else {
                    ' '
                });
            }
            out.push('\n');
        }
        out
    }
}

impl AsciiMap {
    /// Draws what a hexagonal view shows on the map's tiles in `coords`: each tile two
    /// characters wide, placed at its hexagon's centre, so offset rows (or columns) come out
    /// shifted by half a hexagon and the rules can be seen in a terminal. Tile `y` grows
    /// downward, as in the square drawing (bevy_ecs_tilemap's world has it grow upward: the
    /// picture is that world mirrored, which changes no visibility). Invisible tiles are
    /// spaces, as in [`draw_visible`](Self::draw_visible).
    ///
    /// ```
    /// use viewshed_core::ascii::AsciiMap;
    /// use viewshed_core::{hex_field_of_view, FovOptions, HexCoords};
    ///
    /// let map = AsciiMap::parse("...\n.@#\n...\n")?;
    /// let visible = hex_field_of_view(&map.grid, HexCoords::RowOdd, map.viewer, FovOptions::radius(1))?;
    /// // Odd rows are shifted right: (1, 1)'s neighbours above and below are tiles 1 and 2.
    /// assert_eq!(map.draw_visible_hex(&visible, HexCoords::RowOdd), "  . .\n . @ #\n  . .\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn draw_visible_hex(&self, visible: &VisibleSet, coords: HexCoords) -> String {
        let place = |x: usize, y: usize| {
            let (q, r) = coords.to_axial((x as u32, y as u32));
            if coords.is_pointy_top() {
                (r, 2 * q + r)
            } else {
                (2 * r + q, 2 * q)
            }
        };
        let cells = self
            .rows
            .iter()
            .enumerate()
            .flat_map(|(y, row)| (0..row.len()).map(move |x| (x, y)));
        let (mut lines, mut first_line, mut first_column) = (0, i64::MAX, i64::MAX);
        for (x, y) in cells.clone() {
            let (line, column) = place(x, y);
            (first_line, first_column, lines) = (
                first_line.min(line),
                first_column.min(column),
                lines.max(line),
            );
        }
        let mut picture = vec![Vec::new(); (lines - first_line + 1) as usize];
        for (x, y) in cells {
            let (line, column) = place(x, y);
            let text = &mut picture[(line - first_line) as usize];
            let column = (column - first_column) as usize;
            if text.len() <= column {
                text.resize(column + 1, b' ');
            }
            if visible.contains(x as u32, y as u32) {
                text[column] = self.rows[y][x];
            }
        }
        picture.iter().fold(String::new(), |mut out, line| {
            out.push_str(String::from_utf8_lossy(line).trim_end());
            out.push('\n');
            out
        })
    }
}

/// The value of the `radius N` line `number` (what follows the word `radius`).
fn parse_radius(number: usize, value: &str) -> Result<Radius, ParseError> {
    let value = value.trim();
    value.parse().map(Radius::Limited).map_err(|_| {
        let message = format!(
            "radius must be a whole number from 0 to {}, not {value:?}",
            u32::MAX
        );
        ParseError::new(number, message)
    })
}

/// The cells of map row `y`, written on line `number`; an `@` becomes the `viewer`, which
/// must not have been found before.
fn parse_row(
    number: usize,
    line: &str,
    y: u32,
    viewer: &mut Viewer,
) -> Result<Vec<u8>, ParseError> {
    let mut row = Vec::with_capacity(line.len());
    for (x, cell) in line.chars().enumerate() {
        match cell {
            '#' | '.' => {}
            '@' => {
                if let Some((vx, vy, vline)) = *viewer {
                    let message = format!(
                        "second viewer '@' at column {}; the first is at ({vx}, {vy}) on line {vline}",
                        x + 1
                    );
                    return Err(ParseError::new(number, message));
                }
                *viewer = Some((x as u32, y, number));
            }
            other => {
                let message = format!(
                    "unknown cell {other:?} at column {}; use '#', '.' or '@'",
                    x + 1
                );
                return Err(ParseError::new(number, message));
            }
        }
        row.push(cell as u8);
    }
    Ok(row)
}
