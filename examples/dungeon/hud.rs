//! The HUD lines: seed, turn, the player's sight, how long FOV updates take (the median of the
//! recent ones), how many monsters see the player, whose fog is drawn, the looks, and the keys.

use std::collections::VecDeque;
use std::time::Duration;

// `std::time::Instant` panics in a browser; Bevy's is `performance.now()` there.
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::shared_hud::hud_text;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    DistanceShape, DrawnTeam, FovMode, ViewshedSchedule, ViewshedStepSystems, ViewshedUpdated,
};

use crate::args::Options;
use crate::fog_mode::FogMode;
use crate::looks::Looks;
use crate::monsters::{MONSTER_TEAM, Monster};
use crate::world::{Player, Turn};

#[derive(Component)]
pub struct HudText;

/// How the library was built: Cargo.toml optimises bevy_viewshed and viewshed_core at
/// opt-level 3 in the dev profile too, so the timing is the library's real speed either way.
const BUILD: &str = if cfg!(debug_assertions) {
    "dev build, FOV crates opt-level 3"
} else {
    "release build"
};

/// How long `ViewshedStepSystems::Light` takes in the frames that recompute something: the
/// median of the last `SAMPLES` such frames, so that a frame where the renderer or the OS took
/// the cores (software rendering under Xvfb does) does not stand for the library's speed.
#[derive(Resource, Default)]
pub struct FovTiming {
    started: Option<Instant>,
    samples: VecDeque<Duration>,
    /// The median of the recent samples.
    pub last: Duration,
    /// How many views the last of them recomputed.
    pub viewers: usize,
}

/// How many recent frames the HUD's median covers.
const SAMPLES: usize = 31;

impl FovTiming {
    fn record(&mut self, took: Duration, viewers: usize) {
        if self.samples.len() == SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back(took);
        let mut sorted: Vec<Duration> = self.samples.iter().copied().collect();
        sorted.sort_unstable();
        self.last = sorted[sorted.len() / 2];
        self.viewers = viewers;
    }
}

pub struct HudPlugin;

impl Plugin for HudPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FovTiming>()
            .add_systems(
                ViewshedSchedule,
                (
                    start_timer.before(ViewshedStepSystems::Views),
                    stop_timer
                        .after(ViewshedStepSystems::Light)
                        .before(ViewshedStepSystems::Fog),
                ),
            )
            .add_systems(PostUpdate, update_text.after(ViewshedSystems));
        #[cfg(target_arch = "wasm32")]
        app.add_systems(PostUpdate, log_turn.after(ViewshedSystems));
    }
}

pub fn setup(mut commands: Commands) {
    commands.spawn((HudText, hud_text("", 12.0, 1.0)));
}

fn start_timer(mut timing: ResMut<FovTiming>) {
    timing.started = Some(Instant::now());
}

fn stop_timer(mut timing: ResMut<FovTiming>, mut updated: MessageReader<ViewshedUpdated>) {
    let viewers = updated.read().count();
    if let Some(started) = timing.started.take()
        && viewers > 0
    {
        timing.record(started.elapsed(), viewers);
    }
}

fn update_text(
    options: Res<Options>,
    turn: Res<Turn>,
    timing: Res<FovTiming>,
    fog_team: Res<DrawnTeam>,
    looks: Res<Looks>,
    fog_mode: Res<FogMode>,
    player: Single<&Viewshed, With<Player>>,
    monsters: Query<&Monster>,
    mut text: Single<&mut Text, With<HudText>>,
) {
    let chasing = monsters.iter().filter(|m| m.chasing).count();
    let shape = match player.options.shape {
        DistanceShape::Euclidean => "disk",
        DistanceShape::Chebyshev => "square",
        DistanceShape::Manhattan => "diamond",
    };
    let mode = match player.options.mode {
        FovMode::Symmetric => "symmetric",
        FovMode::Permissive => "permissive",
    };
    let fog = if fog_team.0 == MONSTER_TEAM {
        "the monsters'"
    } else {
        "yours"
    };
    let line = format!(
        "seed {}  turn {}  radius {} {shape} {mode}  FOV update {:.3} ms (median, {} views, {BUILD})  \
         {chasing} monsters see you  fog: {fog}, {}\n\
         move arrows/wasd/hjkl/yubn  wait .  doors o  radius + -  shape c  permissive p  \
         monster views v  fog t  beam q e  look f  fades 1 {}  edges 2 {}  ghosts 3 {}  \
         light 4 {}",
        options.seed,
        turn.0,
        player.radius(),
        timing.last.as_secs_f64() * 1000.0,
        timing.viewers,
        fog_mode.name(),
        on_off(looks.fades),
        on_off(looks.soft_edges),
        on_off(looks.ghosts),
        on_off(looks.light),
    );
    if text.0 != line {
        text.0 = line;
    }
}

/// In a browser, the HUD's timing in the console too, with the player's tile and view, once a
/// turn (and when the view changes, as a door opens): what web/drive.py reads.
#[cfg(target_arch = "wasm32")]
fn log_turn(
    turn: Res<Turn>,
    timing: Res<FovTiming>,
    player: Single<(&Viewshed, &bevy_ecs_tilemap::prelude::TilePos), With<Player>>,
    mut logged: Local<Option<(u32, u32, u32, usize)>>,
) {
    let (viewshed, tile) = *player;
    let now = (turn.0, tile.x, tile.y, viewshed.count());
    if timing.viewers == 0 || *logged == Some(now) {
        return;
    }
    *logged = Some(now);
    info!(
        "turn {} player at tile ({}, {}) sees {} tiles; FOV update {:.3} ms (median of {}, {} views, {BUILD})",
        turn.0,
        tile.x,
        tile.y,
        viewshed.count(),
        timing.last.as_secs_f64() * 1000.0,
        timing.samples.len(),
        timing.viewers,
    );
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}
