//! The radar of `docs/strategy.md` ("Radar: `Radar`, `RadarContacts`") and the child `Reveal`
//! of its "Temporary reveals" section, written from that page alone and held against the
//! plugin: first frame by frame on small hand-made maps with the exact contact lists expected,
//! then against a plain model of the page in random games (`PROPTEST_CASES` sets how many, 64
//! by default).
//!
//! The rules as this file reads them: a `Radar::new(radius)` of a `Team` (team 0 without one)
//! finds, on its own map, every entity with `CanBeSpotted`, `HidesOutsideView`, `LeavesGhost`
//! or `FogSprite` that has a `Team` other than the radar's, is not `Cloaked`, and stands at
//! `dx² + dy² <= radius²` from the radar's tile, walls or not. A map's
//! `RadarContacts::of(team)` is the tile of each entity found by the team's radars or by the
//! radars of the teams that share their sight with it (`SharedVision`, not passed on), the
//! team's own entities left out, each entity once, sorted by `y` then `x`; the spectator's are
//! those found by every team's radars. Everything is found again at each update.
//!
//! Where the page leaves a choice open, the test takes one and says so:
//! - `of(team)` is read as a list of `TilePos` (a slice, a `Vec` or an iterator of `TilePos`
//!   or `&TilePos` all do: see `listed`). A team with no radar anywhere has an empty list.
//! - A radar "finds every entity that has a `Team` other than the radar's"; a team's list
//!   leaves out its own entities and those of the teams that share their sight with it (the
//!   page says so since the rts_skirmish example showed allies as blips).
//! - A radar without `Team` finds for team 0, but as a target, an entity without `Team` (a
//!   radar among them) is no one's enemy: it is never a contact.
//! - A `Cloaked` entity gives no contact even on tiles its enemy detects (the page gives no
//!   exception).
//! - The spectator's contacts: the page ties them to nothing but "every team's radars", so
//!   one test reads `of(Team::SPECTATOR)` on a map where the spectator was never drawn nor
//!   asked for (`a_spectators_contacts_need_no_spectator_fog`). The random games ask for the
//!   spectator's fog on every map first, so that they hold whichever way that is read.
//!   Entities and radars of `Team::SPECTATOR` itself are left out (the page says nothing of
//!   their contacts).
//! - `FogSprite` entities are tested as `FogSprite::Remembered` (feature `render`); whether a
//!   `FogSprite::Ignored` one is followed is left open.
//! - A child reveal's `lifetime` starts at the first update it is in (as in
//!   `tests/strategy_rules.rs`): the delta of that update does not run it down. Bevy's first
//!   update has no delta, so with `TimeUpdateStrategy::ManualDuration(STEP)` the n-th update
//!   runs at `(n - 1) * STEP`.
//! - A child `Reveal` without `Team` reveals for team 0 (the page's rule for any `Reveal`),
//!   not for its parent's team.

mod common_app;

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
#[cfg(feature = "render")]
use bevy_viewshed::FogSprite;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    CanBeSpotted, Cloaked, Detector, DrawnTeam, HidesOutsideView, LeavesGhost, Radar,
    RadarContacts, Reveal, SharedVision, Team,
};
use common_app::{fog, spawn_map, tile_entity};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

type Tile = (u32, u32);

/// What the plugin may follow an entity as (or not: `Plain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Plain,
    Spotted,
    Hides,
    Ghost,
    Sprite,
}

impl Kind {
    /// Whether the page counts it as an entity "the plugin follows".
    fn followed(self) -> bool {
        self != Kind::Plain && (self != Kind::Sprite || cfg!(feature = "render"))
    }

    fn insert_on(self, entity: &mut EntityWorldMut) {
        match self {
            Kind::Plain => {}
            Kind::Spotted => {
                entity.insert(CanBeSpotted);
            }
            Kind::Hides => {
                entity.insert(HidesOutsideView);
            }
            Kind::Ghost => {
                entity.insert(LeavesGhost);
            }
            Kind::Sprite => insert_sprite(entity),
        }
    }
}

#[cfg(feature = "render")]
fn insert_sprite(entity: &mut EntityWorldMut) {
    entity.insert((Sprite::default(), FogSprite::Remembered));
}

#[cfg(not(feature = "render"))]
fn insert_sprite(_: &mut EntityWorldMut) {}

// --- Helpers --------------------------------------------------------------------------------

/// The tiles of a contact list, in its order, whatever the list's type.
fn listed<T: Borrow<TilePos>>(list: impl IntoIterator<Item = T>) -> Vec<Tile> {
    list.into_iter()
        .map(|t| {
            let t = t.borrow();
            (t.x, t.y)
        })
        .collect()
}

