//! The HUD line: seed, turn, how many red units the blue team sees, and how the fog is drawn.

use bevy::prelude::*;

use crate::shared_hud::hud_text;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

use crate::fog_mode::FogMode;
use crate::script::Options;
use crate::turns::{Turns, Unit, Units};

#[derive(Component)]
struct HudText;

pub struct HudPlugin;

impl Plugin for HudPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(PostUpdate, update_text.after(ViewshedSystems));
    }
}

pub fn setup(mut commands: Commands) {
    commands.spawn((HudText, hud_text("", 14.0, 6.0)));
}

/// The red units (team 1) on hexagons the fog shows as visible.
pub fn enemies_seen(fog: &FogOfWar, units: &Query<(&Unit, &TilePos)>) -> usize {
    units
        .iter()
        .filter(|(unit, tile)| unit.team == 1 && fog.is_visible(**tile))
        .count()
}

fn update_text(
    options: Res<Options>,
    turns: Res<Turns>,
    units_map: Option<Res<Units>>,
    fog: Query<&FogOfWar>,
    units: Query<(&Unit, &TilePos)>,
    fog_mode: Res<FogMode>,
    mut text: Single<&mut Text, With<HudText>>,
) {
    let Some(fog) = units_map.and_then(|u| fog.get(u.terrain).ok()) else {
        return;
    };
    let line = format!(
        "seed {}   turn {}   blue units see {} red units   hexes seen now {}, explored {}   \
         fog: {} (f)",
        options.seed,
        turns.count,
        enemies_seen(fog, &units),
        fog.visible_tiles().count(),
        fog.explored_tiles().count(),
        fog_mode.name(),
    );
    if text.0 != line {
        text.0 = line;
    }
}
