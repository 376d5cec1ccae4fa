//! Deterministic benchmark maps: every run and every implementation sees the same cells.
#![allow(dead_code)]

use viewshed_core::{OpacityGrid, Radius};

/// The kinds of map the benches run on.
#[derive(Clone, Copy, Debug)]
pub enum MapKind {
    /// One big room: walls only around the border.
    Open,
    /// 5% random pillars.
    Forest,
    /// 20% random pillars.
    Pillars,
    /// Cellular-automaton caves.
    Cave,
    /// Rooms joined by corridors.
    Dungeon,
}

impl MapKind {
    pub const ALL: [MapKind; 5] = [
        MapKind::Open,
        MapKind::Forest,
        MapKind::Pillars,
        MapKind::Cave,
        MapKind::Dungeon,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MapKind::Open => "open",
            MapKind::Forest => "forest",
            MapKind::Pillars => "pillars20",
            MapKind::Cave => "cave",
            MapKind::Dungeon => "dungeon",
        }
    }

    pub fn generate(self, width: u32, height: u32, seed: u64) -> OpacityGrid {
        let mut rng = Rng(seed);
        let border = |x: u32, y: u32| x == 0 || y == 0 || x == width - 1 || y == height - 1;
        match self {
            MapKind::Open => OpacityGrid::from_fn(width, height, border),
            MapKind::Forest => {
                OpacityGrid::from_fn(width, height, |x, y| border(x, y) || rng.below(100) < 5)
            }
            MapKind::Pillars => {
                OpacityGrid::from_fn(width, height, |x, y| border(x, y) || rng.below(100) < 20)
            }
            MapKind::Cave => cave(width, height, &mut rng),
            MapKind::Dungeon => dungeon(width, height, &mut rng),
        }
    }
}

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

fn cave(width: u32, height: u32, rng: &mut Rng) -> OpacityGrid {
    let (w, h) = (width as usize, height as usize);
    let mut cells: Vec<bool> = (0..w * h).map(|_| rng.below(100) < 45).collect();
    for _ in 0..5 {
        let previous = cells.clone();
        for y in 0..h {
            for x in 0..w {
                let mut walls = 0;
                for (dx, dy) in (-1i32..=1).flat_map(|dx| (-1i32..=1).map(move |dy| (dx, dy))) {
                    let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                    let outside = nx < 0 || ny < 0 || nx >= w as i32 || ny >= h as i32;
                    if outside || previous[ny as usize * w + nx as usize] {
                        walls += 1;
                    }
                }
                cells[y * w + x] = walls >= 5;
            }
        }
    }
    OpacityGrid::from_fn(width, height, |x, y| {
        x == 0 || y == 0 || x == width - 1 || y == height - 1 || cells[y as usize * w + x as usize]
    })
}

fn dungeon(width: u32, height: u32, rng: &mut Rng) -> OpacityGrid {
    let mut grid = OpacityGrid::from_fn(width, height, |_, _| true);
    let mut rooms: Vec<(u32, u32, u32, u32)> = Vec::new();
    let attempts = width * height / 60;
    for _ in 0..attempts {
        let (rw, rh) = (4 + rng.below(9), 4 + rng.below(7));
        if rw + 2 >= width || rh + 2 >= height {
            continue;
        }
        let (rx, ry) = (
            1 + rng.below(width - rw - 1),
            1 + rng.below(height - rh - 1),
        );
        let overlaps = rooms
            .iter()
            .any(|&(x, y, w, h)| rx <= x + w && x <= rx + rw && ry <= y + h && y <= ry + rh);
        if overlaps {
            continue;
        }
        for y in ry..ry + rh {
            for x in rx..rx + rw {
                grid.set_opaque(x, y, false);
            }
        }
        if let Some(&(px, py, pw, ph)) = rooms.last() {
            let (ax, ay) = (px + pw / 2, py + ph / 2);
            let (bx, by) = (rx + rw / 2, ry + rh / 2);
            for x in ax.min(bx)..=ax.max(bx) {
                grid.set_opaque(x, ay, false);
            }
            for y in ay.min(by)..=ay.max(by) {
                grid.set_opaque(bx, y, false);
            }
        }
        rooms.push((rx, ry, rw, rh));
    }
    grid
}

/// `small` copied into `big` with its top-left corner at `(offset, offset)`.
pub fn embed(big: &mut OpacityGrid, small: &OpacityGrid, offset: u32) {
    for y in 0..small.height() {
        for x in 0..small.width() {
            big.set_opaque(offset + x, offset + y, small.is_opaque(x, y));
        }
    }
}

/// The transparent cell nearest the centre of the map (ties: first in row order).
pub fn central_floor(grid: &OpacityGrid) -> (u32, u32) {
    floors_nearest_centre(grid, 1)[0]
}

/// The `count` transparent cells nearest the centre of the map, nearest first (ties: first
/// in row order).
pub fn floors_nearest_centre(grid: &OpacityGrid, count: usize) -> Vec<(u32, u32)> {
    let (cx, cy) = (grid.width() as i64 / 2, grid.height() as i64 / 2);
    let mut floors: Vec<(i64, (u32, u32))> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
        .filter(|&(x, y)| !grid.is_opaque(x, y))
        .map(|(x, y)| ((x as i64 - cx).pow(2) + (y as i64 - cy).pow(2), (x, y)))
        .collect();
    assert!(!floors.is_empty(), "the map has a transparent cell");
    floors.sort_by_key(|&(d, (x, y))| (d, y, x));
    floors
        .into_iter()
        .take(count)
        .map(|(_, cell)| cell)
        .collect()
}

/// The command-line arguments of the instruction-counting examples, `MAP RADIUS|unlimited
/// COUNT`; `None` after saying what is wrong with them and printing `usage`.
pub fn count_args(usage: &str) -> Option<(MapKind, Radius, u32)> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    parse_count_args(&args)
        .inspect_err(|why| eprintln!("{why}\n{usage}"))
        .ok()
}

fn parse_count_args(args: &[String]) -> Result<(MapKind, Radius, u32), String> {
    let [map, radius, count] = args else {
        return Err("three arguments expected".to_string());
    };
    let kind = MapKind::ALL
        .into_iter()
        .find(|k| k.name() == map)
        .ok_or_else(|| format!("unknown map {map:?}"))?;
    let radius = match radius.as_str() {
        "unlimited" => Radius::Unlimited,
        r => Radius::Limited(r.parse().map_err(|_| format!("bad radius {r:?}"))?),
    };
    let count = count.parse().map_err(|_| format!("bad count {count:?}"))?;
    Ok((kind, radius, count))
}
