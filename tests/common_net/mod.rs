//! A server and two clients for the multiplayer tests, over bevy_replicon's test helpers (the
//! server's messages handed to each client in the same process) or over loopback TCP sockets
//! (`bevy_replicon_example_backend`, as the multiplayer example talks), and the secrecy rule
//! written plainly: what a client may hold is worked out here from the viewers' own viewsheds
//! and the entities' own components, not from the plugin's index.
#![allow(dead_code)]

pub mod lossy;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::backend::connected_client::NetworkId;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use bevy_replicon_example_backend::{ExampleClient, ExampleServer, RepliconExampleBackendPlugins};
use bevy_viewshed::LayerOf;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{
    ClientGhost, ClientTeam, GhostAppExt, ReplicatesGhost, ReplicatesWhenSeen, TeamView,
    TeamViewProtocolPlugin, ViewshedReplicationPlugin,
};
use bevy_viewshed::visible::Window;
use bevy_viewshed::{Cloaked, Detector, Reveal, Team};

use crate::common_app::spawn_map;
use lossy::{Lossy, MOST_DELAY};

/// Spotted (true) / LostSight (false) as (viewer, target), on the server.
#[derive(Resource, Default)]
pub struct Sightings(pub Vec<(bool, Entity, Entity)>);

/// On the server, stamped each frame on every [`ReplicatesGhost`] entity: the entity and the
/// frame. A ghost's stand-in copies it (`ghost_keeps`), so a client's ghost tells which frame's
/// state it holds, to be checked against the frames its team saw the entity.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    pub of: u64,
    pub frame: u32,
}

/// The server's frame count, and every (team, entity, frame) in which a team saw a
/// [`ReplicatesGhost`] entity by the model's rule ([`team_sees`]).
#[derive(Resource, Default)]
pub struct Saw {
    pub frame: u32,
    pub seen: BTreeSet<(Team, Entity, u32)>,
}

/// Over a lossy link, what a client may hold after one frame of the link, and the teams it
/// played for in it.
type LinkFrame = (BTreeSet<Entity>, BTreeSet<Option<Team>>);

/// The teams the model plays.
const TEAMS: [Team; 4] = [Team(0), Team(1), Team(2), Team::SPECTATOR];

/// Before the frame: the next frame's stamp on every ghost-leaving entity.
fn stamp(mut saw: ResMut<Saw>, mut marked: Query<(Entity, &mut Stamp), With<ReplicatesGhost>>) {
    saw.frame += 1;
    for (entity, mut stamp) in &mut marked {
        *stamp = Stamp {
            of: entity.to_bits(),
            frame: saw.frame,
        };
    }
}

/// After the clients' sight: which ghost-leaving entities each team saw in this frame. One
/// whose `ReplicatesWhenSeen` the game took away is replicated to every client in this frame,
/// so every team may know this frame's state of it (and keep it in a ghost once it is marked
/// again).
fn note_seen(world: &mut World) {
    let mut marked =
        world.query_filtered::<(Entity, Has<ReplicatesWhenSeen>), With<ReplicatesGhost>>();
    let marked: BTreeMap<Entity, bool> = marked.iter(world).collect();
    let frame = world.resource::<Saw>().frame;
    let seen: Vec<(Team, Entity, u32)> = TEAMS
        .iter()
        .flat_map(|&team| {
            let sees = team_sees(world, team);
            let unmarked = marked.iter().filter(|&(_, &marked)| !marked);
            let shown_to_all: Vec<Entity> = unmarked.map(|(&e, _)| e).collect();
            sees.into_iter()
                .filter(|e| marked.contains_key(e))
                .chain(shown_to_all)
                .map(move |e| (team, e, frame))
        })
        .collect();
    world.resource_mut::<Saw>().seen.extend(seen);
}

/// How the server's messages reach the clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// replicon's test helpers: every message of a server frame is read by the next client
    /// frame, in the same process.
    Test,
    /// TCP on 127.0.0.1 through `bevy_replicon_example_backend`.
    Loopback,
    /// replicon's test helpers to connect, and a link that loses and delays messages
    /// ([`lossy::Lossy`], from this seed) to play.
    Lossy(u64),
}

