//! The headless server over replicon's example backend (TCP): the world of `world.rs`. Clients
//! join team 0, 1, 0, ... as they connect.

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_replicon::prelude::*;
use bevy_replicon_example_backend::{ExampleServer, RepliconExampleBackendPlugins};
use bevy_viewshed::Team;
use bevy_viewshed::replicon::ClientTeam;

use crate::args::Options;
use crate::world::{ServerWorldPlugin, TEAMS};

pub fn run(options: &Options) {
    let server = ExampleServer::new(options.port).unwrap_or_else(|e| {
        eprintln!(
            "multiplayer server: cannot listen on port {}: {e}",
            options.port
        );
        std::process::exit(1);
    });
    println!(
        "multiplayer server on port {} (seed {})",
        options.port, options.seed
    );
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 30.0,
            ))),
            StatesPlugin,
            RepliconPlugins,
            RepliconExampleBackendPlugins,
            ServerWorldPlugin { seed: options.seed },
        ))
        .insert_resource(server)
        .add_observer(join_team)
        .run();
}

/// Clients join the teams in turn.
fn join_team(connected: On<Add, ConnectedClient>, mut commands: Commands, mut joined: Local<u32>) {
    let team = Team(*joined % TEAMS);
    *joined += 1;
    println!("client {} joins team {}", connected.entity, team.0);
    commands.entity(connected.entity).insert(ClientTeam(team));
}
