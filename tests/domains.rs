//! Each domain plugin of `ViewshedPlugins` run with only what it needs: the maps and the views
//! always, then light, sightings or fog alone, and the fog's model without its drawing (a
//! headless server). Each app builds the plugin's schedule with Bevy's ambiguity detection as
//! an error, and what a left-out domain owns is not there.

mod common_app;

use bevy::ecs::schedule::{LogLevel, ScheduleBuildSettings};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Lighting;
use bevy_viewshed::draw::FogDrawPlugin;
use bevy_viewshed::fog::FogPlugin;
use bevy_viewshed::ghosts::GhostsPlugin;
use bevy_viewshed::light::LightPlugin;
use bevy_viewshed::prelude::*;
use bevy_viewshed::sightings::SightingsPlugin;
use bevy_viewshed::{
    DrawnTeam, MapOpacity, SpottedTargets, Team, ViewshedSchedule, ViewshedUpdated,
};
use common_app::{core_seen, seen, spawn_map, spawn_player, spawn_viewer, tile_entity};

/// The optional domains an app keeps.
#[derive(Clone, Copy, Default)]
struct Keep {
    light: bool,
    sightings: bool,
    /// The fog's model and its ghosts.
    fog: bool,
    /// The fog drawn (with `fog`).
    draw: bool,
}

/// `MinimalPlugins` and `ViewshedPlugins` without the domains `keep` leaves out; the plugin's
/// schedule panics on any ambiguity when it is built.
fn app_with(keep: Keep) -> App {
    let mut group = ViewshedPlugins::default().build();
    if !keep.light {
        group = group.disable::<LightPlugin>();
    }
    if !keep.sightings {
        group = group.disable::<SightingsPlugin>();
    }
    if !keep.fog {
        group = group.disable::<FogPlugin>().disable::<GhostsPlugin>();
    }
    if !keep.draw {
        group = group.disable::<FogDrawPlugin>();
    }
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, group));
    app.edit_schedule(ViewshedSchedule, |schedule| {
        schedule.set_build_settings(ScheduleBuildSettings {
            ambiguity_detection: LogLevel::Error,
            ..default()
        });
    });
    app
}

fn pillar(x: u32, y: u32) -> bool {
    (x, y) == (5, 4)
}

/// Whether the app registered the message type `M` (its domain's plugin was added).
fn has_messages<M: Message>(app: &App) -> bool {
    app.world().contains_resource::<Messages<M>>()
}

#[test]
fn the_views_alone_see_exactly_and_nothing_else_is_registered() {
    let mut app = app_with(Keep::default());
    let map = spawn_map(&mut app, 12, 9, pillar);
    let viewer = spawn_viewer(&mut app, map, 2, 4, 6);
    let player = spawn_player(&mut app, map, 9, 4, 4);
    // Components of the domains left out do nothing, and nothing panics.
    app.world_mut().spawn((
        LightSource::new(3),
        CanBeSpotted,
        HidesOutsideView,
        LeavesGhost,
        TilePos { x: 3, y: 4 },
        TilemapId(map),
    ));
    for x in 2..5 {
        app.world_mut().get_mut::<TilePos>(viewer).unwrap().x = x;
        app.update();
        assert_eq!(seen(&app, viewer), core_seen(12, 9, pillar, (x, 4), 6));
    }
    assert_eq!(seen(&app, player), core_seen(12, 9, pillar, (9, 4), 4));
    assert!(app.world().get::<MapOpacity>(map).is_some());
    assert!(app.world().get::<FogOfWar>(map).is_none());
    assert!(app.world().get::<Lighting>(map).is_none());
    assert!(viewshed_spotted(&app, viewer).is_empty());
    assert!(has_messages::<ViewshedUpdated>(&app));
    assert!(!has_messages::<Spotted>(&app));
    assert!(!app.world().contains_resource::<DrawnTeam>());
}

fn viewshed_spotted(app: &App, viewer: Entity) -> Vec<Entity> {
    app.world()
        .get::<SpottedTargets>(viewer)
        .map_or_else(Vec::new, |spotted| spotted.iter().collect())
}

#[test]
fn light_with_only_the_views_shows_a_dark_viewer_the_lit_tiles() {
    let mut app = app_with(Keep {
        light: true,
        ..default()
    });
    let open = |_, _| false;
    let map = spawn_map(&mut app, 10, 10, open);
    let torch = app
        .world_mut()
        .spawn((LightSource::new(2), TilePos { x: 2, y: 2 }, TilemapId(map)))
        .id();
    let viewer = app
        .world_mut()
        .spawn((
            Viewshed::new(10),
            NeedsLight::new(0),
            TilePos { x: 7, y: 7 },
            TilemapId(map),
        ))
        .id();
    for torch_x in [2, 3] {
        app.world_mut().get_mut::<TilePos>(torch).unwrap().x = torch_x;
        app.update();
        let field = core_seen(10, 10, open, (7, 7), 10);
        let lit = core_seen(10, 10, open, (torch_x, 2), 2);
        let expected: Vec<(u32, u32)> = field
            .into_iter()
            .filter(|tile| lit.contains(tile) || *tile == (7, 7))
            .collect();
        assert_eq!(seen(&app, viewer), expected);
    }
    assert!(app.world().get::<Lighting>(map).is_some());
    assert!(app.world().get::<FogOfWar>(map).is_none());
}

