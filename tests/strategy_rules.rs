//! The strategy rules of `docs/strategy.md` (allies' `SharedVision`, `Team::SPECTATOR`,
//! `Cloaked` units and `Detector`s, temporary `Reveal`s, `FogRegrowth`, `TeamKnowledge`), written from that page alone and held
//! against the plugin: first frame by frame on small hand-made maps with the exact tiles
//! expected, then against a plain model of the page in random games.
//!
//! The model takes each team's own view as the union of its `RevealsFog` members' views (read
//! from their own `Viewshed`s: the field of view is tested elsewhere) and of its living
//! reveals (a reveal through walls is the disc the page defines; one that is not is read from
//! a plain `Viewshed::new(radius)` the test puts on the same tile, which "sees like" it). From
//! there it derives, as the page writes it, what each team and the spectator see and remember,
//! when each tile was last seen and grows back, and what `TeamKnowledge` answers. Each team
//! detects its own `Detector`s' views and its givers' (the spectator: every team's); it sees a
//! `Cloaked` unit only on a tile it both sees and detects.
//!
//! Time is the app's, advanced by a fixed step per update (`TimeUpdateStrategy::ManualDuration`;
//! Bevy's first update has no delta, so the n-th update runs at `(n - 1) * STEP`).
//! `PROPTEST_CASES` sets how many random games run (64 by default).
//!
//! Where the page leaves a choice open, the test takes one and says so:
//! - A reveal's `lifetime` starts at the first update it is in (the delta of that update, time
//!   that passed before it was spawned, does not run it down).
//! - A tile the game explores again (`set_explored(tile, true)`, `explore_all`) that the team
//!   already remembers keeps its regrowth clock; one it forgot, even between the same two
//!   updates, starts a new one (it "was explored" in the next update).
//! - The spectator grows back by its own clock (the last update in which it saw a tile, or in
//!   which it took it from a team's memory), and keeps a tile while any team remembers it. Tiles it takes from the teams' memories in
//!   the update it gets its fog (including those that grow back for the teams in that update)
//!   have no documented clock or `tile_seen_at`: those are not checked once no team
//!   remembers them.
//! - The spectator's `last_seen` of an entity seen only before it got its fog is not checked.
//! - A team whose map fog has no `TeamFog` for it counts as seeing and remembering nothing.
//!
//! `STRATEGY_RULES_LENIENT` (a comma-separated list, see `lenient`) leaves out checks the
//! plugin was found to disagree with, to look for other disagreements past them; unset, every
//! check runs.

mod common_app;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    Cloaked, Detector, DrawnTeam, FogRegrowth, Reveal, SharedVision, Sighting, Team, TeamKnowledge,
};
use common_app::{fog, spawn_map, spawn_viewer, spotted, tile_entity, viewshed};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// The app's time step per update.
const STEP: Duration = Duration::from_millis(100);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The plugin's headless app, whose `Time` advances by `STEP` at each update.
fn timed_app() -> App {
    let mut app = common_app::app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    app
}

fn now(app: &App) -> Duration {
    app.world().resource::<Time>().elapsed()
}

/// A revealing unit of `team`.
fn unit(app: &mut App, map: Entity, (x, y): (u32, u32), radius: u32, team: u32) -> Entity {
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

fn walk(app: &mut App, entity: Entity, (x, y): (u32, u32)) {
    *app.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
}

fn vision(app: &mut App) -> Mut<'_, SharedVision> {
    app.world_mut().resource_mut::<SharedVision>()
}

fn fog_mut(app: &mut App, map: Entity) -> Mut<'_, FogOfWar> {
    app.world_mut().get_mut::<FogOfWar>(map).unwrap()
}

type Tiles = BTreeSet<(u32, u32)>;

/// Tiles `(x, 0)` for the `x` given.
fn row(xs: impl IntoIterator<Item = u32>) -> Tiles {
    xs.into_iter().map(|x| (x, 0)).collect()
}

fn join(sets: &[Tiles]) -> Tiles {
    sets.iter().flatten().copied().collect()
}

fn map_size(app: &App, map: Entity) -> TilemapSize {
    *app.world().get::<TilemapSize>(map).unwrap()
}

fn every_tile(size: TilemapSize) -> impl Iterator<Item = TilePos> {
    (0..size.y).flat_map(move |y| (0..size.x).map(move |x| TilePos { x, y }))
}

/// `team`'s state of `tile` (`Unexplored` if the map's fog has no view for it).
fn state(app: &App, map: Entity, team: Team, tile: (u32, u32)) -> FogState {
    fog(app, map).team(team).map_or(FogState::Unexplored, |f| {
        f.state(TilePos {
            x: tile.0,
            y: tile.1,
        })
    })
}

fn tiles_where(app: &App, map: Entity, team: Team, keep: impl Fn(FogState) -> bool) -> Tiles {
    every_tile(map_size(app, map))
        .filter(|t| keep(state(app, map, team, (t.x, t.y))))
        .map(|t| (t.x, t.y))
        .collect()
}

fn visible(app: &App, map: Entity, team: Team) -> Tiles {
    tiles_where(app, map, team, |s| s == FogState::Visible)
}

fn explored(app: &App, map: Entity, team: Team) -> Tiles {
    tiles_where(app, map, team, |s| s != FogState::Unexplored)
}

/// What a viewer's own `Viewshed` holds.
fn seen(app: &App, viewer: Entity) -> Tiles {
    viewshed(app, viewer).iter().map(|t| (t.x, t.y)).collect()
}

/// The tiles within `radius` of `center` on the map (`sqrt(dx² + dy²) <= radius`).
fn disc(center: TilePos, radius: u32, width: u32, height: u32) -> BTreeSet<TilePos> {
    let r2 = i64::from(radius) * i64::from(radius);
    every_tile(TilemapSize::new(width, height))
        .filter(|t| {
            let dx = i64::from(t.x) - i64::from(center.x);
            let dy = i64::from(t.y) - i64::from(center.y);
            dx * dx + dy * dy <= r2
        })
        .collect()
}

fn sighting_parts(s: &Sighting) -> (Entity, TilePos, Duration) {
    (s.map, s.tile, s.at)
}

fn k_sees(app: &mut App, team: Team, entity: Entity) -> bool {
    app.world_mut()
        .run_system_once(move |k: TeamKnowledge| k.sees(team, entity))
        .expect("TeamKnowledge runs")
}

fn k_last_seen(app: &mut App, team: Team, entity: Entity) -> Option<(Entity, TilePos, Duration)> {
    app.world_mut()
        .run_system_once(move |k: TeamKnowledge| {
            k.last_seen(team, entity).as_ref().map(sighting_parts)
        })
        .expect("TeamKnowledge runs")
}

fn k_tile_seen_at(app: &mut App, map: Entity, team: Team, (x, y): (u32, u32)) -> Option<Duration> {
    app.world_mut()
        .run_system_once(move |k: TeamKnowledge| k.tile_seen_at(map, team, TilePos { x, y }))
        .expect("TeamKnowledge runs")
}

fn k_seen_since(app: &mut App, map: Entity, team: Team, since: Duration) -> Tiles {
    app.world_mut()
        .run_system_once(move |k: TeamKnowledge| {
            k.tiles_seen_since(map, team, since)
                .into_iter()
                .map(|t| (t.x, t.y))
                .collect::<Tiles>()
        })
        .expect("TeamKnowledge runs")
}

fn exists(app: &App, entity: Entity) -> bool {
    app.world().get_entity(entity).is_ok()
}

// --- Allies share their sight -------------------------------------------------------------

/// A corridor one tile high and 20 long: a unit of radius 2 at `x` sees `x - 2 ..= x + 2`.
fn corridor(app: &mut App) -> Entity {
    spawn_map(app, 20, 1, |_, _| false)
}

#[test]
fn sharing_is_one_way_and_not_passed_on() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    let b = unit(&mut app, map, (10, 0), 2, 1);
    let c = unit(&mut app, map, (17, 0), 2, 2);
    app.update();
    // The field of view itself, as this test reads it.
    assert_eq!(seen(&app, a), row(0..=4));
    assert_eq!(seen(&app, b), row(8..=12));
    assert_eq!(seen(&app, c), row(15..=19));
    assert_eq!(visible(&app, map, Team(1)), row(8..=12));

    vision(&mut app).share(Team(0), Team(1));
    vision(&mut app).share(Team(1), Team(2));
    assert!(vision(&mut app).shares(Team(0), Team(1)));
    assert!(!vision(&mut app).shares(Team(1), Team(0)));
    app.update();
    // One-way: the giver sees only its own.
    assert_eq!(visible(&app, map, Team(0)), row(0..=4));
    assert_eq!(
        visible(&app, map, Team(1)),
        join(&[row(0..=4), row(8..=12)])
    );
    // Not passed on: team 2 gets team 1's own view, not what team 1 receives from team 0.
    assert_eq!(
        visible(&app, map, Team(2)),
        join(&[row(8..=12), row(15..=19)])
    );
    // The receiver explores what it sees through the giver.
    assert_eq!(
        explored(&app, map, Team(1)),
        join(&[row(0..=4), row(8..=12)])
    );
    assert_eq!(
        explored(&app, map, Team(2)),
        join(&[row(8..=12), row(15..=19)])
    );

    // A team may share with any number of teams; sharing with itself changes nothing.
    vision(&mut app).share(Team(0), Team(2));
    vision(&mut app).share(Team(2), Team(2));
    app.update();
    assert_eq!(
        visible(&app, map, Team(2)),
        join(&[row(0..=4), row(8..=12), row(15..=19)])
    );
    assert_eq!(visible(&app, map, Team(0)), row(0..=4));
    assert_eq!(
        visible(&app, map, Team(1)),
        join(&[row(0..=4), row(8..=12)])
    );
}

#[test]
fn what_the_receiver_explored_stays_when_sharing_stops() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    unit(&mut app, map, (12, 0), 2, 1);
    app.update();
    vision(&mut app).share(Team(0), Team(1));
    // Team 2 has no unit on the map: it sees the giver's view all the same.
    vision(&mut app).share(Team(0), Team(2));
    app.update();
    assert_eq!(
        visible(&app, map, Team(1)),
        join(&[row(0..=4), row(10..=14)])
    );
    assert_eq!(visible(&app, map, Team(2)), row(0..=4));

    // The giver walks on while shared: the receiver sees it, and remembers where it was.
    walk(&mut app, a, (6, 0));
    app.update();
    assert_eq!(
        visible(&app, map, Team(1)),
        join(&[row(4..=8), row(10..=14)])
    );
    assert_eq!(state(&app, map, Team(1), (1, 0)), FogState::Remembered);
    assert_eq!(
        explored(&app, map, Team(1)),
        join(&[row(0..=8), row(10..=14)])
    );
    assert_eq!(visible(&app, map, Team(2)), row(4..=8));
    assert_eq!(explored(&app, map, Team(2)), row(0..=8));

    vision(&mut app).stop(Team(0), Team(1));
    vision(&mut app).stop(Team(0), Team(2));
    assert!(!vision(&mut app).shares(Team(0), Team(1)));
    app.update();
    // Only its own view again; what it explored stays explored.
    assert_eq!(visible(&app, map, Team(1)), row(10..=14));
    assert_eq!(
        explored(&app, map, Team(1)),
        join(&[row(0..=8), row(10..=14)])
    );
    assert_eq!(state(&app, map, Team(1), (5, 0)), FogState::Remembered);
    assert_eq!(visible(&app, map, Team(2)), Tiles::new());
    assert_eq!(explored(&app, map, Team(2)), row(0..=8));
    // The giver was never touched.
    assert_eq!(visible(&app, map, Team(0)), row(4..=8));
    assert_eq!(explored(&app, map, Team(0)), row(0..=8));
}

