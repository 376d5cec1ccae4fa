//! The server of `scene/replicon/mod.rs` over lightyear 0.30, with real clients: the server `App`
//! runs lightyear's `ServerPlugins` (which bring replicon's server) and each client is an `App`
//! of its own with lightyear's `ClientPlugins` and `TeamViewProtocolPlugin`, connected by
//! netcode over lightyear's crossbeam channels. Real clients, because lightyear sends again
//! what no client acknowledges on its reliable channel: a server alone would count resends.
//! Every app steps one fixed tick per frame ([`TICK`]), so the server replicates every frame.
//! What the server's links hand their IO each frame (the datagrams' payloads: lightyear's
//! packets inside netcode's, with its keep-alives and the pings) is counted.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy_replicon::prelude::{AppRuleExt, ServerMessages, ServerSystems};
use bevy_replicon::server::visibility::client_visibility::ClientVisibility;
use bevy_replicon::shared::backend::channels::ServerChannel;
use bevy_viewshed::Team;
use bevy_viewshed::replicon::{ClientTeam, TeamViewProtocolPlugin};
use lightyear::connection::ConnectionSystems;
use lightyear::crossbeam::CrossbeamIo;
use lightyear::link::LinkSystems;
use lightyear::prelude::client::{ClientPlugins, NetcodeClient, NetcodeConfig};
use lightyear::prelude::server::{ClientOf, NetcodeServer, ServerPlugins, Start};
use lightyear::prelude::{
    Authentication, Client, Connect, Connected, Link, LinkOf, Linked, NetworkTarget, PeerAddr,
    PeerId, PingConfig, PingManager, RemoteId, Replicate, ReplicationReceiver, ReplicationSender,
};

use super::{Crowd, SentBytes, UnitPosition};
use crate::scene::minimal_plugins;

/// One fixed tick, and one frame, of every app.
pub const TICK: Duration = Duration::from_millis(16);

/// The server's address, for netcode's tokens (crossbeam needs none).
const SERVER: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 5000);

/// How a lightyear game sends a unit to every client.
pub fn to_all() -> Replicate {
    Replicate::to_clients(NetworkTarget::All)
}

/// The teams the clients play for: netcode client `i` in team `i % teams`.
#[derive(Resource)]
struct Teams(u32);

/// lightyear's server, one tick a frame, the byte count, and the game's glue: each link
/// replicates and pings every frame, and gets its client's team when it connects.
pub fn add_server(app: &mut App, crowd: Crowd) {
    app.add_plugins((
        StatesPlugin,
        ServerPlugins {
            tick_duration: TICK,
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(TICK))
    .insert_resource(Teams(crowd.teams))
    .add_observer(configure_link)
    .add_observer(join_team)
    .add_systems(
        PostUpdate,
        (
            count_updates
                .after(ServerSystems::Send)
                .before(ServerSystems::SendPackets),
            count_datagrams
                .after(ConnectionSystems::Send)
                .before(LinkSystems::Send),
        ),
    );
}

fn configure_link(added: On<Add, LinkOf>, mut commands: Commands) {
    commands
        .entity(added.entity)
        .insert((ReplicationSender, every_frame_pings()));
}

fn every_frame_pings() -> PingManager {
    PingManager::new(PingConfig {
        ping_interval: Duration::ZERO,
    })
}

fn join_team(
    connected: On<Add, Connected>,
    links: Query<&RemoteId, With<ClientOf>>,
    teams: Res<Teams>,
    mut commands: Commands,
) {
    if let Ok(RemoteId(PeerId::Netcode(id))) = links.get(connected.entity) {
        let team = Team(*id as u32 % teams.0);
        commands.entity(connected.entity).insert(ClientTeam(team));
    }
}

/// replicon's messages of spawns and despawns, before lightyear packs them.
fn count_updates(messages: Res<ServerMessages>, mut sent: ResMut<SentBytes>) {
    let updates = usize::from(ServerChannel::Updates);
    for (_, channel, message) in messages.iter_sent() {
        if channel == updates {
            sent.updates += message.len() as u64;
        }
    }
}

/// The datagrams each link hands its IO this frame, netcode's included (read by taking each
/// from the front of the queue and putting it back at the end: the order stays).
fn count_datagrams(mut links: Query<&mut Link, With<ClientOf>>, mut sent: ResMut<SentBytes>) {
    sent.frames += 1;
    for mut link in &mut links {
        for _ in 0..link.send.len() {
            if let Some(payload) = link.send.pop() {
                sent.all += payload.len() as u64;
                link.send.push(payload);
            }
        }
    }
}

/// The netcode server, started; the links come with their clients.
pub fn start_server(app: &mut App) {
    let netcode = NetcodeServer::new(lightyear::prelude::server::NetcodeConfig {
        server_addr_check: false,
        ..default()
    });
    let server = app.world_mut().spawn(netcode).id();
    app.world_mut().trigger(Start { entity: server });
    app.world_mut().flush();
}

/// A client of the bench's world: lightyear's client, the fog's protocol and the units'
/// positions, nothing of the game.
fn client_app() -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), StatesPlugin))
        .add_plugins(ClientPlugins {
            tick_duration: TICK,
        })
        .add_plugins(TeamViewProtocolPlugin)
        .insert_resource(TimeUpdateStrategy::ManualDuration(TICK));
    app.replicate::<UnitPosition>();
    app.finish();
    app.cleanup();
    app
}

/// `crowd.clients` clients connecting to `server` (from `server_app`), each over a crossbeam
/// pair whose server end is a new link entity of the server.
pub fn spawn_clients(server: &mut App, crowd: Crowd) -> Vec<App> {
    let server_entity = {
        let world = server.world_mut();
        let mut servers = world.query_filtered::<Entity, With<NetcodeServer>>();
        servers.single(world).expect("one netcode server")
    };
    (0..crowd.clients)
        .map(|i| connect_client(server, server_entity, i))
        .collect()
}

/// The links the server replicates to: connected, with replicon's visibility.
pub fn replicated_links(server: &mut App) -> usize {
    let world = server.world_mut();
    let mut links =
        world.query_filtered::<(), (With<ClientOf>, With<Connected>, With<ClientVisibility>)>();
    links.iter(world).count()
}

/// Client `i`: its app, with its end of a crossbeam pair; the other end is its link on the
/// server.
fn connect_client(server: &mut App, server_entity: Entity, i: usize) -> App {
    let mut app = client_app();
    let auth = Authentication::Manual {
        server_addr: SERVER,
        protocol_id: 0,
        private_key: Default::default(),
        client_id: i as u64,
    };
    let netcode = NetcodeClient::new(auth, NetcodeConfig::default()).expect("a netcode client");
    let (to_server, to_client) = CrossbeamIo::new_pair();
    let client = app
        .world_mut()
        .spawn((
            Client,
            netcode,
            ReplicationReceiver,
            every_frame_pings(),
            to_server,
        ))
        .id();
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 6000 + i as u16));
    server.world_mut().spawn((
        LinkOf {
            server: server_entity,
        },
        Link::default(),
        PeerAddr(addr),
        Linked,
        to_client,
    ));
    app.world_mut().trigger(Connect { entity: client });
    app
}
