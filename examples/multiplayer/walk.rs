//! How pieces wander on the server: every few frames each steps along a shortest path towards
//! a room picked at random, and picks another when it gets there.

use std::collections::VecDeque;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use crate::map::{Cell, Dungeon, Rng};

/// The dungeon the pieces walk in.
#[derive(Resource)]
pub struct Level(pub Dungeon);

/// A piece's walk: its own random numbers and where it heads.
#[derive(Component)]
pub struct Walker {
    rng: Rng,
    goal: Option<(u32, u32)>,
}

impl Walker {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Rng(seed),
            goal: None,
        }
    }
}

/// Frames between two steps (the server runs at 30 frames a second).
const FRAMES_PER_STEP: u32 = 8;

pub fn step_walkers(
    level: Res<Level>,
    mut walkers: Query<(&mut Walker, &mut TilePos)>,
    mut frame: Local<u32>,
) {
    *frame += 1;
    if !frame.is_multiple_of(FRAMES_PER_STEP) {
        return;
    }
    let dungeon = &level.0;
    for (mut walker, mut tile) in &mut walkers {
        let here = (tile.x, tile.y);
        if walker.goal.is_none_or(|goal| goal == here) {
            let room = walker.rng.below(dungeon.rooms.len() as u32) as usize;
            walker.goal = Some(dungeon.center(room));
        }
        if let Some(next) = walker.goal.and_then(|goal| first_step(dungeon, here, goal)) {
            *tile = TilePos {
                x: next.0,
                y: next.1,
            };
        }
    }
}

/// The first step of a shortest walk from `from` to `to` over floors and doors.
fn first_step(dungeon: &Dungeon, from: (u32, u32), to: (u32, u32)) -> Option<(u32, u32)> {
    let width = dungeon.width as usize;
    let index = |(x, y): (u32, u32)| y as usize * width + x as usize;
    let mut came_from = vec![None; width * dungeon.height as usize];
    let mut queue = VecDeque::from([to]);
    came_from[index(to)] = Some(to);
    // Searched from the goal, so that each tile knows its next step towards it.
    while let Some(tile) = queue.pop_front() {
        if tile == from {
            return came_from[index(tile)].filter(|&next| next != from);
        }
        for next in neighbours(dungeon, tile) {
            if came_from[index(next)].is_none() {
                came_from[index(next)] = Some(tile);
                queue.push_back(next);
            }
        }
    }
    None
}

fn neighbours(dungeon: &Dungeon, (x, y): (u32, u32)) -> impl Iterator<Item = (u32, u32)> + '_ {
    [(1i32, 0i32), (-1, 0), (0, 1), (0, -1)]
        .into_iter()
        .map(move |(dx, dy)| (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy)))
        .filter(|&(nx, ny)| dungeon.cell(nx, ny) != Cell::Wall)
}
