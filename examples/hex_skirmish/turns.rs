//! The turns: every unit steps to a neighbouring hexagon, blue units (team 0) towards the
//! nearest hexagon their team has not explored, red ones (team 1) at random. One turn per frame
//! with `--autoplay N` (N turns, deterministic for a seed), else one every 0.4 s.

use std::collections::{HashSet, VecDeque};

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Team, TeamFog};

use crate::map::{HexMap, MAP_SIZE, Rng, neighbours};
use crate::script::Options;

/// A unit of a team; `index` orders the units' moves, so that a turn is the same every run.
#[derive(Component)]
pub struct Unit {
    pub team: u32,
    pub index: u32,
}

/// The terrain tilemap the units stand on.
#[derive(Resource)]
pub struct Units {
    pub terrain: Entity,
}

/// The turn counter, the clock of the interactive game and the red team's dice.
#[derive(Resource)]
pub struct Turns {
    pub count: u32,
    limit: Option<u32>,
    clock: Timer,
    rng: Rng,
}

impl Turns {
    pub fn new(options: &Options) -> Self {
        Self {
            count: 0,
            limit: options.autoplay,
            clock: Timer::from_seconds(0.4, TimerMode::Repeating),
            rng: Rng::new(options.seed ^ 0x5EED),
        }
    }

    /// Whether a turn is played this frame.
    fn due(&mut self, time: &Time) -> bool {
        match self.limit {
            Some(limit) => self.count < limit,
            None => self.clock.tick(time.delta()).just_finished(),
        }
    }
}

/// Plays a turn when one is due: each unit in turn order steps if it can.
pub fn take_turn(
    time: Res<Time>,
    mut turns: ResMut<Turns>,
    map: Res<HexMap>,
    units_map: Res<Units>,
    fog: Query<&FogOfWar>,
    mut units: Query<(&Unit, &mut TilePos)>,
) {
    let Ok(fog) = fog.get(units_map.terrain) else {
        return;
    };
    if !turns.due(&time) {
        return;
    }
    turns.count += 1;
    let mut order: Vec<_> = units.iter_mut().collect();
    order.sort_by_key(|(unit, _)| (unit.team, unit.index));
    let mut occupied: HashSet<TilePos> = order.iter().map(|(_, tile)| **tile).collect();
    for (unit, tile) in &mut order {
        let free = |t: &TilePos| map.is_open(*t) && !occupied.contains(t);
        let next = match unit.team {
            0 => fog
                .team(Team(0))
                .and_then(|explored| explore_step(**tile, &free, explored)),
            _ => {
                let options: Vec<_> = neighbours(**tile).into_iter().filter(free).collect();
                let pick = turns.rng.below(options.len() as u32 + 1) as usize;
                options.get(pick).copied()
            }
        };
        if let Some(next) = next {
            occupied.remove(&**tile);
            occupied.insert(next);
            **tile = next;
        }
    }
}

/// The first step of a shortest walk over `free` hexagons to the nearest one `explored` has
/// not explored.
fn explore_step(
    from: TilePos,
    free: &impl Fn(&TilePos) -> bool,
    explored: &TeamFog,
) -> Option<TilePos> {
    let index = |t: TilePos| (t.y * MAP_SIZE.x + t.x) as usize;
    let mut came_from: Vec<Option<TilePos>> = vec![None; (MAP_SIZE.x * MAP_SIZE.y) as usize];
    came_from[index(from)] = Some(from);
    let mut queue = VecDeque::from([from]);
    while let Some(tile) = queue.pop_front() {
        if !explored.is_explored(tile) {
            let mut step = tile;
            while let Some(previous) = came_from[index(step)].filter(|&p| p != from) {
                step = previous;
            }
            return Some(step);
        }
        for next in neighbours(tile).into_iter().filter(free) {
            if came_from[index(next)].is_none() {
                came_from[index(next)] = Some(tile);
                queue.push_back(next);
            }
        }
    }
    None
}
