//! The plugin's features beyond plain FOV, in a headless app: vision cones and distance
//! shapes on viewers, newly seen / unseen tiles, team vision with a fog drawn for one team at
//! a time, and `Spotted` / `LostSight` notifications (messages and observers), exactly once
//! per change.

mod common_app;

use std::f64::consts::FRAC_PI_2;
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DistanceShape, DrawnTeam, FovMode, FovOptions, VisionCone};
use bevy_viewshed::{OpacityGrid, Team, field_of_view};
use common_app::{
    app, generation, logging_app, spawn_map, spawn_viewer, spotted, take_log, tile_entity, viewshed,
};

fn spawn_target(app: &mut App, map: Entity, x: u32, y: u32) -> Entity {
    app.world_mut()
        .spawn((CanBeSpotted, TilePos { x, y }, TilemapId(map)))
        .id()
}

fn move_to(app: &mut App, entity: Entity, x: u32, y: u32) {
    *app.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
}

#[test]
fn a_cone_limits_the_view_and_turning_recomputes() {
    let mut app = app();
    let map = spawn_map(&mut app, 21, 21, |_, _| false);
    let guard = app
        .world_mut()
        .spawn((
            Viewshed::new(6).with_cone(VisionCone::toward_radians(1, 0, FRAC_PI_2)),
            TilePos { x: 10, y: 10 },
            TilemapId(map),
        ))
        .id();
    app.update();
    let view = viewshed(&app, guard);
    assert!(view.is_visible(TilePos { x: 15, y: 10 }));
    assert!(!view.is_visible(TilePos { x: 5, y: 10 }), "not behind");
    assert!(view.is_visible(TilePos { x: 14, y: 14 }), "the cone's edge");
    let before = generation(&app, guard);

    // Nothing changed: no recomputation.
    app.update();
    assert_eq!(generation(&app, guard), before);

    // The guard turns around: recomputed, and now it sees behind.
    app.world_mut()
        .get_mut::<Viewshed>(guard)
        .unwrap()
        .options
        .cone = Some(VisionCone::toward_radians(-1, 0, FRAC_PI_2));
    app.update();
    assert_eq!(generation(&app, guard), before + 1);
    let view = viewshed(&app, guard);
    assert!(view.is_visible(TilePos { x: 5, y: 10 }));
    assert!(!view.is_visible(TilePos { x: 15, y: 10 }));
}

#[test]
fn shapes_and_modes_on_viewers_match_the_core() {
    let walls = |x: u32, y: u32| (x * 7 + y * 3).is_multiple_of(11);
    let mut app = app();
    let map = spawn_map(&mut app, 30, 30, walls);
    let grid = OpacityGrid::from_fn(30, 30, walls);
    let cases = [
        (DistanceShape::Chebyshev, FovMode::Symmetric),
        (DistanceShape::Manhattan, FovMode::Permissive),
        (DistanceShape::Euclidean, FovMode::Permissive),
    ];
    let viewers: Vec<_> = cases
        .iter()
        .map(|&(shape, mode)| {
            app.world_mut()
                .spawn((
                    Viewshed::new(7).with_shape(shape).with_mode(mode),
                    TilePos { x: 15, y: 16 },
                    TilemapId(map),
                ))
                .id()
        })
        .collect();
    app.update();
    for (viewer, (shape, mode)) in viewers.into_iter().zip(cases) {
        let options = FovOptions::radius(7).with_shape(shape).with_mode(mode);
        let core: Vec<_> = field_of_view(&grid, (15, 16), options)
            .unwrap()
            .iter()
            .collect();
        let mut ours: Vec<_> = viewshed(&app, viewer).iter().map(|t| (t.x, t.y)).collect();
        ours.sort_unstable_by_key(|&(x, y)| (y, x));
        assert_eq!(ours, core, "{shape:?} {mode:?}");
    }
}

