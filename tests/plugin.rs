//! The plugin in a headless `App` (`MinimalPlugins`): viewers see what the core computes,
//! views are recomputed exactly when something they depend on changed, opacity follows
//! `Opaque` entities, and bad input is handled without a panic.

#[path = "../crates/viewshed_core/tests/common/mod.rs"]
mod common;
mod common_app;

use bevy::ecs::schedule::{LogLevel, MultiThreadedExecutor, ScheduleBuildSettings};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Lighting;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{MapOpacity, ViewshedSchedule, ViewshedStepSystems, ViewshedUpdated};
use common::random_grid;
use common_app::*;

fn pillars(x: u32, y: u32) -> bool {
    (x * 7 + y * 13).is_multiple_of(11)
}

#[test]
fn viewer_sees_what_the_core_computes() {
    let mut app = app();
    let map = spawn_map(&mut app, 40, 30, pillars);
    let near = spawn_viewer(&mut app, map, 20, 15, 8);
    let far = spawn_viewer(&mut app, map, 3, 4, Viewshed::UNLIMITED);
    app.update();
    assert_eq!(seen(&app, near), core_seen(40, 30, pillars, (20, 15), 8));
    assert_eq!(
        seen(&app, far),
        core_seen(40, 30, pillars, (3, 4), Viewshed::UNLIMITED)
    );
    assert!(viewshed(&app, near).is_visible(TilePos { x: 20, y: 15 }));
    assert_eq!(viewshed(&app, near).count(), seen(&app, near).len());
    assert_eq!(
        viewshed(&app, near).origin(),
        Some((map, TilePos { x: 20, y: 15 }))
    );
}

#[test]
fn random_maps_match_the_core() {
    for seed in 0..20 {
        let grid = random_grid(50, 37, 25, seed);
        let wall = |x, y| grid.is_opaque(x, y);
        let mut app = app();
        let map = spawn_map(&mut app, 50, 37, wall);
        let origin = ((seed as u32 * 17) % 50, (seed as u32 * 7) % 37);
        let radius = [0, 1, 5, 12, Viewshed::UNLIMITED][seed as usize % 5];
        let viewer = spawn_viewer(&mut app, map, origin.0, origin.1, radius);
        app.update();
        // The viewer's own tile never blocks, even when it is a wall.
        assert_eq!(
            seen(&app, viewer),
            core_seen(50, 37, wall, origin, radius),
            "seed {seed}"
        );
    }
}

#[test]
fn recomputed_only_when_something_changed() {
    let mut app = app();
    let map = spawn_map(&mut app, 30, 30, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 10, 10, 4);
    app.update();
    let first = generation(&app, viewer);
    assert_eq!(first, 1, "computed once when added");

    for _ in 0..3 {
        app.update();
    }
    assert_eq!(
        generation(&app, viewer),
        first,
        "nothing changed: not recomputed"
    );

    // Touching the component without changing the radius does not recompute.
    app.world_mut()
        .get_mut::<Viewshed>(viewer)
        .unwrap()
        .set_radius(4);
    app.update();
    assert_eq!(generation(&app, viewer), first);

    // Moving recomputes.
    *app.world_mut().get_mut::<TilePos>(viewer).unwrap() = TilePos { x: 11, y: 10 };
    app.update();
    assert_eq!(generation(&app, viewer), first + 1);
    assert!(viewshed(&app, viewer).is_visible(TilePos { x: 15, y: 10 }));

    // Changing the radius recomputes.
    app.world_mut()
        .get_mut::<Viewshed>(viewer)
        .unwrap()
        .set_radius(2);
    app.update();
    assert_eq!(generation(&app, viewer), first + 2);
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 15, y: 10 }));

    // A wall far outside the radius does not recompute; one inside does.
    let far = tile_entity(&app, map, 25, 25);
    app.world_mut().entity_mut(far).insert(Opaque);
    app.update();
    assert_eq!(generation(&app, viewer), first + 2);
    let near = tile_entity(&app, map, 12, 10);
    app.world_mut().entity_mut(near).insert(Opaque);
    app.update();
    assert_eq!(generation(&app, viewer), first + 3);
    assert!(viewshed(&app, viewer).is_visible(TilePos { x: 12, y: 10 }));
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 13, y: 10 }));
}

