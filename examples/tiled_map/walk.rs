//! The steps: the player walks towards the nearest tile it has not explored and opens the
//! closed doors on its way (the door object loses its `Opaque` and shows the open door's
//! tile), guards wander. Objects move by their `Transform`, as a game moves Tiled objects; the
//! plugin keeps their tile. One step per frame with `--autoplay N` (N steps, the same every
//! run for a seed), else one every 0.25 s.

use std::collections::{HashMap, HashSet, VecDeque};

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::MapOpacity;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Team, TeamFog};

use crate::map::{GRID, Level, OPEN_DOOR_TILE};
use crate::script::Options;

/// The step counter, the clock of the interactive walk and the guards' dice.
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

/// What a tile is to walkers: the map's opacity, and the doors by their tile.
struct Ground<'a> {
    size: TilemapSize,
    opacity: &'a MapOpacity,
    /// Each door object's tile, and whether it is closed.
    doors: HashMap<TilePos, (Entity, bool)>,
}

impl Ground<'_> {
    /// Not a wall nor a pillar (doors, open or closed, are).
    fn walkable(&self, tile: TilePos) -> bool {
        !self.opacity.is_opaque(tile) || self.doors.contains_key(&tile)
    }

    fn closed_door(&self, tile: TilePos) -> Option<Entity> {
        self.doors
            .get(&tile)
            .and_then(|&(door, closed)| closed.then_some(door))
    }

    /// The tiles next to `tile` on the map, in a fixed order.
    fn neighbours(&self, tile: TilePos) -> impl Iterator<Item = TilePos> {
        let size = self.size;
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

/// What a step does to the map.
enum Move {
    Walk(Entity, TilePos, TilePos),
    OpenDoor(Entity, TilePos),
}

/// The walkers: the objects with a `Viewshed` (the player and the guards).
type Walkers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static TiledName,
        &'static TilePos,
        &'static mut Transform,
    ),
    With<Viewshed>,
>;

/// Takes a step when one is due: the player's, then each guard's in the map's order.
fn step(
    time: Res<Time>,
    mut turns: ResMut<Turns>,
    level: Res<Level>,
    maps: Query<(&FogOfWar, &MapOpacity)>,
    doors: Query<(Entity, &TiledName, &TilePos, Has<Opaque>), With<TiledObject>>,
    visuals: Query<&TiledObjectVisuals>,
    mut sprites: Query<&mut Sprite>,
    mut walkers: Walkers,
    mut commands: Commands,
) {
    let Ok((fog, opacity)) = maps.get(level.root) else {
        return;
    };
    let Some(explored) = fog.team(Team(0)) else {
        return;
    };
    if walkers.is_empty() || !turns.due(&time) {
        return;
    }
    turns.count += 1;
    let ground = Ground {
        size: level.size,
        opacity,
        doors: doors
            .iter()
            .filter(|(_, name, ..)| name.0 == "Door")
            .map(|(door, _, &at, closed)| (at, (door, closed)))
            .collect(),
    };
    for action in plan(&ground, explored, &mut turns, &walkers) {
        match action {
            Move::Walk(walker, from, to) => {
                if let Ok((.., mut transform)) = walkers.get_mut(walker) {
                    let dx = to.x as f32 - from.x as f32;
                    let dy = to.y as f32 - from.y as f32;
                    transform.translation += Vec3::new(dx, dy, 0.0) * GRID;
                }
            }
            Move::OpenDoor(door, at) => {
                commands.entity(door).remove::<Opaque>();
                for visual in visuals.get(door).into_iter().flat_map(|v| v.iter()) {
                    if let Ok(mut sprite) = sprites.get_mut(visual)
                        && let Some(atlas) = &mut sprite.texture_atlas
                    {
                        atlas.index = OPEN_DOOR_TILE;
                    }
                }
                turns.doors_opened += 1;
                println!(
                    "step {}: opened the door at ({}, {})",
                    turns.count, at.x, at.y
                );
            }
        }
    }
}

/// This step's moves: the player explores (opening a closed door in its way instead of
/// stepping), guards step at random onto free floor or stay.
fn plan(ground: &Ground, explored: &TeamFog, turns: &mut Turns, walkers: &Walkers) -> Vec<Move> {
    let mut order: Vec<_> = walkers
        .iter()
        .map(|(entity, name, &at, _)| ((name.0 != "Player", at.y, at.x), entity, at))
        .collect();
    order.sort_by_key(|&(key, ..)| key);
    let mut occupied: HashSet<TilePos> = order.iter().map(|&(_, _, at)| at).collect();
    let mut moves = Vec::new();
    for ((guard, ..), entity, at) in order {
        let to = if guard {
            let free: Vec<_> = ground
                .neighbours(at)
                .filter(|&t| ground.walkable(t) && ground.closed_door(t).is_none())
                .filter(|t| !occupied.contains(t))
                .collect();
            free.get(turns.roll(free.len() + 1)).copied()
        } else {
            ground.explore_step(at, explored)
        };
        match to {
            Some(to) if ground.closed_door(to).is_some() => {
                moves.push(Move::OpenDoor(ground.closed_door(to).unwrap(), to));
            }
            Some(to) if !occupied.contains(&to) => {
                occupied.remove(&at);
                occupied.insert(to);
                moves.push(Move::Walk(entity, at, to));
            }
            _ => {}
        }
    }
    moves
}
