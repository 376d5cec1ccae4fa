//! The ghosts model: random games in which, after every update, the [`LastSeen`] of every map
//! holds exactly the ghosts that a plain model of the documented rules gives, team by team,
//! entity by entity, tile and time included (`docs/fog.md`, "Ghosts of what was seen", and the
//! docs of `LeavesGhost` and `LastSeen`).
//!
//! What each team sees is worked out here from the viewers' own `Viewshed` contents (the union
//! of its enabled `RevealsFog` members' views on the map; the views themselves are checked in
//! other files), and where each remembered entity stands from what the game gave it (its
//! `TilePos`, or the tile under its `Transform`, on its `TilemapId`). The plugin's own
//! bookkeeping (`Placed`, its indexes, the fog) is never asked, except in one cross-check that
//! the fog's team views are the union of the viewsheds, so that a failure says whose fault it
//! is.
//!
//! A game: up to four maps (square ones and a hexagonal one, resized, despawned, spawned again,
//! their fog removed), viewers of four teams (some remembered themselves) and remembered
//! entities (by `TilePos` or by `Transform`) spawned, moved, despawned, disabled and changed,
//! walls toggled, and the game reading and changing `LastSeen` through its public API:
//! `remember`, `forget`, `clear`, a save (`FogOfWar` and `LastSeen` through serde_json) loaded
//! into the same map or a fresh one, and clones put back later or onto another map, by insert
//! or in place. Several changes go into each update. `PROPTEST_CASES` sets how many games run
//! (48 by default). Each bug the model found has a small test of its own at the end.
//!
//! The test lives in files by what they hold, as `tests/model/` and `tests/lights_model/` do:
//! `ops.rs` (the changes and the strategy that draws them), `rules.rs` (the model of the ghost
//! rules), `harness.rs` (the app, driven by the changes), `checks.rs` (the checks after every
//! update) and `main.rs` (the test, and the small tests of the bugs it found).
#![cfg(feature = "serde")]

#[path = "../common_app/mod.rs"]
mod common_app;

mod checks;
mod harness;
mod ops;
mod rules;

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use common_app::{app, spawn_map};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};

use harness::{Harness, STEP};
use ops::{Op, op};
use rules::Tile;

/// A game: the opening position, then each update's changes, checked after each update.
fn play(frames: Vec<Vec<Op>>) -> Result<(), TestCaseError> {
    let mut game = Harness::new();
    game.update()?;
    for ops in frames {
        for op in ops {
            game.apply(op);
        }
        game.update()?;
    }
    Ok(())
}

/// How many random games run: `PROPTEST_CASES`, or 48.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48)
}

proptest! {
    // Failures kept beside this file (`main.proptest-regressions`): proptest's default would
    // take this folder for a crate and write `tests/proptest-regressions/main.txt`.
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::with_cases(cases())
    })]

    /// Random games: every map's ghosts follow the model after every update.
    #[test]
    fn ghosts_follow_the_model(
        frames in prop::collection::vec(prop::collection::vec(op(), 1..5), 1..40)
    ) {
        play(frames)?;
    }
}

/// A 20x5 open map, spawned at `x` world units (maps never overlap).
fn open_map(app: &mut App, x: f32) -> Entity {
    let map = spawn_map(app, 20, 5, |_, _| false);
    let at = Vec3::new(x, 0.0, 0.0);
    app.world_mut().entity_mut(map).insert((
        Transform::from_translation(at),
        GlobalTransform::from_translation(at),
    ));
    map
}

fn timed_app() -> App {
    let mut app = app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    app
}

fn spawn_unit(app: &mut App, map: Entity, team: u32, (x, y): Tile, radius: u32) -> Entity {
    app.world_mut()
        .spawn((
            Viewshed::new(radius),
            RevealsFog,
            Team(team),
            TilePos { x, y },
            TilemapId(map),
        ))
        .id()
}

fn spawn_rat(app: &mut App, map: Entity, (x, y): Tile) -> Entity {
    app.world_mut()
        .spawn((LeavesGhost, TilePos { x, y }, TilemapId(map)))
        .id()
}

fn place(app: &mut App, entity: Entity, (x, y): Tile) {
    *app.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
}