#[test]
fn sightings_with_only_the_views_spot_and_lose_a_target() {
    let mut app = app_with(Keep {
        sightings: true,
        ..default()
    });
    let map = spawn_map(&mut app, 12, 9, pillar);
    let viewer = spawn_viewer(&mut app, map, 2, 4, 8);
    let target = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 4, y: 4 }, TilemapId(map)))
        .id();
    let mut spotted = app.world().resource::<Messages<Spotted>>().get_cursor();
    let mut lost = app.world().resource::<Messages<LostSight>>().get_cursor();
    app.update();
    assert_eq!(viewshed_spotted(&app, viewer), vec![target]);
    let read = spotted.read(app.world().resource::<Messages<Spotted>>());
    assert_eq!(
        read.map(|s| (s.viewer, s.target)).collect::<Vec<_>>(),
        [(viewer, target)]
    );
    // Behind the pillar.
    app.world_mut().get_mut::<TilePos>(target).unwrap().x = 8;
    app.update();
    assert!(viewshed_spotted(&app, viewer).is_empty());
    let read = lost.read(app.world().resource::<Messages<LostSight>>());
    assert_eq!(
        read.map(|s| (s.viewer, s.target)).collect::<Vec<_>>(),
        [(viewer, target)]
    );
    assert!(app.world().get::<FogOfWar>(map).is_none());
}

#[test]
fn fog_with_only_the_views_reveals_and_remembers() {
    let mut app = app_with(Keep {
        fog: true,
        ..default()
    });
    let map = spawn_map(&mut app, 12, 9, pillar);
    let player = spawn_player(&mut app, map, 2, 4, 3);
    app.update();
    let first = core_seen(12, 9, pillar, (2, 4), 3);
    app.world_mut().get_mut::<TilePos>(player).unwrap().x = 8;
    app.update();
    let now = core_seen(12, 9, pillar, (8, 4), 3);
    let fog = app
        .world()
        .get::<FogOfWar>(map)
        .expect("the fog is on the map");
    for y in 0..9 {
        for x in 0..12 {
            let expected = if now.contains(&(x, y)) {
                FogState::Visible
            } else if first.contains(&(x, y)) {
                FogState::Remembered
            } else {
                FogState::Unexplored
            };
            assert_eq!(fog.state(TilePos { x, y }), expected, "tile ({x}, {y})");
        }
    }
    assert!(!has_messages::<Spotted>(&app));
    assert!(app.world().get::<Lighting>(map).is_none());
}

/// A dedicated server: the fog's model and its ghosts without the drawing. The teams' fog and
/// ghosts are kept as on a screen, and no tile of a fog layer is written.
#[test]
fn a_server_keeps_the_fog_and_its_ghosts_and_draws_nothing() {
    let mut app = app_with(Keep {
        fog: true,
        ..default()
    });
    let map = spawn_map(&mut app, 12, 9, pillar);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let player = spawn_player(&mut app, map, 2, 4, 3);
    let goblin = app
        .world_mut()
        .spawn((LeavesGhost, TilePos { x: 4, y: 4 }, TilemapId(map)))
        .id();
    app.update();
    app.world_mut().get_mut::<TilePos>(player).unwrap().x = 9;
    app.update();
    let fog = app.world().get::<FogOfWar>(map).expect("the fog is kept");
    assert_eq!(fog.state(TilePos { x: 2, y: 4 }), FogState::Remembered);
    assert_eq!(fog.state(TilePos { x: 9, y: 4 }), FogState::Visible);
    assert_eq!(fog.state(TilePos { x: 0, y: 0 }), FogState::Unexplored);
    let last_seen = app
        .world()
        .get::<LastSeen>(map)
        .expect("the ghosts are kept");
    let ghosts: Vec<_> = last_seen
        .ghosts(Team(0))
        .map(|g| (g.entity, g.tile))
        .collect();
    assert_eq!(ghosts, [(goblin, TilePos { x: 4, y: 4 })]);
    // Nothing drew: every tile still as spawned, white and shown.
    for y in 0..9 {
        for x in 0..12 {
            let tile = tile_entity(&app, map, x, y);
            assert_eq!(
                app.world().get::<TileVisible>(tile),
                Some(&TileVisible(true))
            );
            assert_eq!(app.world().get::<TileColor>(tile).unwrap().0, Color::WHITE);
        }
    }
}

/// Every domain together, as `ViewshedPlugins` adds them: the schedule has no ambiguity either.
#[test]
fn every_domain_together_has_no_ambiguity() {
    let mut app = app_with(Keep {
        light: true,
        sightings: true,
        fog: true,
        draw: true,
    });
    let map = spawn_map(&mut app, 12, 9, pillar);
    let player = spawn_player(&mut app, map, 2, 4, 5);
    app.update();
    assert_eq!(seen(&app, player), core_seen(12, 9, pillar, (2, 4), 5));
}
