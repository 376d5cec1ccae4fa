//! A lightyear server and two lightyear clients in one process, for `tests/lightyear.rs`: the
//! server runs lightyear's `ServerPlugins` (which bring bevy_replicon's server) with
//! `ViewshedPlugins` and `ViewshedReplicationPlugin`, each client lightyear's `ClientPlugins`
//! and `TeamViewProtocolPlugin`, connected by netcode over lightyear's crossbeam channels or
//! over loopback UDP. Time is stepped by hand, one fixed tick per frame, so that every server
//! frame replicates once. What a client may hold is `common_net`'s plain rule.
#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::client::confirm_history::ConfirmHistory;
use bevy_replicon::server::server_tick::ServerTick;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{
    ClientTeam, ReplicatesWhenSeen, TeamView, TeamViewProtocolPlugin, ViewshedReplicationPlugin,
};
use lightyear::crossbeam::CrossbeamIo;
use lightyear::link::LinkConditioner;
use lightyear::prelude::client::{ClientPlugins, NetcodeClient, NetcodeConfig};
use lightyear::prelude::server::{ClientOf, NetcodeServer, ServerPlugins, ServerUdpIo, Start};
use lightyear::prelude::{
    Authentication, Client, Connect, Connected, Disconnect, Link, LinkConditionerConfig, LinkOf,
    Linked, LocalAddr, PeerAddr, PeerId, PingConfig, PingManager, RemoteId, ReplicationReceiver,
    ReplicationSender, RoomPlugin, UdpIo,
};

use crate::common_app::spawn_map;
use crate::common_net::{assert_own_fog_only, held, holds_own_fog, may_hold, team_views, wall};

/// One fixed tick, and one frame, of every app.
pub const TICK: Duration = Duration::from_millis(10);

/// How the clients reach the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    /// lightyear's in-process crossbeam channels.
    Crossbeam,
    /// Loopback UDP sockets (lightyear's `udp` feature).
    Udp,
}

/// On the server, the team each netcode client joins when it connects (a game's lobby).
#[derive(Resource, Default)]
pub struct Lobby(pub HashMap<PeerId, Team>);

/// A game's glue: each connected client's link entity (lightyear's `ClientOf` + `Connected`,
/// with the client's `RemoteId`) gets the `ClientTeam` the lobby gave that client.
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

/// Each client link replicates (lightyear admits a link into replication with
/// `ReplicationSender`) and pings every frame, so that acknowledgements flow every frame.
fn configure_link(added: On<Add, LinkOf>, mut commands: Commands) {
    commands.entity(added.entity).insert((
        ReplicationSender,
        PingManager::new(PingConfig {
            ping_interval: Duration::ZERO,
        }),
    ));
}

/// The server app: lightyear's server, the plugin, rooms, the lobby.
pub fn server_app(protocol: impl Fn(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, StatesPlugin))
        .add_plugins(ServerPlugins {
            tick_duration: TICK,
        })
        .add_plugins((
            RoomPlugin,
            ViewshedPlugins::default(),
            ViewshedReplicationPlugin,
        ))
        .init_resource::<Lobby>()
        .add_observer(join_team)
        .add_observer(configure_link);
    protocol(&mut app);
    app.finish();
    app.cleanup();
    app
}

/// A client app: lightyear's client and the fog's protocol, nothing of the game.
pub fn client_app(protocol: impl Fn(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, StatesPlugin))
        .add_plugins(ClientPlugins {
            tick_duration: TICK,
        })
        .add_plugins(TeamViewProtocolPlugin);
    protocol(&mut app);
    app.finish();
    app.cleanup();
    app
}

/// A server, two clients, the teams they play for and the first map (20x5, a wall at x = 10:
/// two rooms that cannot see each other, as `common_net`'s).
pub struct LyNet {
    pub server: App,
    pub server_entity: Entity,
    pub clients: [App; 2],
    /// Each client's lightyear `Client` entity in its app, while it plays.
    pub client_entities: [Option<Entity>; 2],
    pub teams: [Option<Team>; 2],
    pub map: Entity,
    pub io: Io,
    server_addr: SocketAddr,
    now: Instant,
    /// The crossbeam links get addresses of their own.
    next_port: u16,
    /// Whether the last server frame replicated (lightyear replicates on fixed ticks).
    pub replicated: bool,
    /// Whether the links lose and delay packets ([`lossy_link`]).
    lossy: bool,
    /// What each client's team was allowed at every frame since the client last connected,
    /// from the server's side (its link may be replicated to a frame before the client knows
    /// it is connected): what a late message may still bring it.
    pub allowed: [BTreeSet<Entity>; 2],
}