#[test]
fn a_door_outside_a_chebyshev_square_recomputes_nobody() {
    // A Chebyshev square of radius 3 reaches the corner (3, 3) that a disk of radius 3 does
    // not: a door there must recompute the square viewer.
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    let square = app
        .world_mut()
        .spawn((
            Viewshed::new(3).with_shape(DistanceShape::Chebyshev),
            TilePos { x: 5, y: 5 },
            TilemapId(map),
        ))
        .id();
    let disk = spawn_viewer(&mut app, map, 5, 5, 3);
    app.update();
    let (square_before, disk_before) = (generation(&app, square), generation(&app, disk));
    let corner = tile_entity(&app, map, 8, 8);
    app.world_mut().entity_mut(corner).insert(Opaque);
    app.update();
    assert_eq!(generation(&app, square), square_before + 1);
    assert_eq!(
        generation(&app, disk),
        disk_before,
        "the disk does not reach (8, 8)"
    );
    assert!(viewshed(&app, square).is_visible(TilePos { x: 8, y: 8 }));
}

#[test]
fn newly_seen_and_unseen_tiles() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 5, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 2, 2, 1);
    app.update();
    let first: Vec<_> = viewshed(&app, viewer).newly_seen().collect();
    assert_eq!(first.len(), 9, "everything is new at first");
    assert_eq!(viewshed(&app, viewer).newly_unseen().count(), 0);

    move_to(&mut app, viewer, 3, 2);
    app.update();
    let view = viewshed(&app, viewer);
    let mut seen: Vec<_> = view.newly_seen().map(|t| (t.x, t.y)).collect();
    let mut unseen: Vec<_> = view.newly_unseen().map(|t| (t.x, t.y)).collect();
    seen.sort_unstable();
    unseen.sort_unstable();
    assert_eq!(seen, vec![(4, 1), (4, 2), (4, 3)]);
    assert_eq!(unseen, vec![(1, 1), (1, 2), (1, 3)]);
}

/// A charmed guard: its `Team` changed in place, standing still. The old team loses its view
/// and the new team gains it at the next update, and a monster only the guard saw hides from
/// the old team at once.
#[test]
fn a_team_changed_in_place_moves_the_view_to_the_new_team() {
    let mut app = app();
    let map = spawn_map(&mut app, 30, 10, |x, _| x == 15);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let guard = app
        .world_mut()
        .spawn((
            Viewshed::new(4),
            RevealsFog,
            Team(0),
            TilePos { x: 5, y: 5 },
            TilemapId(map),
        ))
        .id();
    let monster = app
        .world_mut()
        .spawn((HidesOutsideView, TilePos { x: 6, y: 5 }, TilemapId(map)))
        .id();
    app.update();
    let here = TilePos { x: 5, y: 5 };
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert_eq!(fog.team(Team(0)).unwrap().state(here), FogState::Visible);
    let shown = |app: &App| app.world().get::<Visibility>(monster).copied();
    assert_eq!(shown(&app), Some(Visibility::Inherited));
    app.world_mut().get_mut::<Team>(guard).unwrap().0 = 1;
    app.update();
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert_eq!(fog.team(Team(0)).unwrap().state(here), FogState::Remembered);
    assert_eq!(fog.team(Team(1)).unwrap().state(here), FogState::Visible);
    assert_eq!(
        shown(&app),
        Some(Visibility::Hidden),
        "team 0, drawn, sees it no more"
    );
}

