//! The multiplayer server's world, shared by `benches/replicon.rs` (criterion) and
//! `benches/frame_instructions.rs` (callgrind), in two sizes ([`Crowd`]): the 256x256 dungeon
//! with 32 clients in 4 teams and 2,000 replicated units ([`CROWD`]), and a 512x512 dungeon
//! with 128 clients in 16 teams and 10,000 units ([`LARGE`]). The units are radius-8 viewers
//! with `RevealsFog`, in teams in turn (unit `i` in team `i % teams`, spread over the whole
//! map), every unit stepping to a neighbouring tile every frame and replicating its position
//! (`UnitPosition`, as a game replicates what its clients draw). The clients are entities on the server with no
//! transport: what the server sends them is counted by channel, then dropped, and acknowledged
//! at once, each frame, as clients that receive everything one frame later would.

use std::time::{Duration, Instant};

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::backend::channels::{ClientChannel, ServerChannel};
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{
    ClientSightSystems, ClientTeam, GhostAppExt, ReplicatesGhost, ReplicatesWhenSeen,
    ViewshedReplicationPlugin,
};
use bevy_viewshed::{OpacityGrid, Team};
use serde::{Deserialize, Serialize};

use super::support::MapKind;
use super::{RADIUS, SIZE, minimal_plugins, spawn_dungeon, walk, walks};

mod lightyear;

/// The size of a server's world: its units, its clients (client `i` in team `i % teams`) and
/// its teams, on a `size` x `size` dungeon.
#[derive(Clone, Copy, Debug)]
pub struct Crowd {
    pub units: usize,
    pub clients: usize,
    pub teams: u32,
    pub size: u32,
}

/// 2,000 units, 32 clients in 4 teams, on the 256x256 dungeon of the other benches.
pub const CROWD: Crowd = Crowd {
    units: 2_000,
    clients: 32,
    teams: 4,
    size: SIZE,
};