// --- Spectators ---------------------------------------------------------------------------

#[test]
fn the_spectator_drawn_sees_the_union_and_remembers_what_any_team_remembered() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    let b = unit(&mut app, map, (10, 0), 2, 1);
    app.update();
    walk(&mut app, a, (5, 0));
    walk(&mut app, b, (16, 0));
    app.update();
    assert_eq!(explored(&app, map, Team(0)), row(0..=7));
    assert_eq!(
        explored(&app, map, Team(1)),
        join(&[row(8..=12), row(14..=18)])
    );
    // Nobody asked for the spectator yet.
    assert!(
        fog(&app, map)
            .team(Team::SPECTATOR)
            .is_none_or(|f| f.explored_tiles().count() == 0),
        "the map's fog holds a spectator's view before it was drawn or asked for"
    );

    app.insert_resource(DrawnTeam(Team::SPECTATOR));
    app.update();
    assert_eq!(fog(&app, map).drawn_team(), Team::SPECTATOR);
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(3..=7), row(14..=18)])
    );
    // Every tile any team remembers, from the update it got a fog on.
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        join(&[row(0..=12), row(14..=18)])
    );
    let f = fog(&app, map);
    assert_eq!(f.state(TilePos { x: 0, y: 0 }), FogState::Remembered);
    assert_eq!(f.state(TilePos { x: 5, y: 0 }), FogState::Visible);
    assert_eq!(f.state(TilePos { x: 16, y: 0 }), FogState::Visible);
    assert_eq!(f.state(TilePos { x: 13, y: 0 }), FogState::Unexplored);
    assert_eq!(f.state(TilePos { x: 19, y: 0 }), FogState::Unexplored);

    // What the teams receive from allies is in it too (and adds nothing new here).
    vision(&mut app).share(Team(0), Team(1));
    walk(&mut app, a, (9, 0));
    app.update();
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(7..=11), row(14..=18)])
    );
    assert_eq!(
        visible(&app, map, Team(1)),
        join(&[row(7..=11), row(14..=18)])
    );

    // Back to team 0: redrawn at the next update; the spectator's view is kept on.
    app.insert_resource(DrawnTeam(Team(0)));
    app.update();
    assert_eq!(fog(&app, map).drawn_team(), Team(0));
    assert_eq!(
        fog(&app, map).state(TilePos { x: 16, y: 0 }),
        FogState::Unexplored
    );
    walk(&mut app, b, (19, 0));
    app.update();
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(7..=11), row(17..=19)])
    );
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        row(0..=19).into_iter().filter(|&(x, _)| x != 13).collect()
    );
    // And drawn again.
    app.insert_resource(DrawnTeam(Team::SPECTATOR));
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 18, y: 0 }),
        FogState::Visible
    );
    assert_eq!(
        fog(&app, map).state(TilePos { x: 14, y: 0 }),
        FogState::Remembered
    );
}

#[test]
fn the_spectator_asked_for_with_team_mut_is_kept_like_any_team() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    unit(&mut app, map, (15, 0), 1, 2);
    app.update();
    walk(&mut app, a, (6, 0));
    app.update();
    fog_mut(&mut app, map).team_mut(Team::SPECTATOR);
    app.update();
    // Drawn is still team 0.
    assert_eq!(fog(&app, map).drawn_team(), Team(0));
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(4..=8), row(14..=16)])
    );
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        join(&[row(0..=8), row(14..=16)])
    );
    walk(&mut app, a, (10, 0));
    app.update();
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(8..=12), row(14..=16)])
    );
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        join(&[row(0..=12), row(14..=16)])
    );
}

#[test]
fn a_unit_of_the_spectator_team_counts_for_the_spectator() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    unit(&mut app, map, (2, 0), 2, 0);
    let s = unit(&mut app, map, (10, 0), 2, 1);
    app.insert_resource(DrawnTeam(Team::SPECTATOR));
    app.update();
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(0..=4), row(8..=12)])
    );
    app.world_mut().entity_mut(s).insert(Team::SPECTATOR);
    app.update();
    assert_eq!(visible(&app, map, Team(1)), Tiles::new());
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(0..=4), row(8..=12)]),
        "the spectator's own unit's view"
    );
    walk(&mut app, s, (15, 0));
    app.update();
    app.update();
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(0..=4), row(13..=17)]),
        "the spectator's own unit's view, after a walk"
    );
}

// --- Temporary reveals --------------------------------------------------------------------

/// Two rooms, 9x5, split by a wall at x = 4.
fn two_rooms(app: &mut App) -> Entity {
    spawn_map(app, 9, 5, |x, _| x == 4)
}

fn reveal_at(
    app: &mut App,
    map: Entity,
    reveal: Reveal,
    team: Option<u32>,
    (x, y): (u32, u32),
) -> Entity {
    let mut e = app
        .world_mut()
        .spawn((reveal, TilePos { x, y }, TilemapId(map)));
    if let Some(team) = team {
        e.insert(Team(team));
    }
    e.id()
}

// The page does not say whether the delta of the first update a reveal is in (time that passed
// before the game spawned it, when it is spawned between updates) runs it down. These tests
// read `lifetime` as starting at the first update the reveal is in: it counts in the updates
// less than `lifetime` after that one (a `Reveal` for three seconds lights three seconds).

#[test]
fn a_reveal_lights_its_area_while_time_is_left_and_is_despawned_after() {
    let mut app = timed_app();
    let map = two_rooms(&mut app);
    app.update(); // t = 0
    // What a `Viewshed::new(4)` sees from (2, 2): the reveal "sees like" it.
    let probe = spawn_viewer(&mut app, map, 2, 2, 4);
    // 250 ms from its first update (t = 100): 250, 150 and 50 ms left at t = 100, 200, 300.
    let flare = reveal_at(&mut app, map, Reveal::new(4, ms(250)), Some(0), (2, 2));
    app.update(); // t = 100
    let area = seen(&app, probe);
    assert!(area.contains(&(2, 2)) && area.contains(&(3, 2)) && area.contains(&(4, 2)));
    assert!(
        area.iter().all(|&(x, _)| x <= 4),
        "the wall casts a shadow: {area:?}"
    );
    assert_eq!(visible(&app, map, Team(0)), area, "t = 100 ms, 250 ms left");
    assert_eq!(visible(&app, map, Team(1)), Tiles::new());
    assert!(exists(&app, flare));
    app.update(); // t = 200
    assert_eq!(visible(&app, map, Team(0)), area, "t = 200 ms, 150 ms left");
    app.update(); // t = 300
    assert_eq!(visible(&app, map, Team(0)), area, "t = 300 ms, 50 ms left");
    assert!(exists(&app, flare));
    app.update(); // t = 400: it runs out in this update, which does not count
    assert_eq!(
        visible(&app, map, Team(0)),
        Tiles::new(),
        "t = 400 ms, run out"
    );
    assert_eq!(
        explored(&app, map, Team(0)),
        area,
        "what it lit is remembered"
    );
    assert!(
        !exists(&app, flare),
        "the plugin despawns a reveal that ran out"
    );
}

#[test]
fn a_reveal_counts_in_each_update_with_time_left_only() {
    let mut app = timed_app();
    let map = spawn_map(&mut app, 9, 1, |_, _| false);
    // Spawned before the first update: 100 ms left there, none at the next.
    let first = reveal_at(&mut app, map, Reveal::new(1, ms(100)), Some(0), (1, 0));
    app.update(); // t = 0
    assert_eq!(visible(&app, map, Team(0)), row(0..=2));
    app.update(); // t = 100
    assert_eq!(visible(&app, map, Team(0)), Tiles::new());
    assert!(!exists(&app, first));

    // 300 ms spawned between updates: counts at t = 200, 300 and 400.
    let second = reveal_at(&mut app, map, Reveal::new(1, ms(300)), Some(0), (6, 0));
    for t in [200, 300, 400] {
        app.update();
        assert_eq!(now(&app), ms(t));
        assert_eq!(visible(&app, map, Team(0)), row(5..=7), "t = {t} ms");
    }
    app.update(); // t = 500: no time left
    assert_eq!(visible(&app, map, Team(0)), Tiles::new(), "t = 500 ms");
    assert!(!exists(&app, second));
}

#[test]
fn a_reveal_with_no_lifetime_never_counts() {
    let mut app = timed_app();
    let map = spawn_map(&mut app, 9, 1, |_, _| false);
    app.update();
    // No time left in any update: it runs out in the first, which does not count.
    let none = reveal_at(
        &mut app,
        map,
        Reveal::new(1, Duration::ZERO),
        Some(0),
        (4, 0),
    );
    app.update();
    assert_eq!(visible(&app, map, Team(0)), Tiles::new());
    assert_eq!(explored(&app, map, Team(0)), Tiles::new());
    assert!(!exists(&app, none));
}

#[test]
fn a_reveal_through_walls_lights_the_whole_disc() {
    let mut app = timed_app();
    let map = two_rooms(&mut app);
    app.update();
    let scan = reveal_at(
        &mut app,
        map,
        Reveal::new(4, Duration::from_secs(1)).through_walls(),
        Some(1),
        (2, 2),
    );
    app.update();
    let expected: Tiles = disc(TilePos { x: 2, y: 2 }, 4, 9, 5)
        .into_iter()
        .map(|t| (t.x, t.y))
        .collect();
    assert_eq!(visible(&app, map, Team(1)), expected);
    // Behind the wall: x = 5 (dx = 3, dy² <= 7) and (6, 2) only.
    let behind: Tiles = visible(&app, map, Team(1))
        .into_iter()
        .filter(|&(x, _)| x >= 5)
        .collect();
    assert_eq!(
        behind,
        [(5, 0), (5, 1), (5, 2), (5, 3), (5, 4), (6, 2)]
            .into_iter()
            .collect()
    );
    assert_eq!(visible(&app, map, Team(0)), Tiles::new());
    assert!(exists(&app, scan));
}

#[test]
fn a_reveal_without_team_is_team_0s_and_allies_see_it() {
    let mut app = timed_app();
    let map = two_rooms(&mut app);
    app.update();
    vision(&mut app).share(Team(0), Team(2));
    let probe = spawn_viewer(&mut app, map, 7, 2, 2);
    reveal_at(&mut app, map, Reveal::new(2, ms(500)), None, (7, 2));
    app.update();
    let area = seen(&app, probe);
    assert!(area.contains(&(7, 2)) && area.iter().all(|&(x, _)| x >= 4));
    assert_eq!(visible(&app, map, Team(0)), area);
    assert_eq!(visible(&app, map, Team(2)), area, "the ally sees it too");
    assert_eq!(visible(&app, map, Team(1)), Tiles::new());
    assert_eq!(explored(&app, map, Team(2)), area);
}

// --- Fog that grows back ------------------------------------------------------------------

