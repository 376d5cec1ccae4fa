//! After `--autoplay N` steps: let the last step render, report what the player sees, then
//! `--screenshot PATH` saves the window and `--exit` quits. That is how CI sees the map.

use bevy::asset::LoadState;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::prelude::*;

use crate::map::{GRID, Level, ZOOM};
use crate::screenshot::save_and_exit;
use crate::script::{Options, Settle};
use crate::shared_walk::Turns;
use crate::walk::RememberedDoors;

pub struct FinishPlugin;

impl Plugin for FinishPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Settle>()
            .add_systems(Last, (fail_without_map, finish).chain());
    }
}

/// Without its map the scripted walk would wait for ever: fail loudly instead.
fn fail_without_map(
    assets: Res<AssetServer>,
    maps: Query<&TiledMap>,
    mut exit: MessageWriter<AppExit>,
) {
    for map in &maps {
        if let Some(LoadState::Failed(error)) = assets.get_load_state(map.0.id()) {
            eprintln!(
                "tiled_map: the Tiled map did not load ({error}); run from the crate's folder or set BEVY_ASSET_ROOT"
            );
            exit.write(AppExit::error());
        }
    }
}

fn finish(
    mut commands: Commands,
    options: Res<Options>,
    (turns, remembered): (Res<Turns>, Res<RememberedDoors>),
    mut settle: ResMut<Settle>,
    level: Option<Res<Level>>,
    fog: Query<&FogOfWar>,
    figures: Query<(&TiledName, &TilePos, &Visibility), With<Viewshed>>,
    doors: Query<(&TiledName, &TilePos), (With<TiledObject>, Without<Opaque>)>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(limit) = options.autoplay else {
        return;
    };
    let Some(level) = level else {
        return;
    };
    let Ok(fog) = fog.get(level.root) else {
        return;
    };
    if turns.count < limit || !settle.finished() {
        return;
    }
    let player = figures
        .iter()
        .find(|(name, ..)| name.0 == "Player")
        .map_or(TilePos::new(0, 0), |(_, &at, _)| at);
    let guards_shown: Vec<TilePos> = figures
        .iter()
        .filter(|(name, _, shown)| name.0 == "Guard" && **shown != Visibility::Hidden)
        .map(|(_, &at, _)| at)
        .collect();
    let open: Vec<TilePos> = doors
        .iter()
        .filter(|(name, _)| name.0 == "Door")
        .map(|(_, &at)| at)
        .collect();
    let origin = level.tile_pixel(TilePos::new(0, 0));
    println!(
        "autoplay done: step {} player at ({}, {}) sees {} tiles, explored {}, guards shown {}, doors opened {}; tile (0, 0) at pixel ({:.1}, {:.1}) size {}; guards at [{}]; open doors at [{}]; opened out of sight at [{}]",
        turns.count,
        player.x,
        player.y,
        fog.visible_tiles().count(),
        fog.explored_tiles().count(),
        guards_shown.len(),
        turns.doors_opened,
        origin.x,
        origin.y,
        GRID * ZOOM,
        tiles(&guards_shown),
        tiles(&open),
        tiles(&remembered.opened),
    );
    save_and_exit(
        &mut commands,
        options.screenshot.clone(),
        options.exit,
        &mut exit,
    );
}

/// Tiles as `(x, y) (x, y)`, for the report.
fn tiles(tiles: &[TilePos]) -> String {
    let tiles: Vec<String> = tiles
        .iter()
        .map(|t| format!("({}, {})", t.x, t.y))
        .collect();
    tiles.join(" ")
}
