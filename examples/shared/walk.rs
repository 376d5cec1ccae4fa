//! Shared by the editor examples (each includes it with `#[path]`): a scripted walk. The player
//! walks towards the nearest tile its team has not explored and opens the closed doors on its
//! way; the others wander, each a step onto free floor or none, as the dice say. One step per
//! frame with `--autoplay N` (N steps, the same every run for a seed), else one every 0.25 s.
//! Each example says what its ground is ([`Ground`]) and carries out the moves.

use std::collections::{HashMap, HashSet, VecDeque};

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::TeamFog;

use crate::script::Options;

/// The step counter, the clock of the interactive walk and the wanderers' dice.
#[derive(Resource)]
pub struct Turns {
    pub count: u32,
    pub doors_opened: u32,
    limit: Option<u32>,
    clock: Timer,
    dice: u64,
}

impl Turns {
    pub fn new(options: &Options) -> Self {
        Self {
            count: 0,
            doors_opened: 0,
            limit: options.autoplay,
            clock: Timer::from_seconds(0.25, TimerMode::Repeating),
            dice: options.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    /// Whether a step is taken this frame (it is then counted).
    pub fn take(&mut self, time: &Time) -> bool {
        let due = match self.limit {
            Some(limit) => self.count < limit,
            None => self.clock.tick(time.delta()).just_finished(),
        };
        self.count += u32::from(due);
        due
    }

    /// A number in `0..n` (xorshift64).
    fn roll(&mut self, n: usize) -> usize {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        (self.dice % n.max(1) as u64) as usize
    }
}

/// What a tile is to walkers.
pub trait Ground {
    /// The map's size.
    fn size(&self) -> TilemapSize;
    /// Whether a walker may stand on `tile` (a door, open or closed, counts).
    fn walkable(&self, tile: TilePos) -> bool;
    /// Whether a closed door stands on `tile`.
    fn closed_door(&self, tile: TilePos) -> bool;
}

/// A walker: who it is, where it stands, whether it is the player, and its place in the
/// order of the step (the player first, then by `rank`).
pub struct Walker {
    pub entity: Entity,
    pub at: TilePos,
    pub player: bool,
    pub rank: String,
}

/// What a step does to the map.
pub enum Move {
    Walk {
        walker: Entity,
        from: TilePos,
        to: TilePos,
    },
    OpenDoor(TilePos),
}

/// The tiles next to `tile` on a map of `size`, in a fixed order.
fn neighbours(size: TilemapSize, tile: TilePos) -> impl Iterator<Item = TilePos> {
    [(1, 0), (0, 1), (-1, 0), (0, -1)]
        .into_iter()
        .filter_map(move |(dx, dy)| {
            let x = tile.x.checked_add_signed(dx).filter(|&x| x < size.x)?;
            let y = tile.y.checked_add_signed(dy).filter(|&y| y < size.y)?;
            Some(TilePos::new(x, y))
        })
}

/// The first step of a shortest walk to the nearest walkable tile `explored` has not explored.
fn explore_step(ground: &impl Ground, from: TilePos, explored: &TeamFog) -> Option<TilePos> {
    let mut came_from = HashMap::from([(from, from)]);
    let mut queue = VecDeque::from([from]);
    while let Some(tile) = queue.pop_front() {
        if !explored.is_explored(tile) {
            let mut step = tile;
            while came_from[&step] != from {
                step = came_from[&step];
            }
            return Some(step);
        }
        for next in neighbours(ground.size(), tile).filter(|&t| ground.walkable(t)) {
            if let std::collections::hash_map::Entry::Vacant(entry) = came_from.entry(next) {
                entry.insert(tile);
                queue.push_back(next);
            }
        }
    }
    None
}

/// This step's moves: the player explores (opening a closed door in its way instead of
/// stepping), the others step at random onto free floor or stay.
pub fn plan(
    ground: &impl Ground,
    explored: &TeamFog,
    turns: &mut Turns,
    mut walkers: Vec<Walker>,
) -> Vec<Move> {
    walkers.sort_by(|a, b| (!a.player, &a.rank).cmp(&(!b.player, &b.rank)));
    let mut occupied: HashSet<TilePos> = walkers.iter().map(|w| w.at).collect();
    let mut moves = Vec::new();
    for walker in walkers {
        let at = walker.at;
        let to = if walker.player {
            explore_step(ground, at, explored)
        } else {
            let free: Vec<_> = neighbours(ground.size(), at)
                .filter(|&t| ground.walkable(t) && !ground.closed_door(t))
                .filter(|t| !occupied.contains(t))
                .collect();
            free.get(turns.roll(free.len() + 1)).copied()
        };
        match to {
            Some(door) if ground.closed_door(door) => moves.push(Move::OpenDoor(door)),
            Some(to) if !occupied.contains(&to) => {
                occupied.remove(&at);
                occupied.insert(to);
                let walker = walker.entity;
                moves.push(Move::Walk {
                    walker,
                    from: at,
                    to,
                });
            }
            _ => {}
        }
    }
    moves
}

/// Counts a door opened and says so.
pub fn opened(turns: &mut Turns, door: TilePos) {
    turns.doors_opened += 1;
    println!(
        "step {}: opened the door at ({}, {})",
        turns.count, door.x, door.y
    );
}