#[test]
fn remembered_tiles_grow_back_after_the_time_since_last_seen() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    app.world_mut()
        .entity_mut(map)
        .insert(FogRegrowth::after(ms(300)));
    let a = unit(&mut app, map, (2, 0), 2, 0);
    app.update(); // t = 0: 0..=4 seen
    assert_eq!(now(&app), Duration::ZERO);
    walk(&mut app, a, (10, 0));
    app.update(); // t = 100
    assert_eq!(visible(&app, map, Team(0)), row(8..=12));
    assert_eq!(
        explored(&app, map, Team(0)),
        join(&[row(0..=4), row(8..=12)])
    );
    assert_eq!(
        k_tile_seen_at(&mut app, map, Team(0), (1, 0)),
        Some(Duration::ZERO)
    );
    app.update(); // t = 200: 200 ms since last seen
    assert_eq!(state(&app, map, Team(0), (0, 0)), FogState::Remembered);
    app.update(); // t = 300: 300 ms have passed
    assert_eq!(now(&app), ms(300));
    assert_eq!(explored(&app, map, Team(0)), row(8..=12), "0..=4 grew back");
    assert_eq!(k_tile_seen_at(&mut app, map, Team(0), (1, 0)), None);

    // Explored by the game without being seen: counts from the update in which it was explored.
    fog_mut(&mut app, map).team_mut(Team(0)).explore_all();
    app.update(); // t = 400
    assert_eq!(explored(&app, map, Team(0)), row(0..=19));
    app.update(); // t = 500
    app.update(); // t = 600
    assert_eq!(explored(&app, map, Team(0)), row(0..=19));
    app.update(); // t = 700: 300 ms since explored
    assert_eq!(explored(&app, map, Team(0)), row(8..=12));

    // Removing it stops it; what grew back stays unexplored.
    app.world_mut().entity_mut(map).remove::<FogRegrowth>();
    walk(&mut app, a, (15, 0));
    app.update();
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(visible(&app, map, Team(0)), row(13..=17));
    assert_eq!(explored(&app, map, Team(0)), row(8..=17));
}

#[test]
fn a_tile_explored_by_the_game_was_not_seen() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    app.update(); // t = 0
    walk(&mut app, a, (10, 0));
    app.update(); // t = 100
    fog_mut(&mut app, map)
        .team_mut(Team(0))
        .set_explored(TilePos { x: 1, y: 0 }, false);
    fog_mut(&mut app, map).team_mut(Team(0)).explore_all();
    app.update(); // t = 200
    assert_eq!(explored(&app, map, Team(0)), row(0..=19));
    // Seen at t = 0 and remembered since: still t = 0; forgotten, then explored by the game
    // (in one frame): not seen since; never seen, explored by the game: never seen.
    assert_eq!(
        [(0, 0), (1, 0), (17, 0)].map(|tile| k_tile_seen_at(&mut app, map, Team(0), tile)),
        [Some(Duration::ZERO), None, None],
        "tile_seen_at of (0, 0), (1, 0), (17, 0)"
    );
    assert_eq!(
        k_seen_since(&mut app, map, Team(0), Duration::ZERO),
        join(&[row(0..=0), row(2..=4), row(8..=12)])
    );
}

#[test]
fn the_spectators_memory_grows_back_like_any_teams() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    app.world_mut()
        .entity_mut(map)
        .insert(FogRegrowth::after(ms(200)));
    let a = unit(&mut app, map, (2, 0), 2, 0);
    app.insert_resource(DrawnTeam(Team::SPECTATOR));
    app.update(); // t = 0: the spectator sees 0..=4 with team 0
    walk(&mut app, a, (10, 0));
    app.update(); // t = 100
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        join(&[row(0..=4), row(8..=12)])
    );
    app.update(); // t = 200: nobody saw 0..=4 for 200 ms
    assert_eq!(explored(&app, map, Team(0)), row(8..=12));
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        row(8..=12),
        "the spectator last saw 0..=4 at t = 0"
    );
    assert_eq!(k_tile_seen_at(&mut app, map, Team::SPECTATOR, (0, 0)), None);
    app.update();
    app.update();
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        row(8..=12),
        "t = 400 ms"
    );
}

#[test]
fn the_spectator_keeps_a_tile_while_any_team_remembers_it() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    app.world_mut()
        .entity_mut(map)
        .insert(FogRegrowth::after(ms(300)));
    let a = unit(&mut app, map, (2, 0), 2, 0);
    app.insert_resource(DrawnTeam(Team::SPECTATOR));
    app.update(); // t = 0
    walk(&mut app, a, (10, 0));
    app.update(); // t = 100
    // Team 1 (no unit) is given the map: it remembers every tile from t = 200 to 500.
    fog_mut(&mut app, map).team_mut(Team(1)).explore_all();
    app.update(); // t = 200
    app.update(); // t = 300: team 0's 0..=4 grow back, team 1 still remembers them
    assert_eq!(explored(&app, map, Team(0)), row(8..=12));
    assert_eq!(explored(&app, map, Team(1)), row(0..=19));
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        row(0..=19),
        "t = 300 ms"
    );
    app.update(); // t = 400
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        row(0..=19),
        "t = 400 ms"
    );
    app.update(); // t = 500: team 1's grow back (explored at 200)
    assert_eq!(explored(&app, map, Team(1)), Tiles::new());
    assert_eq!(
        explored(&app, map, Team::SPECTATOR),
        row(8..=12),
        "t = 500 ms"
    );
}

#[test]
fn regrowth_counts_from_the_last_update_a_tile_was_seen_in_by_each_team() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    app.world_mut()
        .entity_mut(map)
        .insert(FogRegrowth::after(ms(200)));
    let a = unit(&mut app, map, (2, 0), 2, 0);
    let b = unit(&mut app, map, (4, 0), 2, 1);
    app.update(); // t = 0: team 0 sees 0..=4, team 1 2..=6
    walk(&mut app, a, (4, 0)); // 2..=6
    walk(&mut app, b, (14, 0)); // 12..=16
    app.update(); // t = 100
    app.update(); // t = 200: team 0 last saw 0..=1 at 0, team 1 2..=6 at 0
    assert_eq!(explored(&app, map, Team(0)), row(2..=6));
    assert_eq!(explored(&app, map, Team(1)), row(12..=16));
    // A tile seen through an ally is seen.
    vision(&mut app).share(Team(1), Team(0));
    walk(&mut app, a, (9, 0)); // 7..=11
    app.update(); // t = 300: team 0 last saw 2..=6 at 200
    assert_eq!(
        explored(&app, map, Team(0)),
        join(&[row(2..=11), row(12..=16)])
    );
    app.update(); // t = 400: 2..=6 grow back
    assert_eq!(explored(&app, map, Team(0)), row(7..=16));
}

// --- What a team knows --------------------------------------------------------------------

#[test]
fn team_knowledge_answers_from_what_the_team_saw() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    let rat = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 3, y: 0 }, TilemapId(map)))
        .id();
    app.update(); // t = 0
    assert!(k_sees(&mut app, Team(0), rat));
    assert!(!k_sees(&mut app, Team(1), rat));
    assert_eq!(
        k_last_seen(&mut app, Team(0), rat),
        Some((map, TilePos { x: 3, y: 0 }, Duration::ZERO))
    );
    assert_eq!(k_last_seen(&mut app, Team(1), rat), None);
    assert_eq!(
        k_tile_seen_at(&mut app, map, Team(0), (0, 0)),
        Some(Duration::ZERO)
    );
    assert_eq!(k_tile_seen_at(&mut app, map, Team(0), (10, 0)), None);

    walk(&mut app, rat, (4, 0));
    app.update(); // t = 100: seen where it stands now, at this update's time
    assert_eq!(
        k_last_seen(&mut app, Team(0), rat),
        Some((map, TilePos { x: 4, y: 0 }, ms(100)))
    );
    walk(&mut app, rat, (9, 0));
    app.update(); // t = 200: out of sight; its tile in the last update it was seen
    assert!(!k_sees(&mut app, Team(0), rat));
    assert_eq!(
        k_last_seen(&mut app, Team(0), rat),
        Some((map, TilePos { x: 4, y: 0 }, ms(100)))
    );
    walk(&mut app, a, (12, 0)); // sees 10..=14
    app.update(); // t = 300
    assert_eq!(
        k_tile_seen_at(&mut app, map, Team(0), (0, 0)),
        Some(ms(200))
    );
    assert_eq!(
        k_tile_seen_at(&mut app, map, Team(0), (12, 0)),
        Some(ms(300))
    );
    assert_eq!(k_seen_since(&mut app, map, Team(0), ms(300)), row(10..=14));
    assert_eq!(k_seen_since(&mut app, map, Team(0), ms(250)), row(10..=14));
    assert_eq!(
        k_seen_since(&mut app, map, Team(0), ms(200)),
        join(&[row(0..=4), row(10..=14)])
    );
    assert_eq!(
        k_seen_since(&mut app, map, Team(0), Duration::ZERO),
        join(&[row(0..=4), row(10..=14)])
    );
    assert_eq!(
        k_seen_since(&mut app, map, Team(1), Duration::ZERO),
        Tiles::new()
    );

    // Forgotten tiles have no time.
    fog_mut(&mut app, map).team_mut(Team(0)).forget_all();
    app.update(); // t = 400
    assert_eq!(k_tile_seen_at(&mut app, map, Team(0), (0, 0)), None);
    assert_eq!(
        k_tile_seen_at(&mut app, map, Team(0), (12, 0)),
        Some(ms(400))
    );
    assert_eq!(
        k_seen_since(&mut app, map, Team(0), Duration::ZERO),
        row(10..=14)
    );

    // Through an ally: team 1 sees the rat that team 0 sees.
    vision(&mut app).share(Team(0), Team(1));
    walk(&mut app, rat, (11, 0));
    app.update(); // t = 500
    assert!(k_sees(&mut app, Team(0), rat));
    assert!(k_sees(&mut app, Team(1), rat));
    assert_eq!(
        k_last_seen(&mut app, Team(1), rat),
        Some((map, TilePos { x: 11, y: 0 }, ms(500)))
    );

    // A despawned entity is forgotten (by team 2 too, which saw it and does not see it now).
    assert_eq!(k_last_seen(&mut app, Team(2), rat), None);
    vision(&mut app).share(Team(0), Team(2));
    app.update(); // t = 600
    vision(&mut app).stop(Team(0), Team(2));
    app.update(); // t = 700
    assert!(!k_sees(&mut app, Team(2), rat));
    assert_eq!(
        k_last_seen(&mut app, Team(2), rat),
        Some((map, TilePos { x: 11, y: 0 }, ms(600)))
    );
    app.world_mut().despawn(rat);
    app.update();
    assert!(!k_sees(&mut app, Team(0), rat));
    assert_eq!(k_last_seen(&mut app, Team(0), rat), None);
    assert_eq!(k_last_seen(&mut app, Team(1), rat), None);
    assert_eq!(
        k_last_seen(&mut app, Team(2), rat),
        None,
        "despawned out of team 2's view"
    );
    app.update();
    app.update();
    assert_eq!(
        k_last_seen(&mut app, Team(2), rat),
        None,
        "two updates after its despawn"
    );
}

