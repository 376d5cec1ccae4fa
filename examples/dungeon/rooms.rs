//! The shapes of the dungeon's rooms, each chosen to show off shadows: plain halls (some with
//! rubble), round rooms, pillared halls and caves. Pure logic, deterministic for an `Rng`.

use std::collections::HashSet;

use crate::map::Rng;

/// What a room looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomKind {
    /// A rectangle, sometimes strewn with rubble (single blocks that cast thin shadows).
    Hall,
    /// A disk: its curved wall shows the shadowcasting's round edges.
    Round,
    /// A rectangle with a grid of pillars, each casting a shadow that widens away from you.
    Pillared,
    /// A cellular-automaton cave: ragged walls and pockets of shadow.
    Cave,
}

/// A room: its kind, bounding box `(x, y, width, height)`, centre (always a floor cell) and
/// floor cells.
#[derive(Clone, Debug)]
pub struct Room {
    pub kind: RoomKind,
    pub bounds: (u32, u32, u32, u32),
    pub center: (u32, u32),
    pub floor: Vec<(u32, u32)>,
}

impl Room {
    /// A room of `kind` whose bounding box is `bounds`, its floor carved by the kind's rule.
    pub fn new(kind: RoomKind, bounds: (u32, u32, u32, u32), rng: &mut Rng) -> Self {
        let (x, y, w, h) = bounds;
        let center = (x + w / 2, y + h / 2);
        let local = match kind {
            RoomKind::Hall => hall(w, h, rng),
            RoomKind::Round => round(w, h),
            RoomKind::Pillared => pillared(w, h),
            RoomKind::Cave => cave(w, h, rng),
        };
        let floor = local.into_iter().map(|(dx, dy)| (x + dx, y + dy)).collect();
        Self {
            kind,
            bounds,
            center,
            floor,
        }
    }

    /// The size of a room of `kind`, picked by `rng`.
    pub fn size(kind: RoomKind, rng: &mut Rng) -> (u32, u32) {
        match kind {
            RoomKind::Hall => (5 + rng.below(9), 4 + rng.below(6)),
            RoomKind::Round => {
                let d = 7 + 2 * rng.below(3);
                (d, d)
            }
            RoomKind::Pillared => (11 + rng.below(6), 8 + rng.below(4)),
            RoomKind::Cave => (11 + rng.below(7), 8 + rng.below(5)),
        }
    }

    /// A floor cell picked by `rng` (the multiplayer example shares this module, not this).
    #[allow(dead_code)]
    pub fn random_floor(&self, rng: &mut Rng) -> (u32, u32) {
        self.floor[rng.below(self.floor.len() as u32) as usize]
    }
}

/// Every cell of a `w` x `h` box, minus a few blocks of rubble in one hall of two.
fn hall(w: u32, h: u32, rng: &mut Rng) -> Vec<(u32, u32)> {
    let rubble: HashSet<(u32, u32)> = if w >= 7 && h >= 5 && rng.below(2) == 0 {
        (0..(w * h) / 14)
            .map(|_| (1 + rng.below(w - 2), 1 + rng.below(h - 2)))
            // The centre row and column stay clear: corridors cross the room there.
            .filter(|&(dx, dy)| dx != w / 2 && dy != h / 2)
            .collect()
    } else {
        HashSet::new()
    };
    cells(w, h).filter(|cell| !rubble.contains(cell)).collect()
}

/// The cells of the disk inscribed in a `w` x `h` box (`w == h`, odd).
fn round(w: u32, h: u32) -> Vec<(u32, u32)> {
    let (cx, cy, r) = (w as i32 / 2, h as i32 / 2, w as i32 / 2);
    cells(w, h)
        .filter(|&(dx, dy)| {
            let (ox, oy) = (dx as i32 - cx, dy as i32 - cy);
            4 * (ox * ox + oy * oy) <= (2 * r + 1) * (2 * r + 1) - 4
        })
        .collect()
}

/// A `w` x `h` box with a pillar on every third cell, off the centre row and column and the
/// edge.
fn pillared(w: u32, h: u32) -> Vec<(u32, u32)> {
    let (cx, cy) = ((w / 2) as i32, (h / 2) as i32);
    cells(w, h)
        .filter(|&(dx, dy)| {
            let edge = dx == 0 || dy == 0 || dx == w - 1 || dy == h - 1;
            let pillar = (dx as i32 - cx).rem_euclid(3) == 1 && (dy as i32 - cy).rem_euclid(3) == 1;
            edge || !pillar
        })
        .collect()
}

/// A cave: random fill smoothed by a cellular automaton (a cell becomes floor when most of
/// its neighbours are), then only the part joined to the centre.
fn cave(w: u32, h: u32, rng: &mut Rng) -> Vec<(u32, u32)> {
    let (cx, cy) = (w / 2, h / 2);
    let mut open: HashSet<(u32, u32)> = cells(w, h).filter(|_| rng.below(100) < 58).collect();
    for _ in 0..4 {
        open = cells(w, h)
            .filter(|&cell| {
                let near = neighbours(cell, w, h).filter(|n| open.contains(n)).count();
                near >= 5 || (near >= 4 && open.contains(&cell))
            })
            .collect();
    }
    open.extend(cells(3, 3).map(|(dx, dy)| (cx + dx - 1, cy + dy - 1)));
    joined_to((cx, cy), &open, w, h)
}

/// The cells of `open` reachable from `start` by steps between neighbours.
fn joined_to(start: (u32, u32), open: &HashSet<(u32, u32)>, w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut seen = HashSet::from([start]);
    let mut stack = vec![start];
    while let Some(cell) = stack.pop() {
        for next in neighbours(cell, w, h) {
            if open.contains(&next) && seen.insert(next) {
                stack.push(next);
            }
        }
    }
    let mut floor: Vec<_> = seen.into_iter().collect();
    floor.sort_unstable();
    floor
}

/// Every cell of a `w` x `h` box, row by row.
fn cells(w: u32, h: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..h).flat_map(move |y| (0..w).map(move |x| (x, y)))
}

/// The up to 8 neighbours of `cell` inside a `w` x `h` box.
fn neighbours((x, y): (u32, u32), w: u32, h: u32) -> impl Iterator<Item = (u32, u32)> {
    (-1i32..=1)
        .flat_map(|dy| (-1i32..=1).map(move |dx| (dx, dy)))
        .filter(|&d| d != (0, 0))
        .map(move |(dx, dy)| (x as i32 + dx, y as i32 + dy))
        .filter(move |&(nx, ny)| nx >= 0 && ny >= 0 && (nx as u32) < w && (ny as u32) < h)
        .map(|(nx, ny)| (nx as u32, ny as u32))
}