#[test]
fn door_at_one_end_of_a_big_map_recomputes_only_viewers_in_reach() {
    let mut app = app();
    let map = spawn_map(&mut app, 256, 256, |x, y| {
        x.is_multiple_of(16) && !y.is_multiple_of(5)
    });
    let mut viewers = Vec::new();
    for i in 0..200u32 {
        let (x, y) = (1 + (i * 37) % 254, 1 + (i * 91) % 254);
        viewers.push((spawn_viewer(&mut app, map, x, y, 8), (x, y)));
    }
    app.update();
    let before: Vec<u64> = viewers.iter().map(|&(v, _)| generation(&app, v)).collect();

    let door = (250u32, 250u32);
    let door_tile = tile_entity(&app, map, door.0, door.1);
    app.world_mut().entity_mut(door_tile).insert(Opaque);
    app.update();
    app.world_mut().entity_mut(door_tile).remove::<Opaque>();
    app.update();

    let mut recomputed = 0;
    for (i, &(viewer, (x, y))) in viewers.iter().enumerate() {
        let (dx, dy) = (x.abs_diff(door.0), y.abs_diff(door.1));
        let covers = dx * dx + dy * dy <= 8 * 9;
        let expected = if covers { before[i] + 2 } else { before[i] };
        assert_eq!(generation(&app, viewer), expected, "viewer at ({x}, {y})");
        recomputed += usize::from(covers);
    }
    assert!(
        recomputed < viewers.len() / 10,
        "only a few viewers are near the door"
    );
}

/// Many viewers (more than the plugin visits one by one, and more than it looks up one by
/// one), of every radius from 0 to 12 and unlimited, while a few tiles change each frame
/// here and there: every view stays what the core computes on the walls of that frame.
#[test]
fn many_viewers_stay_exact_while_walls_change_here_and_there() {
    let (width, height) = (120u32, 90u32);
    let start = random_grid(width, height, 20, 3);
    let mut walls: Vec<bool> = (0..width * height)
        .map(|i| start.is_opaque(i % width, i / width))
        .collect();
    let mut app = app();
    let map = spawn_map(&mut app, width, height, |x, y| start.is_opaque(x, y));
    let radii = [0, 1, 2, 5, 8, 12, Viewshed::UNLIMITED];
    let mut viewers = Vec::new();
    for i in 0..1_500u32 {
        let (x, y) = ((i * 37 + 11) % width, (i * 53 + 7) % height);
        let radius = radii[i as usize % radii.len()];
        viewers.push((spawn_viewer(&mut app, map, x, y, radius), (x, y), radius));
    }
    app.update();
    let mut state = 12345u64;
    let mut next = |below: u32| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(below)) as u32
    };
    for frame in 0..24 {
        // One to three tiles flip, sometimes in the same bucket, sometimes far apart.
        for _ in 0..=next(3) {
            let (x, y) = (next(width), next(height));
            let i = (y * width + x) as usize;
            walls[i] = !walls[i];
            let tile = tile_entity(&app, map, x, y);
            if walls[i] {
                app.world_mut().entity_mut(tile).insert(Opaque);
            } else {
                app.world_mut().entity_mut(tile).remove::<Opaque>();
            }
        }
        app.update();
        let wall = |x: u32, y: u32| walls[(y * width + x) as usize];
        let checked = viewers.iter().filter(|_| frame == 23 || next(25) == 0);
        for &(viewer, origin, radius) in checked {
            assert_eq!(
                seen(&app, viewer),
                core_seen(width, height, wall, origin, radius),
                "frame {frame}, viewer at {origin:?}, radius {radius}"
            );
        }
    }
}

#[test]
fn updated_messages_name_the_recomputed_viewers() {
    #[derive(Resource, Default)]
    struct Seen(Vec<Entity>);
    fn collect(mut reader: MessageReader<ViewshedUpdated>, mut seen: ResMut<Seen>) {
        seen.0.extend(reader.read().map(|m| m.viewer));
    }
    let mut app = app();
    app.init_resource::<Seen>()
        .add_systems(PostUpdate, collect.after(ViewshedSystems));
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    let a = spawn_viewer(&mut app, map, 2, 2, 3);
    let b = spawn_viewer(&mut app, map, 15, 15, 3);
    app.update();
    let mut first = std::mem::take(&mut app.world_mut().resource_mut::<Seen>().0);
    first.sort();
    let mut both = vec![a, b];
    both.sort();
    assert_eq!(first, both);

    app.update();
    assert!(
        app.world().resource::<Seen>().0.is_empty(),
        "no change, no message"
    );

    *app.world_mut().get_mut::<TilePos>(a).unwrap() = TilePos { x: 3, y: 2 };
    app.update();
    assert_eq!(app.world().resource::<Seen>().0, vec![a]);
}

