//! The player's turn: moving (arrows, WASD, vi keys, numpad; diagonals too), waiting, doors,
//! and the view radius.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Radius;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DistanceShape, FovMode};

use crate::args::Options;
use crate::map::Cell;
use crate::monsters::Monster;
use crate::sprites::tiles;
use crate::world::{Door, Level, MAP_HEIGHT, MAP_WIDTH, Player, PlayerActed, Turn};

/// What the player does this turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Step(i32, i32),
    Wait,
    ToggleDoors,
}

/// Keys and the step each one takes (tilemap y grows upwards).
const MOVES: [(KeyCode, (i32, i32)); 28] = [
    (KeyCode::ArrowUp, (0, 1)),
    (KeyCode::ArrowDown, (0, -1)),
    (KeyCode::ArrowLeft, (-1, 0)),
    (KeyCode::ArrowRight, (1, 0)),
    (KeyCode::KeyW, (0, 1)),
    (KeyCode::KeyS, (0, -1)),
    (KeyCode::KeyA, (-1, 0)),
    (KeyCode::KeyD, (1, 0)),
    (KeyCode::KeyK, (0, 1)),
    (KeyCode::KeyJ, (0, -1)),
    (KeyCode::KeyH, (-1, 0)),
    (KeyCode::KeyL, (1, 0)),
    (KeyCode::KeyY, (-1, 1)),
    (KeyCode::KeyU, (1, 1)),
    (KeyCode::KeyB, (-1, -1)),
    (KeyCode::KeyN, (1, -1)),
    (KeyCode::Numpad8, (0, 1)),
    (KeyCode::Numpad2, (0, -1)),
    (KeyCode::Numpad4, (-1, 0)),
    (KeyCode::Numpad6, (1, 0)),
    (KeyCode::Numpad7, (-1, 1)),
    (KeyCode::Numpad9, (1, 1)),
    (KeyCode::Numpad1, (-1, -1)),
    (KeyCode::Numpad3, (1, -1)),
    (KeyCode::Home, (-1, 1)),
    (KeyCode::PageUp, (1, 1)),
    (KeyCode::End, (-1, -1)),
    (KeyCode::PageDown, (1, -1)),
];

/// The player acts from the keyboard unless a scripted walk plays.
pub fn players_turn(options: Res<Options>) -> bool {
    options.autoplay.is_none()
}

pub fn player_turn(
    keys: Res<ButtonInput<KeyCode>>,
    mut player: Single<&mut TilePos, With<Player>>,
    mut actions: Actions,
) {
    let action = if let Some((_, (dx, dy))) = MOVES.iter().find(|(key, _)| keys.just_pressed(*key))
    {
        Action::Step(*dx, *dy)
    } else if keys.just_pressed(KeyCode::Period) || keys.just_pressed(KeyCode::Numpad5) {
        Action::Wait
    } else if keys.just_pressed(KeyCode::KeyO) {
        Action::ToggleDoors
    } else {
        return;
    };
    if actions.act(action, &mut player) {
        actions.end_turn();
    }
}

/// The door tiles, with their state and look.
pub type Doors<'w, 's> = Query<'w, 's, (Entity, &'static mut Door, &'static mut TileTextureIndex)>;

/// What the player's actions read and change: the level, the monsters in the way, the doors,
/// and the turn they end.
#[derive(SystemParam)]
pub struct Actions<'w, 's> {
    commands: Commands<'w, 's>,
    pub level: Res<'w, Level>,
    monsters: Query<'w, 's, &'static TilePos, (With<Monster>, Without<Player>)>,
    doors: Doors<'w, 's>,
    turn: ResMut<'w, Turn>,
    acted: MessageWriter<'w, PlayerActed>,
}

impl Actions<'_, '_> {
    /// Carries out an action; false when it was not possible (walking into a wall).
    pub fn act(&mut self, action: Action, player: &mut TilePos) -> bool {
        match action {
            Action::Step(dx, dy) => {
                let Some(target) = step(*player, dx, dy) else {
                    return false;
                };
                if self.blocked(target) || self.occupied(target) {
                    return false;
                }
                *player = target;
                true
            }
            Action::Wait => true,
            Action::ToggleDoors => {
                let mut toggled = false;
                for tile in neighbours(*player) {
                    if self.level.dungeon.cell(tile.x, tile.y) != Cell::Door || self.occupied(tile)
                    {
                        continue;
                    }
                    let Some(entity) = door_entity(&self.level, tile) else {
                        continue;
                    };
                    if let Ok(door) = self.doors.get_mut(entity) {
                        toggle_door(&mut self.commands, door);
                        toggled = true;
                    }
                }
                toggled
            }
        }
    }

