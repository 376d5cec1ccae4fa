//! Map generation: rooms joined by corridors, doors where corridors enter rooms. Pure logic,
//! deterministic for a seed.

/// One cell of the dungeon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Wall,
    Floor,
    Door,
}

/// A generated dungeon, `cells[y][x]`, with y growing upwards as in bevy_ecs_tilemap.
pub struct Dungeon {
    pub width: u32,
    pub height: u32,
    pub cells: Vec<Vec<Cell>>,
    /// Room rectangles `(x, y, width, height)`; the first holds the player.
    pub rooms: Vec<(u32, u32, u32, u32)>,
}

/// A small deterministic generator (splitmix64).
#[derive(Clone)]
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
        (self.next() % u64::from(n.max(1))) as u32
    }
}

impl Dungeon {
    pub fn generate(width: u32, height: u32, seed: u64) -> Self {
        let mut rng = Rng(seed);
        let mut cells = vec![vec![Cell::Wall; width as usize]; height as usize];
        let mut rooms: Vec<(u32, u32, u32, u32)> = Vec::new();
        for _ in 0..400 {
            if rooms.len() >= 14 {
                break;
            }
            let (w, h) = (5 + rng.below(10), 4 + rng.below(6));
            let (x, y) = (1 + rng.below(width - w - 2), 1 + rng.below(height - h - 2));
            // Keep a wall between rooms.
            if rooms.iter().any(|&(rx, ry, rw, rh)| {
                x <= rx + rw + 1 && rx <= x + w + 1 && y <= ry + rh + 1 && ry <= y + h + 1
            }) {
                continue;
            }
            for cy in y..y + h {
                for cx in x..x + w {
                    cells[cy as usize][cx as usize] = Cell::Floor;
                }
            }
            rooms.push((x, y, w, h));
        }
        let mut dungeon = Self {
            width,
            height,
            cells,
            rooms,
        };
        for i in 1..dungeon.rooms.len() {
            let (a, b) = (dungeon.center(i - 1), dungeon.center(i));
            if rng.below(2) == 0 {
                dungeon.carve_h(a.0, b.0, a.1);
                dungeon.carve_v(a.1, b.1, b.0);
            } else {
                dungeon.carve_v(a.1, b.1, a.0);
                dungeon.carve_h(a.0, b.0, b.1);
            }
        }
        dungeon.place_doors();
        dungeon
    }

    pub fn center(&self, room: usize) -> (u32, u32) {
        let (x, y, w, h) = self.rooms[room];
        (x + w / 2, y + h / 2)
    }

    pub fn cell(&self, x: u32, y: u32) -> Cell {
        if x < self.width && y < self.height {
            self.cells[y as usize][x as usize]
        } else {
            Cell::Wall
        }
    }

    fn in_room(&self, x: u32, y: u32) -> bool {
        self.rooms
            .iter()
            .any(|&(rx, ry, rw, rh)| (rx..rx + rw).contains(&x) && (ry..ry + rh).contains(&y))
    }

    fn carve_h(&mut self, x1: u32, x2: u32, y: u32) {
        for x in x1.min(x2)..=x1.max(x2) {
            self.cells[y as usize][x as usize] = Cell::Floor;
        }
    }

    fn carve_v(&mut self, y1: u32, y2: u32, x: u32) {
        for y in y1.min(y2)..=y1.max(y2) {
            self.cells[y as usize][x as usize] = Cell::Floor;
        }
    }

    /// A corridor cell just outside a room, with walls on both sides across the corridor,
    /// becomes a door.
    fn place_doors(&mut self) {
        let mut doors = Vec::new();
        for y in 1..self.height - 1 {
            for x in 1..self.width - 1 {
                if self.cell(x, y) != Cell::Floor || self.in_room(x, y) {
                    continue;
                }
                let wall = |dx: i32, dy: i32| {
                    self.cell((x as i32 + dx) as u32, (y as i32 + dy) as u32) == Cell::Wall
                };
                let room_next =
                    [(1, 0), (-1, 0), (0, 1), (0, -1)]
                        .iter()
                        .any(|&(dx, dy): &(i32, i32)| {
                            self.in_room((x as i32 + dx) as u32, (y as i32 + dy) as u32)
                        });
                let across_x = wall(0, 1) && wall(0, -1);
                let across_y = wall(1, 0) && wall(-1, 0);
                if room_next && (across_x || across_y) {
                    doors.push((x, y));
                }
            }
        }
        for (x, y) in doors {
            self.cells[y as usize][x as usize] = Cell::Door;
        }
    }
}