#[test]
fn several_opaque_entities_share_a_tile() {
    let mut app = app();
    let map = spawn_map(&mut app, 10, 10, |_, _| false);
    let tile = TilePos { x: 4, y: 4 };
    let boulder = app.world_mut().spawn((Opaque, tile, TilemapId(map))).id();
    let statue = app.world_mut().spawn((Opaque, tile, TilemapId(map))).id();
    app.update();
    assert!(opacity(&app, map).is_opaque(tile));

    app.world_mut().entity_mut(boulder).remove::<Opaque>();
    app.update();
    assert!(
        opacity(&app, map).is_opaque(tile),
        "the statue still blocks"
    );

    app.world_mut().entity_mut(statue).despawn();
    app.update();
    assert!(
        !opacity(&app, map).is_opaque(tile),
        "nothing blocks any more"
    );
}

#[test]
fn moving_an_opaque_entity_moves_its_shadow() {
    let mut app = app();
    let map = spawn_map(&mut app, 12, 3, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 0, 1, Viewshed::UNLIMITED);
    let boulder = app
        .world_mut()
        .spawn((Opaque, TilePos { x: 3, y: 1 }, TilemapId(map)))
        .id();
    app.update();
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 8, y: 1 }));

    *app.world_mut().get_mut::<TilePos>(boulder).unwrap() = TilePos { x: 3, y: 0 };
    app.update();
    assert!(!opacity(&app, map).is_opaque(TilePos { x: 3, y: 1 }));
    assert!(opacity(&app, map).is_opaque(TilePos { x: 3, y: 0 }));
    assert!(viewshed(&app, viewer).is_visible(TilePos { x: 8, y: 1 }));

    // Losing its tile position takes it off the map.
    app.world_mut().entity_mut(boulder).remove::<TilePos>();
    app.update();
    assert!(!opacity(&app, map).is_opaque(TilePos { x: 3, y: 0 }));
}

#[test]
fn opaque_viewer_sees_out_of_its_own_tile() {
    let mut app = app();
    let map = spawn_map(&mut app, 9, 9, |_, _| false);
    let golem = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            Opaque,
            TilePos { x: 4, y: 4 },
            TilemapId(map),
        ))
        .id();
    app.update();
    assert!(opacity(&app, map).is_opaque(TilePos { x: 4, y: 4 }));
    assert_eq!(seen(&app, golem), core_seen(9, 9, |_, _| false, (4, 4), 3));
}

#[test]
fn viewer_placed_by_transform_finds_its_tile() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    // Tiles are 16 world units apart, tile (0, 0) centred on the map's origin.
    let viewer = app
        .world_mut()
        .spawn((
            Viewshed::new(2),
            TilemapId(map),
            Transform::from_xyz(5.0 * 16.0 + 3.0, 7.0 * 16.0 - 4.0, 1.0),
            GlobalTransform::from_xyz(5.0 * 16.0 + 3.0, 7.0 * 16.0 - 4.0, 1.0),
        ))
        .id();
    app.update();
    assert_eq!(
        viewshed(&app, viewer).origin(),
        Some((map, TilePos { x: 5, y: 7 }))
    );
    assert_eq!(
        seen(&app, viewer),
        core_seen(20, 20, |_, _| false, (5, 7), 2)
    );
}

#[test]
fn radius_zero_and_max() {
    let mut app = app();
    let map = spawn_map(&mut app, 16, 16, pillars);
    let blind = spawn_viewer(&mut app, map, 5, 5, 0);
    let eagle = spawn_viewer(&mut app, map, 5, 5, u32::MAX);
    let near_max = spawn_viewer(&mut app, map, 5, 5, u32::MAX - 1);
    app.update();
    assert_eq!(seen(&app, blind), vec![(5, 5)]);
    assert_eq!(
        seen(&app, eagle),
        core_seen(16, 16, pillars, (5, 5), Viewshed::UNLIMITED)
    );
    assert_eq!(seen(&app, near_max), seen(&app, eagle));
}