    /// Whether a wall or a closed door stands on `tile`.
    pub fn blocked(&self, tile: TilePos) -> bool {
        blocked(&self.level, &self.doors, tile)
    }

    /// Whether a monster stands on `tile`.
    fn occupied(&self, tile: TilePos) -> bool {
        self.monsters.iter().any(|pos| *pos == tile)
    }

    /// Counts the turn and lets the monsters take theirs.
    pub fn end_turn(&mut self) {
        self.turn.0 += 1;
        self.acted.write(PlayerActed);
    }

    /// The turns played so far.
    pub fn turn(&self) -> u32 {
        self.turn.0
    }
}

pub fn step(from: TilePos, dx: i32, dy: i32) -> Option<TilePos> {
    let (x, y) = (from.x as i32 + dx, from.y as i32 + dy);
    (x >= 0 && y >= 0 && x < MAP_WIDTH as i32 && y < MAP_HEIGHT as i32).then_some(TilePos {
        x: x as u32,
        y: y as u32,
    })
}

pub fn neighbours(tile: TilePos) -> impl Iterator<Item = TilePos> {
    (-1..=1)
        .flat_map(|dx| (-1..=1).map(move |dy| (dx, dy)))
        .filter(|&d| d != (0, 0))
        .filter_map(move |(dx, dy)| step(tile, dx, dy))
}

fn door_entity(level: &Level, tile: TilePos) -> Option<Entity> {
    level.door_tiles.get(&(tile.x, tile.y)).copied()
}

/// Opens or closes a door: its state, its look, and whether it blocks sight (opening removes
/// its `Opaque`: the view changes this very frame).
pub fn toggle_door(
    commands: &mut Commands,
    (entity, mut door, mut texture): (Entity, Mut<Door>, Mut<TileTextureIndex>),
) {
    door.open = !door.open;
    if door.open {
        commands.entity(entity).remove::<Opaque>();
        texture.0 = tiles::DOOR_OPEN;
    } else {
        commands.entity(entity).insert(Opaque);
        texture.0 = tiles::DOOR_CLOSED;
    }
}

/// A closed door next to `tile`, if there is one.
pub fn closed_door_next_to(level: &Level, doors: &Doors, tile: TilePos) -> Option<Entity> {
    neighbours(tile)
        .filter_map(|next| door_entity(level, next))
        .find(|&entity| doors.get(entity).is_ok_and(|(_, door, _)| !door.open))
}

/// Walls and closed doors block moves.
pub fn blocked(level: &Level, doors: &Doors, tile: TilePos) -> bool {
    match level.dungeon.cell(tile.x, tile.y) {
        Cell::Wall => true,
        Cell::Floor => false,
        Cell::Door => door_entity(level, tile)
            .and_then(|entity| doors.get(entity).ok())
            .is_some_and(|(_, door, _)| !door.open),
    }
}

/// `+` and `-` change the player's view radius, `c` cycles its distance shape (disk, square,
/// diamond), `p` switches between the symmetric and the permissive rule; the view follows at
/// once.
pub fn change_sight(
    keys: Res<ButtonInput<KeyCode>>,
    mut viewshed: Single<&mut Viewshed, With<Player>>,
) {
    if keys.just_pressed(KeyCode::KeyC) {
        viewshed.options.shape = match viewshed.options.shape {
            DistanceShape::Euclidean => DistanceShape::Chebyshev,
            DistanceShape::Chebyshev => DistanceShape::Manhattan,
            DistanceShape::Manhattan => DistanceShape::Euclidean,
        };
    }
    if keys.just_pressed(KeyCode::KeyP) {
        viewshed.options.mode = match viewshed.options.mode {
            FovMode::Symmetric => FovMode::Permissive,
            FovMode::Permissive => FovMode::Symmetric,
        };
    }
    let step = |radius: Radius, grow: bool| match radius {
        Radius::Limited(r) if grow => Radius::Limited((r + 1).min(60)),
        Radius::Limited(r) => Radius::Limited(r.saturating_sub(1)),
        Radius::Unlimited => Radius::Limited(60),
    };
    if keys.just_pressed(KeyCode::Equal) || keys.just_pressed(KeyCode::NumpadAdd) {
        let radius = step(viewshed.radius(), true);
        viewshed.set_radius(radius);
    }
    if keys.just_pressed(KeyCode::Minus) || keys.just_pressed(KeyCode::NumpadSubtract) {
        let radius = step(viewshed.radius(), false);
        viewshed.set_radius(radius);
    }
}
