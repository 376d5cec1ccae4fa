//! Multiplayer fog of war: a headless server runs the field of view on a dungeon and sends each
//! client, over bevy_replicon (its example TCP transport), only the units and monsters its
//! team sees, and its team's fog; a windowed client draws what it receives, nothing more.
//!
//! ```text
//! cargo run --example multiplayer                   # a server in a child process + a client
//! cargo run --example multiplayer -- server         # the server alone (headless)
//! cargo run --example multiplayer -- client         # a client of a running server
//! cargo run --example multiplayer -- --frames 150 --screenshot shot.png --exit
//! ```
//!
//! Clients join team 0, team 1, team 0, ... in the order they connect. The map is the dungeon
//! example's generator (`--seed N`, the same on both sides); the client draws a tile only
//! where its team's fog (a replicated `TeamView`) says it is seen or remembered.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod args;
mod client;
mod draw;
mod look;
#[path = "../dungeon/map.rs"]
mod map;
mod protocol;
#[path = "../dungeon/rooms.rs"]
mod rooms;
#[path = "../shared/screenshot.rs"]
mod screenshot;
mod server;
#[path = "../shared/args.rs"]
mod shared_args;
#[path = "../shared/hud.rs"]
mod shared_hud;
mod walk;
#[path = "../shared/window.rs"]
mod window;
mod world;

use std::process::{Child, Command};

use args::{Mode, Options};

fn main() {
    let options = Options::from_args();
    match options.mode {
        Mode::Server => server::run(&options),
        Mode::Client => client::run(&options),
        Mode::Both => {
            let mut server = spawn_server(&options);
            client::run(&options);
            // The client window closed: the server goes with it.
            let _ = server.kill();
            let _ = server.wait();
        }
    }
}

/// This program again, as the server, in a child process.
fn spawn_server(options: &Options) -> Child {
    let program = std::env::current_exe().expect("the example knows its own path");
    Command::new(program)
        .args(["server", "--port", &options.port.to_string()])
        .args(["--seed", &options.seed.to_string()])
        .spawn()
        .expect("the server process starts")
}
