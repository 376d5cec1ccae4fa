//! Map generation: rooms of several shapes (see `rooms`) joined by dark corridors, doors where
//! corridors enter rooms, torches on the rooms' walls, a patch of tall grass. Pure logic,
//! deterministic for a seed.

use crate::rooms::{Room, RoomKind};

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
    /// The rooms; the first holds the player.
    pub rooms: Vec<Room>,
    /// The torches on the rooms' walls (corridors have none).
    pub torches: Vec<Torch>,
    /// A patch of tall grass: floor cells around the second room's centre (not the centre,
    /// where a monster may stand).
    pub foliage: Vec<(u32, u32)>,
    /// Which room each floor cell belongs to (corridors belong to none).
    room_of: Vec<Vec<Option<usize>>>,
}

/// A torch: the wall cell it hangs on and the floor cell in front of it, where its light
/// shines from (a light inside the wall would light both of its sides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Torch {
    pub wall: (u32, u32),
    pub floor: (u32, u32),
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
        let mut dungeon = Self {
            width,
            height,
            cells: vec![vec![Cell::Wall; width as usize]; height as usize],
            rooms: Vec::new(),
            torches: Vec::new(),
            foliage: Vec::new(),
            room_of: vec![vec![None; width as usize]; height as usize],
        };
        dungeon.place_rooms(&mut rng);
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
        dungeon.place_torches(&mut rng);
        dungeon.plant_foliage();
        dungeon
    }

    /// Up to 12 rooms that keep a wall between each other, the kinds in turn so that every
    /// dungeon shows each (the player starts in a pillared hall: shadows from the first step).
    fn place_rooms(&mut self, rng: &mut Rng) {
        const KINDS: [RoomKind; 4] = [
            RoomKind::Pillared,
            RoomKind::Round,
            RoomKind::Cave,
            RoomKind::Hall,
        ];
        for attempt in 0..600 {
            if self.rooms.len() >= 12 {
                break;
            }
            let kind = match self.rooms.len() {
                0 => RoomKind::Pillared,
                n => KINDS[(n + attempt / 100) % KINDS.len()],
            };
            let (w, h) = Room::size(kind, rng);
            if w + 3 > self.width || h + 3 > self.height {
                continue;
            }
            let (x, y) = (
                1 + rng.below(self.width - w - 2),
                1 + rng.below(self.height - h - 2),
            );
            let overlaps = self.rooms.iter().any(|room| {
                let (rx, ry, rw, rh) = room.bounds;
                x <= rx + rw + 1 && rx <= x + w + 1 && y <= ry + rh + 1 && ry <= y + h + 1
            });
            if !overlaps {
                self.add_room(Room::new(kind, (x, y, w, h), rng));
            }
        }
    }

    fn add_room(&mut self, room: Room) {
        for &(x, y) in &room.floor {
            self.cells[y as usize][x as usize] = Cell::Floor;
            self.room_of[y as usize][x as usize] = Some(self.rooms.len());
        }
        self.rooms.push(room);
    }

    /// The grass patch: the floor cells within two of the second room's centre.
    fn plant_foliage(&mut self) {
        let Some(room) = self.rooms.get(1) else {
            return;
        };
        let (cx, cy) = room.center;
        let near = (cy.saturating_sub(2)..=cy + 2)
            .flat_map(|y| (cx.saturating_sub(2)..=cx + 2).map(move |x| (x, y)));
        self.foliage = near
            .filter(|&(x, y)| self.cell(x, y) == Cell::Floor && (x, y) != (cx, cy))
            .collect();
    }

    pub fn center(&self, room: usize) -> (u32, u32) {
        self.rooms[room].center
    }

    pub fn cell(&self, x: u32, y: u32) -> Cell {
        if x < self.width && y < self.height {
            self.cells[y as usize][x as usize]
        } else {
            Cell::Wall
        }
    }

    fn room_at(&self, x: u32, y: u32) -> Option<usize> {
        if x < self.width && y < self.height {
            self.room_of[y as usize][x as usize]
        } else {
            None
        }
    }

    fn in_room(&self, x: u32, y: u32) -> bool {
        self.room_at(x, y).is_some()
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

    /// One or two torches on the walls of every room but the caves (which stay dark): wall
    /// cells next to the room's floor, not next to a door.
    fn place_torches(&mut self, rng: &mut Rng) {
        for room in 0..self.rooms.len() {
            if self.rooms[room].kind == RoomKind::Cave {
                continue;
            }
            let mut spots: Vec<Torch> = self.rooms[room]
                .floor
                .iter()
                .flat_map(|&floor| {
                    side_neighbours(floor.0, floor.1).map(move |wall| Torch { wall, floor })
                })
                .filter(|t| self.cell(t.wall.0, t.wall.1) == Cell::Wall)
                .filter(|t| t.wall.0 < self.width && t.wall.1 < self.height)
                .filter(|t| !self.next_to_door(t.wall.0, t.wall.1))
                .collect();
            spots.sort_unstable_by_key(|t| (t.wall, t.floor));
            spots.dedup_by_key(|t| t.wall);
            for _ in 0..(1 + rng.below(2)).min(spots.len() as u32) {
                let spot = spots.swap_remove(rng.below(spots.len() as u32) as usize);
                self.torches.push(spot);
            }
        }
    }

    fn next_to_door(&self, x: u32, y: u32) -> bool {
        side_neighbours(x, y).any(|(nx, ny)| self.cell(nx, ny) == Cell::Door)
    }
}

/// The four side neighbours of a cell (wrapping below zero, i.e. off the map).
fn side_neighbours(x: u32, y: u32) -> impl Iterator<Item = (u32, u32)> {
    [(1, 0), (-1, 0), (0, 1), (0, -1)]
        .into_iter()
        .map(move |(dx, dy): (i32, i32)| (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy)))
}