/// `RadarContacts::of(team)` on `map`.
fn contacts(app: &App, map: Entity, team: Team) -> Vec<Tile> {
    let all = app
        .world()
        .get::<RadarContacts>(map)
        .expect("each map with a fog has a RadarContacts");
    listed(all.of(team))
}

fn place(map: Entity, (x, y): Tile) -> (TilePos, TilemapId) {
    (TilePos { x, y }, TilemapId(map))
}

/// An entity of `kind` at `at` on `map`, of `team` if given.
fn thing(app: &mut App, map: Entity, at: Tile, team: Option<u32>, kind: Kind) -> Entity {
    let mut entity = app.world_mut().spawn(place(map, at));
    if let Some(team) = team {
        entity.insert(Team(team));
    }
    kind.insert_on(&mut entity);
    entity.id()
}

/// A spottable unit of `team` (one the plugin follows).
fn unit(app: &mut App, map: Entity, at: Tile, team: u32) -> Entity {
    thing(app, map, at, Some(team), Kind::Spotted)
}

/// A radar of `team` (no `Team` if `None`) that nothing else follows.
fn radar(app: &mut App, map: Entity, at: Tile, radius: u32, team: Option<u32>) -> Entity {
    let entity = thing(app, map, at, team, Kind::Plain);
    app.world_mut()
        .entity_mut(entity)
        .insert(Radar::new(radius));
    entity
}

fn walk(app: &mut App, entity: Entity, map: Entity, at: Tile) {
    app.world_mut().entity_mut(entity).insert(place(map, at));
}

fn vision(app: &mut App) -> Mut<'_, SharedVision> {
    app.world_mut().resource_mut::<SharedVision>()
}

fn corridor(app: &mut App, width: u32) -> Entity {
    spawn_map(app, width, 1, |_, _| false)
}

fn ask_for_spectator(app: &mut App, map: Entity) {
    let mut fog = app.world_mut().get_mut::<FogOfWar>(map).unwrap();
    fog.team_mut(Team::SPECTATOR);
}

// --- Range, teams and kinds -----------------------------------------------------------------

#[test]
fn every_map_with_a_fog_has_radar_contacts_empty_without_radars() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 6);
    unit(&mut app, map, (2, 0), 1);
    app.update();
    for team in [Team(0), Team(1), Team(7), Team::SPECTATOR] {
        assert_eq!(contacts(&app, map, team), Vec::<Tile>::new(), "{team:?}");
    }
}

/// 13x13, the radar at (6, 6) boxed in by walls on the 8 tiles around it.
fn boxed_radar_map(app: &mut App) -> Entity {
    spawn_map(app, 13, 13, |x, y| {
        let (dx, dy) = (x.abs_diff(6), y.abs_diff(6));
        dx.max(dy) == 1
    })
}

#[test]
fn a_radar_finds_enemies_within_its_radius_through_walls_sorted_by_row_then_column() {
    let mut app = common_app::app();
    let map = boxed_radar_map(&mut app);
    radar(&mut app, map, (6, 6), 3, Some(0));
    // Inside (dx² + dy² <= 9): in no particular order.
    for at in [(6, 9), (9, 6), (8, 8), (4, 4), (3, 6), (6, 6)] {
        unit(&mut app, map, at, 1);
    }
    // Just outside: 10, 16 and 13.
    for at in [(9, 7), (10, 6), (4, 3)] {
        unit(&mut app, map, at, 2);
    }
    // The radar's own team is not an enemy.
    unit(&mut app, map, (7, 6), 0);
    app.update();
    assert_eq!(
        contacts(&app, map, Team(0)),
        vec![(4, 4), (3, 6), (6, 6), (9, 6), (8, 8), (6, 9)]
    );
    // No radar for the other teams.
    assert_eq!(contacts(&app, map, Team(1)), Vec::<Tile>::new());
    assert_eq!(contacts(&app, map, Team(2)), Vec::<Tile>::new());
}

#[test]
fn a_radar_of_radius_zero_finds_its_own_tile_only() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 5);
    radar(&mut app, map, (2, 0), 0, Some(1));
    for x in 0..5 {
        unit(&mut app, map, (x, 0), 0);
    }
    app.update();
    assert_eq!(contacts(&app, map, Team(1)), vec![(2, 0)]);
}

