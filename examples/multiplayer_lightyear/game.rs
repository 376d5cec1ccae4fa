//! The headless server and the two clients, each a Bevy `App` of its own, connected by
//! lightyear (netcode over crossbeam channels) and stepped once per frame of the window. The
//! server's world is `examples/multiplayer`'s (`world.rs`): the dungeon as tile entities (walls
//! `Opaque`), two teams of units that lift their team's fog, wandering monsters, every piece
//! `ReplicatesWhenSeen`.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_viewshed::Team;
use bevy_viewshed::replicon::ClientTeam;
use lightyear::crossbeam::CrossbeamIo;
use lightyear::prelude::client::{ClientPlugins, NetcodeClient, NetcodeConfig};
use lightyear::prelude::server::{ClientOf, NetcodeServer, ServerPlugins, Start};
use lightyear::prelude::{
    Authentication, Client, Connect, Connected, Link, LinkOf, Linked, PeerAddr, PeerId, RemoteId,
    ReplicationReceiver, ReplicationSender,
};

use crate::protocol::ProtocolPlugin;
use crate::world::{ServerWorldPlugin, TEAMS};

/// The clients, one per team.
pub const CLIENTS: usize = TEAMS as usize;
/// lightyear's fixed tick, on the server and the clients.
const TICK: Duration = Duration::from_millis(16);

/// The server's app and the clients' apps (not `Send`: a non-send resource of the window's).
pub struct Game {
    pub server: App,
    pub clients: Vec<App>,
}

impl Game {
    /// The server with the seed's dungeon and pieces, and the clients connecting to it.
    pub fn new(seed: u64) -> Self {
        let mut server = server_app(seed);
        let server_entity = server.world_mut().spawn(NetcodeServer::new(
            lightyear::prelude::server::NetcodeConfig {
                server_addr_check: false,
                ..default()
            },
        ));
        let server_entity = server_entity.id();
        server.world_mut().trigger(Start {
            entity: server_entity,
        });
        let clients = (0..CLIENTS)
            .map(|i| client_app(&mut server, server_entity, i))
            .collect();
        Self { server, clients }
    }
}

/// One frame of the server, then of each client (which reads what the server sent).
pub fn step_game(mut game: NonSendMut<Game>) {
    let game = &mut *game;
    game.server.update();
    for client in &mut game.clients {
        client.update();
    }
}

/// The team each client joins: client `i` plays for team `i`.
#[derive(Resource)]
struct Lobby(HashMap<PeerId, Team>);

fn server_app(seed: u64) -> App {
    let mut app = App::new();
    let lobby = (0..CLIENTS).map(|i| (PeerId::Netcode(i as u64), Team(i as u32)));
    app.add_plugins((MinimalPlugins, StatesPlugin))
        .add_plugins(ServerPlugins {
            tick_duration: TICK,
        })
        .add_plugins(ServerWorldPlugin { seed })
        .insert_resource(Lobby(lobby.collect()))
        .add_observer(replicate_to_link)
        .add_observer(join_team);
    app.finish();
    app.cleanup();
    app
}

/// lightyear replicates through a link entity that has `ReplicationSender`.
fn replicate_to_link(added: On<Add, LinkOf>, mut commands: Commands) {
    commands.entity(added.entity).insert(ReplicationSender);
}

/// The game's glue: a client's link entity on the server (lightyear's `ClientOf`, `Connected`,
/// with the client's `RemoteId`) is the client replicon knows; it plays for its lobby team.
fn join_team(
    connected: On<Add, Connected>,
    links: Query<&RemoteId, With<ClientOf>>,
    lobby: Res<Lobby>,
    mut commands: Commands,
) {
    let Ok(remote) = links.get(connected.entity) else {
        return;
    };
    if let Some(&team) = lobby.0.get(&remote.0) {
        commands.entity(connected.entity).insert(ClientTeam(team));
    }
}

/// A client app connecting to `server` (in `server_app`'s world) as netcode client `i`, over a
/// pair of crossbeam channels whose server end is a link entity of the server.
fn client_app(server_app: &mut App, server: Entity, i: usize) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, StatesPlugin))
        .add_plugins(ClientPlugins {
            tick_duration: TICK,
        })
        .add_plugins(ProtocolPlugin);
    app.finish();
    app.cleanup();
    let (to_server, to_client) = CrossbeamIo::new_pair();
    let addr = |port| SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    server_app.world_mut().spawn((
        LinkOf { server },
        Link::default(),
        PeerAddr(addr(6000 + i as u16)),
        Linked,
        to_client,
    ));
    let auth = Authentication::Manual {
        server_addr: addr(5000),
        protocol_id: 0,
        private_key: Default::default(),
        client_id: i as u64,
    };
    let netcode = NetcodeClient::new(auth, NetcodeConfig::default()).expect("a netcode client");
    let client = app
        .world_mut()
        .spawn((Client, netcode, ReplicationReceiver, to_server))
        .id();
    app.world_mut().trigger(Connect { entity: client });
    app
}
