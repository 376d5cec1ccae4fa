//! A hexagonal skirmish: two teams of scouts on a bevy_ecs_tilemap `RowOdd` (pointy-top) map,
//! forests and rocks blocking sight, each unit with its own `Viewshed`, and the fog of war of
//! the blue team (team 0) drawn over the map. The red team (team 1) is only seen where blue
//! units see it.
//!
//! ```text
//! cargo run --example hex_skirmish                     # a new map each run, a turn every 0.4 s
//! cargo run --example hex_skirmish -- --seed 7         # the same map again
//! cargo run --example hex_skirmish -- --seed 7 --autoplay 30 --screenshot shot.png --exit
//! ```
//!
//! Each turn every unit steps to a neighbouring hexagon: blue units walk towards the nearest
//! hexagon their team has not explored, red units wander. The fog is drawn smooth on the GPU,
//! in the grid's own coordinates (`SmoothFog`), or hexagon by hexagon in tile colours
//! (`FogStyle`): `f` switches, `--fog smooth|tiles` chooses at the start.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod finish;
#[path = "../shared/fog_mode.rs"]
mod fog_mode;
#[path = "../shared/geometry.rs"]
mod geometry;
mod hud;
mod map;
#[path = "../shared/screenshot.rs"]
mod screenshot;
#[path = "../shared/script.rs"]
mod script;
mod setup;
#[path = "../shared/args.rs"]
mod shared_args;
#[path = "../shared/hud.rs"]
mod shared_hud;
mod sprites;
mod turns;
#[path = "../shared/window.rs"]
mod window;

use bevy::prelude::*;
use bevy_viewshed::prelude::*;

use fog_mode::FogMode;
use script::Options;

fn main() {
    let options = Options::from_args("hex_skirmish");
    let fog = match options.smooth_fog {
        true => FogMode::Smooth,
        false => FogMode::Tiles,
    };
    println!("hex_skirmish seed {}", options.seed);
    App::new()
        .add_plugins(window::window_plugins(format!(
            "bevy_viewshed hex skirmish (seed {})",
            options.seed
        )))
        .add_plugins(ViewshedPlugins::default())
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(turns::Turns::new(&options))
        .insert_resource(options)
        .insert_resource(fog)
        .add_systems(Startup, (setup::setup, hud::setup))
        .add_systems(
            Update,
            (
                turns::take_turn,
                sprites::place_sprites,
                fog_mode::toggle_fog_mode,
                fog_mode::apply_fog_mode,
            )
                .chain(),
        )
        .add_plugins((hud::HudPlugin, finish::FinishPlugin))
        .run();
}