fn server_app(transport: Transport) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        ViewshedPlugins::default(),
        ViewshedReplicationPlugin,
    ))
    .init_resource::<Sightings>()
    .init_resource::<Saw>()
    .replicate::<Stamp>()
    .ghost_keeps::<Stamp>()
    .add_systems(PreUpdate, stamp)
    .add_systems(
        PostUpdate,
        note_seen
            .after(bevy_viewshed::replicon::ClientSightSystems)
            .before(ServerSystems::Send),
    )
    // Each sighting is heard on its viewer and on its target: the viewer's is logged.
    .add_observer(|s: On<Spotted>, mut log: ResMut<Sightings>| {
        if s.on == s.viewer {
            log.0.push((true, s.viewer, s.target))
        }
    })
    .add_observer(|s: On<LostSight>, mut log: ResMut<Sightings>| {
        if s.on == s.viewer {
            log.0.push((false, s.viewer, s.target))
        }
    });
    if transport == Transport::Loopback {
        app.add_plugins(RepliconExampleBackendPlugins);
    }
    app.finish();
    if transport == Transport::Loopback {
        let server = ExampleServer::new(0).expect("a loopback port");
        app.insert_resource(server);
    }
    app
}

/// A client as a game writes one: replicated entities are despawned when it disconnects.
fn client_app(transport: Transport) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        TeamViewProtocolPlugin,
    ))
    .replicate::<Stamp>()
    .add_systems(
        OnExit(ClientState::Connected),
        |mut commands: Commands, remote: Query<Entity, With<Remote>>| {
            for entity in &remote {
                commands.entity(entity).despawn();
            }
        },
    );
    if transport == Transport::Loopback {
        app.add_plugins(RepliconExampleBackendPlugins);
    }
    app.finish();
    app
}

/// A server, two clients and the teams they play for (`None`: the client has no team).
pub struct Net {
    pub server: App,
    pub clients: [App; 2],
    pub teams: [Option<Team>; 2],
    /// The first map: 20x5 with a wall at x = 10, two rooms that cannot see each other.
    pub map: Entity,
    pub transport: Transport,
    /// The lossy link, over [`Transport::Lossy`].
    pub link: Option<Lossy>,
    /// Over a lossy link: what each client may hold and its teams, in the last frames of the
    /// link (the newest last; the server frames that connecting and disconnecting run join
    /// the frame of the link they run in), and every fog each team had on any map since the
    /// game began.
    recent: VecDeque<[LinkFrame; 2]>,
    fogs_had: BTreeMap<Team, BTreeSet<Vec<u32>>>,
}

/// The first map's wall.
pub fn wall(x: u32, _y: u32) -> bool {
    x == 10
}

impl Net {
    /// Two clients on teams 0 and 1, over replicon's test helpers.
    pub fn new() -> Self {
        Self::with_transport(Transport::Test)
    }

    pub fn with_transport(transport: Transport) -> Self {
        let mut server = server_app(transport);
        let map = spawn_map(&mut server, 20, 5, wall);
        let mut net = Self {
            server,
            clients: [client_app(transport), client_app(transport)],
            teams: [Some(Team(0)), Some(Team(1))],
            map,
            transport,
            link: match transport {
                Transport::Lossy(seed) => Some(Lossy::new(seed)),
                _ => None,
            },
            recent: VecDeque::new(),
            fogs_had: BTreeMap::new(),
        };
        for i in 0..2 {
            net.connect(i);
        }
        net
    }

    /// Connects client `i` and binds it to its team, as a game does at connection.
    pub fn connect(&mut self, i: usize) {
        match self.transport {
            Transport::Test | Transport::Lossy(_) => {
                self.server.connect_client(&mut self.clients[i])
            }
            Transport::Loopback => self.connect_socket(i),
        }
        if let Some(team) = self.teams[i] {
            let client = self.client_entity(i).expect("a connected client");
            self.server
                .world_mut()
                .entity_mut(client)
                .insert(ClientTeam(team));
        }
        if self.link.is_some() {
            // Connecting ran server frames.
            self.note_server_frame();
        }
    }

