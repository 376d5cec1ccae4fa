//! `--autoplay N`: the player explores by itself for N turns (deterministic for a seed), then
//! `--screenshot PATH` saves the window and `--exit` quits. That is how CI sees the game.

use std::collections::VecDeque;

use bevy::asset::LoadState;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

use crate::args::Options;
use crate::film::Film;
use crate::hud::FovTiming;
use crate::input::{Action, Actions, neighbours};
use crate::looks::FADE;
use crate::map::Cell;
use crate::record::{FRAME_TIME, TURN_FRAMES, WARM_UP};
use crate::screenshot::save_and_exit;
use crate::sprites::{ActorSprites, tile_center};
use crate::world::{Level, MAP_HEIGHT, MAP_WIDTH, Player, Turn};

/// Frames to let the last turn render before the screenshot: the fades end (the longest,
/// `FADE.fade_out`, on the scripted game's clock of `FRAME_TIME` per frame), and a few more.
const SETTLE_FRAMES: u32 = (FADE.fade_out.as_millis() / FRAME_TIME.as_millis()) as u32 + 6;

#[derive(Resource, Default)]
struct Finish {
    settled: u32,
    requested: bool,
}

pub struct AutoplayPlugin;

impl Plugin for AutoplayPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Finish>().add_systems(Last, finish);
    }
}

/// One scripted turn per frame: walk towards the nearest unexplored tile, opening doors on
/// the way.
pub fn play(
    options: Res<Options>,
    mut frame: Local<u32>,
    fog: Query<&FogOfWar>,
    mut player: Single<&mut TilePos, With<Player>>,
    mut actions: Actions,
) {
    let Some(turns) = options.autoplay else {
        return;
    };
    // While filming, a turn every few frames, so that the fades can be seen, once the
    // shaders are ready.
    *frame += 1;
    let (pace, start) = if options.record.is_some() {
        (TURN_FRAMES, WARM_UP)
    } else {
        (1, 0)
    };
    if actions.turn() >= turns || *frame <= start || !frame.is_multiple_of(pace) {
        return;
    }
    let Ok(fog) = fog.get(actions.level.terrain) else {
        return;
    };
    let level = &actions.level;
    let action = match next_step(level, fog, **player) {
        Some(next) if level.dungeon.cell(next.x, next.y) == Cell::Door && actions.blocked(next) => {
            Action::ToggleDoors
        }
        Some(next) => Action::Step(
            next.x as i32 - player.x as i32,
            next.y as i32 - player.y as i32,
        ),
        None => Action::Wait,
    };
    // A monster in the way: the turn passes, waiting for it to move.
    actions.act(action, &mut player);
    actions.end_turn();
}

/// The first step of a shortest walk to the nearest unexplored walkable tile.
fn next_step(level: &Level, fog: &FogOfWar, from: TilePos) -> Option<TilePos> {
    let (w, h) = (MAP_WIDTH as usize, MAP_HEIGHT as usize);
    let mut came_from: Vec<Option<TilePos>> = vec![None; w * h];
    let index = |t: TilePos| t.y as usize * w + t.x as usize;
    came_from[index(from)] = Some(from);
    let mut queue = VecDeque::from([from]);
    while let Some(tile) = queue.pop_front() {
        if !fog.is_explored(tile) {
            let mut step = tile;
            while let Some(previous) = came_from[index(step)].filter(|&p| p != from) {
                step = previous;
            }
            return Some(step);
        }
        for next in neighbours(tile) {
            let walkable = level.dungeon.cell(next.x, next.y) != Cell::Wall;
            if walkable && came_from[index(next)].is_none() {
                came_from[index(next)] = Some(tile);
                queue.push_back(next);
            }
        }
    }
    None
}

/// After the scripted turns: let the frame settle, save the screenshot, exit.
fn finish(
    mut commands: Commands,
    options: Res<Options>,
    turn: Res<Turn>,
    mut finish: ResMut<Finish>,
    sprites: Option<Res<ActorSprites>>,
    assets: Res<AssetServer>,
    timing: Res<FovTiming>,
    player: Query<(&TilePos, &Viewshed), With<Player>>,
    camera: Single<&Transform, With<Camera2d>>,
    film: Option<ResMut<Film>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(turns) = options.autoplay else {
        return;
    };
    if let Some(sprites) = &sprites
        && let Some(LoadState::Failed(error)) = assets.get_load_state(&sprites.image)
    {
        // Without its tileset the scripted game would wait for ever: fail loudly instead.
        eprintln!(
            "dungeon: the tileset did not load ({error}); run from the crate's folder or set BEVY_ASSET_ROOT"
        );
        exit.write(AppExit::error());
        return;
    }
    let loaded = sprites.is_some_and(|s| assets.is_loaded_with_dependencies(&s.image));
    if turn.0 < turns || !loaded || finish.requested {
        return;
    }
    finish.settled += 1;
    if finish.settled < SETTLE_FRAMES {
        return;
    }
    if let Some(mut film) = film {
        if !film.complete() {
            return;
        }
        if let Some(path) = options.record.as_deref() {
            crate::record::save(&mut film, path);
        }
    }
    finish.requested = true;
    if let Ok((tile, viewshed)) = player.single() {
        let camera = (camera.translation.truncate(), options.zoom);
        report(turn.0, (*tile, camera), viewshed, &timing);
    }
    save_and_exit(
        &mut commands,
        options.screenshot.clone(),
        options.exit,
        &mut exit,
    );
}

/// The line the screenshot test reads: where the player is, on which pixel, and how many tiles
/// it sees.
fn report(
    turn: u32,
    (tile, (camera, zoom)): (TilePos, (Vec2, f32)),
    viewshed: &Viewshed,
    timing: &FovTiming,
) {
    // The window is 1280x720, the camera at `camera`, `zoom` pixels a world unit.
    let world = tile_center(tile);
    let (px, py) = (
        640.0 + (world.x - camera.x) * zoom,
        360.0 - (world.y - camera.y) * zoom,
    );
    println!(
        "autoplay done: turn {turn} player at tile ({}, {}) pixel ({px:.0}, {py:.0}) radius {} sees {} tiles; FOV update {:.3} ms (median) for {} views",
        tile.x,
        tile.y,
        viewshed.radius(),
        viewshed.count(),
        timing.last.as_secs_f64() * 1000.0,
        timing.viewers
    );
}
