//! Model-based test of the plugin: random sequences of operations on a headless app (maps
//! spawned, resized, stripped, despawned, layered by hand and by `LayerGroup` (two groups,
//! nested or not, tilemaps re-parented, groups switched off), and retyped (square, diamond and
//! staggered isometric, the six hexagonal systems); viewers, walls, doors and spottable
//! targets spawned, moved, retargeted, disabled and despawned; walls painted and cleared in
//! a map's `OpaqueCells`, and the component removed; teams, fog styles and saved memories
//! switched), with `app.update()` between random batches. After every update the app
//! is held to a plain model of the README's rules:
//!
//! - every group's `LayerGroup::root()` and every tilemap's `LayerOf` are the model's (the
//!   first tilemap below a group, depth first, is the root, the others its layers, whatever
//!   was set by hand; a tilemap that leaves every group loses its `LayerOf`);
//! - every enabled viewer's view is the field of view of its root map's grid (square, the
//!   hexagonal one, or the square one on a staggered map's diamond grid) on the model's
//!   opacity of that map (its opaque entities and its painted tiles), with its options (empty, and no `origin()`, when it stands on no
//!   tile of a tilemap);
//! - every root tilemap has a `FogOfWar` whose team states are the model's (visible: the union
//!   of the team's enabled `RevealsFog` members' views there; explored: ever visible, kept
//!   across a resize where it fits, as restored from a memory); other maps have none;
//! - the tiles of every fog layer (a tilemap with `FogStyle` whose root has a fog) look like
//!   the `FogStyle` look of the model's state for the team in `DrawnTeam` (the soft-edge look
//!   for a tile not seen with a neighbour seen, as bevy_ecs_tilemap counts neighbours on the
//!   root's grid; with fades, once that look has held longer than the fade: each update is 20
//!   ms of the app's clock), the tiles of a layer whose `FogStyle` was removed keep their
//!   colour (even mid-fade), and
//!   `HidesOutsideView` entities are shown exactly on tiles that team sees;
//! - every enabled viewer's `spotted()` is the set of enabled `CanBeSpotted` entities on its map
//!   standing on a tile it sees, and the `Spotted` / `LostSight` messages (and entity events)
//!   of the update are exactly the differences from the previous update's sets (an entity
//!   that was disabled and enabled again, or lost and regained its tile or `CanBeSpotted`, within
//!   the batch may add a matching `LostSight` + `Spotted` pair);
//! - nothing panics.
//!
//! A case is 1 to 3 maps (often layers of each other), a few viewers and targets, then 50 to
//! 80 random ops (see [`Op`]; positions not marked `raw` wrap onto the entity's tilemap, indices
//! are taken modulo the number of viewers, props or targets). `PROPTEST_CASES` sets the number
//! of cases (256 by default). A failure is shrunk, then the ops it does not need are dropped,
//! and the case is printed with its message, tagged with the check's class: `view`, `fog`,
//! `fog-layer`, `hide`, `spotted`, `sightings`, `memory`, `groups` or `panic`. `MODEL_SKIP`, a
//! comma-separated list of op kinds and check classes (e.g. `MODEL_SKIP=SetSight,fog-layer`),
//! leaves those ops out and those checks off (`layers`: no map is spawned as a layer), to look
//! past a known failure for the next one.
//!
//! The test lives in files by what they hold: `ops.rs` (the ops and the strategies that draw
//! a case), `rules.rs` (the model), `harness.rs` (the app, driven by the ops) and `checks.rs`
//! (the checks after every update).

#[path = "../common_app/mod.rs"]
mod common_app;

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError, TestRunner};

use harness::Harness;
use ops::{Case, Op, case};

/// The op kinds and check classes named in `MODEL_SKIP`.
fn skip_list() -> &'static HashSet<String> {
    static SKIP: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    SKIP.get_or_init(|| {
        std::env::var("MODEL_SKIP")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    })
}

/// Whether `MODEL_SKIP` names this op kind or check class.
fn skipped(name: &str) -> bool {
    skip_list().contains(name)
}

/// Fails the case with `[class] message` unless `cond` holds; the class keeps the final
/// minimisation on the same kind of failure. (Defined before the modules that use it.)
macro_rules! check {
    ($cond:expr, $class:literal, $($fmt:tt)*) => {
        if !$cond && !$crate::skipped($class) {
            return Err(::proptest::test_runner::TestCaseError::fail(format!(
                "[{}] {}",
                $class,
                format!($($fmt)*)
            )));
        }
    };
}

mod checks;
mod harness;
mod ops;
mod rules;

/// Runs a case: the ops, then a last update.
fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut harness = Harness::new();
    for op in ops {
        harness.apply(op)?;
    }
    harness.update()
}

/// Runs a case, a panic counting as a failure: the failure's message, if any.
fn failure(ops: &[Op]) -> Option<String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(ops))) {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(error.to_string()),
        Err(panic) => Some(format!(
            "[panic] {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

/// The class of a failure message (`[view]`, `[fog]`, ...): a check's, or `[panic]`.
fn class(message: &str) -> &str {
    let tagged = message
        .find('[')
        .and_then(|start| Some(&message[start..start + message[start..].find(']')? + 1]));
    match tagged {
        Some(class) if !message.contains("panicked") => class,
        _ => "[panic]",
    }
}

/// Proptest cannot drop ops below the 50 a case starts with, and steps an op's kind down one
/// at a time: once it is done, drop every run of ops the failure (of the same class) does not
/// need.
fn minimize(mut ops: Vec<Op>, class_of_failure: &str) -> (Vec<Op>, String) {
    ops.retain(|op| !matches!(op, Op::Nop));
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut message = failure(&ops).unwrap_or_default();
    let mut chunk = ops.len().div_ceil(2).max(1);
    loop {
        let mut removed = false;
        let mut start = 0;
        while start < ops.len() {
            let mut fewer = ops.clone();
            fewer.drain(start..(start + chunk).min(ops.len()));
            match failure(&fewer) {
                Some(m) if class(&m) == class_of_failure => {
                    (ops, message, removed) = (fewer, m, true)
                }
                _ => start += chunk,
            }
        }
        if chunk == 1 && !removed {
            break;
        }
        chunk = (chunk / 2).max(1);
    }
    // Indices are taken modulo the number of viewers (props, targets): print the smallest
    // that picks the same one.
    for at in 0..ops.len() {
        let Some(&mut index) = ops[at].index_mut() else {
            continue;
        };
        for smaller in 0..index {
            let mut changed = ops.clone();
            *changed[at].index_mut().unwrap() = smaller;
            if let Some(m) = failure(&changed).filter(|m| class(m) == class_of_failure) {
                (ops, message) = (changed, m);
                break;
            }
        }
    }
    std::panic::set_hook(hook);
    (ops, message)
}

#[test]
fn the_plugin_follows_the_model() {
    let config = ProptestConfig {
        // The failure is printed minimised; no regression file next to the test.
        failure_persistence: None,
        max_shrink_iters: 4096,
        // PROPTEST_CASES (256 by default) and the other PROPTEST_ variables apply.
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    match runner.run(&case(), |case| run(&case.0)) {
        Ok(()) => {}
        Err(TestError::Fail(reason, case)) => {
            let reason = reason.to_string();
            let (ops, message) = minimize(case.0, class(&reason));
            panic!(
                "{reason}\n\nminimal case (shrunk, then the ops it does not need dropped):\n{message}\n{:?}",
                Case(ops)
            );
        }
        Err(error) => panic!("{error}"),
    }
}