#[test]
fn viewer_off_the_map_sees_nothing_and_recovers() {
    let mut app = app();
    let map = spawn_map(&mut app, 10, 10, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 4, 4, 3);
    app.update();
    assert!(viewshed(&app, viewer).count() > 0);

    *app.world_mut().get_mut::<TilePos>(viewer).unwrap() = TilePos { x: 40, y: 4 };
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert_eq!(viewshed(&app, viewer).origin(), None);
    let cleared = generation(&app, viewer);
    app.update();
    assert_eq!(
        generation(&app, viewer),
        cleared,
        "cleared once, not every frame"
    );

    *app.world_mut().get_mut::<TilePos>(viewer).unwrap() = TilePos { x: 9, y: 9 };
    app.update();
    assert_eq!(
        seen(&app, viewer),
        core_seen(10, 10, |_, _| false, (9, 9), 3)
    );
}

#[test]
fn tilemap_id_of_nothing_or_a_despawned_tilemap_clears_the_view() {
    let mut app = app();
    let map = spawn_map(&mut app, 10, 10, |_, _| false);
    let nowhere = app.world_mut().spawn_empty().id();
    let lost = app
        .world_mut()
        .spawn((Viewshed::new(3), TilePos { x: 1, y: 1 }, TilemapId(nowhere)))
        .id();
    let viewer = spawn_viewer(&mut app, map, 4, 4, 3);
    app.update();
    assert_eq!(viewshed(&app, lost).count(), 0);
    assert!(viewshed(&app, viewer).count() > 0);

    // Despawn the tilemap (and its tiles): the viewer's view is cleared, nothing panics.
    let tiles: Vec<Entity> = app
        .world()
        .get::<TileStorage>(map)
        .unwrap()
        .iter()
        .flatten()
        .copied()
        .collect();
    for tile in tiles {
        app.world_mut().despawn(tile);
    }
    app.world_mut().despawn(map);
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert_eq!(viewshed(&app, viewer).origin(), None);
    app.update();
}

#[test]
fn opaque_without_a_tile_is_ignored() {
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    let ghost = app.world_mut().spawn(Opaque).id();
    let viewer = spawn_viewer(&mut app, map, 1, 1, Viewshed::UNLIMITED);
    app.update();
    app.update();
    assert_eq!(opacity(&app, map).grid().opaque_count(), 0);
    assert_eq!(viewshed(&app, viewer).count(), 64);

    // Given a tile later, it starts to count.
    app.world_mut()
        .entity_mut(ghost)
        .insert((TilePos { x: 3, y: 3 }, TilemapId(map)));
    app.update();
    assert!(opacity(&app, map).is_opaque(TilePos { x: 3, y: 3 }));
}

#[test]
fn resizing_a_tilemap_under_its_viewers() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |x, _| x == 15);
    let inside = spawn_viewer(&mut app, map, 5, 5, Viewshed::UNLIMITED);
    let outside = spawn_viewer(&mut app, map, 17, 17, 3);
    app.update();
    assert!(viewshed(&app, outside).count() > 0);

    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(12, 12);
    app.update();
    assert_eq!(opacity(&app, map).grid().width(), 12);
    assert_eq!(viewshed(&app, outside).count(), 0, "now off the map");
    assert_eq!(
        seen(&app, inside),
        core_seen(12, 12, |_, _| false, (5, 5), Viewshed::UNLIMITED)
    );

    // Growing back restores the walls that were cut off.
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(20, 20);
    app.update();
    assert!(opacity(&app, map).is_opaque(TilePos { x: 15, y: 3 }));
    assert_eq!(
        seen(&app, outside),
        core_seen(20, 20, |x, _| x == 15, (17, 17), 3)
    );
}

#[test]
fn two_tilemaps_are_independent_and_viewers_can_move_between_them() {
    let mut app = app();
    let walled = spawn_map(&mut app, 10, 10, |x, _| x == 5);
    let open = spawn_map(&mut app, 10, 10, |_, _| false);
    let a = spawn_viewer(&mut app, walled, 2, 2, Viewshed::UNLIMITED);
    let b = spawn_viewer(&mut app, open, 2, 2, Viewshed::UNLIMITED);
    app.update();
    assert!(!viewshed(&app, a).is_visible(TilePos { x: 8, y: 2 }));
    assert!(viewshed(&app, b).is_visible(TilePos { x: 8, y: 2 }));

    app.world_mut().get_mut::<TilemapId>(a).unwrap().0 = open;
    app.update();
    assert_eq!(
        viewshed(&app, a).origin(),
        Some((open, TilePos { x: 2, y: 2 }))
    );
    assert!(viewshed(&app, a).is_visible(TilePos { x: 8, y: 2 }));
}

