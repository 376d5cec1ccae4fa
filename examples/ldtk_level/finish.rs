//! After `--autoplay N` steps: let the last step render, report what the player sees, then
//! `--screenshot PATH` saves the window and `--exit` quits. That is how CI sees the level.

use bevy::asset::LoadState;
use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

use crate::level::{Goblin, Level, Player, ZOOM};
use crate::screenshot::save_and_exit;
use crate::script::{Options, Settle};
use crate::shared_walk::Turns;

pub struct FinishPlugin;

impl Plugin for FinishPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Settle>()
            .add_systems(Last, (fail_without_project, finish).chain());
    }
}

/// Without its project the scripted walk would wait for ever: fail loudly instead.
fn fail_without_project(
    assets: Res<AssetServer>,
    projects: Query<&LdtkProjectHandle>,
    mut exit: MessageWriter<AppExit>,
) {
    for project in &projects {
        if let Some(LoadState::Failed(error)) = assets.get_load_state(project.id()) {
            eprintln!(
                "ldtk_level: the LDtk project did not load ({error}); run from the crate's folder or set BEVY_ASSET_ROOT"
            );
            exit.write(AppExit::error());
        }
    }
}

fn finish(
    mut commands: Commands,
    options: Res<Options>,
    turns: Res<Turns>,
    mut settle: ResMut<Settle>,
    level: Option<Res<Level>>,
    fog: Query<&FogOfWar>,
    figures: Query<(Has<Player>, Has<Goblin>, &TilePos, &Visibility)>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(limit) = options.autoplay else {
        return;
    };
    let (Some(level), Ok(fog)) = (level, fog.single()) else {
        return;
    };
    if turns.count < limit || !settle.finished() {
        return;
    }
    let player = figures
        .iter()
        .find(|&(player, ..)| player)
        .map_or(TilePos::new(0, 0), |(_, _, &at, _)| at);
    let goblins_shown = figures
        .iter()
        .filter(|&(_, goblin, _, shown)| goblin && *shown != Visibility::Hidden)
        .count();
    let origin = level.tile_pixel(TilePos::new(0, 0));
    println!(
        "autoplay done: step {} player at ({}, {}) sees {} tiles, explored {}, goblins shown {}, doors opened {}; tile (0, 0) at pixel ({:.1}, {:.1}) size {}",
        turns.count,
        player.x,
        player.y,
        fog.visible_tiles().count(),
        fog.explored_tiles().count(),
        goblins_shown,
        turns.doors_opened,
        origin.x,
        origin.y,
        16.0 * ZOOM,
    );
    save_and_exit(
        &mut commands,
        options.screenshot.clone(),
        options.exit,
        &mut exit,
    );
}