    /// Opens a socket to the server and runs both sides until the server has authorized it.
    fn connect_socket(&mut self, i: usize) {
        let addr = self.server.world().resource::<ExampleServer>();
        let port = addr.local_addr().expect("the server's address").port();
        let client = ExampleClient::new((Ipv4Addr::LOCALHOST, port)).expect("a loopback client");
        self.clients[i].insert_resource(client);
        self.pump(|net| {
            net.client_entity(i)
                .is_some_and(|client| net.server.world().get::<AuthorizedClient>(client).is_some())
        });
    }

    pub fn disconnect(&mut self, i: usize) {
        match self.transport {
            Transport::Test => self.server.disconnect_client(&mut self.clients[i]),
            Transport::Lossy(_) => {
                self.server.disconnect_client(&mut self.clients[i]);
                if let Some(link) = &mut self.link {
                    link.forget(i);
                }
                // Disconnecting ran a server frame.
                self.note_server_frame();
            }
            Transport::Loopback => {
                let client = self.client_entity(i);
                self.clients[i]
                    .world_mut()
                    .remove_resource::<ExampleClient>();
                self.clients[i].update();
                self.pump(|net| {
                    client.is_none_or(|client| net.server.world().get_entity(client).is_err())
                });
            }
        }
    }

    pub fn connected(&self, i: usize) -> bool {
        let world = self.clients[i].world();
        match self.transport {
            Transport::Test | Transport::Lossy(_) => world.contains_resource::<TestClientEntity>(),
            Transport::Loopback => world.contains_resource::<ExampleClient>(),
        }
    }

    /// Client `i`'s entity on the server, while it is connected.
    pub fn client_entity(&self, i: usize) -> Option<Entity> {
        let world = self.clients[i].world();
        match self.transport {
            Transport::Test | Transport::Lossy(_) => {
                world.get_resource::<TestClientEntity>().map(|c| **c)
            }
            Transport::Loopback => {
                let port = world
                    .get_resource::<ExampleClient>()?
                    .local_addr()
                    .ok()?
                    .port();
                let server = self.server.world();
                let mut clients = server.try_query::<(Entity, &NetworkId)>()?;
                clients
                    .iter(server)
                    .find(|(_, id)| id.get() == u64::from(port))
                    .map(|(entity, _)| entity)
            }
        }
    }