/// A server for 128 clients: 10,000 units, 128 clients in 16 teams, on a 512x512 dungeon (the
/// units as dense as in [`CROWD`]: one per 26 tiles against one per 33).
pub const LARGE: Crowd = Crowd {
    units: 10_000,
    clients: 128,
    teams: 16,
    size: 512,
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Setup {
    /// The same world without replicon (field of view and fog only).
    ViewshedOnly,
    /// Replicon's server, every unit replicated to every client.
    ToAll,
    /// With `ViewshedReplicationPlugin`: each client gets what its team sees.
    FogOfWar,
    /// The same, every unit `ReplicatesGhost` too: a team's clients keep a ghost of each enemy
    /// it stops seeing, with its `UnitPosition` as last seen (`ghost_keeps`).
    Ghosts,
    /// lightyear's server (`replicon/lightyear.rs`), every unit `Replicate::to_clients(All)`.
    LightyearToAll,
    /// lightyear's server with `ViewshedReplicationPlugin`, the units `ReplicatesWhenSeen`.
    LightyearFogOfWar,
}

impl Setup {
    /// With `ViewshedReplicationPlugin`.
    fn fog(self) -> bool {
        matches!(
            self,
            Self::FogOfWar | Self::Ghosts | Self::LightyearFogOfWar
        )
    }

    /// Over lightyear, with real clients.
    pub fn lightyear(self) -> bool {
        matches!(self, Self::LightyearToAll | Self::LightyearFogOfWar)
    }
}

/// The time spent in `ClientSightSystems`, summed over frames.
#[derive(Resource, Default)]
pub struct SightTime {
    started: Option<Instant>,
    pub total: Duration,
}

/// Exclusive, like [`stop_clock`], and after the viewshed's frame: the clock runs around
/// `ClientSightSystems` only, with no other system running beside it.
fn start_clock(world: &mut World) {
    world.resource_mut::<SightTime>().started = Some(Instant::now());
}

fn stop_clock(world: &mut World) {
    let mut time = world.resource_mut::<SightTime>();
    if let Some(started) = time.started.take() {
        time.total += started.elapsed();
    }
}

/// A unit's tile, replicated to the clients that may see the unit (a copy of its `TilePos`).
#[derive(Component, Clone, Copy, Default, Serialize, Deserialize)]
pub struct UnitPosition {
    pub x: u32,
    pub y: u32,
}

fn copy_positions(mut units: Query<(&TilePos, &mut UnitPosition), Changed<TilePos>>) {
    for (tile, mut position) in &mut units {
        *position = UnitPosition {
            x: tile.x,
            y: tile.y,
        };
    }
}

/// What the server sent, summed over frames, to `clients` clients: bytes in all (over
/// replicon's counting transport, the payloads replicon hands to it; over lightyear, the
/// datagrams' payloads its links hand their IO), and of them replicon's messages of spawns,
/// despawns, insertions and removals (its reliable `Updates` channel).
#[derive(Resource, Default)]
pub struct SentBytes {
    pub clients: usize,
    pub all: u64,
    pub updates: u64,
    pub frames: u64,
}

impl SentBytes {
    /// Bytes sent per client per frame since the last reset, in all.
    pub fn per_client_frame(&self) -> f64 {
        self.per_client(self.all)
    }

    /// `bytes`, summed over the frames and clients, per client per frame.
    pub fn per_client(&self, bytes: u64) -> f64 {
        bytes as f64 / (self.clients.max(1) as f64 * self.frames.max(1) as f64)
    }
}

/// A transport that counts what the server sends, then drops it, and acknowledges every
/// message of replicon's `Mutations` channel as a client that received it would (the server
/// reads the acknowledgements at the start of the next frame): a mutation message starts with
/// a byte of flags and its index (two bytes, little-endian), and a client acknowledges it by
/// sending that index back (replicon 0.44's `client.rs`, `buffer_mutate_message`). Without
/// acknowledgements replicon would send each client every component changed since it joined,
/// and a `TeamView` whole every frame.
fn drop_packets(
    mut messages: ResMut<ServerMessages>,
    mut sent: ResMut<SentBytes>,
    mut acks: Local<EntityHashMap<Vec<u8>>>,
) {
    sent.frames += 1;
    for (client, channel, message) in messages.drain_sent() {
        sent.all += message.len() as u64;
        if channel == usize::from(ServerChannel::Updates) {
            sent.updates += message.len() as u64;
        } else if let Some(index) = message.get(1..3) {
            acks.entry(client).or_default().extend_from_slice(index);
        }
    }
    for (client, acks) in acks.drain() {
        messages.insert_received(client, ClientChannel::MutationAcks, acks);
    }
}

/// A server and, over lightyear, its clients (replicon's counting transport needs none).
pub struct Game {
    pub server: App,
    clients: Vec<App>,
}

impl Game {
    /// The server of `setup` for `crowd` (`positions`: as [`server_app`]'s); over lightyear,
    /// its clients connected and holding what their teams see, and the bytes counted afresh.
    pub fn new(crowd: Crowd, setup: Setup, positions: bool) -> Self {
        let mut server = server_app(crowd, setup, positions);
        if !setup.lightyear() {
            return Self {
                server,
                clients: Vec::new(),
            };
        }
        let clients = lightyear::spawn_clients(&mut server, crowd);
        let mut game = Self { server, clients };
        for _ in 0..200 {
            if lightyear::replicated_links(&mut game.server) == crowd.clients {
                break;
            }
            game.frame();
        }
        let joined = lightyear::replicated_links(&mut game.server);
        assert_eq!(joined, crowd.clients, "every client joins");
        // The spawns of what each team sees, then the frames settle.
        for _ in 0..4 {
            game.frame();
        }
        reset_count(&mut game.server, crowd);
        game
    }

    /// One frame: the server's, timed, then each client's, which reads what it sent.
    pub fn frame(&mut self) -> Duration {
        let start = Instant::now();
        self.server.update();
        let server = start.elapsed();
        self.clients.iter_mut().for_each(App::update);
        server
    }
}

/// The server of `setup` for `crowd`; `positions`: whether the units replicate their
/// `UnitPosition` (the benches do; without, replicon has nothing to send of a unit once it is
/// spawned).
pub fn server_app(crowd: Crowd, setup: Setup, positions: bool) -> App {
    let grid = MapKind::Dungeon.generate(crowd.size, crowd.size, 7);
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    if setup.lightyear() {
        lightyear::add_server(&mut app, crowd);
    } else if setup != Setup::ViewshedOnly {
        app.add_plugins((
            StatesPlugin,
            RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        ))
        .add_systems(PostUpdate, drop_packets.in_set(ServerSystems::SendPackets));
    }
    if setup != Setup::ViewshedOnly {
        reset_count(&mut app, crowd);
    }
    if setup != Setup::ViewshedOnly && positions {
        app.replicate::<UnitPosition>();
    }
    if setup == Setup::Ghosts && positions {
        app.ghost_keeps::<UnitPosition>();
    }
    if setup.fog() {
        app.add_plugins(ViewshedReplicationPlugin)
            .init_resource::<SightTime>()
            .add_systems(
                PostUpdate,
                (
                    start_clock
                        .after(ViewshedSystems)
                        .before(ClientSightSystems),
                    stop_clock.after(ClientSightSystems),
                ),
            );
    }
    app.finish();
    spawn_world(&mut app, &grid, crowd, setup, positions);
    if setup.lightyear() {
        lightyear::start_server(&mut app);
    }
    // The first frames place every opaque tile, compute every view, send every spawn.
    app.update();
    app.update();
    if setup != Setup::ViewshedOnly {
        reset_count(&mut app, crowd);
    }
    app
}

/// Counts what the server sends from now on, afresh.
fn reset_count(app: &mut App, crowd: Crowd) {
    app.insert_resource(SentBytes {
        clients: crowd.clients,
        ..default()
    });
}

fn spawn_world(app: &mut App, grid: &OpacityGrid, crowd: Crowd, setup: Setup, positions: bool) {
    let world = app.world_mut();
    let map = spawn_dungeon(world, grid);
    for (i, walk) in walks(grid, crowd.units).into_iter().enumerate() {
        let mut unit = world.spawn((
            Viewshed::new(RADIUS),
            RevealsFog,
            Team(i as u32 % crowd.teams),
            walk.a,
            TilemapId(map),
            walk,
        ));
        if setup != Setup::ViewshedOnly && positions {
            unit.insert(UnitPosition {
                x: walk.a.x,
                y: walk.a.y,
            });
        }
        match setup {
            Setup::ViewshedOnly => {}
            Setup::ToAll => {
                unit.insert(Replicated);
            }
            Setup::LightyearToAll => {
                unit.insert(lightyear::to_all());
            }
            Setup::FogOfWar | Setup::LightyearFogOfWar => {
                unit.insert(ReplicatesWhenSeen);
            }
            Setup::Ghosts => {
                unit.insert(ReplicatesGhost);
            }
        }
    }
    if setup != Setup::ViewshedOnly && !setup.lightyear() {
        world
            .resource_mut::<NextState<ServerState>>()
            .set(ServerState::Running);
        for i in 0..crowd.clients {
            world.spawn((
                ConnectedClient { max_size: 1200 },
                AuthorizedClient,
                ClientTeam(Team(i as u32 % crowd.teams)),
            ));
        }
    }
    app.add_systems(Update, (walk, copy_positions).chain());
}