/// A crossbeam link that loses a third of the packets it receives and delays the others by 10
/// to 50 ms (1 to 5 frames), by lightyear's link conditioner.
fn lossy_link() -> Link {
    let config = LinkConditionerConfig {
        incoming_latency: Duration::from_millis(30),
        incoming_jitter: Duration::from_millis(20),
        good_loss: 0.33,
        bad_loss: 0.33,
        good_to_bad: 0.0,
        bad_to_good: 0.0,
    };
    Link::default().with_conditioner(LinkConditioner::new(config))
}

impl LyNet {
    /// Two clients on teams 0 and 1, connected, with no protocol of the game's.
    pub fn new(io: Io) -> Self {
        Self::with_protocol(io, |_| {})
    }

    /// [`new`](Self::new) over crossbeam links that lose and delay packets both ways.
    pub fn lossy() -> Self {
        Self::build(Io::Crossbeam, true, |_| {})
    }

    /// [`new`](Self::new) with the game's replication rules, added alike on every side.
    pub fn with_protocol(io: Io, protocol: impl Fn(&mut App)) -> Self {
        Self::build(io, false, protocol)
    }

    fn build(io: Io, lossy: bool, protocol: impl Fn(&mut App)) -> Self {
        let mut server = server_app(&protocol);
        let map = spawn_map(&mut server, 20, 5, wall);
        let server_addr = match io {
            Io::Crossbeam => SocketAddr::from((Ipv4Addr::LOCALHOST, 5000)),
            Io::Udp => free_udp_addr(),
        };
        let server_entity = spawn_server(&mut server, io, server_addr);
        let mut net = Self {
            server,
            server_entity,
            clients: [client_app(&protocol), client_app(&protocol)],
            client_entities: [None; 2],
            teams: [Some(Team(0)), Some(Team(1))],
            map,
            io,
            server_addr,
            now: Instant::now(),
            next_port: 6000,
            replicated: false,
            lossy,
            allowed: Default::default(),
        };
        net.start();
        for i in 0..2 {
            net.connect(i);
        }
        net
    }

    fn start(&mut self) {
        let now = self.now;
        for app in self.apps() {
            app.world_mut()
                .resource_mut::<Time<Real>>()
                .update_with_instant(now);
        }
        let server = self.server_entity;
        self.server.world_mut().trigger(Start { entity: server });
        self.server.world_mut().flush();
    }

    fn apps(&mut self) -> impl Iterator<Item = &mut App> {
        std::iter::once(&mut self.server).chain(self.clients.iter_mut())
    }

    /// The netcode id of client `i`.
    pub fn peer(i: usize) -> PeerId {
        PeerId::Netcode(i as u64)
    }

    /// Client `i`'s link entity on the server (`ClientOf`), while it is connected.
    pub fn link(&self, i: usize) -> Option<Entity> {
        let world = self.server.world();
        let mut links =
            world.try_query_filtered::<(Entity, &RemoteId), (With<ClientOf>, With<Connected>)>()?;
        links
            .iter(world)
            .find(|(_, remote)| remote.0 == Self::peer(i))
            .map(|(entity, _)| entity)
    }

    /// Whether client `i` is connected (both sides know it) and replicated to.
    pub fn connected(&self, i: usize) -> bool {
        let client = self.client_entities[i]
            .is_some_and(|c| self.clients[i].world().get::<Connected>(c).is_some());
        client && self.link(i).is_some()
    }