#[test]
fn opaque_tiles_on_a_layer_block_sight_on_the_whole_map() {
    let mut app = app();
    let ground = spawn_map(&mut app, 10, 3, |_, _| false);
    let _walls = spawn_layer(&mut app, 10, 3, |x, _| x == 4, Some(ground));
    let viewer = spawn_viewer(&mut app, ground, 1, 1, Viewshed::UNLIMITED);
    app.update();
    assert!(opacity(&app, ground).is_opaque(TilePos { x: 4, y: 1 }));
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 7, y: 1 }));
}

fn error_on_ambiguity(schedule: &mut Schedule) {
    schedule.set_build_settings(ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..default()
    });
}

#[test]
fn systems_have_no_ambiguities() {
    let mut app = app();
    app.edit_schedule(PostUpdate, error_on_ambiguity);
    app.edit_schedule(ViewshedSchedule, error_on_ambiguity);
    let map = spawn_map(&mut app, 8, 8, pillars);
    spawn_viewer(&mut app, map, 2, 2, 4);
    // Building a schedule fails (panics) on any ambiguity.
    app.update();
}

/// What systems ordered around the steps see of one viewer, frame by frame.
#[derive(Resource, Default)]
struct SeenAround(Vec<[u64; 3]>);

fn generation_into<const SLOT: usize>(viewer: Single<&Viewshed>, mut seen: ResMut<SeenAround>) {
    let frame = seen.0.last_mut().unwrap();
    frame[SLOT] = viewer.generation();
}

fn next_frame(mut seen: ResMut<SeenAround>) {
    seen.0.push([0; 3]);
}

/// A game's systems ordered against `ViewshedSystems` run where they say: before the
/// recompute they see last frame's view, after it the view of the tile the viewer moved to in
/// `Update` of the same frame, and after the fog (in `PostUpdate`: after the whole plugin)
/// still that one.
#[test]
fn systems_ordered_around_the_steps_see_them_done() {
    let mut app = app();
    app.init_resource::<SeenAround>()
        .add_systems(
            PostUpdate,
            (
                next_frame.before(ViewshedSystems),
                generation_into::<2>.after(ViewshedSystems),
            ),
        )
        .add_systems(
            ViewshedSchedule,
            (
                generation_into::<0>
                    .after(ViewshedStepSystems::Opacity)
                    .before(ViewshedStepSystems::Views),
                generation_into::<1>
                    .after(ViewshedStepSystems::Light)
                    .before(ViewshedStepSystems::Sightings),
            ),
        );
    let map = spawn_map(&mut app, 20, 20, pillars);
    let viewer = spawn_viewer(&mut app, map, 2, 2, 4);
    app.update();
    for x in 3..8 {
        app.world_mut().get_mut::<TilePos>(viewer).unwrap().x = x;
        app.update();
        assert_eq!(seen(&app, viewer), core_seen(20, 20, pillars, (x, 2), 4));
    }
    app.update();
    let frames = &app.world().resource::<SeenAround>().0;
    let expected: Vec<[u64; 3]> = (1..=6).map(|g| [g - 1, g, g]).chain([[6, 6, 6]]).collect();
    assert_eq!(frames, &expected);
}

/// The plugin's schedule runs with another executor a game gives it, with the same views.
#[test]
fn the_plugin_schedule_takes_another_executor() {
    let grid = random_grid(40, 30, 25, 7);
    let wall = |x, y| grid.is_opaque(x, y);
    let mut apps = [app(), app()];
    apps[1].edit_schedule(ViewshedSchedule, |schedule| {
        schedule.set_executor(MultiThreadedExecutor::new());
    });
    let viewers: Vec<Vec<Entity>> = apps
        .iter_mut()
        .map(|app| {
            let map = spawn_map(app, 40, 30, wall);
            (0..50)
                .map(|i| spawn_viewer(app, map, (i * 7) % 40, (i * 11) % 30, 1 + i % 9))
                .collect()
        })
        .collect();
    for step in 0..6u32 {
        for (app, viewers) in apps.iter_mut().zip(&viewers) {
            for &viewer in viewers {
                let mut pos = app.world_mut().get_mut::<TilePos>(viewer).unwrap();
                pos.y = (pos.y + step) % 30;
            }
            app.update();
        }
        for (&one, &other) in viewers[0].iter().zip(&viewers[1]) {
            assert_eq!(seen(&apps[0], one), seen(&apps[1], other), "step {step}");
            assert!(generation(&apps[1], other) > 0);
        }
    }
}

