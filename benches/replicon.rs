//! Server-side fog of war over bevy_replicon: a server frame on the 256x256 dungeon of
//! `benches/scene` with 32 clients in 4 teams and 2,000 replicated units (radius-8 viewers,
//! `RevealsFog`, 500 per team, all `ReplicatesWhenSeen`), every unit stepping to a neighbouring
//! tile every frame and replicating its position.
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
//! Each iteration is one `app.update()`. The world is `benches/scene/replicon.rs`. The clients
//! are entities on the server with no transport: what the server sends them is counted, then
//! dropped, each frame.

mod scene;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::replicon::{CLIENTS, SentBytes, Setup, SightTime, UNITS, server_app};

fn replicon_benches(c: &mut Criterion) {
    let group_name = format!("replicon/moving/{UNITS}_units_{CLIENTS}_clients");
    let mut group = c.benchmark_group(&group_name);
    let mut sent = Vec::new();
    for (name, setup) in [
        ("viewshed_only", Setup::ViewshedOnly),
        ("replicon_to_all", Setup::ToAll),
        ("replicon_fog_of_war", Setup::FogOfWar),
    ] {
        let mut app = server_app(setup, true);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| app.update())
        });
        if let Some(bytes) = app.world().get_resource::<SentBytes>() {
            let (all, updates) = (bytes.per_client_frame(), bytes.per_client(bytes.updates));
            eprintln!(
                "{group_name}/{name}: {all:.0} bytes sent per client per frame ({updates:.0} of \
                 them spawns and despawns, the rest mutations)"
            );
            sent.push(format!("{group_name}\t{name}\t{all:.1}\t{updates:.1}\n"));
        }
    }
    write_sent(&sent);
    let mut app = server_app(Setup::FogOfWar, true);
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
