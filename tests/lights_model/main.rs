//! The lights model: random games against a plain model of the light rules.
//!
//! Random games on square, hexagonal (six coordinate systems) and staggered isometric maps.
//! Lights and viewers are spawned, moved (on the map and off it), disabled and enabled, cloned
//! (their component onto another entity or over another light, or the whole entity) and
//! despawned; lights and viewers are taken off their tilemap and put back; `LightSource`,
//! `NeedsLight` and `Viewshed` are inserted again, replaced in place, changed in place and
//! removed (`Viewshed`: not removed); walls are built and knocked down; lights pile up on a
//! few tiles, take odd values (not a number, negative, infinite, huge) and point beams
//! (`LightSource::cone`: given at spawn, turned, widened and taken off in place, odd angles
//! too), which light what a viewer with that vision cone would see.
//! Several of these happen in each frame, and after every `app.update()` every view (and
//! `NeedsLight::field_of_view`), every enabled light's lit set and the map's `Lighting` on
//! every tile are what a plain model says, built from the core's field of view alone; at the
//! end of each game the `Lighting` is, bit for bit, that of a new app with the lights still
//! shining (the sums are exact, nothing drifts).
//!
//! The test lives in files by what they hold, as `tests/model/` and `tests/ghosts_model/` do:
//! `ops.rs` (the ops, what they take, and the strategies that draw them), `rules.rs` (the
//! model), `harness.rs` (the app, driven by the ops), `checks.rs` (the checks after every
//! update and at the end of a game) and `main.rs` (the test).

#[path = "../common_app/mod.rs"]
mod common_app;

mod checks;
mod harness;
mod ops;
mod rules;

use bevy_viewshed::OpacityGrid;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

use harness::Harness;
use ops::{Op, beam, kind, look, op, radius, spawn_viewer_op, spot};

fn proptest_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(48)
}

proptest! {
    // Failures kept beside this file (`main.proptest-regressions`): proptest's default would
    // take this folder for a crate and write `tests/proptest-regressions/main.txt`.
    #![proptest_config(ProptestConfig {
        max_shrink_iters: 20_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::with_cases(proptest_cases())
    })]

    #[test]
    fn views_and_lighting_match_the_model(
        kind in kind(),
        walls in proptest::collection::vec(proptest::bool::weighted(0.25), 16 * 12),
        lights in proptest::collection::vec((spot(), radius(), look(), beam()), 1..5),
        viewers in proptest::collection::vec(spawn_viewer_op(), 1..4),
        frames in proptest::collection::vec(proptest::collection::vec(op(), 1..5), 0..10),
    ) {
        let (w, h) = kind.size();
        let grid = OpacityGrid::from_fn(w, h, |x, y| walls[(y * w + x) as usize]);
        let mut game = Harness::new(kind, grid);
        let spawns = lights
            .into_iter()
            .map(|(at, r, look, beam)| Op::SpawnLight(at, r, look, beam))
            .chain(viewers);
        for op in spawns {
            game.apply(op);
        }
        game.update()?;
        for frame in frames {
            for op in frame {
                game.apply(op);
            }
            game.update()?;
        }
        game.check_exact()?;
    }
}
