//! Server-side fog of war over bevy_replicon: a server frame on the 256x256 dungeon of
//! `benches/scene` with 32 clients in 4 teams and 2,000 replicated units (radius-8 viewers,
//! `RevealsFog`, 500 per team, all `ReplicateWhenSeen`), every unit stepping to a neighbouring
//! tile every frame.
//!
//! ```text
//! cargo bench --workspace --all-features --bench replicon
//! ```
//!
//! - `viewshed_only`: the same world without replicon (field of view and fog only).
//! - `replicon_to_all`: with replicon's server and 32 authorized clients, every unit
//!   replicated to every client (no visibility plugin): the baseline.
//! - `replicon_fog_of_war`: the same with `ViewshedReplicationPlugin`: each client receives
//!   only what its team sees.
//! - `client_sight_only`: in the `replicon_fog_of_war` frame, the time spent in
//!   `ClientSightSystems` alone (the visibility update), measured around the set.
//!
//! Each iteration is one `app.update()`. The clients are entities on the server with no
//! transport: their messages are dropped each frame.

mod scene;

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{
    ClientSightSystems, ClientTeam, ReplicateWhenSeen, ViewshedReplicationPlugin,
};
use bevy_viewshed::{OpacityGrid, Team};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::support::MapKind;
use scene::{RADIUS, SIZE, minimal_plugins, spawn_dungeon, walk, walks};

const UNITS: usize = 2_000;
const CLIENTS: usize = 32;
const TEAMS: u32 = 4;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Setup {
    ViewshedOnly,
    ToAll,
    FogOfWar,
}

/// The time spent in `ClientSightSystems`, summed over frames.
#[derive(Resource, Default)]
struct SightTime {
    started: Option<Instant>,
    total: Duration,
}

fn start_clock(mut time: ResMut<SightTime>) {
    time.started = Some(Instant::now());
}

fn stop_clock(mut time: ResMut<SightTime>) {
    if let Some(started) = time.started.take() {
        time.total += started.elapsed();
    }
}

/// A transport that drops what the server sends.
fn drop_packets(mut messages: ResMut<ServerMessages>) {
    messages.drain_sent().for_each(drop);
}

fn server_app(setup: Setup) -> App {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugin::default()));
    if setup != Setup::ViewshedOnly {
        app.add_plugins((
            StatesPlugin,
            RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        ))
        .add_systems(PostUpdate, drop_packets.in_set(ServerSystems::SendPackets));
    }
    if setup == Setup::FogOfWar {
        app.add_plugins(ViewshedReplicationPlugin)
            .init_resource::<SightTime>()
            .add_systems(
                PostUpdate,
                (
                    start_clock.before(ClientSightSystems),
                    stop_clock.after(ClientSightSystems),
                ),
            );
    }
    app.finish();
    spawn_world(&mut app, &grid, setup);
    // The first frames place every opaque tile, compute every view, send every spawn.
    app.update();
    app.update();
    app
}

fn spawn_world(app: &mut App, grid: &OpacityGrid, setup: Setup) {
    let world = app.world_mut();
    let map = spawn_dungeon(world, grid);
    for (i, walk) in walks(grid, UNITS).into_iter().enumerate() {
        let mut unit = world.spawn((
            Viewshed::new(RADIUS),
            RevealsFog,
            Team(i as u32 % TEAMS),
            walk.a,
            TilemapId(map),
            walk,
        ));
        match setup {
            Setup::ViewshedOnly => {}
            Setup::ToAll => {
                unit.insert(Replicated);
            }
            Setup::FogOfWar => {
                unit.insert(ReplicateWhenSeen);
            }
        }
    }
    if setup != Setup::ViewshedOnly {
        world
            .resource_mut::<NextState<ServerState>>()
            .set(ServerState::Running);
        for i in 0..CLIENTS {
            world.spawn((
                ConnectedClient { max_size: 1200 },
                AuthorizedClient,
                ClientTeam(Team(i as u32 % TEAMS)),
            ));
        }
    }
    app.add_systems(Update, walk);
}

fn replicon_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("replicon/moving/{UNITS}_units_{CLIENTS}_clients"));
    for (name, setup) in [
        ("viewshed_only", Setup::ViewshedOnly),
        ("replicon_to_all", Setup::ToAll),
        ("replicon_fog_of_war", Setup::FogOfWar),
    ] {
        let mut app = server_app(setup);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| app.update())
        });
    }
    let mut app = server_app(Setup::FogOfWar);
    group.bench_function(BenchmarkId::from_parameter("client_sight_only"), |b| {
        b.iter_custom(|iters| {
            app.world_mut().resource_mut::<SightTime>().total = Duration::ZERO;
            for _ in 0..iters {
                app.update();
            }
            app.world().resource::<SightTime>().total
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = scene::criterion_config();
    targets = replicon_benches
}
criterion_main!(benches);
