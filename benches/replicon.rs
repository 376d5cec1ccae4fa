//! Server-side fog of war over bevy_replicon and over lightyear: a server frame in two worlds
//! of `benches/scene/replicon/`, each a group: the 256x256 dungeon of `benches/scene` with 32
//! clients in 4 teams and 2,000 replicated units (`replicon/moving/2000_units_32_clients`), and
//! a 512x512 dungeon with 128 clients in 16 teams and 10,000 units
//! (`replicon/moving/10000_units_128_clients`). The units are radius-8 viewers with
//! `RevealsFog`, all `ReplicatesWhenSeen`, every unit stepping to a neighbouring tile every
//! frame and replicating its position.
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
//! - `replicon_fog_of_war_ghosts`: the same, every unit `ReplicatesGhost` too.
//! - `lightyear_to_all`: a lightyear 0.30 server (its `ServerPlugins`, which bring replicon's)
//!   with real client `App`s over crossbeam channels and netcode, every unit
//!   `Replicate::to_clients(All)`: lightyear's baseline.
//! - `lightyear_fog_of_war`: the same with `ViewshedReplicationPlugin`, the units
//!   `ReplicatesWhenSeen`.
//! - `client_sight_only`: in the `replicon_fog_of_war` frame, the time spent in
//!   `ClientSightSystems` alone (the visibility update), measured around the set.
//!
//! Each iteration is one server `app.update()` (over lightyear, the clients' frames follow,
//! untimed). Over replicon the clients are entities on the server with no transport: what the
//! server sends them is counted, then dropped, each frame; over lightyear what the server's
//! links hand their IO is counted (`benches/scene/replicon/lightyear.rs`). The bytes per client
//! per frame of each setup, over 30 frames, go to `replicon-bytes.tsv` for `benches/report.py`.

mod scene;

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::FogOfWar;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::replicon::{CROWD, Crowd, Game, LARGE, SentBytes, Setup, SightTime, server_app};

fn replicon_benches(c: &mut Criterion) {
    let mut sent = Vec::new();
    for crowd in [CROWD, LARGE] {
        let group_name = format!(
            "replicon/moving/{}_units_{}_clients",
            crowd.units, crowd.clients
        );
        sent.extend(bytes_sent(crowd, &group_name));
        write_sent(&sent);
        crowd_benches(c, crowd, &group_name);
    }
}

fn crowd_benches(c: &mut Criterion, crowd: Crowd, group_name: &str) {
    let mut group = c.benchmark_group(group_name);
    for (name, setup) in [
        ("viewshed_only", Setup::ViewshedOnly),
        ("replicon_to_all", Setup::ToAll),
        ("replicon_fog_of_war", Setup::FogOfWar),
        ("replicon_fog_of_war_ghosts", Setup::Ghosts),
    ] {
        let mut app = server_app(crowd, setup, true);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| app.update())
        });
    }
    for (name, setup) in [
        ("lightyear_to_all", Setup::LightyearToAll),
        ("lightyear_fog_of_war", Setup::LightyearFogOfWar),
    ] {
        let mut game = Game::new(crowd, setup, true);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| game.frame()).sum())
        });
    }
    let mut app = server_app(crowd, Setup::FogOfWar, true);
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

/// The frames over which the bytes are counted.
const FRAMES: usize = 30;

/// The bytes sent per client per frame over [`FRAMES`] frames of each setup, as lines of
/// `replicon-bytes.tsv`: in all, and of them spawns and despawns. `replicon_fog_alone` is the
/// plugin's scene with no position replicated: what remains is each team's `TeamView` (its
/// mutations) and the spawns and despawns of units coming into and out of view.
fn bytes_sent(crowd: Crowd, group_name: &str) -> Vec<String> {
    let mut sent = Vec::new();
    for (name, setup, positions) in [
        ("replicon_to_all", Setup::ToAll, true),
        ("replicon_fog_of_war", Setup::FogOfWar, true),
        ("replicon_fog_of_war_ghosts", Setup::Ghosts, true),
        ("replicon_fog_alone", Setup::FogOfWar, false),
        ("lightyear_to_all", Setup::LightyearToAll, true),
        ("lightyear_fog_of_war", Setup::LightyearFogOfWar, true),
    ] {
        let mut game = Game::new(crowd, setup, positions);
        for _ in 0..FRAMES {
            game.frame();
        }
        let app = &mut game.server;
        let bytes = app.world().resource::<SentBytes>();
        let (all, updates) = (bytes.per_client_frame(), bytes.per_client(bytes.updates));
        let seen = units_seen(app, crowd.teams);
        eprintln!(
            "{group_name}/{name}: {all:.0} bytes sent per client per frame ({updates:.0} of \
             them replicon's spawns and despawns); each team sees {seen:.0} units"
        );
        sent.push(format!(
            "{group_name}\t{name}\t{all:.1}\t{updates:.1}\t{seen:.1}\n"
        ));
    }
    sent
}

/// The units a team sees, on average over the teams (its own and the others' on tiles in its
/// view): what a client of it receives.
fn units_seen(app: &mut App, teams: u32) -> f64 {
    let world = app.world_mut();
    let fogs: Vec<FogOfWar> = world.query::<&FogOfWar>().iter(world).cloned().collect();
    let mut units = world.query::<(&TilePos, &Team)>();
    let mut seen = 0;
    for team in 0..teams {
        let sees = |tile: TilePos| {
            fogs.iter()
                .any(|f| f.team(Team(team)).is_some_and(|v| v.is_visible(tile)))
        };
        seen += units
            .iter(world)
            .filter(|&(&tile, owner)| owner.0 == team || sees(tile))
            .count();
    }
    seen as f64 / f64::from(teams)
}

/// The bytes sent per client per frame of each setup (in all, and of them spawns and
/// despawns), written next to criterion's results as `replicon-bytes.tsv` for
/// `benches/report.py` (criterion's own order of directories:
/// `CRITERION_HOME`, `CARGO_TARGET_DIR`, the workspace's `target`).
fn write_sent(lines: &[String]) {
    let dir = std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR").map(|t| Path::new(&t).join("criterion")))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("replicon-bytes.tsv"), lines.concat()))
        .expect("the criterion directory is writable");
}

criterion_group! {
    name = benches;
    config = scene::criterion_config();
    targets = replicon_benches
}
criterion_main!(benches);