#[test]
fn an_entity_despawned_out_of_every_teams_view_is_forgotten() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    unit(&mut app, map, (0, 0), 2, 0);
    let rat = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 6, y: 0 }, TilemapId(map)))
        .id();
    reveal_at(&mut app, map, Reveal::new(2, ms(150)), None, (7, 0));
    app.update(); // t = 0: the reveal sees the rat
    assert!(k_sees(&mut app, Team(0), rat));
    app.update(); // t = 100
    app.update(); // t = 200: the reveal is over
    assert!(!k_sees(&mut app, Team(0), rat));
    assert_eq!(
        k_last_seen(&mut app, Team(0), rat),
        Some((map, TilePos { x: 6, y: 0 }, ms(100)))
    );
    // Despawned where no team sees it.
    app.world_mut().despawn(rat);
    app.update();
    assert_eq!(k_last_seen(&mut app, Team(0), rat), None);
}

// --- Cloaking and detection ---------------------------------------------------------------

/// A revealing detector of `team`.
fn detector(app: &mut App, map: Entity, (x, y): (u32, u32), radius: u32, team: u32) -> Entity {
    app.world_mut()
        .spawn((
            Detector,
            Viewshed::new(radius),
            RevealsFog,
            Team(team),
            TilePos { x, y },
            TilemapId(map),
        ))
        .id()
}

/// A cloaked, spottable unit of `team` that does not see.
fn cloaked(app: &mut App, map: Entity, (x, y): (u32, u32), team: u32) -> Entity {
    app.world_mut()
        .spawn((
            Cloaked,
            CanBeSpotted,
            Team(team),
            TilePos { x, y },
            TilemapId(map),
        ))
        .id()
}

/// The tiles `team` detects (none if the map's fog has no view for it).
fn detected(app: &App, map: Entity, team: Team) -> Tiles {
    every_tile(map_size(app, map))
        .filter(|&t| fog(app, map).team(team).is_some_and(|f| f.is_detected(t)))
        .map(|t| (t.x, t.y))
        .collect()
}

fn visibility(app: &App, entity: Entity) -> Visibility {
    *app.world()
        .get::<Visibility>(entity)
        .expect("the entity has a Visibility")
}

#[test]
fn a_cloaked_unit_is_seen_only_where_its_enemy_detects() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    unit(&mut app, map, (2, 0), 2, 0); // sees 0..=4
    let scout = cloaked(&mut app, map, (3, 0), 1);
    app.update(); // t = 0: on a tile team 0 sees, not one it detects
    assert_eq!(visible(&app, map, Team(0)), row(0..=4));
    assert_eq!(detected(&app, map, Team(0)), Tiles::new());
    assert!(!k_sees(&mut app, Team(0), scout), "t = 0: not detected");
    assert_eq!(k_last_seen(&mut app, Team(0), scout), None);

    // A detector far off: it lifts the fog and detects its own view only.
    let d = detector(&mut app, map, (12, 0), 2, 0);
    app.update(); // t = 100
    assert_eq!(seen(&app, d), row(10..=14));
    assert_eq!(
        visible(&app, map, Team(0)),
        join(&[row(0..=4), row(10..=14)])
    );
    assert_eq!(detected(&app, map, Team(0)), seen(&app, d));
    assert_eq!(detected(&app, map, Team(1)), Tiles::new());
    assert!(!k_sees(&mut app, Team(0), scout), "t = 100: not detected");
    assert_eq!(k_last_seen(&mut app, Team(0), scout), None);

    // The detector sees its tile: seen while it does.
    walk(&mut app, d, (5, 0)); // 3..=7
    app.update(); // t = 200
    assert_eq!(detected(&app, map, Team(0)), row(3..=7));
    assert!(k_sees(&mut app, Team(0), scout), "t = 200: detected");
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 3, y: 0 }, ms(200)))
    );
    walk(&mut app, scout, (4, 0));
    app.update(); // t = 300
    assert!(k_sees(&mut app, Team(0), scout), "t = 300: detected");
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 4, y: 0 }, ms(300)))
    );

    // The detector walks away: its tile is still in view, but not detected.
    walk(&mut app, d, (12, 0));
    app.update(); // t = 400
    assert_eq!(state(&app, map, Team(0), (4, 0)), FogState::Visible);
    assert_eq!(detected(&app, map, Team(0)), row(10..=14));
    assert!(!k_sees(&mut app, Team(0), scout), "t = 400: detector gone");
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 4, y: 0 }, ms(300)))
    );
    app.update(); // t = 500
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 4, y: 0 }, ms(300)))
    );
    // Detected without being in any non-detector's view: the detector's view is seen too.
    walk(&mut app, scout, (13, 0));
    app.update(); // t = 600
    assert!(
        k_sees(&mut app, Team(0), scout),
        "t = 600: under the detector"
    );
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 13, y: 0 }, ms(600)))
    );
}

#[test]
fn a_detector_spawned_as_the_page_does_lifts_the_fog_and_detects_its_view() {
    let mut app = timed_app();
    let map = two_rooms(&mut app);
    // As in the page: no `RevealsFog` written, "a `Detector` is a `RevealsFog` viewer".
    let d = app
        .world_mut()
        .spawn((
            Detector,
            Viewshed::new(4),
            Team(0),
            TilePos { x: 2, y: 2 },
            TilemapId(map),
        ))
        .id();
    // A plain team-0 unit in the other room: seen there, not detected.
    let u = unit(&mut app, map, (7, 2), 2, 0);
    app.update();
    let area = seen(&app, d);
    assert!(area.contains(&(2, 2)) && area.iter().all(|&(x, _)| x <= 4));
    assert_eq!(
        visible(&app, map, Team(0)),
        join(&[area.clone(), seen(&app, u)])
    );
    assert_eq!(detected(&app, map, Team(0)), area);
    assert_eq!(detected(&app, map, Team(1)), Tiles::new());
}

#[test]
fn detection_is_shared_with_sight_and_stops_with_it() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let d = detector(&mut app, map, (10, 0), 2, 0); // 8..=12
    unit(&mut app, map, (2, 0), 2, 2); // team 2 sees 0..=4
    let scout = cloaked(&mut app, map, (11, 0), 1);
    app.update(); // t = 0
    assert_eq!(seen(&app, d), row(8..=12));
    assert!(k_sees(&mut app, Team(0), scout));
    assert!(!k_sees(&mut app, Team(2), scout));
    assert_eq!(detected(&app, map, Team(2)), Tiles::new());

    vision(&mut app).share(Team(0), Team(2));
    app.update(); // t = 100
    assert_eq!(
        visible(&app, map, Team(2)),
        join(&[row(0..=4), row(8..=12)])
    );
    assert_eq!(detected(&app, map, Team(2)), row(8..=12));
    assert!(k_sees(&mut app, Team(2), scout), "shared detection");
    assert_eq!(
        k_last_seen(&mut app, Team(2), scout),
        Some((map, TilePos { x: 11, y: 0 }, ms(100)))
    );
    // One-way: team 0 gets nothing from team 2.
    assert_eq!(detected(&app, map, Team(0)), row(8..=12));
    // The scout walks into team 2's own view, out of the detector's: not detected.
    walk(&mut app, scout, (3, 0));
    app.update(); // t = 200
    assert!(!k_sees(&mut app, Team(2), scout), "t = 200: not detected");
    assert!(!k_sees(&mut app, Team(0), scout));
    walk(&mut app, scout, (9, 0));
    app.update(); // t = 300
    assert!(
        k_sees(&mut app, Team(2), scout),
        "t = 300: shared detection"
    );

    vision(&mut app).stop(Team(0), Team(2));
    app.update(); // t = 400
    assert_eq!(visible(&app, map, Team(2)), row(0..=4));
    assert_eq!(detected(&app, map, Team(2)), Tiles::new());
    assert!(!k_sees(&mut app, Team(2), scout), "sharing stopped");
    assert!(k_sees(&mut app, Team(0), scout));
    assert_eq!(
        k_last_seen(&mut app, Team(2), scout),
        Some((map, TilePos { x: 9, y: 0 }, ms(300)))
    );
}

#[test]
fn the_spectator_detects_what_any_team_detects() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    app.insert_resource(DrawnTeam(Team::SPECTATOR));
    detector(&mut app, map, (10, 0), 2, 0); // 8..=12
    unit(&mut app, map, (2, 0), 2, 1); // 0..=4
    detector(&mut app, map, (17, 0), 1, 1); // 16..=18
    let scout = app
        .world_mut()
        .spawn((
            Cloaked,
            CanBeSpotted,
            HidesOutsideView,
            Visibility::Inherited,
            Team(2),
            TilePos { x: 3, y: 0 },
            TilemapId(map),
        ))
        .id();
    app.update(); // t = 0
    assert_eq!(
        visible(&app, map, Team::SPECTATOR),
        join(&[row(0..=4), row(8..=12), row(16..=18)])
    );
    assert_eq!(
        detected(&app, map, Team::SPECTATOR),
        join(&[row(8..=12), row(16..=18)])
    );
    // Seen by the spectator (through team 1), not detected by anyone.
    assert!(!k_sees(&mut app, Team::SPECTATOR, scout), "t = 0");
    assert_eq!(visibility(&app, scout), Visibility::Hidden, "t = 0");
    walk(&mut app, scout, (11, 0)); // team 0 detects it
    app.update(); // t = 100
    assert!(k_sees(&mut app, Team::SPECTATOR, scout), "t = 100");
    assert!(k_sees(&mut app, Team(0), scout));
    assert!(!k_sees(&mut app, Team(1), scout));
    assert_eq!(visibility(&app, scout), Visibility::Inherited, "t = 100");
    assert_eq!(
        k_last_seen(&mut app, Team::SPECTATOR, scout),
        Some((map, TilePos { x: 11, y: 0 }, ms(100)))
    );
    walk(&mut app, scout, (17, 0)); // team 1 detects it
    app.update(); // t = 200
    assert!(k_sees(&mut app, Team::SPECTATOR, scout), "t = 200");
    assert!(!k_sees(&mut app, Team(0), scout));
    assert!(k_sees(&mut app, Team(1), scout));
    assert_eq!(visibility(&app, scout), Visibility::Inherited, "t = 200");
    walk(&mut app, scout, (14, 0)); // nobody sees it
    app.update(); // t = 300
    assert!(!k_sees(&mut app, Team::SPECTATOR, scout), "t = 300");
    assert_eq!(visibility(&app, scout), Visibility::Hidden, "t = 300");
    assert_eq!(
        k_last_seen(&mut app, Team::SPECTATOR, scout),
        Some((map, TilePos { x: 17, y: 0 }, ms(200)))
    );
}

#[test]
fn uncloaking_and_cloaking_take_effect_at_the_next_update() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    unit(&mut app, map, (2, 0), 2, 0); // 0..=4
    let scout = cloaked(&mut app, map, (3, 0), 1);
    app.update(); // t = 0
    assert!(!k_sees(&mut app, Team(0), scout));
    app.world_mut().entity_mut(scout).remove::<Cloaked>();
    assert!(
        !k_sees(&mut app, Team(0), scout),
        "uncloaked, before the next update"
    );
    app.update(); // t = 100
    assert!(k_sees(&mut app, Team(0), scout), "uncloaked at t = 100");
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 3, y: 0 }, ms(100)))
    );
    app.update(); // t = 200
    assert!(k_sees(&mut app, Team(0), scout));
    app.world_mut().entity_mut(scout).insert(Cloaked);
    assert!(
        k_sees(&mut app, Team(0), scout),
        "cloaked, before the next update"
    );
    app.update(); // t = 300
    assert!(!k_sees(&mut app, Team(0), scout), "cloaked at t = 300");
    assert_eq!(
        k_last_seen(&mut app, Team(0), scout),
        Some((map, TilePos { x: 3, y: 0 }, ms(200)))
    );
}