#[test]
fn own_team_and_entities_without_team_are_not_contacts() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 12);
    radar(&mut app, map, (0, 0), 10, Some(1));
    unit(&mut app, map, (2, 0), 1);
    let nobody = thing(&mut app, map, (3, 0), None, Kind::Spotted);
    let zero = unit(&mut app, map, (4, 0), 0);
    unit(&mut app, map, (5, 0), 2);
    app.update();
    assert_eq!(contacts(&app, map, Team(1)), vec![(4, 0), (5, 0)]);

    app.world_mut().entity_mut(nobody).insert(Team(2));
    app.world_mut().entity_mut(zero).remove::<Team>();
    app.update();
    assert_eq!(contacts(&app, map, Team(1)), vec![(3, 0), (5, 0)]);

    app.world_mut().entity_mut(nobody).insert(Team(1));
    app.world_mut().entity_mut(zero).insert(Team(0));
    app.update();
    assert_eq!(contacts(&app, map, Team(1)), vec![(4, 0), (5, 0)]);
}

#[test]
fn a_radar_without_team_finds_for_team_0_and_is_no_contact_itself() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 12);
    let untagged = radar(&mut app, map, (0, 0), 10, None);
    app.world_mut().entity_mut(untagged).insert(CanBeSpotted);
    unit(&mut app, map, (1, 0), 0);
    unit(&mut app, map, (2, 0), 1);
    radar(&mut app, map, (5, 0), 10, Some(1));
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), vec![(2, 0)]);
    // Team 1's radar: the team-0 unit; the radar without `Team` is no one's enemy.
    assert_eq!(contacts(&app, map, Team(1)), vec![(1, 0)]);
}

#[test]
fn only_entities_the_plugin_follows_are_contacts() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 12);
    radar(&mut app, map, (0, 0), 11, Some(0));
    let kinds = [Kind::Plain, Kind::Spotted, Kind::Hides, Kind::Ghost];
    for (x, kind) in (1..).zip(kinds) {
        thing(&mut app, map, (x, 0), Some(1), kind);
    }
    // A viewer, an enemy radar, a detector and a reveal, none of them followed.
    let viewer = (Viewshed::new(2), RevealsFog, Team(1));
    app.world_mut().spawn((viewer, place(map, (6, 0))));
    radar(&mut app, map, (7, 0), 3, Some(1));
    let detector = (Detector, Viewshed::new(1), RevealsFog, Team(1));
    app.world_mut().spawn((detector, place(map, (8, 0))));
    let flare = Reveal::new(1, Duration::from_secs(60));
    app.world_mut().spawn((flare, Team(1), place(map, (9, 0))));
    if cfg!(feature = "render") {
        thing(&mut app, map, (10, 0), Some(1), Kind::Sprite);
    }
    app.update();
    let mut expected = vec![(2, 0), (3, 0), (4, 0)];
    if cfg!(feature = "render") {
        expected.push((10, 0));
    }
    assert_eq!(contacts(&app, map, Team(0)), expected);
}

#[test]
fn a_cloaked_entity_gives_no_contact_even_where_its_enemy_detects() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 8);
    radar(&mut app, map, (0, 0), 7, Some(0));
    let detector = (Detector, Viewshed::new(7), RevealsFog, Team(0));
    app.world_mut().spawn((detector, place(map, (1, 0))));
    let scout = unit(&mut app, map, (3, 0), 1);
    app.world_mut().entity_mut(scout).insert(Cloaked);
    let tank = unit(&mut app, map, (4, 0), 1);
    app.update();
    assert!(
        fog(&app, map)
            .team(Team(0))
            .unwrap()
            .is_detected(TilePos { x: 3, y: 0 })
    );
    assert_eq!(contacts(&app, map, Team(0)), vec![(4, 0)]);

    app.world_mut().entity_mut(scout).remove::<Cloaked>();
    app.world_mut().entity_mut(tank).insert(Cloaked);
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), vec![(3, 0)]);
}

#[test]
fn two_on_a_tile_are_two_contacts_and_one_found_twice_is_one() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 10);
    radar(&mut app, map, (0, 0), 5, Some(0));
    radar(&mut app, map, (6, 0), 5, Some(0));
    // (3, 0) and (5, 0) are in reach of both radars, (9, 0) of the second only.
    for at in [(9, 0), (3, 0), (5, 0), (3, 0)] {
        unit(&mut app, map, at, 1);
    }
    app.update();
    assert_eq!(
        contacts(&app, map, Team(0)),
        vec![(3, 0), (3, 0), (5, 0), (9, 0)]
    );
}

// --- Found again at every update ------------------------------------------------------------

