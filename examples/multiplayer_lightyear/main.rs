//! Multiplayer fog of war over lightyear 0.30: a headless server and two clients of two teams,
//! each a Bevy `App` of its own in this one process, connected by lightyear (netcode over its
//! in-process crossbeam channels). The server runs the field of view on the dungeon of
//! `examples/multiplayer` and, through `ViewshedReplicationPlugin` inside lightyear's
//! replication (which is bevy_replicon's), sends each client only the units and monsters its
//! team sees, and its team's fog. The window draws what each client holds, nothing more: team
//! 0's client on the left, team 1's on the right.
//!
//! ```text
//! cargo run --example multiplayer_lightyear --features lightyear
//! cargo run --example multiplayer_lightyear --features lightyear -- --frames 150 --screenshot shot.png --exit
//! ```
//!
//! The game's glue is one observer (`game::join_team`): each client's link entity on the
//! server (lightyear's `ClientOf`, with its `RemoteId`) gets the `ClientTeam` the lobby gave it.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod args;
mod draw;
mod game;
#[path = "../multiplayer/look.rs"]
mod look;
#[path = "../dungeon/map.rs"]
mod map;
#[path = "../multiplayer/protocol.rs"]
mod protocol;
#[path = "../dungeon/rooms.rs"]
mod rooms;
#[path = "../shared/screenshot.rs"]
mod screenshot;
#[path = "../shared/args.rs"]
mod shared_args;
#[path = "../shared/hud.rs"]
mod shared_hud;
#[path = "../multiplayer/walk.rs"]
mod walk;
#[path = "../multiplayer/world.rs"]
mod world;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_ecs_tilemap::prelude::*;

use args::Options;

fn main() {
    let options = Options::from_args();
    let game = game::Game::new(options.seed);
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "bevy_viewshed over lightyear: two clients, two teams".into(),
                        resolution: WindowResolution::new(1280, 720),
                        resizable: false,
                        ..default()
                    }),
                    ..default()
                })
                .set(ImagePlugin::default_nearest()),
        )
        .add_plugins((TilemapPlugin, draw::DrawPlugin))
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(options)
        .insert_non_send(game)
        .add_systems(PreUpdate, game::step_game)
        .run();
}