/// The ghosts of `team` on `map`: entity, tile, time.
fn ghosts(app: &App, map: Entity, team: u32) -> Vec<(Entity, Tile, Duration)> {
    app.world()
        .get::<LastSeen>(map)
        .unwrap()
        .ghosts(Team(team))
        .map(|g| (g.entity, (g.tile.x, g.tile.y), g.seen_at))
        .collect()
}

fn elapsed(app: &App) -> Duration {
    app.world().resource::<Time>().elapsed()
}

#[test]
fn a_last_seen_cloned_onto_another_map_brings_no_ghost_of_what_was_seen_there() {
    let mut app = timed_app();
    let (first, second) = (open_map(&mut app, 0.0), open_map(&mut app, 4000.0));
    spawn_unit(&mut app, first, 0, (2, 2), 3);
    // Team 0 also stands on the second map, far from (4, 2).
    spawn_unit(&mut app, second, 0, (16, 2), 2);
    let rat = spawn_rat(&mut app, first, (4, 2));
    app.update();
    app.update();
    // The first map's `LastSeen` (team 0 sees the rat there) copied onto the second map.
    let copy = app.world().get::<LastSeen>(first).unwrap().clone();
    app.world_mut().entity_mut(second).insert(copy);
    app.update();
    let last_seen = app.world().get::<LastSeen>(second).unwrap();
    assert_eq!(
        last_seen.ghost(Team(0), rat),
        None,
        "team 0 never saw the rat on the second map"
    );
    assert_eq!(ghosts(&app, second, 0), []);
    assert_eq!(ghosts(&app, first, 0), [], "it sees it on the first");
}

#[test]
fn a_last_seen_put_back_after_an_update_keeps_only_its_ghosts() {
    let mut app = timed_app();
    let map = open_map(&mut app, 0.0);
    let player = spawn_unit(&mut app, map, 0, (2, 2), 3);
    let (rat, bat) = (
        spawn_rat(&mut app, map, (4, 2)),
        spawn_rat(&mut app, map, (5, 1)),
    );
    app.update();
    let seen_at = elapsed(&app);
    // Put back in the update it was taken in, a clone changes nothing: the bat steps out of
    // view in that update and leaves its ghost where it went.
    let now = app.world().get::<LastSeen>(map).unwrap().clone();
    place(&mut app, bat, (6, 1));
    app.world_mut().entity_mut(map).insert(now);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(bat, (6, 1), seen_at)]);
    // A clone with the bat's ghost (and the rat seen at (4, 2)); then the rat vanishes in view
    // (teleported): no ghost.
    let earlier = app.world().get::<LastSeen>(map).unwrap().clone();
    place(&mut app, rat, (18, 2));
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(bat, (6, 1), seen_at)]);
    // The clone put back an update later, as the player walks off: it holds the bat's ghost,
    // not that the team sees the rat at (4, 2) (the team saw it vanish since).
    *app.world_mut().get_mut::<LastSeen>(map).unwrap() = earlier;
    place(&mut app, player, (10, 3));
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(bat, (6, 1), seen_at)]);
}

#[test]
fn a_team_whose_fog_was_replaced_still_remembers_what_it_saw() {
    let mut app = timed_app();
    let map = open_map(&mut app, 0.0);
    let scout = spawn_unit(&mut app, map, 1, (2, 2), 3);
    let rat = spawn_rat(&mut app, map, (4, 2));
    app.update();
    let seen_at = elapsed(&app);
    // The map's fog is taken away (the plugin gives it a new one) as team 1's only member
    // leaves: the new fog has no view for team 1, which sees nothing now.
    app.world_mut().entity_mut(map).remove::<FogOfWar>();
    app.world_mut().despawn(scout);
    app.update();
    assert!(
        app.world()
            .get::<FogOfWar>(map)
            .unwrap()
            .team(Team(1))
            .is_none()
    );
    assert_eq!(ghosts(&app, map, 1), [(rat, (4, 2), seen_at)]);
    // Seen again by a new member: the ghost goes.
    spawn_unit(&mut app, map, 1, (6, 2), 3);
    app.update();
    assert_eq!(ghosts(&app, map, 1), []);
}