#[test]
fn contacts_follow_moves_radius_changes_and_despawns_at_the_next_update() {
    let mut app = common_app::app();
    let map = corridor(&mut app, 12);
    let r = radar(&mut app, map, (0, 0), 4, Some(0));
    let enemy = unit(&mut app, map, (3, 0), 1);
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), vec![(3, 0)]);
    let steps: [(Entity, Tile, Vec<Tile>); 4] = [
        (enemy, (6, 0), vec![]),
        (enemy, (4, 0), vec![(4, 0)]),
        (r, (8, 0), vec![(4, 0)]),
        (r, (9, 0), vec![]),
    ];
    for (who, to, expected) in steps {
        walk(&mut app, who, map, to);
        app.update();
        assert_eq!(
            contacts(&app, map, Team(0)),
            expected,
            "after a walk to {to:?}"
        );
    }
    app.world_mut().entity_mut(r).insert(Radar::new(5));
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), vec![(4, 0)], "radius 5");
    app.world_mut().entity_mut(enemy).despawn();
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), Vec::<Tile>::new());
    unit(&mut app, map, (7, 0), 1);
    app.world_mut().entity_mut(r).despawn();
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), Vec::<Tile>::new(), "no radar");
}

#[test]
fn a_radar_on_another_map_finds_nothing_here() {
    let mut app = common_app::app();
    let here = corridor(&mut app, 10);
    let there = corridor(&mut app, 10);
    let r = radar(&mut app, there, (0, 0), 9, Some(0));
    let enemy = unit(&mut app, here, (1, 0), 1);
    app.update();
    assert_eq!(contacts(&app, here, Team(0)), Vec::<Tile>::new());
    assert_eq!(contacts(&app, there, Team(0)), Vec::<Tile>::new());

    walk(&mut app, enemy, there, (1, 0));
    app.update();
    assert_eq!(contacts(&app, here, Team(0)), Vec::<Tile>::new());
    assert_eq!(contacts(&app, there, Team(0)), vec![(1, 0)]);

    walk(&mut app, r, here, (0, 0));
    app.update();
    assert_eq!(contacts(&app, here, Team(0)), Vec::<Tile>::new());
    assert_eq!(contacts(&app, there, Team(0)), Vec::<Tile>::new());
}

#[test]
fn a_radar_placed_by_transform_finds_from_the_tile_under_it() {
    let mut app = common_app::app();
    let map = spawn_map(&mut app, 10, 10, |_, _| false);
    // Tiles are 16 world units apart, tile (0, 0) centred on the map's origin: tile (3, 2).
    let at = Vec3::new(3.0 * 16.0 + 3.0, 2.0 * 16.0 - 4.0, 1.0);
    app.world_mut().spawn((
        Radar::new(3),
        Team(0),
        TilemapId(map),
        Transform::from_translation(at),
        GlobalTransform::from_translation(at),
    ));
    unit(&mut app, map, (3, 5), 1);
    unit(&mut app, map, (3, 6), 1);
    unit(&mut app, map, (5, 4), 1);
    unit(&mut app, map, (6, 4), 1);
    app.update();
    assert_eq!(contacts(&app, map, Team(0)), vec![(5, 4), (3, 5)]);
}

// --- Shared sight and the spectator ---------------------------------------------------------

/// A corridor 20 long: team 0's radar at 0, team 1's at 19 (radius 5), team 2's at 10
/// (radius 2), and units each radar finds.
fn three_radars(app: &mut App) -> Entity {
    let map = corridor(app, 20);
    radar(app, map, (0, 0), 5, Some(0));
    radar(app, map, (19, 0), 5, Some(1));
    radar(app, map, (10, 0), 2, Some(2));
    let units = [(2, 1), (4, 2), (16, 0), (17, 2), (9, 1), (11, 0)];
    for (x, team) in units {
        unit(app, map, (x, 0), team);
    }
    map
}

fn lists(app: &App, map: Entity) -> [Vec<u32>; 3] {
    let xs = |team| contacts(app, map, Team(team)).into_iter().map(|t| t.0);
    [xs(0).collect(), xs(1).collect(), xs(2).collect()]
}

#[test]
fn contacts_are_shared_one_way_not_passed_on_and_stop_with_the_sharing() {
    let mut app = common_app::app();
    let map = three_radars(&mut app);
    app.update();
    let own = [vec![2, 4], vec![16, 17], vec![9, 11]];
    assert_eq!(lists(&app, map), own);

    vision(&mut app).share(Team(0), Team(1));
    app.update();
    // Team 0's radar found 2 (team 1's own: left out) and 4; team 1's own radar's 16 is its
    // giver's unit: left out.
    assert_eq!(lists(&app, map), [vec![2, 4], vec![4, 17], vec![9, 11]]);

    vision(&mut app).share(Team(1), Team(2));
    vision(&mut app).share(Team(2), Team(2));
    app.update();
    // Team 2 gets team 1's radar's 16 (17 is its own), not what team 1 gets from team 0; its
    // own radar's 9 is its giver's unit.
    let expected = [vec![2, 4], vec![4, 17], vec![11, 16]];
    assert_eq!(lists(&app, map), expected);

    vision(&mut app).stop(Team(0), Team(1));
    vision(&mut app).stop(Team(1), Team(2));
    app.update();
    assert_eq!(lists(&app, map), own);
}