#[test]
fn a_hidden_cloaked_entity_shows_where_the_drawn_team_detects() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    unit(&mut app, map, (2, 0), 2, 0); // team 0 sees 0..=4
    let d = detector(&mut app, map, (12, 0), 2, 0); // and 10..=14
    detector(&mut app, map, (4, 0), 1, 1); // team 1 sees and detects 3..=5
    let scout = app
        .world_mut()
        .spawn((
            Cloaked,
            HidesOutsideView,
            Visibility::Inherited,
            Team(2),
            TilePos { x: 3, y: 0 },
            TilemapId(map),
        ))
        .id();
    app.update(); // t = 0: team 0 drawn, sees (3, 0) without detecting it
    assert_eq!(state(&app, map, Team(0), (3, 0)), FogState::Visible);
    assert_eq!(visibility(&app, scout), Visibility::Hidden, "t = 0");
    assert!(!k_sees(&mut app, Team(0), scout));
    walk(&mut app, d, (5, 0));
    app.update(); // t = 100: detected
    assert_eq!(visibility(&app, scout), Visibility::Inherited, "t = 100");
    assert!(k_sees(&mut app, Team(0), scout));
    walk(&mut app, d, (12, 0));
    app.update(); // t = 200: the detector walked away
    assert_eq!(visibility(&app, scout), Visibility::Hidden, "t = 200");
    // Team 1 drawn: it detects (3, 0).
    app.insert_resource(DrawnTeam(Team(1)));
    app.update(); // t = 300
    assert_eq!(
        visibility(&app, scout),
        Visibility::Inherited,
        "team 1 drawn"
    );
    app.insert_resource(DrawnTeam(Team(0)));
    app.update(); // t = 400
    assert_eq!(
        visibility(&app, scout),
        Visibility::Hidden,
        "team 0 drawn again"
    );
    // Uncloaked: team 0 sees its tile, so it shows at the next update.
    app.world_mut().entity_mut(scout).remove::<Cloaked>();
    app.update(); // t = 500
    assert_eq!(visibility(&app, scout), Visibility::Inherited, "uncloaked");
    assert!(k_sees(&mut app, Team(0), scout));
    // Out of team 0's view: hidden, cloaked or not.
    walk(&mut app, scout, (7, 0));
    app.update(); // t = 600
    assert_eq!(visibility(&app, scout), Visibility::Hidden, "out of view");
}

#[test]
fn a_viewers_own_sightings_ignore_cloaking() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0);
    let scout = cloaked(&mut app, map, (3, 0), 1);
    app.update();
    assert!(!k_sees(&mut app, Team(0), scout));
    assert_eq!(spotted(&app, a).collect::<Vec<_>>(), vec![scout]);
}

/// "Every rule takes effect at the next update of the plugin (the frame in which the game
/// changed it)": a `Detector` inserted on a unit that does not move.
#[test]
fn a_detector_inserted_on_a_unit_at_rest_detects_at_the_next_update() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let a = unit(&mut app, map, (2, 0), 2, 0); // 0..=4
    let scout = cloaked(&mut app, map, (3, 0), 1);
    app.update();
    app.update();
    app.world_mut().entity_mut(a).insert(Detector);
    app.update();
    assert_eq!(
        detected(&app, map, Team(0)),
        row(0..=4),
        "Detector inserted on a unit at rest"
    );
    assert!(k_sees(&mut app, Team(0), scout), "Detector inserted");
}

/// The same for a `Detector` removed from a unit that does not move.
#[test]
fn a_detector_removed_from_a_unit_at_rest_stops_detecting_at_the_next_update() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    let d = detector(&mut app, map, (2, 0), 2, 0); // 0..=4
    let scout = cloaked(&mut app, map, (3, 0), 1);
    app.update();
    app.update();
    assert!(k_sees(&mut app, Team(0), scout));
    app.world_mut().entity_mut(d).remove::<Detector>();
    app.update();
    assert_eq!(
        detected(&app, map, Team(0)),
        Tiles::new(),
        "Detector removed from a unit at rest"
    );
    assert!(!k_sees(&mut app, Team(0), scout), "Detector removed");
}

/// The page makes no exception for a cloaked unit's own team: it too sees it only where it
/// detects.
#[test]
fn a_cloaked_units_own_team_sees_it_only_where_it_detects() {
    let mut app = timed_app();
    let map = corridor(&mut app);
    unit(&mut app, map, (2, 0), 2, 1); // team 1 sees 0..=4
    let scout = cloaked(&mut app, map, (3, 0), 1);
    app.update();
    assert_eq!(state(&app, map, Team(1), (3, 0)), FogState::Visible);
    assert!(
        !k_sees(&mut app, Team(1), scout),
        "its own team sees it without detecting it"
    );
    detector(&mut app, map, (4, 0), 1, 1);
    app.update();
    assert!(k_sees(&mut app, Team(1), scout));
}

// --- The model ----------------------------------------------------------------------------

/// `STRATEGY_RULES_LENIENT`, a comma-separated list, leaves out checks the plugin was found to
/// disagree with, to look for other disagreements past them: `by_game` (`tile_seen_at` and
/// `tiles_seen_since` on tiles explored by the game and not seen since), `despawned`
/// (`last_seen` of despawned entities), `spectator_unit` (no unit joins `Team::SPECTATOR`),
/// `spectator_memory` (the spectator may lack a tile that a team explored by the game and
/// has not seen since), `spectator_regrowth` (whether the spectator's tiles that no team
/// remembers grow back is taken from the plugin), `same_frame` (a tile forgotten and explored again by the game between
/// two updates keeps its clocks), `detector_at_rest` (no `Detector` is inserted or removed after
/// spawn: the plugin was found not to change detection at the next update then).
fn lenient(what: &str) -> bool {
    std::env::var("STRATEGY_RULES_LENIENT").is_ok_and(|v| v.split(',').any(|w| w.trim() == what))
}

/// Teams 0, 1, 2 and the spectator (index 3).
const TEAMS: usize = 3;
const SPEC: usize = 3;

fn team_of(i: usize) -> Team {
    if i == SPEC {
        Team::SPECTATOR
    } else {
        Team(i as u32)
    }
}

fn team_name(i: usize) -> String {
    if i == SPEC {
        "the spectator".to_string()
    } else {
        format!("team {i}")
    }
}

/// What the page says a team (or the spectator) holds on the map.
#[derive(Clone, Debug, Default)]
struct TeamModel {
    /// Its view in the last update.
    visible: BTreeSet<TilePos>,
    explored: BTreeSet<TilePos>,
    /// `tile_seen_at`: the last update in which it saw the tile (until it forgets it).
    seen_at: BTreeMap<TilePos, Duration>,
    /// The regrowth clock: the last update it saw the tile in, or the update in which it was
    /// explored without being seen.
    clock: BTreeMap<TilePos, Duration>,
    /// Explored by the game since the last update (its clock starts at the next update).
    pending: BTreeSet<TilePos>,
    /// The spectator only: tiles it took from the teams' memories in the update it got a
    /// fog on (those that grew back for the teams in that update included), and has not seen
    /// since. The page does not say when it "saw" them: their `tile_seen_at` is not checked,
    /// and once no team remembers them, whether and when they grow back is left open (the
    /// model takes what the plugin has).
    unsure: BTreeSet<TilePos>,
    /// Explored by the game (or, for the spectator, taken from a team's memory) and not seen
    /// since: `tile_seen_at` is `None` there by the page; with `STRATEGY_RULES_LENIENT` set,
    /// not checked (see the header).
    by_game: BTreeSet<TilePos>,
    /// The spectator only, with `STRATEGY_RULES_LENIENT=spectator_memory`: tiles it lost
    /// while a team remembered them; until it sees them again, whether it remembers them is
    /// taken from the plugin.
    disputed: BTreeSet<TilePos>,
    /// The spectator only: the tiles some team remembers, which it keeps whatever its own
    /// clock ("it keeps a tile while any team remembers it").
    keep: BTreeSet<TilePos>,
    /// Forgotten by the game since the last update: their clocks then (for
    /// `STRATEGY_RULES_LENIENT=same_frame`).
    forgotten: BTreeMap<TilePos, (Option<Duration>, Option<Duration>, bool)>,
    /// `last_seen`: the tile and time; `None` for the spectator's entities seen by a team
    /// before the spectator got a fog (not checked until it sees them).
    last_seen: BTreeMap<Entity, Option<(TilePos, Duration)>>,
}

impl TeamModel {
    fn state(&self, tile: TilePos) -> FogState {
        if self.visible.contains(&tile) {
            FogState::Visible
        } else if self.explored.contains(&tile) {
            FogState::Remembered
        } else {
            FogState::Unexplored
        }
    }

    fn forget(&mut self, tile: TilePos) {
        if self.explored.contains(&tile) && !self.pending.contains(&tile) {
            self.forgotten.insert(
                tile,
                (
                    self.seen_at.get(&tile).copied(),
                    self.clock.get(&tile).copied(),
                    self.by_game.contains(&tile),
                ),
            );
        }
        self.explored.remove(&tile);
        self.seen_at.remove(&tile);
        self.clock.remove(&tile);
        self.pending.remove(&tile);
        self.unsure.remove(&tile);
        self.by_game.remove(&tile);
    }

    /// The game explores `tile` (`explore_all`, `set_explored(tile, true)`).
    fn explore(&mut self, tile: TilePos) {
        if lenient("same_frame")
            && !self.explored.contains(&tile)
            && let Some((seen_at, clock, by_game)) = self.forgotten.remove(&tile)
        {
            // Forgotten and explored again before the update: as if nothing happened.
            self.explored.insert(tile);
            if let Some(at) = seen_at {
                self.seen_at.insert(tile, at);
            }
            if let Some(clock) = clock {
                self.clock.insert(tile, clock);
            }
            if by_game {
                self.by_game.insert(tile);
            }
            return;
        }
        if self.explored.insert(tile) {
            self.pending.insert(tile);
            self.by_game.insert(tile);
        }
    }

    /// One update at `now` with the view `view`; the tiles that grew back.
    fn advance(
        &mut self,
        view: &BTreeSet<TilePos>,
        now: Duration,
        regrowth: Option<Duration>,
    ) -> Vec<TilePos> {
        self.forgotten.clear();
        for tile in std::mem::take(&mut self.pending) {
            if self.explored.contains(&tile) {
                self.clock.insert(tile, now);
            }
        }
        self.visible = view.clone();
        for &tile in view {
            self.explored.insert(tile);
            self.seen_at.insert(tile, now);
            self.clock.insert(tile, now);
            self.unsure.remove(&tile);
            self.by_game.remove(&tile);
            self.disputed.remove(&tile);
        }
        let Some(after) = regrowth else {
            return Vec::new();
        };
        let grown: Vec<TilePos> = self
            .explored
            .iter()
            .filter(|t| {
                !self.visible.contains(t)
                    && !self.unsure.contains(t)
                    && !self.disputed.contains(t)
                    && !self.keep.contains(t)
            })
            .filter(|t| now.saturating_sub(self.clock[t]) >= after)
            .copied()
            .collect();
        for &tile in &grown {
            self.forget(tile);
        }
        // Grown back, not forgotten by the game.
        self.forgotten.clear();
        grown
    }
}

struct Unit {
    entity: Entity,
    team: usize,
    spotted: bool,
    /// Has `Cloaked` (only spottable units are cloaked).
    cloaked: bool,
    /// Has `Detector`.
    detector: bool,
}