#[test]
fn teams_keep_their_own_views_and_the_fog_shows_one_team() {
    let mut app = app();
    let map = spawn_map(&mut app, 30, 10, |x, _| x == 15);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    // Team 0 (the default) on the west side, team 1 on the east side.
    let west = app
        .world_mut()
        .spawn((
            Viewshed::new(4),
            RevealsFog,
            TilePos { x: 5, y: 5 },
            TilemapId(map),
        ))
        .id();
    let _east = app
        .world_mut()
        .spawn((
            Viewshed::new(4),
            RevealsFog,
            Team(1),
            TilePos { x: 25, y: 5 },
            TilemapId(map),
        ))
        .id();
    app.update();
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    let (west_tile, east_tile) = (TilePos { x: 5, y: 5 }, TilePos { x: 25, y: 5 });
    assert_eq!(fog.drawn_team(), Team(0));
    assert_eq!(fog.state(west_tile), FogState::Visible);
    assert_eq!(fog.state(east_tile), FogState::Unexplored);
    let team1 = fog.team(Team(1)).unwrap();
    assert_eq!(team1.state(east_tile), FogState::Visible);
    assert_eq!(team1.state(west_tile), FogState::Unexplored);
    let tile_visible = |app: &App, x, y| {
        app.world()
            .get::<TileVisible>(tile_entity(app, map, x, y))
            .unwrap()
            .0
    };
    assert!(tile_visible(&app, 5, 5));
    assert!(
        !tile_visible(&app, 25, 5),
        "team 1's side is fogged for team 0"
    );

    // A monster next to team 1's viewer hides from team 0.
    let monster = app
        .world_mut()
        .spawn((HidesOutsideView, TilePos { x: 24, y: 5 }, TilemapId(map)))
        .id();
    app.update();
    let shown = |app: &App| app.world().get::<Visibility>(monster).copied();
    assert_eq!(shown(&app), Some(Visibility::Hidden));

    // Switch the fog to team 1 (a spectator, a hot-seat turn): the tiles follow.
    app.world_mut().resource_mut::<DrawnTeam>().0 = Team(1);
    app.update();
    assert!(!tile_visible(&app, 5, 5));
    assert!(tile_visible(&app, 25, 5));
    assert_eq!(shown(&app), Some(Visibility::Inherited));
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert_eq!(fog.state(east_tile), FogState::Visible);

    // The west viewer walks on and changes teams: team 0 keeps its memory, team 1 gains a view.
    move_to(&mut app, west, 8, 5);
    app.world_mut().entity_mut(west).insert(Team(1));
    app.update();
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    let team0 = fog.team(Team(0)).unwrap();
    let far_west = TilePos { x: 1, y: 5 }; // seen from (5, 5), out of reach from (8, 5)
    assert_eq!(team0.state(far_west), FogState::Remembered);
    assert_eq!(team0.visible_tiles().count(), 0);
    assert_eq!(fog.state(TilePos { x: 8, y: 5 }), FogState::Visible);
    assert_eq!(
        fog.state(far_west),
        FogState::Unexplored,
        "team 1 never saw it"
    );

    // Without its `Team` it is back in team 0.
    app.world_mut().entity_mut(west).remove::<Team>();
    app.update();
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    let here = TilePos { x: 8, y: 5 };
    assert_eq!(fog.team(Team(0)).unwrap().state(here), FogState::Visible);
    assert_eq!(
        fog.state(here),
        FogState::Remembered,
        "team 1 only remembers it now"
    );
}

#[test]
fn spotted_and_lost_exactly_once_per_change() {
    let mut app = logging_app();
    let map = spawn_map(&mut app, 20, 9, |_, _| false);
    let guard = spawn_viewer(&mut app, map, 2, 4, 5);
    let thief = spawn_target(&mut app, map, 12, 4);
    app.update();
    assert_eq!(take_log(&mut app), vec![], "out of range");

    // The target moves into view.
    move_to(&mut app, thief, 6, 4);
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, guard, thief)]);
    assert_eq!(spotted(&app, guard).collect::<Vec<_>>(), vec![thief]);
    app.update();
    assert_eq!(take_log(&mut app), vec![], "once per change");

    // A door closes between them.
    let door = tile_entity(&app, map, 4, 4);
    app.world_mut().entity_mut(door).insert(Opaque);
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, guard, thief)]);

    // It opens again; then the viewer walks away.
    app.world_mut().entity_mut(door).remove::<Opaque>();
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, guard, thief)]);
    move_to(&mut app, guard, 0, 0);
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, guard, thief)]);

    // Both move in the same frame and meet: one Spotted.
    move_to(&mut app, guard, 5, 5);
    move_to(&mut app, thief, 7, 5);
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, guard, thief)]);

    // The target is despawned; then a new one is seen and the viewer is despawned.
    app.world_mut().despawn(thief);
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, guard, thief)]);
    let coin = spawn_target(&mut app, map, 6, 6);
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, guard, coin)]);
    app.world_mut().despawn(guard);
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, guard, coin)]);
}

