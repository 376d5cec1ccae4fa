//! After `--autoplay N` turns: let the last turn render, report what team 0 sees, then
//! `--screenshot PATH` saves the window and `--exit` quits. That is how CI sees the game.

use bevy::asset::LoadState;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

use crate::hud::enemies_seen;
use crate::screenshot::save_and_exit;
use crate::script::{Options, Settle};
use crate::sprites::{UnitSprites, tile_pixel};
use crate::turns::{Turns, Unit, Units};

pub struct FinishPlugin;

impl Plugin for FinishPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Settle>().add_systems(Last, finish);
    }
}

fn finish(
    mut commands: Commands,
    options: Res<Options>,
    turns: Res<Turns>,
    mut settle: ResMut<Settle>,
    sprites: Option<Res<UnitSprites>>,
    assets: Res<AssetServer>,
    units_map: Option<Res<Units>>,
    fog: Query<&FogOfWar>,
    units: Query<(&Unit, &TilePos)>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(limit) = options.autoplay else {
        return;
    };
    if let Some(sprites) = &sprites
        && let Some(LoadState::Failed(error)) = assets.get_load_state(&sprites.image)
    {
        // Without its tileset the scripted game would wait for ever: fail loudly instead.
        eprintln!(
            "hex_skirmish: the tileset did not load ({error}); run from the crate's folder or set BEVY_ASSET_ROOT"
        );
        exit.write(AppExit::error());
        return;
    }
    let loaded = sprites.is_some_and(|s| assets.is_loaded_with_dependencies(&s.image));
    if turns.count < limit || !loaded || !settle.finished() {
        return;
    }
    if let Some(fog) = units_map.and_then(|u| fog.get(u.terrain).ok()) {
        let origin = tile_pixel(TilePos { x: 0, y: 0 });
        println!(
            "autoplay done: turn {} team 0 sees {} tiles and {} enemies, explored {}; hex (0, 0) at pixel ({:.1}, {:.1})",
            turns.count,
            fog.visible_tiles().count(),
            enemies_seen(fog, &units),
            fog.explored_tiles().count(),
            origin.x,
            origin.y,
        );
    }
    save_and_exit(
        &mut commands,
        options.screenshot.clone(),
        options.exit,
        &mut exit,
    );
}