struct LiveReveal {
    entity: Entity,
    /// A plain `Viewshed::new(radius)` on the same tile (for a reveal that is not through walls).
    probe: Option<Entity>,
    team: usize,
    tile: TilePos,
    radius: u32,
    through: bool,
    left: Duration,
    /// Not in an update yet: its first update does not run it down.
    fresh: bool,
}

struct Sim {
    app: App,
    map: Entity,
    width: u32,
    height: u32,
    walls: BTreeSet<TilePos>,
    units: Vec<Unit>,
    /// Spottable entities that do not see, alive.
    walkers: Vec<Entity>,
    /// Spottable entities despawned.
    gone: Vec<Entity>,
    reveals: Vec<LiveReveal>,
    shares: BTreeSet<(usize, usize)>,
    teams: [TeamModel; 4],
    /// The spectator has a fog on the map (since an update).
    spectator: bool,
    /// The game called `team_mut(Team::SPECTATOR)`.
    spectator_asked: bool,
    drawn: usize,
    regrowth: Option<Duration>,
    /// The map had a `FogRegrowth` at the start.
    regrowth_ever: bool,
    frame: usize,
    history: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
struct UnitSpec {
    x: u32,
    y: u32,
    radius: u32,
    team: usize,
    spotted: bool,
    /// Spawned with `Detector`.
    detector: bool,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Move {
        unit: usize,
        x: u32,
        y: u32,
    },
    Step {
        unit: usize,
        dx: i32,
        dy: i32,
    },
    /// Team 3 is the spectator (only once it has a fog on the map).
    ChangeTeam {
        unit: usize,
        team: usize,
    },
    Share {
        giver: usize,
        receiver: usize,
    },
    Stop {
        giver: usize,
        receiver: usize,
    },
    /// Team 3 is the spectator.
    Draw {
        team: usize,
    },
    Reveal {
        /// `None`: no `Team` component (team 0).
        team: Option<usize>,
        x: u32,
        y: u32,
        radius: u32,
        lifetime_ms: u64,
        through: bool,
    },
    ToggleWall {
        x: u32,
        y: u32,
    },
    MoveWalker {
        walker: usize,
        x: u32,
        y: u32,
    },
    DespawnWalker {
        walker: usize,
    },
    ExploreAll {
        team: usize,
    },
    SetExplored {
        team: usize,
        x: u32,
        y: u32,
        explored: bool,
    },
    ForgetAll {
        team: usize,
    },
    RemoveRegrowth,
    /// `FogOfWar::team_mut(Team::SPECTATOR)`.
    AskSpectator,
    /// Inserts (`on`) or removes `Cloaked` on a unit (a spottable one only).
    Cloak {
        unit: usize,
        on: bool,
    },
    /// Inserts (`on`) or removes `Detector` on a unit.
    Detect {
        unit: usize,
        on: bool,
    },
}

#[derive(Clone, Debug)]
struct Case {
    width: u32,
    height: u32,
    walls: Vec<(u32, u32)>,
    units: Vec<UnitSpec>,
    walkers: Vec<(u32, u32)>,
    regrowth_ms: Option<u64>,
    spectator_drawn_first: bool,
    frames: Vec<Vec<Op>>,
}

impl Sim {
    fn new(case: &Case) -> Self {
        let (width, height) = (case.width, case.height);
        let walls: BTreeSet<TilePos> = case
            .walls
            .iter()
            .map(|&(x, y)| TilePos {
                x: x % width,
                y: y % height,
            })
            .collect();
        let mut app = timed_app();
        let map = spawn_map(&mut app, width, height, |x, y| {
            walls.contains(&TilePos { x, y })
        });
        let regrowth = case.regrowth_ms.map(ms);
        if let Some(after) = regrowth {
            app.world_mut()
                .entity_mut(map)
                .insert(FogRegrowth::after(after));
        }
        let mut units = Vec::new();
        for spec in &case.units {
            let tile = TilePos {
                x: spec.x % width,
                y: spec.y % height,
            };
            let mut e = app.world_mut().spawn((
                Viewshed::new(spec.radius),
                RevealsFog,
                Team(spec.team as u32),
                tile,
                TilemapId(map),
            ));
            if spec.spotted {
                e.insert(CanBeSpotted);
            }
            if spec.detector {
                e.insert(Detector);
            }
            units.push(Unit {
                entity: e.id(),
                team: spec.team,
                spotted: spec.spotted,
                cloaked: false,
                detector: spec.detector,
            });
        }
        let walkers = case
            .walkers
            .iter()
            .map(|&(x, y)| {
                app.world_mut()
                    .spawn((
                        CanBeSpotted,
                        TilePos {
                            x: x % width,
                            y: y % height,
                        },
                        TilemapId(map),
                    ))
                    .id()
            })
            .collect();
        let mut drawn = 0;
        if case.spectator_drawn_first {
            app.insert_resource(DrawnTeam(Team::SPECTATOR));
            drawn = SPEC;
        }
        Sim {
            app,
            map,
            width,
            height,
            walls,
            units,
            walkers,
            gone: Vec::new(),
            reveals: Vec::new(),
            shares: BTreeSet::new(),
            teams: Default::default(),
            spectator: false,
            spectator_asked: false,
            drawn,
            regrowth,
            regrowth_ever: regrowth.is_some(),
            frame: 0,
            history: Vec::new(),
        }
    }

    fn tile(&self, x: u32, y: u32) -> TilePos {
        TilePos {
            x: x % self.width,
            y: y % self.height,
        }
    }

    fn tiles(&self) -> Vec<TilePos> {
        every_tile(TilemapSize::new(self.width, self.height)).collect()
    }

    fn has_fog(&self) -> bool {
        self.app.world().get::<FogOfWar>(self.map).is_some()
    }