#[test]
fn a_team_without_radar_gets_its_givers_contacts() {
    let mut app = common_app::app();
    let map = three_radars(&mut app);
    vision(&mut app).share(Team(1), Team(3));
    unit(&mut app, map, (15, 0), 3);
    app.update();
    // Team 1's radar finds 15 (team 3's own: left out), 16 and 17.
    assert_eq!(contacts(&app, map, Team(3)), vec![(16, 0), (17, 0)]);
}

/// How the spectator gets a fog on the map, if at all.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spectator {
    NotAsked,
    Drawn,
    TeamMut,
}

/// Radars of teams 0 and 1 at both ends of a corridor 12 long, radius 6.
fn spectator_game(how: Spectator) {
    let mut app = common_app::app();
    let map = corridor(&mut app, 12);
    radar(&mut app, map, (0, 0), 6, Some(0));
    radar(&mut app, map, (11, 0), 6, Some(1));
    // 5 and 6 are in reach of both radars; 1 (team 0's) is in reach of no enemy radar.
    for (x, team) in [(1, 0), (2, 1), (5, 2), (6, 2), (9, 0)] {
        unit(&mut app, map, (x, 0), team);
    }
    if how == Spectator::Drawn {
        app.insert_resource(DrawnTeam(Team::SPECTATOR));
    }
    app.update();
    if how == Spectator::TeamMut {
        ask_for_spectator(&mut app, map);
        app.update();
    }
    let xs = |team| -> Vec<u32> { contacts(&app, map, team).into_iter().map(|t| t.0).collect() };
    assert_eq!(xs(Team(0)), vec![2, 5, 6]);
    assert_eq!(xs(Team(1)), vec![5, 6, 9]);
    assert_eq!(xs(Team::SPECTATOR), vec![2, 5, 6, 9], "{how:?}");
}

#[test]
fn the_spectators_contacts_are_every_teams_radars_once_drawn() {
    spectator_game(Spectator::Drawn);
}

#[test]
fn the_spectators_contacts_are_every_teams_radars_once_asked_for() {
    spectator_game(Spectator::TeamMut);
}

/// The reading this file takes (see the header): the page ties the spectator's contacts to
/// no spectator fog.
#[test]
fn a_spectators_contacts_need_no_spectator_fog() {
    spectator_game(Spectator::NotAsked);
}

// --- A reveal that follows its parent -------------------------------------------------------

const STEP: Duration = Duration::from_millis(100);

fn timed_app() -> App {
    let mut app = common_app::app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    app
}

fn now(app: &App) -> Duration {
    app.world().resource::<Time>().elapsed()
}

/// The tiles `team` sees on `map` (none if its fog has no view for it).
fn visible(app: &App, map: Entity, team: Team) -> BTreeSet<Tile> {
    let size = *app.world().get::<TilemapSize>(map).unwrap();
    let seen = |t: &TilePos| fog(app, map).team(team).is_some_and(|f| f.is_visible(*t));
    (0..size.y)
        .flat_map(|y| (0..size.x).map(move |x| TilePos { x, y }))
        .filter(seen)
        .map(|t| (t.x, t.y))
        .collect()
}

fn just(tile: Tile) -> BTreeSet<Tile> {
    BTreeSet::from([tile])
}

fn state(app: &App, map: Entity, team: Team, (x, y): Tile) -> FogState {
    fog(app, map)
        .team(team)
        .map_or(FogState::Unexplored, |f| f.state(TilePos { x, y }))
}

/// Gives `unit` a child reveal as the page writes it; returns the child.
fn fire(app: &mut App, unit: Entity, reveal: Reveal, team: Option<u32>) -> Entity {
    let mut parent = app.world_mut().entity_mut(unit);
    match team {
        Some(team) => parent.with_child((reveal, Team(team))),
        None => parent.with_child(reveal),
    };
    let mut reveals = app.world_mut().query_filtered::<Entity, With<Reveal>>();
    let child = reveals.single(app.world()).expect("one reveal");
    assert_eq!(
        app.world().get::<ChildOf>(child).map(ChildOf::parent),
        Some(unit)
    );
    child
}

/// A 12x3 map walled along `y == 0`, a team-1 unit at (8, 1) that team 0 does not see.
fn firing_unit(app: &mut App) -> (Entity, Entity) {
    let map = spawn_map(app, 12, 3, |_, y| y == 0);
    let shooter = unit(app, map, (8, 1), 1);
    app.update(); // t = 0
    assert_eq!(visible(app, map, Team(0)), BTreeSet::new());
    (map, shooter)
}