    /// Runs the server and the clients until `done` holds (loopback: the sockets need time).
    fn pump(&mut self, done: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "the loopback game did not settle"
            );
            self.server.update();
            for client in &mut self.clients {
                client.update();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A unit of `team` on the first map: a radius-8 viewer that reveals its team's fog.
    pub fn spawn_unit(&mut self, team: Team, x: u32, y: u32) -> Entity {
        self.server
            .world_mut()
            .spawn((
                Viewshed::new(8),
                RevealsFog,
                team,
                TilePos { x, y },
                TilemapId(self.map),
                ReplicatesWhenSeen,
            ))
            .id()
    }

    /// A monster on the first map, seen by whoever sees its tile.
    pub fn spawn_monster(&mut self, x: u32, y: u32) -> Entity {
        self.server
            .world_mut()
            .spawn((
                TilePos { x, y },
                TilemapId(self.map),
                CanBeSpotted,
                ReplicatesWhenSeen,
            ))
            .id()
    }

    pub fn move_to(&mut self, entity: Entity, x: u32, y: u32) {
        *self.server.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
    }

    /// One server frame, its messages delivered, one frame of each connected client.
    pub fn step(&mut self) {
        self.server.update();
        self.deliver();
    }

    /// The messages of the last server frame delivered and read by the connected clients.
    pub fn deliver(&mut self) {
        match self.transport {
            Transport::Test => {
                for i in 0..2 {
                    if self.connected(i) {
                        self.server.exchange_with_client(&mut self.clients[i]);
                    }
                    self.clients[i].update();
                }
            }
            Transport::Loopback => self.deliver_over_sockets(),
            Transport::Lossy(_) => self.deliver_over_link(),
        }
    }

    /// One frame of the lossy link, then one frame of each client.
    fn deliver_over_link(&mut self) {
        let mut link = self.link.take().expect("a lossy link");
        link.next_frame();
        for i in 0..2 {
            if let Some(client) = self.client_entity(i) {
                link.carry(&mut self.server, &mut self.clients[i], i, client);
            }
            self.clients[i].update();
        }
        self.link = Some(link);
    }

    /// Over a lossy link, after a frame: notes what each client may hold now and each team's
    /// fog, keeping the frames a message may still be on its way from.
    pub fn note_frame(&mut self) {
        self.recent.push_back(Default::default());
        while self.recent.len() as u64 > MOST_DELAY + 2 {
            self.recent.pop_front();
        }
        self.note_server_frame();
    }

    /// After a server frame within the link's current frame: what each client may hold now
    /// and its team join that frame's, and each team's fog is a fog it had.
    fn note_server_frame(&mut self) {
        let now = [0, 1].map(|i| (self.may_hold(i), self.teams[i]));
        if self.recent.is_empty() {
            self.recent.push_back(Default::default());
        }
        let frame = self.recent.back_mut().expect("a frame");
        for ((may_hold, teams), (now_holds, team)) in frame.iter_mut().zip(now) {
            may_hold.extend(now_holds);
            teams.insert(team);
        }
        self.note_fogs();
    }

    /// Notes each team's fog now as a fog the team had.
    fn note_fogs(&mut self) {
        let world = self.server.world();
        let mut fogs = world.try_query::<&FogOfWar>().unwrap();
        for fog in fogs.iter(world) {
            for (team, team_fog) in fog.teams() {
                let had = states(team_fog.area(), |tile| team_fog.state(tile));
                self.fogs_had.entry(team).or_default().insert(had);
            }
        }
    }

    /// While messages are lost and late: each connected client holds only entities its team
    /// saw in the frames a message may still be on its way from, and only fogs its team had
    /// in those frames, each exactly as the team had it at some frame.
    pub fn assert_clients_hold_what_they_may_have_held(&self) {
        for i in 0..2 {
            if !self.connected(i) {
                continue;
            }
            let recent = self.recent.iter().map(|frames| &frames[i]);
            let (mut allowed, mut teams) = (BTreeSet::new(), BTreeSet::new());
            for (may_hold, frame_teams) in recent {
                allowed.extend(may_hold.iter().copied());
                teams.extend(frame_teams.iter().copied());
            }
            self.assert_ghosts_were_seen(i, &teams);
            let held = self.received(i);
            assert!(
                held.is_subset(&allowed),
                "client {i} holds {:?}, which its team did not see lately",
                held.difference(&allowed).collect::<Vec<_>>()
            );
            for view in self.team_views(i) {
                assert!(
                    teams.contains(&Some(view.team())),
                    "client {i}: the fog of {:?}, not its team lately",
                    view.team()
                );
                let had = states(view.area(), |tile| view.state(tile));
                assert!(
                    self.fogs_had
                        .get(&view.team())
                        .is_some_and(|all| all.contains(&had)),
                    "client {i}: a fog of {:?} that the team never had",
                    view.team()
                );
            }
        }
    }

    /// Reads the sockets until every client holds what its team sees now. While the messages
    /// are on their way a client may still hold what its team saw before the frame, never
    /// anything else.
    fn deliver_over_sockets(&mut self) {
        let expected: Vec<BTreeSet<Entity>> = (0..2).map(|i| self.may_hold(i)).collect();
        let deadline = Instant::now() + Duration::from_secs(10);
        let before: Vec<BTreeSet<Entity>> = (0..2).map(|i| self.received(i)).collect();
        loop {
            for client in &mut self.clients {
                client.update();
            }
            let now: Vec<BTreeSet<Entity>> = (0..2).map(|i| self.received(i)).collect();
            for i in 0..2 {
                let allowed: BTreeSet<Entity> = expected[i].union(&before[i]).copied().collect();
                assert!(
                    now[i].is_subset(&allowed),
                    "client {i} holds {:?}, which its team neither sees nor saw",
                    now[i].difference(&allowed).collect::<Vec<_>>()
                );
            }
            let settled = (0..2).all(|i| !self.connected(i) || now[i] == expected[i]);
            if settled || Instant::now() > deadline {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The server entities client `i` has in its world, team views and ghosts aside.
    pub fn received(&self, i: usize) -> BTreeSet<Entity> {
        let world = self.clients[i].world();
        let map = world.resource::<ServerEntityMap>();
        let mut remote = world.try_query_filtered::<Entity, With<Remote>>().unwrap();
        assert_eq!(
            remote.iter(world).count(),
            map.to_client().len(),
            "every replicated entity on client {i} is mapped to a server entity"
        );
        held(world)
    }

    /// The team views client `i` has.
    pub fn team_views(&self, i: usize) -> Vec<TeamView> {
        team_views(self.clients[i].world())
    }

    /// What client `i` may hold: the unmarked replicated entities, and the marked ones its
    /// team sees (none without a team).
    pub fn may_hold(&self, i: usize) -> BTreeSet<Entity> {
        may_hold(self.server.world(), self.teams[i])
    }

    /// Each connected client holds exactly what it may hold, and its own team's fog on every
    /// map, tile for tile, and no other team's.
    pub fn assert_clients_hold_what_they_may(&self) {
        for i in 0..2 {
            if !self.connected(i) {
                continue;
            }
            assert_eq!(
                self.received(i),
                self.may_hold(i),
                "client {i} ({:?}) holds what its team sees",
                self.teams[i]
            );
            self.assert_own_fog_only(i);
            self.assert_ghosts_were_seen(i, &BTreeSet::from([self.teams[i]]));
            self.assert_teams_ghosts(i);
        }
    }

    /// The ghosts client `i` holds: the stamp each copied, if any.
    pub fn ghosts_held(&self, i: usize) -> Vec<Option<Stamp>> {
        let world = self.clients[i].world();
        let mut ghosts = world
            .try_query_filtered::<Option<&Stamp>, With<ClientGhost>>()
            .unwrap();
        ghosts.iter(world).map(Option::<&Stamp>::copied).collect()
    }

    /// Every ghost client `i` holds is of a state one of `teams` saw: its entity, in the frame
    /// of its stamp (never a later state of the entity).
    fn assert_ghosts_were_seen(&self, i: usize, teams: &BTreeSet<Option<Team>>) {
        let saw = &self.server.world().resource::<Saw>().seen;
        for stamp in self.ghosts_held(i).into_iter().flatten() {
            let entity = Entity::from_bits(stamp.of);
            assert!(
                teams
                    .iter()
                    .flatten()
                    .any(|&team| saw.contains(&(team, entity, stamp.frame))),
                "client {i} ({teams:?}) holds a ghost of {entity} as of frame {}, which its team \
                 did not see then",
                stamp.frame
            );
        }
    }

    /// Client `i` holds a ghost of each living ghost-leaving entity its team remembers and
    /// does not see (the team's `LastSeen`), and of no other living entity.
    fn assert_teams_ghosts(&self, i: usize) {
        let world = self.server.world();
        let alive = |e: Entity| {
            world.get_entity(e).is_ok_and(|e| {
                e.contains::<ReplicatesGhost>() && e.contains::<ReplicatesWhenSeen>()
            })
        };
        let mut expected = BTreeSet::new();
        if let Some(team) = self.teams[i] {
            let sees = team_sees(world, team);
            let mut maps = world.try_query::<&LastSeen>().unwrap();
            for last_seen in maps.iter(world) {
                let ghosts = last_seen.ghosts(team).map(|g| g.entity);
                expected.extend(ghosts.filter(|&e| alive(e) && !sees.contains(&e)));
            }
        }
        let held: BTreeSet<Entity> = self
            .ghosts_held(i)
            .into_iter()
            .flatten()
            .map(|s| Entity::from_bits(s.of))
            .filter(|&e| alive(e))
            .collect();
        assert_eq!(held, expected, "client {i} holds its team's ghosts");
    }

    fn assert_own_fog_only(&self, i: usize) {
        let (server, client) = (self.server.world(), self.clients[i].world());
        assert_own_fog_only(server, client, i, self.teams[i]);
    }

    /// The bytes the server's last frame queued for client `i` (over replicon's test helpers,
    /// before [`deliver`](Self::deliver) hands them over).
    pub fn bytes_queued_for(&self, i: usize) -> usize {
        let client = self.client_entity(i);
        let messages = self.server.world().resource::<ServerMessages>();
        messages
            .iter_sent()
            .filter(|&(to, ..)| Some(to) == client)
            .map(|(.., message)| message.len())
            .sum()
    }

    /// The server's sightings since the last call.
    pub fn sightings(&mut self) -> BTreeSet<(bool, Entity, Entity)> {
        let log = &mut self.server.world_mut().resource_mut::<Sightings>().0;
        log.drain(..).collect()
    }

    /// Client `i` plays for another team from now on: a new `ClientTeam` inserted, or the
    /// one it has changed in place (`in_place`).
    pub fn set_team(&mut self, i: usize, team: Option<Team>, in_place: bool) {
        self.teams[i] = team;
        let Some(client) = self.client_entity(i) else {
            return;
        };
        let mut client = self.server.world_mut().entity_mut(client);
        match (client.get_mut::<ClientTeam>(), team) {
            (Some(mut now), Some(team)) if in_place => now.0 = team,
            (_, Some(team)) => {
                client.insert(ClientTeam(team));
            }
            (_, None) => {
                client.remove::<ClientTeam>();
            }
        }
    }
}

/// The fog states of a map's area, row after row, as numbers after the area (a plain value to
/// sort and compare).
pub fn states(area: Window, state: impl Fn(TilePos) -> FogState) -> Vec<u32> {
    let mut all = Vec::with_capacity((area.width * area.height) as usize + 4);
    all.extend([area.x, area.y, area.width, area.height]);
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            all.push(match state(TilePos { x, y }) {
                FogState::Unexplored => 0,
                FogState::Remembered => 1,
                FogState::Visible => 2,
            });
        }
    }
    all
}

/// Where an entity stands by the documented rule: its `TilePos` on its `TilemapId`, or the tile
/// under its `GlobalTransform` when it has no `TilePos` (inside its tilemap); inside the
/// tilemap's root map (its `LayerOf`, or itself), which it stands on. Square maps with 16-pixel tiles and no anchor, as the tests
/// spawn them, without rotation or scale.
pub fn stands(world: &World, entity: Entity) -> Option<(Entity, (u32, u32))> {
    let entity = world.get_entity(entity).ok()?;
    let map = world.get_entity(entity.get::<TilemapId>()?.0).ok()?;
    let size = map.get::<TilemapSize>()?;
    let (x, y) = match entity.get::<TilePos>() {
        Some(tile) => (i64::from(tile.x), i64::from(tile.y)),
        None => {
            let at = entity.get::<GlobalTransform>()?.translation();
            let origin = map.get::<GlobalTransform>()?.translation();
            let grid = map.get::<TilemapGridSize>()?;
            let tile = |d: f32, g: f32| (d / g + 0.5).floor() as i64;
            (tile(at.x - origin.x, grid.x), tile(at.y - origin.y, grid.y))
        }
    };
    let root = map.get::<LayerOf>().map_or(map.id(), |layer| layer.0);
    let within = |size: &TilemapSize| {
        (0..i64::from(size.x)).contains(&x) && (0..i64::from(size.y)).contains(&y)
    };
    // On the root map; a position under a `Transform` also on its own tilemap.
    let by_transform = !entity.contains::<TilePos>();
    let inside = within(world.get::<TilemapSize>(root)?) && (!by_transform || within(size));
    inside.then_some((root, (x as u32, y as u32)))
}

/// What `team` sees by the rules, from the viewers' own viewsheds: its own marked entities
/// (its `Team`, or team 0 for a `RevealsFog` viewer without one), and the marked entities
/// standing on a tile one of its revealing viewers, or one of a team that shares its sight
/// with it (`SharedVision`), sees, on the viewer's map; `Team::SPECTATOR` sees for every team.
/// A reveal through walls sees the disc of its radius around its tile (walls or not); a
/// `Cloaked` entity is seen only on a tile that one of those viewers that is a `Detector`
/// sees too (docs/strategy.md).
pub fn team_sees(world: &World, team: Team) -> BTreeSet<Entity> {
    let shared = world.get_resource::<bevy_viewshed::SharedVision>();
    let sees_for = |of: Team| {
        team == Team::SPECTATOR || of == team || shared.is_some_and(|s| s.shares(of, team))
    };
    let (views, detects) = views_of(world, sees_for);
    let on = |tiles: &Tiles, (map, tile): (Entity, (u32, u32))| {
        tiles.get(&map).is_some_and(|v| v.contains(&tile))
    };
    let mut marked = world
        .try_query_filtered::<(Entity, Option<&Team>, Has<RevealsFog>, Has<Cloaked>), With<ReplicatesWhenSeen>>()
        .unwrap();
    marked
        .iter(world)
        .filter(|&(entity, owner, reveals, cloaked)| {
            let owner = owner.copied().or(reveals.then_some(Team(0)));
            let seen = stands(world, entity)
                .is_some_and(|at| on(&views, at) && (!cloaked || on(&detects, at)));
            owner == Some(team) || seen
        })
        .map(|(entity, ..)| entity)
        .collect()
}

/// Tiles by map.
type Tiles = BTreeMap<Entity, BTreeSet<(u32, u32)>>;

/// What the revealing viewers of the teams `sees_for` accepts see, by map, and what their
/// `Detector`s see.
fn views_of(world: &World, sees_for: impl Fn(Team) -> bool) -> (Tiles, Tiles) {
    let mut viewers = world
        .try_query_filtered::<(&Viewshed, Option<&Team>, Option<&Reveal>, Has<Detector>), With<RevealsFog>>()
        .unwrap();
    let (mut views, mut detects) = (Tiles::new(), Tiles::new());
    for (viewshed, _, reveal, detector) in viewers
        .iter(world)
        .filter(|(_, t, ..)| sees_for(t.copied().unwrap_or_default()))
    {
        let Some((map, origin)) = viewshed.origin() else {
            continue;
        };
        let tiles: Vec<(u32, u32)> = match reveal.filter(|r| r.through_walls) {
            Some(reveal) => disc(world, map, origin, reveal.radius),
            None => viewshed.iter().map(|t| (t.x, t.y)).collect(),
        };
        if detector {
            detects
                .entry(map)
                .or_default()
                .extend(tiles.iter().copied());
        }
        views.entry(map).or_default().extend(tiles);
    }
    (views, detects)
}

/// The tiles of `map` within `radius` of `origin` (`dx² + dy² <= radius²`).
fn disc(world: &World, map: Entity, origin: TilePos, radius: u32) -> Vec<(u32, u32)> {
    let Some(size) = world.get::<TilemapSize>(map) else {
        return Vec::new();
    };
    let r = i64::from(radius);
    let (ox, oy) = (i64::from(origin.x), i64::from(origin.y));
    let mut tiles = Vec::new();
    for y in (oy - r).max(0)..=(oy + r).min(i64::from(size.y) - 1) {
        for x in (ox - r).max(0)..=(ox + r).min(i64::from(size.x) - 1) {
            if (x - ox).pow(2) + (y - oy).pow(2) <= r * r {
                tiles.push((x as u32, y as u32));
            }
        }
    }
    tiles
}

/// What a client of `team` may hold (the plain rule): the marked entities its team sees, and
/// the unmarked replicated ones, team views and ghosts aside.
pub fn may_hold(world: &World, team: Option<Team>) -> BTreeSet<Entity> {
    let mut sees = team.map(|t| team_sees(world, t)).unwrap_or_default();
    let mut unmarked = world
        .try_query_filtered::<Entity, (
            With<Replicated>,
            Without<ReplicatesWhenSeen>,
            Without<ClientGhost>,
            Without<TeamView>,
        )>()
        .unwrap();
    sees.extend(unmarked.iter(world));
    sees
}

/// The server entities a client's world holds, by replicon's entity map, team views and
/// ghosts aside.
pub fn held(client: &World) -> BTreeSet<Entity> {
    let map = client.resource::<ServerEntityMap>();
    map.to_client()
        .iter()
        .filter(|&(_, &local)| {
            client.get_entity(local).is_ok_and(|local| {
                !local.contains::<TeamView>() && !local.contains::<ClientGhost>()
            })
        })
        .map(|(&server, _)| server)
        .collect()
}

/// The team views a client's world holds.
pub fn team_views(client: &World) -> Vec<TeamView> {
    let mut views = client.try_query::<&TeamView>().unwrap();
    views.iter(client).cloned().collect()
}

/// Client `i` holds `team`'s fog on every map of the server, tile for tile, and no other
/// team's (none without a team).
pub fn assert_own_fog_only(server: &World, client: &World, i: usize, team: Option<Team>) {
    let (got, expected) = fogs_held(server, client, team);
    for view in team_views(client) {
        assert_eq!(Some(view.team()), team, "client {i}: another team's fog");
    }
    assert_eq!(
        got, expected,
        "client {i} holds its team's fog on every map"
    );
}

/// Whether a client holds `team`'s fog on every map of the server and no other team's (what
/// [`assert_own_fog_only`] asserts).
pub fn holds_own_fog(server: &World, client: &World, team: Option<Team>) -> bool {
    let (got, expected) = fogs_held(server, client, team);
    got == expected
        && team_views(client)
            .iter()
            .all(|view| Some(view.team()) == team)
}

/// The fog states a client holds, and those of `team` on the server's maps, each sorted.
fn fogs_held(server: &World, client: &World, team: Option<Team>) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let mut fogs = server.try_query::<&FogOfWar>().unwrap();
    let mut expected: Vec<Vec<u32>> = fogs
        .iter(server)
        .filter_map(|fog| team.and_then(|team| fog.team(team)))
        .map(|fog| states(fog.area(), |tile| fog.state(tile)))
        .collect();
    let mut got: Vec<Vec<u32>> = team_views(client)
        .iter()
        .map(|view| states(view.area(), |tile| view.state(tile)))
        .collect();
    expected.sort();
    got.sort();
    (got, expected)
}

pub fn set(entities: &[Entity]) -> BTreeSet<Entity> {
    entities.iter().copied().collect()
}

/// Inserts `component` if the entity lacks a `C`, else removes it (a harness's toggles).
pub fn toggle<C: Component>(mut entity: EntityWorldMut, component: C) {
    if entity.contains::<C>() {
        entity.remove::<C>();
    } else {
        entity.insert(component);
    }
}

/// The team a harness's client plays for: `0..3`, or the spectator for 3.
pub fn team_of(n: u32) -> Team {
    if n == 3 { Team::SPECTATOR } else { Team(n) }
}

/// A scan: a `Reveal` for `team` of `radius` (through walls or not) lasting `ms`
/// milliseconds of the server's time, on `place`.
pub fn scan(
    world: &mut World,
    team: Team,
    place: (TilePos, TilemapId),
    (radius, walls, ms): (u32, bool, u64),
) {
    let mut reveal = Reveal::new(radius, Duration::from_millis(ms));
    reveal.through_walls = walls;
    world.spawn((reveal, team, place));
}