/// A `Viewshed` cloned onto a new viewer does not bring its owner's sightings: the new viewer
/// announces what it sees itself, and loses it when the target goes, as the first does.
#[test]
fn a_cloned_viewshed_announces_its_own_sightings() {
    let mut app = logging_app();
    let map = spawn_map(&mut app, 20, 9, |_, _| false);
    let guard = spawn_viewer(&mut app, map, 2, 4, 5);
    let thief = spawn_target(&mut app, map, 5, 4);
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, guard, thief)]);
    let copy = viewshed(&app, guard).clone();
    let twin = app
        .world_mut()
        .spawn((copy, TilePos { x: 3, y: 4 }, TilemapId(map)))
        .id();
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, twin, thief)]);
    app.world_mut().despawn(thief);
    app.update();
    let mut log = take_log(&mut app);
    log.sort();
    let mut lost = vec![(false, guard, thief), (false, twin, thief)];
    lost.sort();
    assert_eq!(log, lost, "both lose it, once each");
    assert_eq!(spotted(&app, twin).count(), 0);
}

/// What the observers of one entity heard: (event, viewer, target).
type Events = Arc<Mutex<Vec<(&'static str, Entity, Entity)>>>;

#[test]
fn observers_watch_spotted_and_lost_sight_on_the_viewer_and_the_target() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 9, |_, _| false);
    let guard = spawn_viewer(&mut app, map, 2, 4, 5);
    let events = Arc::new(Mutex::new(Vec::new()));
    let (on_spot, on_lose) = (events.clone(), events.clone());
    app.world_mut()
        .entity_mut(guard)
        .observe(move |event: On<Spotted>| {
            on_spot
                .lock()
                .unwrap()
                .push(("spotted", event.viewer, event.target))
        })
        .observe(move |event: On<LostSight>| {
            on_lose
                .lock()
                .unwrap()
                .push(("lost", event.viewer, event.target))
        });
    // A target that is also a viewer sees the guard back (symmetry), but not itself.
    let rival = app
        .world_mut()
        .spawn((
            CanBeSpotted,
            Viewshed::new(5),
            TilePos { x: 5, y: 4 },
            TilemapId(map),
        ))
        .id();
    app.world_mut().entity_mut(guard).insert(CanBeSpotted);
    app.update();
    // The guard hears what it spots, and, as a target, that the rival spotted it.
    let heard = |events: &Events| {
        let mut heard = events.lock().unwrap().clone();
        heard.sort();
        heard
    };
    let mut expected = vec![("spotted", guard, rival), ("spotted", rival, guard)];
    expected.sort();
    assert_eq!(heard(&events), expected);
    assert_eq!(spotted(&app, rival).collect::<Vec<_>>(), vec![guard]);
    app.world_mut().entity_mut(rival).remove::<CanBeSpotted>();
    app.update();
    expected.push(("lost", guard, rival));
    expected.sort();
    assert_eq!(heard(&events), expected);
    // The rival walks away: the guard, as a target, hears that it was lost.
    app.world_mut().get_mut::<TilePos>(rival).unwrap().x = 19;
    app.update();
    expected.push(("lost", rival, guard));
    expected.sort();
    assert_eq!(heard(&events), expected);
}

#[test]
fn a_viewer_on_another_map_does_not_spot() {
    let mut app = logging_app();
    let a = spawn_map(&mut app, 10, 10, |_, _| false);
    let b = spawn_map(&mut app, 10, 10, |_, _| false);
    let viewer = spawn_viewer(&mut app, a, 5, 5, 4);
    let target = spawn_target(&mut app, b, 5, 6);
    app.update();
    assert_eq!(take_log(&mut app), vec![]);
    // The target crosses over to the viewer's map.
    *app.world_mut().get_mut::<TilemapId>(target).unwrap() = TilemapId(a);
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
}