#[test]
fn a_child_reveal_stands_on_its_parents_tile_and_follows_it_while_it_lasts() {
    let mut app = timed_app();
    let (map, shooter) = firing_unit(&mut app);
    let two_seconds = Reveal::new(0, Duration::from_secs(2)).through_walls();
    let flash = fire(&mut app, shooter, two_seconds, Some(0));
    app.update(); // t = 100: the first update it is in, 2 s left
    assert_eq!(visible(&app, map, Team(0)), just((8, 1)));
    assert_eq!(
        visible(&app, map, Team(1)),
        BTreeSet::new(),
        "for team 0 only"
    );
    walk(&mut app, shooter, map, (5, 2));
    app.update(); // t = 200
    assert_eq!(visible(&app, map, Team(0)), just((5, 2)));
    assert_eq!(state(&app, map, Team(0), (8, 1)), FogState::Remembered);
    walk(&mut app, shooter, map, (0, 0)); // onto a wall: through walls
    while now(&app) < Duration::from_millis(2000) {
        app.update(); // up to t = 2000: 100 ms left there
        assert_eq!(
            visible(&app, map, Team(0)),
            just((0, 0)),
            "at {:?}",
            now(&app)
        );
    }
    app.update(); // t = 2100: it runs out
    assert_eq!(visible(&app, map, Team(0)), BTreeSet::new());
    assert!(app.world().get_entity(flash).is_err(), "despawned");
    assert!(app.world().get_entity(shooter).is_ok(), "its parent stays");
}

#[test]
fn a_child_reveal_follows_its_parent_to_another_map() {
    let mut app = timed_app();
    let (map, shooter) = firing_unit(&mut app);
    let other = corridor(&mut app, 6);
    fire(
        &mut app,
        shooter,
        Reveal::new(0, Duration::from_secs(2)).through_walls(),
        Some(0),
    );
    app.update();
    assert_eq!(visible(&app, map, Team(0)), just((8, 1)));
    walk(&mut app, shooter, other, (4, 0));
    app.update();
    assert_eq!(visible(&app, map, Team(0)), BTreeSet::new());
    assert_eq!(state(&app, map, Team(0), (8, 1)), FogState::Remembered);
    assert_eq!(visible(&app, other, Team(0)), just((4, 0)));
}

#[test]
fn a_child_reveal_without_team_reveals_for_team_0_not_its_parents_team() {
    let mut app = timed_app();
    let (map, shooter) = firing_unit(&mut app);
    fire(
        &mut app,
        shooter,
        Reveal::new(0, Duration::from_secs(1)).through_walls(),
        None,
    );
    app.update();
    assert_eq!(visible(&app, map, Team(0)), just((8, 1)));
    assert_eq!(visible(&app, map, Team(1)), BTreeSet::new());
}

// --- The random games -----------------------------------------------------------------------

/// Teams 0..TEAMS have entities and radars; team TEAMS has none and only receives.
const TEAMS: u32 = 3;
const MAX_W: u32 = 9;
const MAX_H: u32 = 7;

/// An entity of the game: where it stands and what it is, as the model holds it.
#[derive(Clone, Copy, Debug)]
struct Spec {
    map: usize,
    at: Tile,
    team: Option<u32>,
    kind: Kind,
    cloaked: bool,
    radar: Option<u32>,
}

/// A change to one living thing (the `thing`-th spawned, modulo their number).
#[derive(Clone, Copy, Debug)]
enum Change {
    Move { map: usize, at: Tile },
    Team(Option<u32>),
    Cloak(bool),
    Radar(Option<u32>),
    Despawn,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn(Spec),
    Change { thing: usize, change: Change },
    Share { giver: u32, receiver: u32 },
    Stop { giver: u32, receiver: u32 },
    ToggleWall { map: usize, at: Tile },
}

#[derive(Clone, Debug)]
struct Case {
    sizes: [Tile; 2],
    walls: Vec<(usize, Tile)>,
    things: Vec<Spec>,
    spectator_drawn: bool,
    frames: Vec<Vec<Op>>,
}

struct Thing {
    entity: Entity,
    alive: bool,
    spec: Spec,
}

struct Sim {
    app: App,
    maps: [Entity; 2],
    sizes: [Tile; 2],
    things: Vec<Thing>,
    shares: BTreeSet<(u32, u32)>,
    history: Vec<String>,
}

fn dist2((ax, ay): Tile, (bx, by): Tile) -> u64 {
    let (dx, dy) = (u64::from(ax.abs_diff(bx)), u64::from(ay.abs_diff(by)));
    dx * dx + dy * dy
}

