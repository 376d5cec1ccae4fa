//! Runs frames of the plugin bench's scenes (`benches/scene`) inside one `#[inline(never)]`
//! function, so that callgrind counts the instructions of exactly those frames: counts repeat
//! from run to run where times on this busy machine do not, so they show what a change to the
//! plugin costs or saves per frame, and `callgrind_annotate` shows where a frame goes.
//!
//! ```text
//! cargo bench --bench frame_instructions --no-run     # prints the binary's path
//! valgrind --tool=callgrind --toggle-collect='*frame_instructions*frames*' \
//!     BINARY idle 10000 20
//! # "Collected : N"  ->  N / 20 instructions per frame
//! ```
//!
//! Arguments: the scene (`idle`, `bare`: idle without the plugin, `door`, `moving`, `cones`:
//! all moving with 120-degree vision cones, `teams`: all moving with four teams and fog), the
//! number of viewers and of frames. It prints the wall time per frame of the measured part (to
//! compare two builds outside callgrind, where setup would blur a whole-process `time`), and
//! with `FRAME_PHASES=1` the wall time of each of the plugin's phases. `game-views`,
//! `game-fog` and `game-full` play the game scene of `benches/game.rs` (`benches/scene/game.rs`)
//! with that many units; `spread` the 100 walking targets among that many still viewers of
//! `benches/scene/spread.rs`; `lights-moving` and `lights-viewers` the all-moving frame of
//! `benches/lights.rs` (`benches/scene/lights.rs`: that many viewers that need light among as
//! many lights, and the same viewers without light). `replicon-all` and `replicon-fog` play the multiplayer server of
//! `benches/replicon.rs` (`benches/scene/replicon/mod.rs`, feature `replicon`, its own 2,000 units
//! whatever VIEWERS says) without and with `ViewshedReplicationPlugin`, and print the bytes sent
//! per client per frame; `replicon-all-still` and `replicon-fog-still` the same with units that
//! replicate no position (nothing to send of a unit once it is spawned);
//! `replicon-large-all` and `replicon-large-fog` the server for 128 clients (10,000 units, 16
//! teams, 512x512). Bevy's task pool runs the parallel recompute on both
//! cores; callgrind runs the threads one at a time and counts them all.

mod scene;

use std::process::ExitCode;
use std::time::Instant;

use bevy::prelude::*;
use bevy_viewshed::{ViewshedSchedule, ViewshedStepSystems};
use scene::game::{Level, battle_map, battle_side, game_app, game_map, teams_app};
use scene::lights::lights_app;
use scene::support::MapKind;
use scene::{SIZE, Scene, Variant, plugin_app};

const USAGE: &str = "usage: frame_instructions idle|bare|door|moving|cones|teams|hills|cliff|game-views|game-fog|game-full|battle-views|battle-fog|battle-teams|battle-full|battle-strategy|battle8-views|battle8-fog|battle8-teams|battle8-full|spread|lights-moving|lights-viewers|replicon-all|replicon-fog|replicon-all-still|replicon-fog-still|replicon-large-all|replicon-large-fog VIEWERS FRAMES";

/// The measured part: `count` frames.
#[inline(never)]
fn frames(app: &mut App, count: u32) {
    for _ in 0..count {
        app.update();
    }
}