    /// Connects client `i` (its team is the lobby's) and runs until the server replicates to
    /// it.
    pub fn connect(&mut self, i: usize) {
        self.allowed[i].clear();
        let mut lobby = self.server.world_mut().resource_mut::<Lobby>();
        match self.teams[i] {
            Some(team) => lobby.0.insert(Self::peer(i), team),
            None => lobby.0.remove(&Self::peer(i)),
        };
        let auth = Authentication::Manual {
            server_addr: self.server_addr,
            protocol_id: 0,
            private_key: Default::default(),
            client_id: i as u64,
        };
        let netcode = NetcodeClient::new(auth, NetcodeConfig::default()).expect("a netcode client");
        let world = self.clients[i].world_mut();
        let mut client = world.spawn((
            Client,
            netcode,
            ReplicationReceiver,
            PingManager::new(PingConfig {
                ping_interval: Duration::ZERO,
            }),
        ));
        let entity = client.id();
        match self.io {
            Io::Crossbeam => {
                let (to_server, to_client) = CrossbeamIo::new_pair();
                client.insert(to_server);
                let lossy = self.lossy;
                let link = move || match lossy {
                    true => lossy_link(),
                    false => Link::default(),
                };
                client.insert(link());
                self.next_port += 1;
                let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.next_port));
                let server = self.server_entity;
                self.server.world_mut().spawn((
                    LinkOf { server },
                    link(),
                    PeerAddr(addr),
                    Linked,
                    to_client,
                ));
            }
            Io::Udp => {
                client.insert((
                    LocalAddr(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))),
                    PeerAddr(self.server_addr),
                    UdpIo::default(),
                ));
            }
        }
        self.client_entities[i] = Some(entity);
        self.clients[i].world_mut().trigger(Connect { entity });
        self.pump_until(|net| net.connected(i) && net.client_replicated(i));
    }

    /// Whether the server replicates to client `i`: its link has replicon's visibility.
    fn client_replicated(&self, i: usize) -> bool {
        self.link(i).is_some_and(|link| {
            let world = self.server.world();
            world
                .get::<bevy_replicon::server::visibility::client_visibility::ClientVisibility>(link)
                .is_some()
        })
    }

    /// Client `i` leaves (netcode's disconnection, heard by the server) and its entity goes.
    pub fn disconnect(&mut self, i: usize) {
        let Some(entity) = self.client_entities[i].take() else {
            return;
        };
        self.clients[i].world_mut().trigger(Disconnect { entity });
        self.pump_until(|net| net.link(i).is_none());
        self.clients[i].world_mut().despawn(entity);
        self.step();
    }

    /// The links lose and delay nothing from now on (what they hold back is lost).
    pub fn heal(&mut self) {
        self.lossy = false;
        for app in self.apps() {
            let world = app.world_mut();
            let mut links = world.query::<&mut Link>();
            for mut link in links.iter_mut(world) {
                link.recv.conditioner = None;
            }
        }
    }

    /// Steps until `done` holds (at most 200 frames; 2,000 over lossy links, where netcode's
    /// handshake and disconnection packets may be lost many times over).
    pub fn pump_until(&mut self, mut done: impl FnMut(&Self) -> bool) {
        let most = if self.lossy { 2_000 } else { 200 };
        for _ in 0..most {
            if done(self) {
                return;
            }
            self.step();
        }
        panic!("the lightyear game did not settle in {most} frames");
    }

    /// Steps until every client has held exactly what it may, its team's fog included, for
    /// `frames` frames in a row: what lossy links held back arrives late, in order, so a
    /// moment of agreement may be followed by an older spawn and its despawn (and a client
    /// whose units agree may still wait for its team's view).
    pub fn settle(&mut self, frames: usize) {
        let mut calm = 0;
        self.pump_until(|net| {
            let agree = (0..2).all(|i| net.received(i) == net.may_hold(i) && net.holds_own_fog(i));
            calm = if agree { calm + 1 } else { 0 };
            calm > frames
        });
    }

    /// One frame: the server's (which replicates once, on its fixed tick), then each client's,
    /// which reads it.
    pub fn step(&mut self) {
        self.now += TICK;
        let now = self.now;
        for app in self.apps() {
            app.insert_resource(TimeUpdateStrategy::ManualInstant(now));
        }
        let before = **self.server.world().resource::<ServerTick>();
        self.server.update();
        self.replicated = **self.server.world().resource::<ServerTick>() != before;
        self.deliver();
        for i in 0..2 {
            if self.link(i).is_some() {
                let may_hold = may_hold(self.server.world(), self.teams[i]);
                self.allowed[i].extend(may_hold);
            }
        }
    }

    /// Each client reads what the server sent. Over UDP the datagrams may take a moment: the
    /// clients run (without time passing) until they hold what they may, and meanwhile hold
    /// nothing they may not hold now or did not hold before.
    fn deliver(&mut self) {
        if self.io == Io::Crossbeam {
            for client in &mut self.clients {
                client.update();
            }
            return;
        }
        let before: Vec<BTreeSet<Entity>> = (0..2).map(|i| self.received(i)).collect();
        let expected: Vec<BTreeSet<Entity>> = (0..2).map(|i| self.may_hold(i)).collect();
        for _ in 0..200 {
            for client in &mut self.clients {
                client.update();
            }
            let settled = (0..2).all(|i| {
                let now = self.received(i);
                let allowed: BTreeSet<Entity> = expected[i].union(&before[i]).copied().collect();
                assert!(now.is_subset(&allowed), "client {i} holds {now:?}");
                !self.connected(i) || now == expected[i]
            });
            if settled {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A unit of `team` on the first map: a radius-8 viewer that reveals its team's fog.
    pub fn spawn_unit(&mut self, team: Team, x: u32, y: u32) -> Entity {
        let unit = (Viewshed::new(8), RevealsFog, team, ReplicatesWhenSeen);
        let at = (TilePos { x, y }, TilemapId(self.map));
        self.server.world_mut().spawn((unit, at)).id()
    }

    /// A monster on the first map, seen by whoever sees its tile.
    pub fn spawn_monster(&mut self, x: u32, y: u32) -> Entity {
        let at = (TilePos { x, y }, TilemapId(self.map));
        self.server
            .world_mut()
            .spawn((at, CanBeSpotted, ReplicatesWhenSeen))
            .id()
    }

    pub fn move_to(&mut self, entity: Entity, x: u32, y: u32) {
        *self.server.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
    }

    /// The server entities client `i` holds, team views and ghosts aside.
    pub fn received(&self, i: usize) -> BTreeSet<Entity> {
        held(self.clients[i].world())
    }

    /// The entities replicon spawned on client `i` that its entity map no longer knows: left
    /// over from a closed session, never to be updated or despawned by the server.
    pub fn orphans(&self, i: usize) -> Vec<Entity> {
        let world = self.clients[i].world();
        let mapped: BTreeSet<Entity> = world
            .resource::<ServerEntityMap>()
            .to_client()
            .values()
            .copied()
            .collect();
        let mut replicated = world
            .try_query_filtered::<Entity, With<ConfirmHistory>>()
            .unwrap();
        let orphans = replicated.iter(world).filter(|e| !mapped.contains(e));
        orphans.collect()
    }

    /// The team views client `i` holds.
    pub fn team_views(&self, i: usize) -> Vec<TeamView> {
        team_views(self.clients[i].world())
    }

    /// What client `i` may hold: the marked entities its team sees, the unmarked replicated
    /// ones (none, while it is not connected).
    pub fn may_hold(&self, i: usize) -> BTreeSet<Entity> {
        match self.connected(i) {
            true => may_hold(self.server.world(), self.teams[i]),
            false => BTreeSet::new(),
        }
    }

    /// After a frame that replicated: each client holds exactly what it may, and its own team's
    /// fog on every map, tile for tile, and no other team's.
    pub fn assert_clients_hold_what_they_may(&self) {
        assert!(self.replicated, "the last server frame replicated");
        for i in 0..2 {
            assert_eq!(
                self.received(i),
                self.may_hold(i),
                "client {i} ({:?}) holds what its team sees",
                self.teams[i]
            );
            assert_eq!(
                self.orphans(i),
                [],
                "client {i}: entities of a closed session"
            );
            self.assert_own_fog_only(i);
        }
    }

    fn assert_own_fog_only(&self, i: usize) {
        let team = self.teams[i].filter(|_| self.connected(i));
        let (server, client) = (self.server.world(), self.clients[i].world());
        assert_own_fog_only(server, client, i, team);
    }

    /// Whether client `i` holds its team's fog on every map and no other team's.
    fn holds_own_fog(&self, i: usize) -> bool {
        let team = self.teams[i].filter(|_| self.connected(i));
        holds_own_fog(self.server.world(), self.clients[i].world(), team)
    }

    /// Client `i` plays for another team from now on: a new `ClientTeam` inserted on its link,
    /// or the one it has changed in place (`in_place`); the lobby follows, for reconnections.
    pub fn set_team(&mut self, i: usize, team: Option<Team>, in_place: bool) {
        self.teams[i] = team;
        let mut lobby = self.server.world_mut().resource_mut::<Lobby>();
        match team {
            Some(team) => lobby.0.insert(Self::peer(i), team),
            None => lobby.0.remove(&Self::peer(i)),
        };
        let Some(link) = self.link(i) else { return };
        let mut link = self.server.world_mut().entity_mut(link);
        match (link.get_mut::<ClientTeam>(), team) {
            (Some(mut now), Some(team)) if in_place => now.0 = team,
            (_, Some(team)) => {
                link.insert(ClientTeam(team));
            }
            (_, None) => {
                link.remove::<ClientTeam>();
            }
        }
    }
}

/// The netcode server, listening on `addr` over UDP; over crossbeam, the links are spawned
/// with their clients.
fn spawn_server(app: &mut App, io: Io, addr: SocketAddr) -> Entity {
    let config = lightyear::prelude::server::NetcodeConfig {
        server_addr_check: io == Io::Udp,
        ..default()
    };
    let mut server = app.world_mut().spawn(NetcodeServer::new(config));
    if io == Io::Udp {
        server.insert((LocalAddr(addr), ServerUdpIo::default()));
    }
    server.id()
}

/// A loopback UDP address nobody listens on (the OS picks the port).
fn free_udp_addr() -> SocketAddr {
    let socket = std::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback socket");
    socket.local_addr().expect("its address")
}