/// Whether a radar with `spec` finds the entity with `target`, by the page.
fn finds(spec: &Spec, target: &Spec) -> bool {
    let Some(radius) = spec.radar else {
        return false;
    };
    let radar_team = spec.team.unwrap_or(0);
    let r2 = u64::from(radius) * u64::from(radius);
    spec.map == target.map
        && target.kind.followed()
        && !target.cloaked
        && target.team.is_some_and(|t| t != radar_team)
        && dist2(spec.at, target.at) <= r2
}

impl Sim {
    fn new(case: &Case) -> Self {
        let mut app = common_app::app();
        let wall = |m: usize, x: u32, y: u32| {
            let (w, h) = case.sizes[m];
            let fits = |(wx, wy): Tile| (wx % w, wy % h) == (x, y);
            case.walls.iter().any(|&(wm, at)| wm == m && fits(at))
        };
        let maps = [0, 1].map(|m| {
            let (w, h) = case.sizes[m];
            spawn_map(&mut app, w, h, |x, y| wall(m, x, y))
        });
        if case.spectator_drawn {
            app.insert_resource(DrawnTeam(Team::SPECTATOR));
        }
        let mut sim = Sim {
            app,
            maps,
            sizes: case.sizes,
            things: Vec::new(),
            shares: BTreeSet::new(),
            history: Vec::new(),
        };
        for &spec in &case.things {
            sim.spawn(spec);
        }
        sim
    }

    /// The first update, then the spectator's fog asked for on both maps, then a second.
    fn start(&mut self) -> Result<(), String> {
        self.app.update();
        for map in self.maps {
            ask_for_spectator(&mut self.app, map);
        }
        self.history.push("start".into());
        self.app.update();
        self.check()
    }

    fn fit(&self, map: usize, (x, y): Tile) -> Tile {
        let (w, h) = self.sizes[map];
        (x % w, y % h)
    }

    fn spawn(&mut self, mut spec: Spec) {
        spec.at = self.fit(spec.map, spec.at);
        let entity = thing(
            &mut self.app,
            self.maps[spec.map],
            spec.at,
            spec.team,
            spec.kind,
        );
        let mut e = self.app.world_mut().entity_mut(entity);
        if spec.cloaked {
            e.insert(Cloaked);
        }
        if let Some(radius) = spec.radar {
            e.insert(Radar::new(radius));
        }
        self.things.push(Thing {
            entity,
            alive: true,
            spec,
        });
    }

    /// The living thing `i` points to (modulo the things spawned), if any.
    fn target(&mut self, i: usize) -> Option<(EntityWorldMut<'_>, &mut Thing)> {
        let n = self.things.len().max(1);
        let thing = self.things.get_mut(i % n).filter(|t| t.alive)?;
        Some((self.app.world_mut().entity_mut(thing.entity), thing))
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Spawn(spec) => self.spawn(spec),
            Op::Change { thing, change } => self.change(thing, change),
            Op::Share { giver, receiver } => {
                vision(&mut self.app).share(Team(giver), Team(receiver));
                self.shares.insert((giver, receiver));
            }
            Op::Stop { giver, receiver } => {
                vision(&mut self.app).stop(Team(giver), Team(receiver));
                self.shares.remove(&(giver, receiver));
            }
            Op::ToggleWall { map, at } => self.toggle_wall(map, at),
        }
    }

    fn toggle_wall(&mut self, map: usize, at: Tile) {
        let (x, y) = self.fit(map, at);
        let tile = tile_entity(&self.app, self.maps[map], x, y);
        let mut e = self.app.world_mut().entity_mut(tile);
        let wall = e.contains::<Opaque>();
        set(&mut e, (!wall).then_some(Opaque));
    }

    fn change(&mut self, i: usize, change: Change) {
        let change = match change {
            Change::Move { map, at } => Change::Move {
                map,
                at: self.fit(map, at),
            },
            other => other,
        };
        let maps = self.maps;
        let Some((mut e, thing)) = self.target(i) else {
            return;
        };
        match change {
            Change::Move { map, at } => {
                e.insert(place(maps[map], at));
                (thing.spec.map, thing.spec.at) = (map, at);
            }
            Change::Team(team) => {
                set(&mut e, team.map(Team));
                thing.spec.team = team;
            }
            Change::Cloak(on) => {
                set(&mut e, on.then_some(Cloaked));
                thing.spec.cloaked = on;
            }
            Change::Radar(radius) => {
                set(&mut e, radius.map(Radar::new));
                thing.spec.radar = radius;
            }
            Change::Despawn => {
                e.despawn();
                thing.alive = false;
            }
        }
    }
}

