//! Frame time of a game scene in a headless Bevy app (`benches/scene/game.rs`): units of four
//! teams on a 256x256 map of rooms, corridors and rock, every unit a radius-8 viewer, a
//! quarter of them stepping somewhere new every frame.
//!
//! ```text
//! cargo bench --bench game
//! ```
//!
//! One group, `game`, ids `LEVEL/UNITS`:
//! - `views`: the units carry a `Viewshed` only;
//! - `fog`: + `RevealsFog` and a `Team`, fog written into the map's tiles;
//! - `full`: + `CanBeSpotted`, `HidesOutsideView` and `LeavesGhost` (every unit a target too).
//!
//! A second group, `battle`, ids `LEVEL/UNITS`: the same three levels and `teams` (+
//! `HidesOutsideView` and `LeavesGhost`, no `CanBeSpotted`: what each team sees, no viewer's own
//! sightings) on an open battlefield with rock clusters (`scene::game::battle_map`) whose side
//! grows with the units, so that 2,000, 4,000 and 10,000 units of four teams stand as densely
//! (192x192, 272x272, 429x429), and 10,000 units of eight teams on 512x512 (`10000x8`); on the
//! 2,000 units, one more level, `strategy`: `full` with the strategy rules (allies, detectors,
//! cloaked units, radars, a scan each frame: `scene::game::Level::Strategy`).
//!
//! A third group, `sightings`, ids `spread/VIEWERS`: 100 spottable targets walking among
//! 1,000 or 10,000 still viewers on a map that grows with them (`benches/scene/spread.rs`).
//!
//! `benches/report.py` prints the tables with `full / fog`, `10,000 / 2,000` and
//! `spread 10,000 / 1,000` ratios. Each iteration is one `app.update()`.

mod scene;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::game::{Level, battle_map, battle_side, game_app, game_map, teams_app};
use scene::spread::spread_app;

fn game(c: &mut Criterion) {
    let grid = game_map();
    let mut group = c.benchmark_group("game");
    for units in [2_000, 10_000] {
        for level in Level::ALL {
            let mut app = game_app(&grid, units, level);
            group.bench_function(BenchmarkId::new(level.name(), units), |b| {
                b.iter(|| app.update());
            });
        }
    }
    group.finish();
}

/// The battle: 2,000, 4,000 and 10,000 units of four teams as densely on a battlefield that
/// grows with them, and 10,000 of eight teams on 512x512; each at four levels (`teams`: hiding
/// and ghosts without the viewers' own sightings).
fn battle(c: &mut Criterion) {
    let mut group = c.benchmark_group("battle");
    let scenes = [
        (2_000, 4, None),
        (4_000, 4, None),
        (10_000, 4, None),
        (10_000, 8, Some(512)),
    ];
    for (units, teams, side) in scenes {
        let grid = battle_map(side.unwrap_or_else(|| battle_side(units)));
        let id = match teams {
            4 => units.to_string(),
            _ => format!("{units}x{teams}"),
        };
        // The strategy rules' cost against `full`, on the 2,000 units.
        let strategy = (units == 2_000).then_some(Level::Strategy);
        let levels = [Level::Views, Level::Fog, Level::Teams, Level::Full];
        for level in levels.into_iter().chain(strategy) {
            let mut app = teams_app(&grid, units, teams, level);
            group.bench_function(BenchmarkId::new(level.name(), &id), |b| {
                b.iter(|| app.update());
            });
        }
    }
    group.finish();
}

/// The sightings' cost per moved target, whatever the viewers far away: 100 targets walking
/// among 1,000 or 10,000 still viewers spread over a map that grows with them.
fn spread(c: &mut Criterion) {
    let mut group = c.benchmark_group("sightings");
    for viewers in [1_000, 10_000] {
        let mut app = spread_app(viewers);
        group.bench_function(BenchmarkId::new("spread", viewers), |b| {
            b.iter(|| app.update());
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = scene::criterion_config();
    targets = game, battle, spread
}
criterion_main!(benches);
