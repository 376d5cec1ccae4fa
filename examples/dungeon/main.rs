//! The bundled dungeon: a turn-based roguelike room-and-corridor dungeon where the player, the
//! monsters and the fog of war all run on bevy_viewshed.
//!
//! ```text
//! cargo run --example dungeon                       # a new dungeon each run
//! cargo run --example dungeon -- --seed 42          # the same dungeon again
//! cargo run --example dungeon -- --seed 42 --autoplay 60 --screenshot shot.png --exit
//! cargo run --example dungeon -- --seed 7 --autoplay 60 --record dungeon.gif --exit   # film it
//! cargo run --example dungeon -- --help             # all the options
//! ```
//!
//! Keys: arrows, WASD, vi keys (hjkl yubn) or the numpad to move (diagonals too), `.` or
//! numpad 5 to wait, `o` to open or close the doors next to you, `+`/`-` to change your view
//! radius, `c` to cycle its shape (disk, square, diamond), `p` for the permissive rule, `v` to
//! show what the monsters see (guards see through a cone), `t` to draw the monsters' fog of
//! war instead of yours; `q` / `e` to turn your lantern's beam left / right (it also follows
//! your steps); `1` fades, `2` soft edges, `3` ghosts of monsters last seen, `4` light and
//! darkness, each on at the start; `f` draws the fog smooth (on the GPU, the start) or in tile
//! colours (`--fog tiles` starts so). `--zoom 1` shows the whole map. The grass patch in the
//! second room thins sight: you see a little way into it, and three tiles of it hide what lies
//! behind.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod args;
mod autoplay;
mod camera;
#[path = "../shared/film.rs"]
mod film;
#[path = "../shared/fog_mode.rs"]
mod fog_mode;
#[path = "../shared/geometry.rs"]
mod geometry;
mod ghosts;
mod hud;
mod input;
mod lighting;
mod looks;
mod map;
mod minimap;
#[path = "../shared/minimap.rs"]
mod minimap_corner;
mod monsters;
mod record;
mod rooms;
#[path = "../shared/screenshot.rs"]
mod screenshot;
mod setup;
#[path = "../shared/args.rs"]
mod shared_args;
#[path = "../shared/hud.rs"]
mod shared_hud;
mod sprites;
#[path = "../shared/window.rs"]
mod window;
mod world;

use bevy::prelude::*;
use bevy_viewshed::prelude::*;

use args::Options;
use world::{PlayerActed, Turn};

fn main() {
    let options = Options::from_args();
    println!("dungeon seed {}", options.seed);
    App::new()
        .add_plugins(
            window::window_plugins(format!("bevy_viewshed dungeon (seed {})", options.seed))
                .set(asset_plugin()),
        )
        .add_plugins(ViewshedPlugins::default())
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(monsters::ShowMonsterViews(options.monster_views))
        .insert_resource(options.fog)
        .insert_resource(options)
        .init_resource::<Turn>()
        .init_resource::<looks::Looks>()
        .add_message::<PlayerActed>()
        .add_systems(Startup, (setup::setup, hud::setup))
        .add_systems(
            Update,
            (
                (
                    input::player_turn.run_if(input::players_turn),
                    autoplay::play.run_if(not(input::players_turn)),
                ),
                monsters::take_turns,
                (
                    input::change_sight,
                    monsters::toggle_views,
                    monsters::toggle_fog_team,
                    looks::toggle_looks,
                    fog_mode::toggle_fog_mode,
                ),
                (
                    looks::apply_fog_looks,
                    lighting::apply_light_looks,
                    lighting::aim_beam,
                ),
                fog_mode::apply_fog_mode,
                sprites::place_sprites,
                camera::follow_player,
            )
                .chain(),
        )
        .add_systems(
            PostUpdate,
            (ghosts::draw_ghosts, lighting::draw_glow).after(ViewshedSystems),
        )
        .add_plugins((
            hud::HudPlugin,
            autoplay::AutoplayPlugin,
            monsters::MonsterViewsPlugin,
            record::RecordPlugin,
            minimap_corner::CornerMinimapPlugin::<world::Player>::below(40.0),
        ))
        .run();
}

/// Bevy's asset plugin as it comes, but in a browser it asks for no `.meta` file beside the
/// tileset: the dungeon has none, and each request would fail, an error in the console.
fn asset_plugin() -> AssetPlugin {
    AssetPlugin {
        #[cfg(target_arch = "wasm32")]
        meta_check: bevy::asset::AssetMetaCheck::Never,
        ..default()
    }
}