    fn fog_mut(&mut self) -> Mut<'_, FogOfWar> {
        fog_mut(&mut self.app, self.map)
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Move { unit, x, y } => {
                let tile = self.tile(x, y);
                let e = self.units[unit % self.units.len()].entity;
                self.app.world_mut().entity_mut(e).insert(tile);
            }
            Op::Step { unit, dx, dy } => {
                let e = self.units[unit % self.units.len()].entity;
                let (w, h) = (self.width, self.height);
                let mut tile = self.app.world_mut().get_mut::<TilePos>(e).unwrap();
                let x = tile.x.saturating_add_signed(dx).min(w - 1);
                let y = tile.y.saturating_add_signed(dy).min(h - 1);
                if (x, y) != (tile.x, tile.y) {
                    *tile = TilePos { x, y };
                }
            }
            Op::ChangeTeam { unit, team } => {
                if team == SPEC && (!self.spectator || lenient("spectator_unit")) {
                    return;
                }
                let i = unit % self.units.len();
                self.units[i].team = team;
                let e = self.units[i].entity;
                self.app.world_mut().entity_mut(e).insert(team_of(team));
            }
            Op::Share { giver, receiver } => {
                vision(&mut self.app).share(Team(giver as u32), Team(receiver as u32));
                if giver != receiver {
                    self.shares.insert((giver, receiver));
                }
            }
            Op::Stop { giver, receiver } => {
                vision(&mut self.app).stop(Team(giver as u32), Team(receiver as u32));
                self.shares.remove(&(giver, receiver));
            }
            Op::Draw { team } => {
                self.drawn = team;
                self.app.insert_resource(DrawnTeam(team_of(team)));
            }
            Op::Reveal {
                team,
                x,
                y,
                radius,
                lifetime_ms,
                through,
            } => {
                let tile = self.tile(x, y);
                let mut reveal = Reveal::new(radius, ms(lifetime_ms));
                if through {
                    reveal = reveal.through_walls();
                }
                let world = self.app.world_mut();
                let mut e = world.spawn((reveal, tile, TilemapId(self.map)));
                if let Some(team) = team {
                    e.insert(Team(team as u32));
                }
                let entity = e.id();
                let probe = (!through).then(|| {
                    world
                        .spawn((Viewshed::new(radius), tile, TilemapId(self.map)))
                        .id()
                });
                self.reveals.push(LiveReveal {
                    entity,
                    probe,
                    team: team.unwrap_or(0),
                    tile,
                    radius,
                    through,
                    left: ms(lifetime_ms),
                    fresh: true,
                });
            }
            Op::ToggleWall { x, y } => {
                let tile = self.tile(x, y);
                let e = tile_entity(&self.app, self.map, tile.x, tile.y);
                if self.walls.remove(&tile) {
                    self.app.world_mut().entity_mut(e).remove::<Opaque>();
                } else {
                    self.walls.insert(tile);
                    self.app.world_mut().entity_mut(e).insert(Opaque);
                }
            }
            Op::MoveWalker { walker, x, y } => {
                if self.walkers.is_empty() {
                    return;
                }
                let tile = self.tile(x, y);
                let e = self.walkers[walker % self.walkers.len()];
                self.app.world_mut().entity_mut(e).insert(tile);
            }
            Op::DespawnWalker { walker } => {
                if self.walkers.is_empty() {
                    return;
                }
                let e = self.walkers.remove(walker % self.walkers.len());
                self.app.world_mut().despawn(e);
                self.gone.push(e);
                for team in &mut self.teams {
                    team.last_seen.remove(&e);
                }
            }
            Op::ExploreAll { team } => {
                if !self.has_fog() {
                    return;
                }
                self.fog_mut().team_mut(Team(team as u32)).explore_all();
                let tiles = self.tiles();
                for tile in tiles {
                    self.teams[team].explore(tile);
                }
            }
            Op::SetExplored {
                team,
                x,
                y,
                explored,
            } => {
                if !self.has_fog() {
                    return;
                }
                let tile = self.tile(x, y);
                self.fog_mut()
                    .team_mut(Team(team as u32))
                    .set_explored(tile, explored);
                let model = &mut self.teams[team];
                if explored {
                    model.explore(tile);
                } else if !model.visible.contains(&tile) {
                    // A tile seen now cannot be forgotten.
                    model.forget(tile);
                }
            }
            Op::ForgetAll { team } => {
                if !self.has_fog() {
                    return;
                }
                self.fog_mut().team_mut(Team(team as u32)).forget_all();
                let model = &mut self.teams[team];
                let forgotten: Vec<TilePos> = model
                    .explored
                    .iter()
                    .filter(|t| !model.visible.contains(t))
                    .copied()
                    .collect();
                for tile in forgotten {
                    model.forget(tile);
                }
            }
            Op::RemoveRegrowth => {
                self.app
                    .world_mut()
                    .entity_mut(self.map)
                    .remove::<FogRegrowth>();
                self.regrowth = None;
            }
            Op::AskSpectator => {
                if !self.has_fog() {
                    return;
                }
                self.fog_mut().team_mut(Team::SPECTATOR);
                self.spectator_asked = true;
            }
            Op::Cloak { unit, on } => {
                let i = unit % self.units.len();
                if !self.units[i].spotted {
                    return;
                }
                self.units[i].cloaked = on;
                let mut e = self.app.world_mut().entity_mut(self.units[i].entity);
                if on {
                    e.insert(Cloaked);
                } else {
                    e.remove::<Cloaked>();
                }
            }
            Op::Detect { unit, on } => {
                if lenient("detector_at_rest") {
                    return;
                }
                let i = unit % self.units.len();
                self.units[i].detector = on;
                let mut e = self.app.world_mut().entity_mut(self.units[i].entity);
                if on {
                    e.insert(Detector);
                } else {
                    e.remove::<Detector>();
                }
            }
        }
    }

    /// The cloaked units alive.
    fn cloaked(&self) -> BTreeSet<Entity> {
        self.units
            .iter()
            .filter(|u| u.cloaked)
            .map(|u| u.entity)
            .collect()
    }

    /// What each team detects: its own detectors' views and its givers' (not passed on); the
    /// spectator, what any team's detectors see.
    fn detection(&self) -> [BTreeSet<TilePos>; 4] {
        let mut own: [BTreeSet<TilePos>; 4] = Default::default();
        for unit in self.units.iter().filter(|u| u.detector) {
            own[unit.team].extend(viewshed(&self.app, unit.entity).iter());
        }
        std::array::from_fn(|t| {
            if t == SPEC {
                return own.iter().flatten().copied().collect();
            }
            let mut detected = own[t].clone();
            for &(giver, receiver) in &self.shares {
                if receiver == t {
                    detected.extend(own[giver].iter().copied());
                }
            }
            detected
        })
    }

    /// The spottable entities alive, on their tiles.
    fn tracked(&self) -> Vec<(Entity, TilePos)> {
        let world = self.app.world();
        self.units
            .iter()
            .filter(|u| u.spotted)
            .map(|u| u.entity)
            .chain(self.walkers.iter().copied())
            .map(|e| (e, *world.get::<TilePos>(e).unwrap()))
            .collect()
    }

    /// The model's step for the update that just ran.
    fn observe(&mut self) -> (Duration, Vec<Entity>) {
        let time = self.app.world().resource::<Time>();
        let (now, delta) = (time.elapsed(), time.delta());

        // Reveals run down from their first update on; one that runs out in this update does
        // not count.
        let mut ran_out = Vec::new();
        for reveal in &mut self.reveals {
            if reveal.fresh {
                reveal.fresh = false;
            } else {
                reveal.left = reveal.left.saturating_sub(delta);
            }
        }
        let (alive, out): (Vec<_>, Vec<_>) = std::mem::take(&mut self.reveals)
            .into_iter()
            .partition(|r| !r.left.is_zero());
        self.reveals = alive;
        for reveal in out {
            ran_out.push(reveal.entity);
            if let Some(probe) = reveal.probe {
                self.app.world_mut().despawn(probe);
            }
        }

        // Each team's own view.
        let mut own: [BTreeSet<TilePos>; 4] = Default::default();
        for unit in &self.units {
            own[unit.team].extend(viewshed(&self.app, unit.entity).iter());
        }
        for reveal in &self.reveals {
            let area: BTreeSet<TilePos> = match reveal.probe {
                Some(probe) => viewshed(&self.app, probe).iter().collect(),
                None => disc(reveal.tile, reveal.radius, self.width, self.height),
            };
            own[reveal.team].extend(area);
        }
        // What each team sees: its own, and its givers' own.
        let view: [BTreeSet<TilePos>; 4] = std::array::from_fn(|t| {
            if t == SPEC {
                return own.iter().flatten().copied().collect();
            }
            let mut view = own[t].clone();
            for &(giver, receiver) in &self.shares {
                if receiver == t {
                    view.extend(own[giver].iter().copied());
                }
            }
            view
        });

        let mut grown_now = BTreeSet::new();
        for (team, view) in self.teams.iter_mut().zip(&view).take(TEAMS) {
            grown_now.extend(team.advance(view, now, self.regrowth));
        }

        // The spectator gets a fog in the first update it is drawn in, or after `team_mut`.
        let spectator_new = !self.spectator && (self.spectator_asked || self.drawn == SPEC);
        if self.spectator || spectator_new {
            // Every tile any team remembers, with the latest of their clocks.
            let mut union: BTreeMap<TilePos, Duration> = BTreeMap::new();
            for t in 0..TEAMS {
                for &tile in &self.teams[t].explored {
                    let clock = self.teams[t].clock[&tile];
                    let entry = union.entry(tile).or_insert(clock);
                    *entry = (*entry).max(clock);
                }
            }
            if spectator_new {
                // What the teams remembered coming into this update and grew back in it.
                for &tile in &grown_now {
                    union.entry(tile).or_insert(now);
                }
            }
            let spec = &mut self.teams[SPEC];
            for (tile, clock) in union {
                if spec.explored.insert(tile) {
                    // Explored for the spectator in this update.
                    spec.clock.insert(tile, now);
                    if spectator_new {
                        spec.unsure.insert(tile);
                    } else {
                        spec.by_game.insert(tile);
                    }
                }
                // Its own clock: a tile it already remembers keeps the time it last saw it
                // (docs/strategy.md: "by its own clock").
                spec.clock.entry(tile).or_insert(clock);
            }
            if spectator_new {
                let known: BTreeSet<Entity> = (0..TEAMS)
                    .flat_map(|t| self.teams[t].last_seen.keys().copied())
                    .collect();
                for e in known {
                    self.teams[SPEC].last_seen.insert(e, None);
                }
            }
            let keep = (0..TEAMS).flat_map(|t| self.teams[t].explored.iter().copied());
            self.teams[SPEC].keep = keep.collect();
            self.teams[SPEC].advance(&view[SPEC], now, self.regrowth);
            self.spectator = true;
        }

        // Where each team saw the spottable entities (a cloaked one, where it also detects).
        let cloaked = self.cloaked();
        let detection = self.detection();
        for (entity, tile) in self.tracked() {
            for (t, view) in view.iter().enumerate() {
                if (t != SPEC || self.spectator)
                    && view.contains(&tile)
                    && (!cloaked.contains(&entity) || detection[t].contains(&tile))
                {
                    self.teams[t].last_seen.insert(entity, Some((tile, now)));
                }
            }
        }
        (now, ran_out)
    }

    fn frame(&mut self, ops: &[Op]) -> Result<(), String> {
        for &op in ops {
            self.apply(op);
        }
        self.app.update();
        let (now, ran_out) = self.observe();
        self.history
            .push(format!("frame {} at {now:?}: {ops:?}", self.frame));
        let frame = self.frame;
        self.frame += 1;
        self.check(now, &ran_out).map_err(|e| {
            format!(
                "frame {frame} (t = {now:?}, after {ops:?}): {e}\n{}\nhistory:\n{}",
                self.describe(),
                self.history.join("\n")
            )
        })
    }

    fn actual_state(&self, team: usize, tile: TilePos) -> FogState {
        fog(&self.app, self.map)
            .team(team_of(team))
            .map_or(FogState::Unexplored, |f| f.state(tile))
    }

    fn check(&mut self, now: Duration, ran_out: &[Entity]) -> Result<(), String> {
        let world = self.app.world();
        let fog = world
            .get::<FogOfWar>(self.map)
            .ok_or("the map has no FogOfWar")?;
        if fog.drawn_team() != team_of(self.drawn) {
            return Err(format!(
                "the map draws {:?}, the game draws {}",
                fog.drawn_team(),
                team_name(self.drawn)
            ));
        }
        if !self.spectator
            && let Some(f) = fog.team(Team::SPECTATOR)
            && (f.explored_tiles().count() > 0 || f.visible_tiles().count() > 0)
        {
            return Err("the map's fog holds a spectator's view, never drawn nor asked for".into());
        }

        let mut grown_back_unsure = Vec::new();
        let mut lost = Vec::new();
        for t in 0..4 {
            if t == SPEC && !self.spectator {
                continue;
            }
            let mismatched: Vec<(TilePos, FogState, FogState)> = self
                .tiles()
                .into_iter()
                .filter_map(|tile| {
                    let (want, got) = (self.teams[t].state(tile), self.actual_state(t, tile));
                    (want != got).then_some((tile, want, got))
                })
                .collect();
            let mut real = Vec::new();
            for (tile, want, got) in mismatched {
                // The spectator's tiles taken from the teams when it got its fog, that no
                // team remembers any longer: the page does not say when they grow back.
                let open = t == SPEC
                    && self.regrowth.is_some()
                    && self.teams[SPEC].unsure.contains(&tile)
                    && want == FogState::Remembered
                    && got == FogState::Unexplored
                    && (0..TEAMS).all(|u| !self.teams[u].explored.contains(&tile));
                // Known: the spectator loses a tile a team explored by the game while the
                // spectator's own clock of it is older (see the header).
                let memory = lenient("spectator_memory");
                let regrowth = lenient("spectator_regrowth") && self.regrowth_ever;
                let known = t == SPEC
                    && want != FogState::Visible
                    && got != FogState::Visible
                    && ((self.teams[SPEC].disputed.contains(&tile) && (memory || regrowth))
                        || (memory
                            && want == FogState::Remembered
                            && (0..TEAMS).any(|u| self.teams[u].by_game.contains(&tile)))
                        || (regrowth
                            && (0..TEAMS).all(|u| !self.teams[u].explored.contains(&tile))));
                if known {
                    lost.push((tile, got));
                } else if open {
                    grown_back_unsure.push(tile);
                } else {
                    real.push((tile, want, got));
                }
            }
            if !real.is_empty() {
                return Err(format!(
                    "{}'s fog: (tile, the page says, the plugin has) {:?}\n{}",
                    team_name(t),
                    real.iter()
                        .map(|(p, w, g)| format!("({}, {}) {w:?} != {g:?}", p.x, p.y))
                        .collect::<Vec<_>>(),
                    self.render(t)
                ));
            }
        }
        for tile in grown_back_unsure {
            self.teams[SPEC].forget(tile);
        }
        let spec = &mut self.teams[SPEC];
        for (tile, got) in lost {
            spec.disputed.insert(tile);
            if got == FogState::Unexplored {
                spec.explored.remove(&tile);
                spec.seen_at.remove(&tile);
            } else {
                spec.explored.insert(tile);
                spec.clock.insert(tile, now);
            }
        }

        // The drawn team's fog is the one `state` reads.
        for tile in self.tiles() {
            let drawn = self.actual_state(self.drawn, tile);
            let got = fog.state(tile);
            if got != drawn {
                return Err(format!(
                    "FogOfWar::state({tile:?}) is {got:?}, {}'s (drawn) is {drawn:?}",
                    team_name(self.drawn)
                ));
            }
        }

        for &e in ran_out {
            if world.get_entity(e).is_ok() {
                return Err(format!("the reveal {e} ran out and is still there"));
            }
        }
        for reveal in &self.reveals {
            if world.get_entity(reveal.entity).is_err() {
                return Err(format!(
                    "the reveal {} was despawned with {:?} left",
                    reveal.entity, reveal.left
                ));
            }
        }
        self.check_knowledge(now)
    }

    fn check_knowledge(&mut self, now: Duration) -> Result<(), String> {
        let map = self.map;
        let teams: Vec<usize> = (0..4).filter(|&t| t != SPEC || self.spectator).collect();
        let tracked = self.tracked();
        let entities: Vec<Entity> = tracked
            .iter()
            .map(|&(e, _)| e)
            .chain(self.gone.iter().copied())
            .collect();
        let pairs: Vec<(usize, Entity)> = teams
            .iter()
            .flat_map(|&t| entities.iter().map(move |&e| (t, e)))
            .collect();
        let tiles = self.tiles();
        let cells: Vec<(usize, TilePos)> = teams
            .iter()
            .flat_map(|&t| tiles.iter().map(move |&p| (t, p)))
            .collect();
        let sinces: Vec<Duration> = vec![
            Duration::ZERO,
            now,
            now.saturating_sub(STEP / 2),
            now.saturating_sub(STEP * 2),
            now.saturating_sub(STEP * 5),
        ];
        let since_asks: Vec<(usize, Duration)> = teams
            .iter()
            .flat_map(|&t| sinces.iter().map(move |&s| (t, s)))
            .collect();
        let (q_pairs, q_cells, q_since) = (pairs.clone(), cells.clone(), since_asks.clone());
        #[allow(clippy::type_complexity)]
        let (sees, last, seen_at, since): (
            Vec<bool>,
            Vec<Option<(Entity, TilePos, Duration)>>,
            Vec<Option<Duration>>,
            Vec<BTreeSet<TilePos>>,
        ) = self
            .app
            .world_mut()
            .run_system_once(move |k: TeamKnowledge| {
                (
                    q_pairs
                        .iter()
                        .map(|&(t, e)| k.sees(team_of(t), e))
                        .collect::<Vec<bool>>(),
                    q_pairs
                        .iter()
                        .map(|&(t, e)| k.last_seen(team_of(t), e).as_ref().map(sighting_parts))
                        .collect::<Vec<_>>(),
                    q_cells
                        .iter()
                        .map(|&(t, p)| k.tile_seen_at(map, team_of(t), p))
                        .collect::<Vec<_>>(),
                    q_since
                        .iter()
                        .map(|&(t, s)| {
                            k.tiles_seen_since(map, team_of(t), s)
                                .into_iter()
                                .collect::<BTreeSet<TilePos>>()
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .map_err(|e| format!("TeamKnowledge did not run: {e}"))?;

        let where_now: BTreeMap<Entity, TilePos> = tracked.into_iter().collect();
        let cloaked = self.cloaked();
        let detection = self.detection();
        for &t in &teams {
            let got: BTreeSet<TilePos> = fog(&self.app, map)
                .team(team_of(t))
                .map(|f| {
                    tiles
                        .iter()
                        .copied()
                        .filter(|&p| f.is_detected(p))
                        .collect()
                })
                .unwrap_or_default();
            if got != detection[t] {
                return Err(format!(
                    "TeamFog::is_detected of {}: it has {:?}, the page says {:?}",
                    team_name(t),
                    got.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>(),
                    detection[t].iter().map(|p| (p.x, p.y)).collect::<Vec<_>>()
                ));
            }
        }
        for (i, &(t, e)) in pairs.iter().enumerate() {
            let model = &self.teams[t];
            let want_sees = where_now.get(&e).is_some_and(|tile| {
                model.visible.contains(tile)
                    && (!cloaked.contains(&e) || detection[t].contains(tile))
            });
            if sees[i] != want_sees {
                return Err(format!(
                    "TeamKnowledge::sees({}, {e}) is {}, the page says {want_sees} (it stands on {:?})",
                    team_name(t),
                    sees[i],
                    where_now.get(&e)
                ));
            }
            if lenient("despawned") && self.gone.contains(&e) {
                continue;
            }
            let want = match model.last_seen.get(&e) {
                Some(None) => continue,
                Some(Some((tile, at))) => Some((map, *tile, *at)),
                None => None,
            };
            if last[i] != want {
                return Err(format!(
                    "TeamKnowledge::last_seen({}, {e}) is {:?}, the page says {want:?}{}",
                    team_name(t),
                    last[i],
                    if self.gone.contains(&e) {
                        " (despawned)"
                    } else {
                        ""
                    }
                ));
            }
        }
        for (i, &(t, tile)) in cells.iter().enumerate() {
            let model = &self.teams[t];
            if model.unsure.contains(&tile)
                || model.disputed.contains(&tile)
                || (lenient("by_game") && model.by_game.contains(&tile))
            {
                continue;
            }
            let want = model.seen_at.get(&tile).copied();
            if seen_at[i] != want {
                return Err(format!(
                    "TeamKnowledge::tile_seen_at({}, ({}, {})) is {:?}, the page says {want:?} (state {:?})\n{}",
                    team_name(t),
                    tile.x,
                    tile.y,
                    seen_at[i],
                    model.state(tile),
                    self.render(t)
                ));
            }
        }
        for (i, &(t, s)) in since_asks.iter().enumerate() {
            let model = &self.teams[t];
            let want: BTreeSet<TilePos> = model
                .seen_at
                .iter()
                .filter(|&(tile, &at)| {
                    at >= s && !model.unsure.contains(tile) && !model.disputed.contains(tile)
                })
                .map(|(&tile, _)| tile)
                .filter(|tile| !(lenient("by_game") && model.by_game.contains(tile)))
                .collect();
            let got: BTreeSet<TilePos> = since[i]
                .iter()
                .filter(|tile| !model.unsure.contains(tile) && !model.disputed.contains(tile))
                .filter(|tile| !(lenient("by_game") && model.by_game.contains(tile)))
                .copied()
                .collect();
            if got != want {
                return Err(format!(
                    "TeamKnowledge::tiles_seen_since({}, {s:?}): it has {:?}, the page says {:?}",
                    team_name(t),
                    got.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>(),
                    want.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>()
                ));
            }
        }
        Ok(())
    }

    /// The page's fog and the plugin's for team `t`, side by side, top row first: `V` visible,
    /// `r` remembered, `.` unexplored; then the walls (`#`) and units (their team's digit).
    fn render(&self, t: usize) -> String {
        let world = self.app.world();
        let mut out = String::from("  page | plugin | walls, units\n");
        let glyph = |s: FogState| match s {
            FogState::Visible => 'V',
            FogState::Remembered => 'r',
            FogState::Unexplored => '.',
        };
        for y in (0..self.height).rev() {
            let mut line = String::from("  ");
            for x in 0..self.width {
                line.push(glyph(self.teams[t].state(TilePos { x, y })));
            }
            line.push_str(" | ");
            for x in 0..self.width {
                line.push(glyph(self.actual_state(t, TilePos { x, y })));
            }
            line.push_str(" | ");
            for x in 0..self.width {
                let tile = TilePos { x, y };
                let unit = self
                    .units
                    .iter()
                    .find(|u| world.get::<TilePos>(u.entity) == Some(&tile));
                line.push(match unit {
                    Some(u) if u.team == SPEC => 'S',
                    Some(u) => char::from_digit(u.team as u32, 10).unwrap(),
                    None if self.walls.contains(&tile) => '#',
                    None => '_',
                });
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    fn describe(&self) -> String {
        let world = self.app.world();
        let units: Vec<String> = self
            .units
            .iter()
            .map(|u| {
                let tile = world.get::<TilePos>(u.entity).unwrap();
                format!(
                    "{} of {} on ({}, {}){}{}{}",
                    u.entity,
                    team_name(u.team),
                    tile.x,
                    tile.y,
                    if u.spotted { " spottable" } else { "" },
                    if u.cloaked { " cloaked" } else { "" },
                    if u.detector { " detector" } else { "" }
                )
            })
            .collect();
        let reveals: Vec<String> = self
            .reveals
            .iter()
            .map(|r| {
                format!(
                    "{} of team {} on ({}, {}) r{}{} {:?} left",
                    r.entity,
                    r.team,
                    r.tile.x,
                    r.tile.y,
                    r.radius,
                    if r.through { " through walls" } else { "" },
                    r.left
                )
            })
            .collect();
        format!(
            "units: [{}]; reveals: [{}]; shares (giver, receiver): {:?}; drawn: {}; spectator: {}; regrowth: {:?}",
            units.join(", "),
            reveals.join(", "),
            self.shares,
            team_name(self.drawn),
            self.spectator,
            self.regrowth
        )
    }
}

// --- The random games ---------------------------------------------------------------------

const W: u32 = 9;
const H: u32 = 6;

fn unit_spec() -> impl Strategy<Value = UnitSpec> {
    (
        0..W,
        0..H,
        2..=4u32,
        0..TEAMS,
        prop::bool::weighted(0.5),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(x, y, radius, team, spotted, detector)| UnitSpec {
            x,
            y,
            radius,
            team,
            spotted,
            detector,
        })
}

fn op() -> impl Strategy<Value = Op> {
    let team = || 0..TEAMS;
    let unit = || 0..6usize;
    prop_oneof![
        4 => (unit(), 0..W, 0..H).prop_map(|(unit, x, y)| Op::Move { unit, x, y }),
        3 => (unit(), -1..=1i32, -1..=1i32).prop_map(|(unit, dx, dy)| Op::Step { unit, dx, dy }),
        2 => (unit(), 0..=TEAMS).prop_map(|(unit, team)| Op::ChangeTeam { unit, team }),
        3 => (team(), team()).prop_map(|(giver, receiver)| Op::Share { giver, receiver }),
        2 => (team(), team()).prop_map(|(giver, receiver)| Op::Stop { giver, receiver }),
        2 => (0..=TEAMS).prop_map(|team| Op::Draw { team }),
        3 => (
            prop::option::weighted(0.8, team()),
            0..W,
            0..H,
            1..=4u32,
            // (A zero lifetime has a test of its own.)
            prop::sample::select(vec![50u64, 100, 150, 200, 250, 300, 450]),
            any::<bool>(),
        )
            .prop_map(|(team, x, y, radius, lifetime_ms, through)| Op::Reveal {
                team,
                x,
                y,
                radius,
                lifetime_ms,
                through,
            }),
        2 => (0..W, 0..H).prop_map(|(x, y)| Op::ToggleWall { x, y }),
        2 => (0..3usize, 0..W, 0..H).prop_map(|(walker, x, y)| Op::MoveWalker { walker, x, y }),
        1 => (0..3usize).prop_map(|walker| Op::DespawnWalker { walker }),
        1 => team().prop_map(|team| Op::ExploreAll { team }),
        2 => (team(), 0..W, 0..H, any::<bool>())
            .prop_map(|(team, x, y, explored)| Op::SetExplored { team, x, y, explored }),
        1 => team().prop_map(|team| Op::ForgetAll { team }),
        1 => Just(Op::RemoveRegrowth),
        1 => Just(Op::AskSpectator),
        2 => (unit(), any::<bool>()).prop_map(|(unit, on)| Op::Cloak { unit, on }),
        2 => (unit(), any::<bool>()).prop_map(|(unit, on)| Op::Detect { unit, on }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        5..=W,
        3..=H,
        prop::collection::vec((0..W, 0..H), 0..9),
        prop::collection::vec(unit_spec(), 3..=5),
        prop::collection::vec((0..W, 0..H), 0..=2),
        prop::option::weighted(0.6, prop::sample::select(vec![100u64, 200, 250, 300, 500])),
        prop::bool::weighted(0.3),
        prop::collection::vec(prop::collection::vec(op(), 0..5), 1..25),
    )
        .prop_map(
            |(width, height, walls, units, walkers, regrowth_ms, spectator_drawn_first, frames)| {
                Case {
                    width,
                    height,
                    walls,
                    units,
                    walkers,
                    regrowth_ms,
                    spectator_drawn_first,
                    frames,
                }
            },
        )
}

fn play(case: &Case) -> Result<(), String> {
    let mut sim = Sim::new(case);
    for ops in &case.frames {
        sim.frame(ops)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(common_app::model_config())]

    #[test]
    fn strategy_rules_follow_the_page(case in case()) {
        play(&case).map_err(TestCaseError::fail)?;
    }
}