/// Inserts `component`, or removes its type if `None`.
fn set<C: Component>(entity: &mut EntityWorldMut, component: Option<C>) {
    match component {
        Some(c) => {
            entity.insert(c);
        }
        None => {
            entity.remove::<C>();
        }
    }
}

impl Sim {
    /// The model: `team`'s contacts on map `m` (`None`: the spectator's).
    fn expected(&self, m: usize, team: Option<u32>) -> Vec<Tile> {
        let living = || self.things.iter().filter(|t| t.alive).map(|t| &t.spec);
        let counts = |radar: &Spec| match team {
            None => true,
            Some(team) => {
                let of = radar.team.unwrap_or(0);
                of == team || self.shares.contains(&(of, team))
            }
        };
        let radars: Vec<&Spec> = living().filter(|s| s.map == m && counts(s)).collect();
        let mut tiles: Vec<Tile> = living()
            .filter(|target| match (team, target.team) {
                (None, _) => true,
                // The receiver's own entities and its givers' are left out.
                (Some(team), Some(of)) => of != team && !self.shares.contains(&(of, team)),
                (Some(_), None) => true,
            })
            .filter(|target| radars.iter().any(|r| finds(r, target)))
            .map(|target| target.at)
            .collect();
        tiles.sort_by_key(|&(x, y)| (y, x));
        tiles
    }

    fn check(&self) -> Result<(), String> {
        let teams = (0..=TEAMS).map(Some).chain([None]);
        for team in teams {
            for m in 0..2 {
                let asked = team.map_or(Team::SPECTATOR, Team);
                let actual = contacts(&self.app, self.maps[m], asked);
                let expected = self.expected(m, team);
                if actual != expected {
                    return Err(format!(
                        "{asked:?} on map {m}: plugin {actual:?}, page {expected:?}\n{}",
                        self.describe()
                    ));
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        let mut out = format!("sizes {:?}, shares {:?}\n", self.sizes, self.shares);
        for (i, t) in self.things.iter().enumerate() {
            let state = if t.alive { "" } else { " (despawned)" };
            out += &format!("  thing {i} {:?}{state}: {:?}\n", t.entity, t.spec);
        }
        out + &format!("frames:\n  {}", self.history.join("\n  "))
    }

    fn frame(&mut self, ops: &[Op]) -> Result<(), String> {
        for &op in ops {
            self.apply(op);
        }
        self.history.push(format!("{ops:?}"));
        self.app.update();
        self.check()
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Plain),
        Just(Kind::Spotted),
        Just(Kind::Hides),
        Just(Kind::Ghost),
        Just(Kind::Sprite),
    ]
}

fn tile() -> impl Strategy<Value = Tile> {
    (0..MAX_W, 0..MAX_H)
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (0..2usize, tile()),
        prop::option::weighted(0.85, 0..TEAMS),
        kind(),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.4, 0..=8u32),
    )
        .prop_map(|((map, at), team, kind, cloaked, radar)| Spec {
            map,
            at,
            team,
            kind,
            cloaked,
            radar,
        })
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        5 => (0..2usize, tile()).prop_map(|(map, at)| Change::Move { map, at }),
        2 => prop::option::weighted(0.8, 0..TEAMS).prop_map(Change::Team),
        2 => any::<bool>().prop_map(Change::Cloak),
        2 => prop::option::weighted(0.7, 0..=8u32).prop_map(Change::Radar),
        1 => Just(Change::Despawn),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let team = || 0..=TEAMS;
    prop_oneof![
        1 => spec().prop_map(Op::Spawn),
        10 => (0..16usize, change()).prop_map(|(thing, change)| Op::Change { thing, change }),
        3 => (team(), team()).prop_map(|(giver, receiver)| Op::Share { giver, receiver }),
        2 => (team(), team()).prop_map(|(giver, receiver)| Op::Stop { giver, receiver }),
        1 => (0..2usize, tile()).prop_map(|(map, at)| Op::ToggleWall { map, at }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::array::uniform2((3..=MAX_W, 2..=MAX_H)),
        prop::collection::vec((0..2usize, tile()), 0..12),
        prop::collection::vec(spec(), 2..=9),
        prop::bool::weighted(0.3),
        prop::collection::vec(prop::collection::vec(op(), 0..5), 1..20),
    )
        .prop_map(|(sizes, walls, things, spectator_drawn, frames)| Case {
            sizes,
            walls,
            things,
            spectator_drawn,
            frames,
        })
}

fn play(case: &Case) -> Result<(), String> {
    let mut sim = Sim::new(case);
    sim.start()?;
    for ops in &case.frames {
        sim.frame(ops)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(common_app::model_config())]

    #[test]
    fn radar_contacts_follow_the_page(case in case()) {
        play(&case).map_err(TestCaseError::fail)?;
    }
}
