//! A real-time skirmish of four teams, with the strategy rules of `docs/strategy.md`: blue
//! (team 0) and green (team 1) share their sight while allied, red's cloaked scout is seen only
//! inside blue's detector tower's view, blue's radar puts enemy blips on the minimap, a scan
//! lights the enemy's corner for three seconds, and the fog grows back over ground unseen for
//! twenty seconds. The fog drawn is one team's, or the spectator's: every team's at once.
//!
//! ```text
//! cargo run --example rts_skirmish                   # a new map each run
//! cargo run --example rts_skirmish -- --seed 7 --view spectator
//! cargo run --example rts_skirmish -- --seed 7 --autoplay 90 --screenshot shot.png --exit
//! cargo run --example rts_skirmish -- --seed 7 --view spectator --autoplay 240 --record film.gif --exit
//! ```
//!
//! Keys: `Tab` cycles the view (blue, green, red, yellow, spectator), `A` makes or breaks the
//! alliance of blue and green, `S` scans the far corner for the team in view (blue for the
//! spectator). `--autoplay N` plays N frames (alliance at frame 2, a scan at frame N/2), then
//! prints a report and, with `--screenshot`, saves the window (with `--record`, a GIF of the
//! whole script: `scripts/pictures.sh` makes the README's); `tests/rts_skirmish_screenshot.rs`
//! plays it under Xvfb.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod battle;
#[path = "../shared/film.rs"]
mod film;
#[path = "../shared/minimap.rs"]
mod minimap;
mod options;
mod orders;
mod record;
#[path = "../shared/screenshot.rs"]
mod screenshot;
#[path = "../shared/args.rs"]
mod shared_args;
mod show;
#[path = "../shared/square_map.rs"]
mod square_map;
#[path = "../shared/window.rs"]
mod window;

use bevy::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DrawnTeam, ViewshedSystems};

fn main() {
    let options = options::Options::from_args();
    println!("rts_skirmish seed {}", options.seed);
    App::new()
        .add_plugins(window::window_plugins(format!(
            "bevy_viewshed RTS skirmish (seed {})",
            options.seed
        )))
        .add_plugins(ViewshedPlugins::default())
        .add_plugins(minimap::CornerMinimapPlugin::<battle::Headquarters>::below(
            10.0,
        ))
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(DrawnTeam(options.view))
        .insert_resource(orders::Frame::default())
        .insert_resource(options)
        .add_plugins(record::RecordPlugin)
        .add_systems(Startup, (battle::setup, show::setup))
        .add_systems(
            Update,
            (
                orders::keys,
                orders::script,
                orders::march,
                show::place_units,
            )
                .chain(),
        )
        .add_systems(
            PostUpdate,
            (show::blips, show::hud, show::finish)
                .chain()
                .after(ViewshedSystems),
        )
        .run();
}
