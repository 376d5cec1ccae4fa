//! The windowed client: connects to the server, draws the dungeon's tiles only where its team's
//! fog (the replicated `TeamView`) says they are seen or remembered, and the pieces the server
//! sent, which are exactly those its team sees.

use std::net::Ipv4Addr;
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon_example_backend::{ExampleClient, RepliconExampleBackendPlugins};

use crate::args::Options;
use crate::draw;
use crate::protocol::ProtocolPlugin;

pub fn run(options: &Options) {
    let client = connect(options.port);
    App::new()
        .add_plugins(crate::window::window_plugins(
            "bevy_viewshed multiplayer client",
        ))
        .add_plugins((
            RepliconPlugins,
            RepliconExampleBackendPlugins,
            ProtocolPlugin,
            TilemapPlugin,
            draw::DrawPlugin,
        ))
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(options.clone())
        .insert_resource(client)
        .run();
}

/// Connects to the server on this machine, waiting up to 10 s for it to start listening.
fn connect(port: u16) -> ExampleClient {
    for _ in 0..100 {
        if let Ok(client) = ExampleClient::new((Ipv4Addr::LOCALHOST, port)) {
            return client;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("multiplayer client: no server on port {port}");
    std::process::exit(1);
}
