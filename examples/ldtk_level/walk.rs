//! The steps: the player walks towards the nearest tile it has not explored and opens the
//! closed doors on its way (their `IntGridCell` set to "open door"), goblins wander. One step
//! per frame with `--autoplay N` (N steps, the same every run for a seed), else one every
//! 0.25 s.

use std::collections::{HashSet, VecDeque};

use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Team, TeamFog};

use crate::level::{CLOSED_DOOR, Level, OPEN_DOOR, OPEN_DOOR_TILE, Player, WALL};
use crate::script::Options;

/// The step counter, the clock of the interactive walk and the goblins' dice.
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

    /// Whether a step is taken this frame.
    fn due(&mut self, time: &Time) -> bool {
        match self.limit {
            Some(limit) => self.count < limit,
            None => self.clock.tick(time.delta()).just_finished(),
        }
    }

    /// A number in `0..n` (xorshift64).
    fn roll(&mut self, n: usize) -> usize {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        (self.dice % n.max(1) as u64) as usize
    }
}

pub struct WalkPlugin;

impl Plugin for WalkPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, step.run_if(resource_exists::<Level>));
    }
}

/// What a tile is to walkers, read from the level's layers.
struct Ground<'a, 'w, 's> {
    level: Level,
    storages: &'a Query<'w, 's, &'static TileStorage>,
    cells: &'a Query<'w, 's, (&'static IntGridCell, &'static TileTextureIndex)>,
    opaque: &'a Query<'w, 's, (), With<Opaque>>,
}

impl Ground<'_, '_, '_> {
    fn tile(&self, layer: Entity, tile: TilePos) -> Option<Entity> {
        self.storages.get(layer).ok()?.get(&tile)
    }

    /// The "Walls" IntGrid value at `tile` (0: floor).
    fn value(&self, tile: TilePos) -> i32 {
        self.tile(self.level.walls, tile)
            .and_then(|t| self.cells.get(t).ok())
            .map_or(0, |(cell, _)| cell.value)
    }

    /// Not a wall nor a pillar (doors, open or closed, are).
    fn walkable(&self, tile: TilePos) -> bool {
        let pillar = self
            .tile(self.level.decor, tile)
            .is_some_and(|t| self.opaque.contains(t));
        self.value(tile) != WALL && !pillar
    }

    /// The tiles next to `tile` on the level, in a fixed order.
    fn neighbours(&self, tile: TilePos) -> impl Iterator<Item = TilePos> {
        let size = self.level.size;
        [(1, 0), (0, 1), (-1, 0), (0, -1)]
            .into_iter()
            .filter_map(move |(dx, dy)| {
                let x = tile.x.checked_add_signed(dx).filter(|&x| x < size.x)?;
                let y = tile.y.checked_add_signed(dy).filter(|&y| y < size.y)?;
                Some(TilePos::new(x, y))
            })
    }

    /// The first step of a shortest walk to the nearest walkable tile `explored` has not
    /// explored.
    fn explore_step(&self, from: TilePos, explored: &TeamFog) -> Option<TilePos> {
        let mut came_from = std::collections::HashMap::from([(from, from)]);
        let mut queue = VecDeque::from([from]);
        while let Some(tile) = queue.pop_front() {
            if !explored.is_explored(tile) {
                let mut step = tile;
                while came_from[&step] != from {
                    step = came_from[&step];
                }
                return Some(step);
            }
            for next in self.neighbours(tile).filter(|&t| self.walkable(t)) {
                if let std::collections::hash_map::Entry::Vacant(entry) = came_from.entry(next) {
                    entry.insert(tile);
                    queue.push_back(next);
                }
            }
        }
        None
    }
}

/// What a step does to the level.
enum Move {
    Walk(Entity, TilePos),
    /// The door's tile and its tile entity on the "Walls" layer.
    OpenDoor(TilePos, Entity),
}

/// Takes a step when one is due: the player's, then each goblin's in the level's order.
fn step(
    time: Res<Time>,
    mut turns: ResMut<Turns>,
    level: Res<Level>,
    fog: Query<&FogOfWar>,
    storages: Query<&'static TileStorage>,
    mut cells: Query<(&'static mut IntGridCell, &'static mut TileTextureIndex)>,
    opaque: Query<(), With<Opaque>>,
    mut figures: Query<(Entity, &EntityIid, Has<Player>, &mut GridCoords), With<Viewshed>>,
) {
    let Some(explored) = fog.iter().find_map(|fog| fog.team(Team(0))) else {
        return;
    };
    if figures.is_empty() || !turns.due(&time) {
        return;
    }
    turns.count += 1;
    let moves = {
        let read = cells.as_readonly();
        let ground = Ground {
            level: *level,
            storages: &storages,
            cells: &read,
            opaque: &opaque,
        };
        plan(&ground, explored, &mut turns, &figures)
    };
    for action in moves {
        match action {
            Move::Walk(entity, to) => {
                if let Ok((_, _, _, mut grid)) = figures.get_mut(entity) {
                    *grid = GridCoords::from(to);
                }
            }
            Move::OpenDoor(door, tile) => {
                if let Ok((mut cell, mut look)) = cells.get_mut(tile) {
                    cell.value = OPEN_DOOR;
                    look.0 = OPEN_DOOR_TILE;
                    turns.doors_opened += 1;
                    println!(
                        "step {}: opened the door at ({}, {})",
                        turns.count, door.x, door.y
                    );
                }
            }
        }
    }
}

/// This step's moves: the player explores (opening a closed door in its way instead of
/// stepping), goblins step at random onto free floor or stay.
fn plan(
    ground: &Ground,
    explored: &TeamFog,
    turns: &mut Turns,
    figures: &Query<(Entity, &EntityIid, Has<Player>, &mut GridCoords), With<Viewshed>>,
) -> Vec<Move> {
    let mut order: Vec<_> = figures
        .iter()
        .map(|(entity, iid, player, grid)| {
            (
                (!player, iid.as_str().to_owned()),
                entity,
                TilePos::from(*grid),
            )
        })
        .collect();
    order.sort_by(|a, b| a.0.cmp(&b.0));
    let mut occupied: HashSet<TilePos> = order.iter().map(|&(_, _, at)| at).collect();
    let mut moves = Vec::new();
    for ((goblin, _), entity, at) in order {
        let to = if goblin {
            let free: Vec<_> = ground
                .neighbours(at)
                .filter(|&t| ground.walkable(t) && ground.value(t) != CLOSED_DOOR)
                .filter(|t| !occupied.contains(t))
                .collect();
            free.get(turns.roll(free.len() + 1)).copied()
        } else {
            ground.explore_step(at, explored)
        };
        match to {
            Some(door) if ground.value(door) == CLOSED_DOOR => {
                if let Some(tile) = ground.tile(ground.level.walls, door) {
                    moves.push(Move::OpenDoor(door, tile));
                }
            }
            Some(to) if !occupied.contains(&to) => {
                occupied.remove(&at);
                occupied.insert(to);
                moves.push(Move::Walk(entity, to));
            }
            _ => {}
        }
    }
    moves
}