/// A fog matter found by the model, outside the ghosts: a save's `FogOfWar` inserted whole on
/// a map in play, at the map's size, gets its team views gathered again at the next update
/// (before, `track_fog` did so only when the sizes differed, so the teams saw nothing until a
/// viewer moved and left ghosts of what they saw).
#[test]
fn a_fog_of_war_inserted_on_a_map_in_play_keeps_the_team_views() {
    let mut app = timed_app();
    let map = open_map(&mut app, 0.0);
    spawn_unit(&mut app, map, 0, (2, 2), 3);
    spawn_rat(&mut app, map, (4, 2));
    app.update();
    let json = serde_json::to_string(app.world().get::<FogOfWar>(map).unwrap()).unwrap();
    let loaded: FogOfWar = serde_json::from_str(&json).unwrap();
    app.world_mut().entity_mut(map).insert(loaded);
    app.update();
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert!(fog.is_visible(TilePos { x: 4, y: 2 }));
    assert_eq!(ghosts(&app, map, 0), [], "the rat is seen");
}

#[test]
fn a_ghost_is_cleared_after_its_map_is_resized_to_as_many_words_in_other_rows() {
    let mut app = timed_app();
    // 16x8 and 70x4 team views take 8 words each, in rows of 1 and of 2 words.
    let map = spawn_map(&mut app, 16, 8, |_, _| false);
    let player = spawn_unit(&mut app, map, 0, (2, 4), 4);
    let rat = spawn_rat(&mut app, map, (4, 4));
    app.update();
    let seen_at = elapsed(&app);
    // The map shrinks to 70x4 under both: the rat is gone with row 4, and the player sees
    // nothing; it steps back onto the map.
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(70, 4);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(rat, (4, 4), seen_at)]);
    place(&mut app, rat, (16, 4));
    place(&mut app, player, (2, 3));
    app.update();
    assert_eq!(
        ghosts(&app, map, 0),
        [(rat, (4, 4), seen_at)],
        "(4, 4) is off the map"
    );
    // Back to 16x8: the player sees (4, 4) again, without the rat (off the map at x = 16).
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(16, 8);
    app.update();
    assert!(
        app.world()
            .get::<FogOfWar>(map)
            .unwrap()
            .is_visible(TilePos { x: 4, y: 4 })
    );
    assert_eq!(ghosts(&app, map, 0), []);
}

#[test]
fn a_team_that_comes_back_to_a_map_sees_what_stood_in_its_view_all_along() {
    let mut app = timed_app();
    let (map, other) = (open_map(&mut app, 0.0), open_map(&mut app, 4000.0));
    // A remembered entity elsewhere, so that the ghosts are looked after at every update.
    spawn_rat(&mut app, other, (18, 2));
    let scout = spawn_unit(&mut app, map, 1, (2, 2), 3);
    app.update();
    // The map's ghosts are cleared, then its fog taken away as team 1's only member leaves:
    // team 1 is known neither to the fog nor to `LastSeen` there.
    app.world_mut().get_mut::<LastSeen>(map).unwrap().clear();
    app.update();
    app.world_mut().entity_mut(map).remove::<FogOfWar>();
    app.world_mut().despawn(scout);
    app.update();
    // A rat comes where the scout saw; a scout of team 1 comes back and sees it there.
    let rat = spawn_rat(&mut app, map, (4, 2));
    app.update();
    let scout = spawn_unit(&mut app, map, 1, (2, 2), 3);
    app.update();
    let seen_at = elapsed(&app);
    place(&mut app, scout, (15, 2));
    app.update();
    assert_eq!(ghosts(&app, map, 1), [(rat, (4, 2), seen_at)]);
}

/// An entity that stops leaving ghosts in the update in which the team loses sight of the tile
/// it was seen on (its viewer despawned) has vanished there: a ghost on that tile. Unmarked
/// and marked again before an update, it goes on being remembered as before.
#[test]
fn an_entity_unmarked_as_its_tile_leaves_the_view_is_remembered_there() {
    play(vec![vec![
        Op::DespawnViewer(9),
        Op::WalkTarget(11, -1, 0),
        Op::ToggleRemember(1),
    ]])
    .unwrap();
    play(vec![
        vec![Op::ToggleRemember(4), Op::ToggleRemember(14)],
        vec![Op::ToggleViewerDisabled(3)],
    ])
    .unwrap();
}