#[test]
fn tilemap_plugin_is_added_unless_the_app_cannot_render() {
    let app = app();
    // With bevy_ecs_tilemap's renderer compiled in, a headless app (no render sub-app) cannot
    // host it: the plugin then works on the tilemap components alone.
    assert_eq!(
        app.is_plugin_added::<TilemapPlugin>(),
        cfg!(not(feature = "render"))
    );
    let mut with_tilemap = App::new();
    if cfg!(not(feature = "render")) {
        with_tilemap.add_plugins((MinimalPlugins, TilemapPlugin, ViewshedPlugins::default()));
        assert!(
            with_tilemap.is_plugin_added::<TilemapPlugin>(),
            "added once, by the game"
        );
    }
}

/// The map components the plugin adds are registered for reflection, so an inspector can find
/// and show them: each is read through `ReflectComponent` from a map.
#[test]
fn the_map_components_are_registered_for_reflection() {
    use std::any::TypeId;

    use bevy::ecs::reflect::{AppTypeRegistry, ReflectComponent};

    let mut app = app();
    let map = spawn_map(&mut app, 6, 4, |x, _| x == 3);
    spawn_player(&mut app, map, 1, 1, 4);
    app.update();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for (name, id) in [
        ("FogOfWar", TypeId::of::<FogOfWar>()),
        ("MapOpacity", TypeId::of::<MapOpacity>()),
        (
            "DrawnTeamOverride",
            TypeId::of::<bevy_viewshed::DrawnTeamOverride>(),
        ),
        ("Lighting", TypeId::of::<Lighting>()),
        ("LastSeen", TypeId::of::<LastSeen>()),
    ] {
        let registration = registry
            .get(id)
            .unwrap_or_else(|| panic!("{name} is registered"));
        let component = registration
            .data::<ReflectComponent>()
            .unwrap_or_else(|| panic!("{name} reflects as a component"));
        if name != "DrawnTeamOverride" {
            let entity = app.world().entity(map);
            let value = component.reflect(entity);
            assert!(value.is_some(), "{name} is read by reflection from the map");
        }
    }
}

/// A map's `OpaqueCells` (the game's own grid) block sight like `Opaque` entities, and the
/// two combine: a tile is opaque when it is painted or an entity stands on it. Cells set,
/// cleared, or the whole component removed: the views follow.
#[test]
fn opaque_cells_paint_walls_in_bulk_beside_opaque_entities() {
    let (width, height) = (16, 12);
    let pillars = |x: u32, y: u32| x % 4 == 2 && y % 3 == 1;
    let mut app = app();
    let map = spawn_map(&mut app, width, height, |_, _| false);
    app.world_mut()
        .entity_mut(map)
        .insert(OpaqueCells::from_fn(width, height, pillars));
    let viewer = spawn_viewer(&mut app, map, 7, 6, 10);
    app.update();
    assert_eq!(
        seen(&app, viewer),
        core_seen(width, height, pillars, (7, 6), 10)
    );
    // A boulder (an entity) on a painted tile and one on a clear tile.
    let on_painted = |app: &mut App, x, y| {
        let tile = tile_entity(app, map, x, y);
        app.world_mut().entity_mut(tile).insert(Opaque);
        tile
    };
    let boulder = on_painted(&mut app, 10, 4);
    on_painted(&mut app, 5, 6);
    app.update();
    let with_extra = |x: u32, y: u32| pillars(x, y) || (x, y) == (5, 6);
    assert_eq!(
        seen(&app, viewer),
        core_seen(width, height, with_extra, (7, 6), 10)
    );
    // The game clears the painted tile under the boulder: the boulder still blocks.
    app.world_mut()
        .get_mut::<OpaqueCells>(map)
        .unwrap()
        .set(TilePos { x: 10, y: 4 }, false);
    app.update();
    assert!(opacity(&app, map).is_opaque(TilePos { x: 10, y: 4 }));
    app.world_mut().entity_mut(boulder).remove::<Opaque>();
    app.update();
    let cleared = |x: u32, y: u32| with_extra(x, y) && (x, y) != (10, 4);
    assert_eq!(
        seen(&app, viewer),
        core_seen(width, height, cleared, (7, 6), 10)
    );
    // Without the component, only the entity is left.
    app.world_mut().entity_mut(map).remove::<OpaqueCells>();
    app.update();
    let only_extra = |x: u32, y: u32| (x, y) == (5, 6);
    assert_eq!(
        seen(&app, viewer),
        core_seen(width, height, only_extra, (7, 6), 10)
    );
    assert!(opacity(&app, map).is_opaque(TilePos { x: 5, y: 6 }));
}