fn main() -> ExitCode {
    // `cargo bench` passes `--bench`; only the positional arguments count.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if args.is_empty() {
        // A plain `cargo bench` runs every bench target: this one only under callgrind.
        eprintln!("frame_instructions: run it under callgrind ({USAGE})");
        return ExitCode::SUCCESS;
    }
    let [scene, viewers, count] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    let game = scene.strip_prefix("game-").and_then(Level::parse);
    let battle = (scene
        .strip_prefix("battle-")
        .and_then(Level::parse)
        .map(|level| (level, 4)))
    .or_else(|| (scene.strip_prefix("battle8-").and_then(Level::parse)).map(|level| (level, 8)));
    #[cfg(feature = "replicon")]
    let server = {
        use scene::replicon::{CROWD, LARGE, Setup};
        match scene.as_str() {
            "replicon-all" => Some((CROWD, Setup::ToAll, true)),
            "replicon-fog" => Some((CROWD, Setup::FogOfWar, true)),
            "replicon-all-still" => Some((CROWD, Setup::ToAll, false)),
            "replicon-fog-still" => Some((CROWD, Setup::FogOfWar, false)),
            "replicon-large-all" => Some((LARGE, Setup::ToAll, true)),
            "replicon-large-fog" => Some((LARGE, Setup::FogOfWar, true)),
            _ => None,
        }
    };
    #[cfg(not(feature = "replicon"))]
    let server: Option<()> = None;
    let spread = scene == "spread";
    let lit = match scene.as_str() {
        "lights-moving" => Some(true),
        "lights-viewers" => Some(false),
        _ => None,
    };
    let (scene, variant) = match scene.as_str() {
        _ if game.is_some() || battle.is_some() || server.is_some() || spread || lit.is_some() => {
            (Scene::Moving, Variant::Plain)
        }
        "idle" => (Scene::Idle, Variant::Plain),
        "bare" => (Scene::Idle, Variant::NoPlugin),
        "door" => (Scene::Door, Variant::Plain),
        "moving" => (Scene::Moving, Variant::Plain),
        "cones" => (Scene::Moving, Variant::Cones),
        "teams" => (Scene::Moving, Variant::Teams),
        "hills" => (Scene::Moving, Variant::Hills),
        "cliff" => (Scene::Door, Variant::Hills),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let (Ok(viewers), Ok(count)) = (viewers.parse(), count.parse()) else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    let battle_app = |(level, teams)| {
        let side = if teams == 4 {
            battle_side(viewers)
        } else {
            512
        };
        teams_app(&battle_map(side), viewers, teams, level)
    };
    let mut app = match (game, server) {
        _ if spread => scene::spread::spread_app(viewers),
        _ if battle.is_some() => battle.map(battle_app).expect("a battle"),
        (Some(level), _) => game_app(&game_map(), viewers, level),
        #[cfg(feature = "replicon")]
        (None, Some((crowd, setup, positions))) => {
            scene::replicon::server_app(crowd, setup, positions)
        }
        _ if lit.is_some() => lights_app(
            &MapKind::Dungeon.generate(SIZE, SIZE, 7),
            viewers,
            lit == Some(true),
            true,
        ),
        _ => plugin_app(
            &MapKind::Dungeon.generate(SIZE, SIZE, 7),
            viewers,
            scene,
            variant,
        ),
    };
    let phases = std::env::var_os("FRAME_PHASES").is_some() && variant != Variant::NoPlugin;
    if phases {
        time_phases(&mut app);
    }
    let start = Instant::now();
    frames(&mut app, count);
    // Wall time, for `time`-like comparisons outside callgrind (meaningless inside it).
    let per_frame = start.elapsed().as_secs_f64() * 1e3 / f64::from(count.max(1));
    eprintln!("frame_instructions: {per_frame:.3} ms per frame");
    #[cfg(feature = "replicon")]
    if let Some(sent) = app.world().get_resource::<scene::replicon::SentBytes>() {
        let (all, updates) = (sent.per_client_frame(), sent.per_client(sent.updates));
        eprintln!(
            "frame_instructions: {all:.0} bytes sent per client per frame ({updates:.0} of them \
             spawns and despawns, the rest mutations)"
        );
    }
    if phases {
        let times = app.world().resource::<PhaseTimes>();
        for (phase, total) in ViewshedStepSystems::ALL.iter().zip(times.total) {
            let per_frame = total * 1e3 / f64::from(count.max(1));
            eprintln!("frame_instructions: {phase:?} {per_frame:.3} ms per frame");
        }
    }
    ExitCode::SUCCESS
}

/// The wall time of each of the plugin's phases, summed over the frames (`FRAME_PHASES=1`;
/// off by default, so that callgrind counts the plugin's frames alone).
#[derive(Resource, Default)]
struct PhaseTimes {
    started: Option<Instant>,
    total: [f64; ViewshedStepSystems::ALL.len()],
}

/// Stamps the time before the first step and after each, inside the plugin's schedule.
fn time_phases(app: &mut App) {
    app.init_resource::<PhaseTimes>();
    let start = |mut times: ResMut<PhaseTimes>| times.started = Some(Instant::now());
    let first = ViewshedStepSystems::ALL[0];
    app.add_systems(ViewshedSchedule, start.before(first));
    for (i, phase) in ViewshedStepSystems::ALL.into_iter().enumerate() {
        let stamp = move |mut times: ResMut<PhaseTimes>| {
            let now = Instant::now();
            if let Some(started) = times.started.replace(now) {
                times.total[i] += (now - started).as_secs_f64();
            }
        };
        let next = ViewshedStepSystems::ALL.get(i + 1).copied();
        let system = stamp.after(phase);
        match next {
            Some(next) => app.add_systems(ViewshedSchedule, system.before(next)),
            None => app.add_systems(ViewshedSchedule, system),
        };
    }
}
