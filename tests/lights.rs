//! Light and darkness in a headless app: light sources light their field of view, viewers
//! that `NeedsLight` see lit tiles (and their dark vision), exactly as a plain model built
//! from `field_of_view` calls says, and a change is recomputed only where it matters.

mod common_app;

use std::collections::BTreeSet;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::hex_distance;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Lighting, OpacityGrid, field_of_view, hex_field_of_view};
use common_app::{app, generation, hex_coords, spawn_map, tile_entity};
use proptest::prelude::*;

// --- The model -----------------------------------------------------------------------------

/// What the README's rules say a viewer that needs light sees, from the core's
/// `field_of_view` alone: its field of view `F`, kept where within dark vision, a lit floor,
/// or a lit wall next to a lit floor of `F`.
fn model_view(
    grid: &OpacityGrid,
    lights: &[((u32, u32), u32)],
    viewer: (u32, u32),
    options: FovOptions,
    dark_vision: u32,
) -> Vec<(u32, u32)> {
    let lit = model_lit(grid, lights);
    let fov: BTreeSet<(u32, u32)> = field_of_view(grid, viewer, options)
        .unwrap()
        .iter()
        .collect();
    let lit_floor = |c: (u32, u32)| !grid.is_opaque(c.0, c.1) && lit.contains(&c);
    let near = |(x, y): (u32, u32)| {
        let (dx, dy) = (
            i64::from(x) - i64::from(viewer.0),
            i64::from(y) - i64::from(viewer.1),
        );
        DistanceShape::Euclidean.contains(dx, dy, dark_vision)
    };
    let by_seen_floor = |(x, y): (u32, u32)| {
        (-1i64..=1).any(|dy| {
            (-1i64..=1).any(|dx| {
                let n = ((i64::from(x) + dx) as u32, (i64::from(y) + dy) as u32);
                (dx, dy) != (0, 0) && fov.contains(&n) && lit_floor(n)
            })
        })
    };
    let mut seen: Vec<_> = fov
        .iter()
        .copied()
        .filter(|&c| {
            near(c)
                || lit_floor(c)
                || (grid.is_opaque(c.0, c.1) && lit.contains(&c) && by_seen_floor(c))
        })
        .collect();
    sort(&mut seen);
    seen
}

/// The tiles lit by lights of these positions and radii: the union of their fields of view.
fn model_lit(grid: &OpacityGrid, lights: &[((u32, u32), u32)]) -> BTreeSet<(u32, u32)> {
    lights
        .iter()
        .flat_map(|&(at, radius)| {
            field_of_view(grid, at, FovOptions::radius(radius))
                .unwrap()
                .iter()
                .collect::<Vec<_>>()
        })
        .collect()
}

fn sort(tiles: &mut [(u32, u32)]) {
    tiles.sort_unstable_by_key(|&(x, y)| (y, x));
}

// --- The app -------------------------------------------------------------------------------

/// Three rooms in a row, joined by doorways at (9, 3) and (18, 3); a torch at `T` (22, 3)
/// lights the east room, a viewer at `@` (3, 3) stands in the dark west room.
///
/// ```text
///    x: 0         1         2
///       0123456789012345678901234567
///     0 ############################
///     1 #........#........#........#
///     2 #........#........#........#
///     3 #..@..................T....#
///     4 #........#........#........#
///     5 #........#........#........#
///     6 ############################
/// ```
const ROOMS: [&str; 7] = [
    "############################",
    "#........#........#........#",
    "#........#........#........#",
    "#..@..................T....#",
    "#........#........#........#",
    "#........#........#........#",
    "############################",
];

fn wall_at<'a>(map: &'a [&'a str]) -> impl Fn(u32, u32) -> bool + 'a {
    |x, y| map[y as usize].as_bytes()[x as usize] == b'#'
}

fn grid_of(map: &[&str]) -> OpacityGrid {
    let wall = wall_at(map);
    OpacityGrid::from_fn(map[0].len() as u32, map.len() as u32, wall)
}

fn spawn_light(app: &mut App, map: Entity, (x, y): (u32, u32), radius: u32) -> Entity {
    app.world_mut()
        .spawn((LightSource::new(radius), TilePos { x, y }, TilemapId(map)))
        .id()
}

fn spawn_dark_viewer(
    app: &mut App,
    map: Entity,
    (x, y): (u32, u32),
    viewshed: Viewshed,
    dark_vision: u32,
) -> Entity {
    app.world_mut()
        .spawn((
            viewshed,
            NeedsLight::new(dark_vision),
            TilePos { x, y },
            TilemapId(map),
        ))
        .id()
}

fn seen(app: &App, viewer: Entity) -> Vec<(u32, u32)> {
    let mut tiles: Vec<_> = app
        .world()
        .get::<Viewshed>(viewer)
        .unwrap()
        .iter()
        .map(|t| (t.x, t.y))
        .collect();
    sort(&mut tiles);
    tiles
}

fn sees(app: &App, viewer: Entity, (x, y): (u32, u32)) -> bool {
    app.world()
        .get::<Viewshed>(viewer)
        .unwrap()
        .is_visible(TilePos { x, y })
}

fn light_generation(app: &App, light: Entity) -> u64 {
    app.world().get::<LightSource>(light).unwrap().generation()
}

fn lighting(app: &App, map: Entity) -> &Lighting {
    app.world().get::<Lighting>(map).expect("map has Lighting")
}

/// The rooms with the torch at (22, 3), radius 5, and a viewer at (3, 3) in the dark west
/// room seeing without limit.
fn rooms(dark_vision: u32) -> (App, Entity, Entity, Entity) {
    let mut app = app();
    let map = spawn_map(&mut app, 28, 7, wall_at(&ROOMS));
    let torch = spawn_light(&mut app, map, (22, 3), 5);
    let viewer = spawn_dark_viewer(&mut app, map, (3, 3), Viewshed::unlimited(), dark_vision);
    app.update();
    (app, map, torch, viewer)
}

// --- Exact tiles ---------------------------------------------------------------------------

#[test]
fn a_torch_in_a_distant_room_is_seen_through_the_doorways() {
    let (app, _, _, viewer) = rooms(0);
    // The torch's own tile and the lit floor on the doorway line, 19 tiles away.
    assert!(sees(&app, viewer, (22, 3)));
    assert!(sees(&app, viewer, (25, 3)));
    // The lit floor just inside the east doorway, but not the dark middle room.
    assert!(sees(&app, viewer, (19, 3)));
    assert!(!sees(&app, viewer, (13, 3)));
    assert_eq!(
        seen(&app, viewer),
        model_view(
            &grid_of(&ROOMS),
            &[((22, 3), 5)],
            (3, 3),
            FovOptions::unlimited(),
            0
        )
    );
}

#[test]
fn a_dark_room_is_not_seen_but_its_viewer_s_own_tile_is() {
    let (app, _, _, viewer) = rooms(0);
    let west_room: Vec<_> = seen(&app, viewer)
        .into_iter()
        .filter(|&(x, _)| x < 9)
        .collect();
    assert_eq!(west_room, vec![(3, 3)], "only its own tile, in the dark");
}

#[test]
fn dark_vision_sees_a_disk_of_the_field_of_view() {
    let (app, _, _, viewer) = rooms(2);
    let west_room: Vec<_> = seen(&app, viewer)
        .into_iter()
        .filter(|&(x, _)| x < 9)
        .collect();
    let mut disk = vec![];
    for y in 1..=5u32 {
        for x in 1..=5u32 {
            let (dx, dy) = (i64::from(x) - 3, i64::from(y) - 3);
            if DistanceShape::Euclidean.contains(dx, dy, 2) {
                disk.push((x, y));
            }
        }
    }
    sort(&mut disk);
    assert_eq!(west_room, disk);
}

#[test]
fn walls_are_seen_when_lit_beside_a_seen_lit_floor() {
    let mut app = app();
    // One room lit by a torch at (3, 2); the viewer stands in it with no dark vision.
    let map_text = ["#######", "#.....#", "#.....#", "#.....#", "#######"];
    let map = spawn_map(&mut app, 7, 5, wall_at(&map_text));
    let light = spawn_light(&mut app, map, (3, 2), 1);
    let viewer = spawn_dark_viewer(&mut app, map, (1, 2), Viewshed::unlimited(), 0);
    app.update();
    // The light of radius 1 lights the floors (2..=4, 1..=3) and no wall.
    assert!(sees(&app, viewer, (3, 1)), "lit floor");
    assert!(
        !sees(&app, viewer, (3, 0)),
        "a wall the light does not reach"
    );
    assert!(!sees(&app, viewer, (5, 2)), "dark floor");
    assert_eq!(
        seen(&app, viewer),
        model_view(
            &grid_of(&map_text),
            &[((3, 2), 1)],
            (1, 2),
            FovOptions::unlimited(),
            0
        )
    );
    // With radius 2 the light reaches the north wall above it.
    app.world_mut()
        .get_mut::<LightSource>(light)
        .unwrap()
        .radius = 2;
    app.update();
    assert!(
        sees(&app, viewer, (3, 0)),
        "lit wall beside a seen lit floor"
    );
    assert!(!sees(&app, viewer, (6, 2)), "a wall beyond the light");
    assert_eq!(
        seen(&app, viewer),
        model_view(
            &grid_of(&map_text),
            &[((3, 2), 2)],
            (1, 2),
            FovOptions::unlimited(),
            0
        )
    );
}

#[test]
fn a_wall_lit_from_the_other_side_stays_dark() {
    let mut app = app();
    // Two rooms split by a wall at x = 3; the torch lights the east room and that wall.
    let map_text = ["#######", "#..#..#", "#..#..#", "#..#..#", "#######"];
    let map = spawn_map(&mut app, 7, 5, wall_at(&map_text));
    spawn_light(&mut app, map, (4, 2), 3);
    let viewer = spawn_dark_viewer(&mut app, map, (1, 2), Viewshed::unlimited(), 0);
    app.update();
    assert!(lighting(&app, map).is_lit(TilePos { x: 3, y: 2 }));
    assert_eq!(
        seen(&app, viewer),
        vec![(1, 2)],
        "the lit wall's seen side is dark"
    );
}

#[test]
fn lighting_counts_and_colours_the_lit_tiles() {
    let (app, map, torch, _) = rooms(0);
    let lighting = lighting(&app, map);
    let lit = app.world().get::<LightSource>(torch).unwrap();
    let mut from_light: Vec<_> = lit.lit().map(|t| (t.x, t.y)).collect();
    let mut from_map: Vec<_> = lighting.lit_tiles().map(|t| (t.x, t.y)).collect();
    sort(&mut from_light);
    sort(&mut from_map);
    assert_eq!(from_light, from_map);
    let mut model: Vec<_> = model_lit(&grid_of(&ROOMS), &[((22, 3), 5)])
        .into_iter()
        .collect();
    sort(&mut model);
    assert_eq!(from_map, model);
    // White, intensity 1: full at the torch, fading with distance, none in the dark.
    let at = |x, y| lighting.brightness(TilePos { x, y });
    assert!((at(22, 3) - 1.0).abs() < 1e-3);
    assert!((at(25, 3) - 0.5).abs() < 1e-3, "3 of radius 5: 1 - 3/6");
    assert_eq!(at(13, 3), 0.0);
    assert_eq!(lighting.lights_at(TilePos { x: 22, y: 3 }), 1);
}

/// A `Viewshed` inserted again on a viewer that needs light (new settings, a loaded save) still
/// sees only what the light rule allows, and so does a `NeedsLight` inserted again.
#[test]
fn a_viewshed_or_needs_light_inserted_again_keeps_the_light_rule() {
    let (mut app, _map, _torch, viewer) = rooms(0);
    let dark = (4, 3);
    assert!(!sees(&app, viewer, dark), "its dark room is not seen");
    app.world_mut()
        .entity_mut(viewer)
        .insert(Viewshed::unlimited());
    app.update();
    assert!(!sees(&app, viewer, dark), "nor with a new Viewshed");
    assert!(sees(&app, viewer, (22, 3)), "the torch's tile still is");
    app.world_mut()
        .entity_mut(viewer)
        .insert(NeedsLight::new(0));
    app.update();
    assert!(!sees(&app, viewer, dark), "nor with a new NeedsLight");
    assert!(sees(&app, viewer, (22, 3)));
}

/// A torch whose `LightSource` is inserted again (a flicker system setting a smaller flame)
/// lights with the new one only: the old light leaves the map.
#[test]
fn a_light_inserted_again_replaces_the_old_one() {
    let (mut app, map, torch, _) = rooms(0);
    app.world_mut()
        .entity_mut(torch)
        .insert(LightSource::new(1));
    app.update();
    let mut lit: Vec<_> = lighting(&app, map)
        .lit_tiles()
        .map(|t| (t.x, t.y))
        .collect();
    sort(&mut lit);
    let mut model: Vec<_> = model_lit(&grid_of(&ROOMS), &[((22, 3), 1)])
        .into_iter()
        .collect();
    sort(&mut model);
    assert_eq!(lit, model, "only the new, smaller light");
    assert_eq!(lighting(&app, map).lights_at(TilePos { x: 22, y: 3 }), 1);
    assert!((lighting(&app, map).brightness(TilePos { x: 22, y: 3 }) - 1.0).abs() < 1e-3);
}

/// A lit torch's `LightSource` cloned onto another entity is a second light: the first keeps
/// its light, and when it goes the second's stays exact.
#[test]
fn a_cloned_light_is_a_second_light() {
    let (mut app, map, torch, _) = rooms(0);
    let light = app.world().get::<LightSource>(torch).unwrap().clone();
    let second = app
        .world_mut()
        .spawn((light, TilePos { x: 22, y: 3 }, TilemapId(map)))
        .id();
    app.update();
    let at = |app: &App| lighting(app, map).brightness(TilePos { x: 22, y: 3 });
    assert_eq!(lighting(&app, map).lights_at(TilePos { x: 22, y: 3 }), 2);
    assert!(
        (at(&app) - 2.0).abs() < 1e-3,
        "two white lights of intensity 1"
    );
    app.world_mut().despawn(torch);
    app.update();
    assert_eq!(lighting(&app, map).lights_at(TilePos { x: 22, y: 3 }), 1);
    assert!((at(&app) - 1.0).abs() < 1e-3, "the second light, exactly");
    app.world_mut().despawn(second);
    app.update();
    assert_eq!(at(&app), 0.0);
}

/// A torch whose `LightSource` is written over in place (a flicker system doing
/// `*light = LightSource::new(1)`, or copying another light's component) lights with the new
/// one only, and each light then goes out exactly: what a light added is kept by its map, not
/// in the component a game can overwrite.
#[test]
fn a_light_replaced_in_place_leaves_nothing_behind() {
    let (mut app, map, torch, _) = rooms(0);
    let lit_tiles = |app: &App| {
        let mut lit: Vec<_> = lighting(app, map).lit_tiles().map(|t| (t.x, t.y)).collect();
        sort(&mut lit);
        lit
    };
    *app.world_mut().get_mut::<LightSource>(torch).unwrap() = LightSource::new(1);
    app.update();
    let mut model: Vec<_> = model_lit(&grid_of(&ROOMS), &[((22, 3), 1)])
        .into_iter()
        .collect();
    sort(&mut model);
    assert_eq!(lit_tiles(&app), model, "only the new, smaller light");
    // A second torch next to it, then the first's component copied over it in place.
    let second = spawn_light(&mut app, map, (23, 3), 3);
    app.update();
    let copy = app.world().get::<LightSource>(torch).unwrap().clone();
    *app.world_mut().get_mut::<LightSource>(second).unwrap() = copy;
    app.update();
    let tile = TilePos { x: 22, y: 3 };
    assert_eq!(lighting(&app, map).lights_at(tile), 2);
    assert_eq!(
        lighting(&app, map).brightness(tile),
        1.5,
        "1 from the torch, 1 - 1/2 from the copy a tile away"
    );
    app.world_mut().despawn(torch);
    app.update();
    assert_eq!(lighting(&app, map).lights_at(tile), 1);
    assert_eq!(
        lighting(&app, map).brightness(tile),
        0.5,
        "the copy, exactly"
    );
    app.world_mut().despawn(second);
    app.update();
    assert_eq!(lit_tiles(&app), vec![]);
    assert_eq!(lighting(&app, map).brightness(tile), 0.0);
}

/// A light moved to another map (its `TilemapId` changed) lights that map only: the first
/// map's `Lighting` gives back exactly what it added, and the second takes it away when the
/// light goes out.
#[test]
fn a_light_moved_to_another_map_leaves_the_first_dark() {
    let mut app = app();
    let first = spawn_map(&mut app, 9, 9, |_, _| false);
    let second = spawn_map(&mut app, 9, 9, |_, _| false);
    let light = spawn_light(&mut app, first, (4, 4), 2);
    app.update();
    let tile = TilePos { x: 4, y: 4 };
    assert_eq!(lighting(&app, first).lights_at(tile), 1);
    app.world_mut().entity_mut(light).insert(TilemapId(second));
    app.update();
    assert_eq!(lighting(&app, first).lit_tiles().count(), 0);
    assert_eq!(lighting(&app, first).brightness(tile), 0.0);
    assert_eq!(lighting(&app, second).lights_at(tile), 1);
    assert_eq!(lighting(&app, second).brightness(tile), 1.0);
    app.world_mut().despawn(light);
    app.update();
    assert_eq!(lighting(&app, second).lit_tiles().count(), 0);
    assert_eq!(lighting(&app, second).brightness(tile), 0.0);
}

/// A `NeedsLight` written over in place (`*needs = NeedsLight::new(0)`) keeps the viewer's
/// field of view: when the torch is carried into the dark middle room, the viewer sees it
/// there. What the filter keeps is not in the component a game can overwrite.
#[test]
fn a_needs_light_replaced_in_place_keeps_the_field_of_view() {
    let (mut app, _map, torch, viewer) = rooms(0);
    *app.world_mut().get_mut::<NeedsLight>(viewer).unwrap() = NeedsLight::new(0);
    app.update();
    let grid = grid_of(&ROOMS);
    let mut fov: Vec<_> = app
        .world()
        .get::<NeedsLight>(viewer)
        .unwrap()
        .field_of_view()
        .map(|t| (t.x, t.y))
        .collect();
    sort(&mut fov);
    let mut want: Vec<_> = field_of_view(&grid, (3, 3), FovOptions::unlimited())
        .unwrap()
        .iter()
        .collect();
    sort(&mut want);
    assert_eq!(fov, want, "the whole field of view, not what it saw of it");
    *app.world_mut().get_mut::<TilePos>(torch).unwrap() = TilePos { x: 13, y: 3 };
    app.update();
    assert!(sees(&app, viewer, (13, 3)), "the torch in the middle room");
    assert_eq!(
        seen(&app, viewer),
        model_view(&grid, &[((13, 3), 5)], (3, 3), FovOptions::unlimited(), 0)
    );
}

/// A `Viewshed` written over in place on a viewer that needs light (`*viewshed =
/// Viewshed::unlimited()`: its generation starts again, at the one filtered last) is filtered
/// by the light like a new one: it does not see its dark room.
#[test]
fn a_viewshed_replaced_in_place_still_needs_light() {
    let (mut app, _map, _torch, viewer) = rooms(0);
    assert_eq!(generation(&app, viewer), 1);
    *app.world_mut().get_mut::<Viewshed>(viewer).unwrap() = Viewshed::unlimited();
    app.update();
    assert!(!sees(&app, viewer, (4, 3)), "its dark room");
    assert_eq!(
        seen(&app, viewer),
        model_view(
            &grid_of(&ROOMS),
            &[((22, 3), 5)],
            (3, 3),
            FovOptions::unlimited(),
            0
        )
    );
}

/// A light's floats are taken as the lighting can use them, where they enter it: not-a-number
/// is 0, below 0 is 0, above 1,024 (infinity included) is 1,024, channel by channel.
#[test]
fn odd_light_values_are_sanitized_where_they_enter() {
    let mut app = app();
    let map = spawn_map(&mut app, 9, 3, |_, _| false);
    let lights = [
        (1, LightSource::new(0).with_intensity(f32::NAN)),
        (
            3,
            LightSource::new(0).with_color(Color::linear_rgb(f32::INFINITY, 0.0, 0.0)),
        ),
        (5, LightSource::new(0).with_intensity(-3.0)),
        (7, LightSource::new(0).with_intensity(f32::INFINITY)),
    ];
    for (x, light) in lights {
        app.world_mut()
            .spawn((light, TilePos { x, y: 1 }, TilemapId(map)));
    }
    app.update();
    let lighting = lighting(&app, map);
    let at = |x| lighting.light_at(TilePos { x, y: 1 });
    let channels = |x| (at(x).red, at(x).green, at(x).blue);
    assert_eq!(channels(1), (0.0, 0.0, 0.0), "a NaN intensity is 0");
    assert_eq!(
        channels(3),
        (1024.0, 0.0, 0.0),
        "an infinite red is the brightest red"
    );
    assert_eq!(channels(5), (0.0, 0.0, 0.0), "a negative intensity is 0");
    assert_eq!(channels(7), (1024.0, 1024.0, 1024.0), "an infinite white");
    assert_eq!(
        lighting.lights_at(TilePos { x: 1, y: 1 }),
        1,
        "still a light"
    );
}

/// 4,096 of the brightest lights on one tile sum to 2^32 in fixed point, past what a 32-bit
/// sum holds; the sum neither wraps to darkness nor leaves anything behind when they go out.
#[test]
fn many_bright_lights_on_one_tile_add_up_and_go_out_exactly() {
    let mut app = app();
    let map = spawn_map(&mut app, 3, 3, |_, _| false);
    let tile = TilePos { x: 1, y: 1 };
    let lights: Vec<Entity> = (0..4096)
        .map(|_| {
            let light = LightSource::new(0).with_intensity(1024.0);
            app.world_mut().spawn((light, tile, TilemapId(map))).id()
        })
        .collect();
    app.update();
    assert_eq!(lighting(&app, map).brightness(tile), 4096.0 * 1024.0);
    assert_eq!(lighting(&app, map).lights_at(tile), 4096);
    for light in lights {
        app.world_mut().despawn(light);
    }
    app.update();
    assert_eq!(lighting(&app, map).brightness(tile), 0.0);
    assert_eq!(lighting(&app, map).lights_at(tile), 0);
}

#[test]
fn a_light_that_goes_out_leaves_the_room_dark() {
    let (mut app, map, torch, viewer) = rooms(0);
    app.world_mut().entity_mut(torch).despawn();
    app.update();
    assert_eq!(lighting(&app, map).lit_tiles().count(), 0);
    assert_eq!(lighting(&app, map).brightness(TilePos { x: 22, y: 3 }), 0.0);
    assert_eq!(seen(&app, viewer), vec![(3, 3)]);
}

#[test]
fn a_carried_light_moves_with_its_bearer() {
    let mut app = app();
    let map = spawn_map(&mut app, 28, 7, wall_at(&ROOMS));
    let player = app
        .world_mut()
        .spawn((
            Viewshed::unlimited(),
            NeedsLight::new(0),
            LightSource::new(3),
            TilePos { x: 3, y: 3 },
            TilemapId(map),
        ))
        .id();
    app.update();
    let grid = grid_of(&ROOMS);
    let unlimited = FovOptions::unlimited();
    assert_eq!(
        seen(&app, player),
        model_view(&grid, &[((3, 3), 3)], (3, 3), unlimited, 0)
    );
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 12, y: 3 };
    app.update();
    assert_eq!(
        seen(&app, player),
        model_view(&grid, &[((12, 3), 3)], (12, 3), unlimited, 0)
    );
    assert_eq!(lighting(&app, map).brightness(TilePos { x: 3, y: 3 }), 0.0);
}

// --- Only what a change concerns is recomputed ---------------------------------------------

/// Two rooms joined by a door at (8, 3), and far to the east a third room with its own torch
/// and a guard of radius 6 that the door is out of reach of.
const DOOR_ROOMS: [&str; 7] = [
    "##################################",
    "#.......#.......#.........#......#",
    "#.......#.......#.........#......#",
    "#...............#.........#......#",
    "#.......#.......#.........#......#",
    "#.......#.......#.........#......#",
    "##################################",
];

#[test]
fn a_door_closing_darkens_a_room_only_for_the_viewers_and_lights_it_concerns() {
    let map_text = DOOR_ROOMS;
    let mut app = app();
    let map = spawn_map(&mut app, 34, 7, wall_at(&map_text));
    // West room: a torch whose light reaches through the door; east room: a dark viewer
    // looking through the door at it.
    let west_torch = spawn_light(&mut app, map, (3, 3), 6);
    let watcher = spawn_dark_viewer(&mut app, map, (13, 3), Viewshed::unlimited(), 0);
    // Far east: a torch and a guard, both out of the door's reach.
    let far_torch = spawn_light(&mut app, map, (21, 3), 4);
    let guard = spawn_dark_viewer(&mut app, map, (22, 4), Viewshed::new(6), 0);
    app.update();
    assert!(
        sees(&app, watcher, (4, 3)),
        "the lit west room, through the door"
    );
    let before = [
        light_generation(&app, west_torch),
        generation(&app, watcher),
        light_generation(&app, far_torch),
        generation(&app, guard),
    ];
    // Close the door.
    let door = tile_entity(&app, map, 8, 3);
    app.world_mut().entity_mut(door).insert(Opaque);
    app.update();
    let after = [
        light_generation(&app, west_torch),
        generation(&app, watcher),
        light_generation(&app, far_torch),
        generation(&app, guard),
    ];
    assert_eq!(after[0], before[0] + 1, "the west torch lights less");
    assert_eq!(after[1], before[1] + 1, "the watcher sees less");
    assert_eq!(
        after[2..],
        before[2..],
        "the far torch and guard are left alone"
    );
    assert!(!sees(&app, watcher, (4, 3)));
    let grid = grid_of(&map_text);
    let mut closed = grid.clone();
    closed.set_opaque(8, 3, true);
    let lights = [((3, 3), 6), ((21, 3), 4)];
    assert_eq!(
        seen(&app, watcher),
        model_view(&closed, &lights, (13, 3), FovOptions::unlimited(), 0)
    );
}

#[test]
fn a_light_moving_refilters_only_the_viewers_that_see_its_tiles() {
    let map_text = DOOR_ROOMS;
    let mut app = app();
    let map = spawn_map(&mut app, 34, 7, wall_at(&map_text));
    let torch = spawn_light(&mut app, map, (3, 3), 2);
    let watcher = spawn_dark_viewer(&mut app, map, (13, 3), Viewshed::unlimited(), 0);
    let guard = spawn_dark_viewer(&mut app, map, (22, 4), Viewshed::unlimited(), 0);
    let mut messages = app
        .world_mut()
        .resource_mut::<Messages<ViewshedUpdated>>()
        .get_cursor();
    app.update();
    let watched = generation(&app, watcher);
    let guarded = generation(&app, guard);
    messages
        .read(app.world().resource::<Messages<ViewshedUpdated>>())
        .count();
    // The torch steps toward the door: the watcher sees it, the guard's field of view holds
    // none of the tiles that became lit or dark.
    *app.world_mut().get_mut::<TilePos>(torch).unwrap() = TilePos { x: 5, y: 3 };
    app.update();
    assert_eq!(generation(&app, watcher), watched + 1);
    assert_eq!(generation(&app, guard), guarded);
    let updated: Vec<Entity> = messages
        .read(app.world().resource::<Messages<ViewshedUpdated>>())
        .map(|m| m.viewer)
        .collect();
    assert_eq!(updated, vec![watcher]);
    assert_eq!(
        seen(&app, watcher),
        model_view(
            &grid_of(&map_text),
            &[((5, 3), 2)],
            (13, 3),
            FovOptions::unlimited(),
            0
        )
    );
    // A frame where nothing changes recomputes nothing.
    app.update();
    assert_eq!(generation(&app, watcher), watched + 1);
    assert_eq!(light_generation(&app, torch), 2);
}

#[test]
fn fog_and_sightings_follow_the_light() {
    let (mut app, map, _, viewer) = rooms(0);
    app.world_mut().entity_mut(viewer).insert(RevealsFog);
    let lurker = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 13, y: 3 }, TilemapId(map)))
        .id();
    let visitor = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 23, y: 3 }, TilemapId(map)))
        .id();
    app.update();
    let spotted: Vec<Entity> = app
        .world()
        .get::<SpottedTargets>(viewer)
        .unwrap()
        .iter()
        .collect();
    assert_eq!(
        spotted,
        vec![visitor],
        "the lurker in the dark is not spotted"
    );
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert_eq!(fog.state(TilePos { x: 23, y: 3 }), FogState::Visible);
    assert_eq!(fog.state(TilePos { x: 13, y: 3 }), FogState::Unexplored);
    let _ = lurker;
}

#[test]
fn removing_needs_light_gives_back_the_whole_field_of_view() {
    let (mut app, _, _, viewer) = rooms(0);
    app.world_mut().entity_mut(viewer).remove::<NeedsLight>();
    app.update();
    assert!(sees(&app, viewer, (13, 3)));
}

// --- Against the model ---------------------------------------------------------------------
//
// Random games on square, hexagonal (six coordinate systems) and staggered isometric maps.
// Lights and viewers are spawned, moved (on the map and off it), disabled and enabled, cloned
// (their component onto another entity or over another light, or the whole entity) and
// despawned; lights are taken off their tilemap and put back (not viewers: one whose
// `TilemapId` is removed keeps its view, a bug of the viewers' recompute outside the light
// module); `LightSource`, `NeedsLight` and `Viewshed` are inserted again, replaced in place,
// changed in place and removed (`Viewshed`: not removed); walls are built and knocked down;
// lights pile up on a few tiles and take odd values (not a number, negative, infinite, huge).
// Several of these happen in each frame, and after every `app.update()` every view (and
// `NeedsLight::field_of_view`), every enabled light's lit set and the map's `Lighting` on
// every tile are what a plain model says, built from the core's field of view alone; at the
// end of each game the `Lighting` is, bit for bit, that of a new app with the lights still
// shining (the sums are exact, nothing drifts).

/// A set of tiles.
type Tiles = BTreeSet<(u32, u32)>;

/// The kinds of map the model plays on.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Square,
    Hex(HexCoordSystem),
    /// Staggered isometric, of an odd size both ways.
    Staggered,
}

impl Kind {
    fn size(self) -> (u32, u32) {
        match self {
            Kind::Square => (16, 12),
            Kind::Hex(_) => (13, 11),
            Kind::Staggered => (9, 7),
        }
    }

    fn tilemap_type(self) -> TilemapType {
        match self {
            Kind::Square => TilemapType::Square,
            Kind::Hex(system) => TilemapType::Hexagon(system),
            Kind::Staggered => TilemapType::Isometric(IsoCoordSystem::Staggered),
        }
    }
}

/// The diamond cell bevy_ecs_tilemap draws staggered tile `(x, y)` at.
fn diamond((x, y): (u32, u32)) -> (i64, i64) {
    (i64::from(x), i64::from(x) + i64::from(y))
}

/// A light's colour and intensity, as a game gives them.
#[derive(Clone, Copy, Debug)]
struct Look {
    color: Color,
    intensity: f32,
}

impl Look {
    const WHITE: Look = Look {
        color: Color::WHITE,
        intensity: 1.0,
    };
}

/// A `LightSource` in the model.
#[derive(Clone, Copy, Debug)]
struct Lamp {
    radius: u32,
    look: Look,
}

impl Lamp {
    fn component(self) -> LightSource {
        LightSource::new(self.radius)
            .with_color(self.look.color)
            .with_intensity(self.look.intensity)
    }

    /// What it adds at its own tile, channel by channel (docs/light.md): each linear channel,
    /// the intensity and each channel times the intensity count as 0 when not a number or
    /// below 0, as 1,024 above that (infinity included).
    fn base(self) -> [f64; 3] {
        let sane = |v: f64| {
            if v.is_nan() {
                0.0
            } else {
                v.clamp(0.0, 1024.0)
            }
        };
        let linear = self.look.color.to_linear();
        let intensity = sane(f64::from(self.look.intensity));
        [linear.red, linear.green, linear.blue].map(|c| sane(sane(f64::from(c)) * intensity))
    }
}

/// A viewer in the model: its `Viewshed` options and, when it has `NeedsLight`, its dark
/// vision.
#[derive(Clone, Copy, Debug)]
struct Eye {
    options: FovOptions,
    dark: Option<u32>,
}

/// An entity of the game: a light, a viewer, both (a carried lantern) or, once its components
/// were removed, neither.
#[derive(Clone, Copy, Debug)]
struct Thing {
    entity: Entity,
    /// Its `TilePos`, on the map or not.
    at: (u32, u32),
    /// Whether it has a `TilemapId` (of the map).
    mapped: bool,
    /// Whether it is enabled (no `Disabled`).
    enabled: bool,
    light: Option<Lamp>,
    viewer: Option<Eye>,
}

/// The game as the model sees it: the map's walls and the entities on it.
struct Model {
    kind: Kind,
    grid: OpacityGrid,
    things: Vec<Thing>,
}

impl Model {
    /// The field of view from `at` on this kind of map: the core's square or hexagonal field
    /// of view, or, on a staggered map, the square one on the diamond grid (tile `(x, y)` at
    /// cell `(x, x + y)`, every cell that is no tile a wall) read back as tiles. Nothing from
    /// off the map.
    fn fov(&self, (x, y): (u32, u32), options: FovOptions) -> Tiles {
        if !self.grid.contains(x, y) {
            return BTreeSet::new();
        }
        let (w, h) = self.kind.size();
        match self.kind {
            Kind::Square => field_of_view(&self.grid, (x, y), options)
                .unwrap()
                .iter()
                .collect(),
            Kind::Hex(system) => hex_field_of_view(&self.grid, hex_coords(system), (x, y), options)
                .unwrap()
                .iter()
                .collect(),
            Kind::Staggered => {
                let cells = OpacityGrid::from_fn(w, w + h - 1, |u, v| {
                    v < u || v - u >= h || self.grid.is_opaque(u, v - u)
                });
                field_of_view(&cells, (x, x + y), options)
                    .unwrap()
                    .iter()
                    .filter(|&(u, v)| v >= u && v - u < h)
                    .map(|(u, v)| (u, v - u))
                    .collect()
            }
        }
    }

    /// The distance a light fades over: Euclidean on square maps and on the diamond grid of
    /// staggered ones, in hexagons on hexagonal ones.
    fn distance(&self, a: (u32, u32), b: (u32, u32)) -> f64 {
        let euclid =
            |(ax, ay): (i64, i64), (bx, by): (i64, i64)| ((ax - bx) as f64).hypot((ay - by) as f64);
        let square = |(x, y): (u32, u32)| (i64::from(x), i64::from(y));
        match self.kind {
            Kind::Square => euclid(square(a), square(b)),
            Kind::Hex(system) => hex_distance(hex_coords(system), a, b) as f64,
            Kind::Staggered => euclid(diamond(a), diamond(b)),
        }
    }

    /// Whether `cell` is within dark vision `d` of a viewer at `at`: measured like its radius
    /// (its distance shape, on the diamond grid of a staggered map), in hexagons on a
    /// hexagonal map.
    fn within(&self, at: (u32, u32), options: FovOptions, d: u32, cell: (u32, u32)) -> bool {
        let square = |(x, y): (u32, u32)| (i64::from(x), i64::from(y));
        let ((ax, ay), (cx, cy)) = match self.kind {
            Kind::Hex(system) => return hex_distance(hex_coords(system), at, cell) <= u64::from(d),
            Kind::Square => (square(at), square(cell)),
            Kind::Staggered => (diamond(at), diamond(cell)),
        };
        options.shape.contains(cx - ax, cy - ay, d)
    }

    /// The lights that shine, with their lit sets: a light lights what a viewer of its
    /// radius there would see, if it is enabled and stands on its map.
    fn shining(&self) -> Vec<(Thing, Lamp, Tiles)> {
        self.things
            .iter()
            .filter(|thing| thing.enabled)
            .filter_map(|thing| Some((*thing, thing.light?)))
            .map(|(thing, lamp)| (thing, lamp, self.lit_by(&thing, lamp)))
            .collect()
    }

    /// What one light lights (nothing off its map or without a tilemap).
    fn lit_by(&self, thing: &Thing, lamp: Lamp) -> Tiles {
        if thing.mapped {
            self.fov(thing.at, FovOptions::radius(lamp.radius))
        } else {
            BTreeSet::new()
        }
    }

    /// A viewer's field of view `F` (nothing off the map or without a tilemap) and what it
    /// sees: `F` without `NeedsLight`; with it, the tiles of `F` within its dark vision, the
    /// lit floors, and the lit walls next to a lit floor of `F` (the 3x3 block of tile
    /// positions around them, on every kind of map).
    fn view(&self, thing: &Thing, eye: Eye) -> (Tiles, Tiles) {
        let fov = if thing.mapped {
            self.fov(thing.at, eye.options)
        } else {
            BTreeSet::new()
        };
        let Some(dark) = eye.dark else {
            return (fov.clone(), fov);
        };
        let lit: Tiles = self
            .shining()
            .into_iter()
            .flat_map(|(_, _, lit)| lit)
            .collect();
        let wall = |(x, y): (u32, u32)| self.grid.is_opaque(x, y);
        let lit_floor = |c: (u32, u32)| !wall(c) && lit.contains(&c);
        let by_lit_floor = |(x, y): (u32, u32)| {
            (-1i64..=1).any(|dy| {
                (-1i64..=1).any(|dx| {
                    let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                    let (Ok(nx), Ok(ny)) = (u32::try_from(nx), u32::try_from(ny)) else {
                        return false;
                    };
                    let n = (nx, ny);
                    (dx, dy) != (0, 0) && fov.contains(&n) && lit_floor(n)
                })
            })
        };
        let seen = fov
            .iter()
            .copied()
            .filter(|&c| {
                self.within(thing.at, eye.options, dark, c)
                    || lit_floor(c)
                    || (wall(c) && lit.contains(&c) && by_lit_floor(c))
            })
            .collect();
        (fov, seen)
    }

    /// The light on `tile` (docs/light.md): how many lights light it, and the sum of their
    /// `color × intensity × (1 − d / (radius + 1))`.
    fn light_at(&self, tile: (u32, u32)) -> (u32, [f64; 3]) {
        let mut sum = [0.0; 3];
        let mut count = 0;
        for (thing, lamp, lit) in self.shining() {
            if !lit.contains(&tile) {
                continue;
            }
            count += 1;
            let falloff = 1.0 - self.distance(thing.at, tile) / (f64::from(lamp.radius) + 1.0);
            for (sum, base) in sum.iter_mut().zip(lamp.base()) {
                *sum += base * falloff.max(0.0);
            }
        }
        (count, sum)
    }

    /// The index of the `i`-th (modulo) thing for which `which` holds.
    fn pick(&self, i: usize, which: impl Fn(&Thing) -> bool) -> Option<usize> {
        let found: Vec<usize> = (0..self.things.len())
            .filter(|&k| which(&self.things[k]))
            .collect();
        (!found.is_empty()).then(|| found[i % found.len()])
    }
}

/// Where an op puts something, worked out on the map's size: anywhere on it, one of three
/// tiles that lights pile up on, or off it (just beyond an edge, or as far as can be).
#[derive(Clone, Copy, Debug)]
struct Spot(u8, u32, u32);

impl Spot {
    fn on(self, (w, h): (u32, u32)) -> (u32, u32) {
        let Spot(kind, a, b) = self;
        match kind {
            0 => match a % 3 {
                0 => (w + a % 2, b % h),
                1 => (a % w, h + b % 3),
                _ => (u32::MAX - a % 2, u32::MAX),
            },
            1 | 2 => [(w / 2, h / 2), (1, 1), (w - 2, h / 2)][(a % 3) as usize],
            _ => (a % w, b % h),
        }
    }

    /// A tile of the map.
    fn tile(self, (w, h): (u32, u32)) -> (u32, u32) {
        (self.1 % w, self.2 % h)
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// A light spawned (a torch lit, a fireball).
    SpawnLight(Spot, u32, Look),
    /// A viewer spawned, needing light or not, carrying a lantern or not.
    SpawnViewer(Spot, FovOptions, Option<u32>, Option<(u32, Look)>),
    Despawn(usize),
    /// Its `TilePos` set, on the map or off it.
    Move(usize, Spot),
    /// `Disabled` inserted, or removed.
    Disable(usize),
    /// Its `TilemapId` removed, or inserted again.
    Unmap(usize),
    /// A wall built or knocked down.
    Toggle(Spot),
    /// A light's radius changed in place.
    Radius(usize, u32),
    /// A light's colour and intensity changed in place.
    Recolor(usize, Look),
    /// A `LightSource` inserted on any thing: again over its light (a flicker system setting a
    /// smaller flame), or a lantern handed to a viewer.
    InsertLight(usize, u32, Look),
    /// A light's `LightSource` replaced in place (`*light = LightSource::new(..)`).
    ReplaceLight(usize, u32, Look),
    /// A light's `LightSource` removed (the torch stays, unlit).
    RemoveLight(usize),
    /// A light's `LightSource` cloned onto a new entity.
    SpawnClone(usize, Spot),
    /// A light's `LightSource` cloned onto another thing: inserted (`true`) or, on a light,
    /// written over its `LightSource` in place (`false`).
    CopyLight(usize, usize, bool),
    /// A whole thing cloned (`EntityWorldMut::clone_and_spawn`).
    CloneThing(usize),
    /// A viewer's dark vision changed in place.
    DarkVision(usize, u32),
    /// `NeedsLight` inserted on a viewer (again, or anew).
    InsertNeedsLight(usize, u32),
    /// A viewer's `NeedsLight` replaced in place (`*needs = NeedsLight::new(..)`).
    ReplaceNeedsLight(usize, u32),
    RemoveNeedsLight(usize),
    /// A viewer's options changed in place.
    Options(usize, FovOptions),
    /// A `Viewshed` inserted again on a viewer: new settings, or (`None`) its own again.
    InsertViewshed(usize, Option<FovOptions>),
    /// A viewer's `Viewshed` replaced in place (`*viewshed = Viewshed::with_options(..)`):
    /// new settings, or (`None`) its own again (a new `Viewshed` whose generation starts
    /// again, at the same key).
    ReplaceViewshed(usize, Option<FovOptions>),
}

fn spot() -> impl Strategy<Value = Spot> {
    (0u8..10, any::<u32>(), any::<u32>()).prop_map(|(kind, a, b)| Spot(kind, a, b))
}

fn radius() -> impl Strategy<Value = u32> {
    prop_oneof![20 => 0..7u32, 1 => Just(u32::MAX)]
}

/// A float as a game may hand it over: mostly plain, sometimes not a number, negative,
/// infinite or huge.
fn odd_float() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => 0.0f32..2.0,
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            -1.5,
            1024.0,
            1500.0,
            1e30,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ]),
    ]
}

fn look() -> impl Strategy<Value = Look> {
    let odd = (
        any::<bool>(),
        [odd_float(), odd_float(), odd_float()],
        odd_float(),
    )
        .prop_map(|(srgb, [r, g, b], intensity)| Look {
            color: if srgb {
                Color::srgb(r, g, b)
            } else {
                Color::linear_rgb(r, g, b)
            },
            intensity,
        });
    prop_oneof![Just(Look::WHITE), odd]
}

fn sight() -> impl Strategy<Value = FovOptions> {
    let shape = prop::sample::select(vec![
        DistanceShape::Euclidean,
        DistanceShape::Chebyshev,
        DistanceShape::Manhattan,
    ]);
    let cone = prop::option::weighted(0.2, (0.0f64..360.0, 45.0f64..300.0));
    (
        prop::option::of(0..12u32),
        shape,
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.2),
        cone,
    )
        .prop_map(|(radius, shape, light_walls, permissive, cone)| {
            let mut options = radius
                .map_or(FovOptions::unlimited(), FovOptions::radius)
                .with_shape(shape)
                .with_light_walls(light_walls);
            if permissive {
                options = options.with_mode(FovMode::Permissive);
            }
            if let Some((facing, width)) = cone {
                options = options.with_cone(VisionCone::degrees(facing, width));
            }
            options
        })
}

fn spawn_viewer_op() -> impl Strategy<Value = Op> {
    (
        spot(),
        sight(),
        prop::option::weighted(0.85, 0..3u32),
        prop::option::weighted(0.2, (radius(), look())),
    )
        .prop_map(|(at, options, dark, lantern)| Op::SpawnViewer(at, options, dark, lantern))
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0..8usize;
    let things = prop_oneof![
        (spot(), radius(), look()).prop_map(|(at, r, look)| Op::SpawnLight(at, r, look)),
        spawn_viewer_op(),
        i().prop_map(Op::Despawn),
        (i(), spot()).prop_map(|(i, at)| Op::Move(i, at)),
        (i(), spot()).prop_map(|(i, at)| Op::Move(i, at)),
        i().prop_map(Op::Disable),
        i().prop_map(Op::Unmap),
        spot().prop_map(Op::Toggle),
        i().prop_map(Op::CloneThing),
    ];
    let lights = prop_oneof![
        (i(), radius()).prop_map(|(i, r)| Op::Radius(i, r)),
        (i(), look()).prop_map(|(i, look)| Op::Recolor(i, look)),
        (i(), radius(), look()).prop_map(|(i, r, look)| Op::InsertLight(i, r, look)),
        (i(), radius(), look()).prop_map(|(i, r, look)| Op::ReplaceLight(i, r, look)),
        i().prop_map(Op::RemoveLight),
        (i(), spot()).prop_map(|(i, at)| Op::SpawnClone(i, at)),
        (i(), i(), any::<bool>()).prop_map(|(i, j, insert)| Op::CopyLight(i, j, insert)),
    ];
    let viewers = prop_oneof![
        (i(), 0..3u32).prop_map(|(i, d)| Op::DarkVision(i, d)),
        (i(), 0..3u32).prop_map(|(i, d)| Op::InsertNeedsLight(i, d)),
        (i(), 0..3u32).prop_map(|(i, d)| Op::ReplaceNeedsLight(i, d)),
        i().prop_map(Op::RemoveNeedsLight),
        (i(), sight()).prop_map(|(i, o)| Op::Options(i, o)),
        (i(), prop::option::of(sight())).prop_map(|(i, o)| Op::InsertViewshed(i, o)),
        (i(), prop::option::of(sight())).prop_map(|(i, o)| Op::ReplaceViewshed(i, o)),
    ];
    prop_oneof![things, lights, viewers]
}

fn kind() -> impl Strategy<Value = Kind> {
    let system = prop::sample::select(vec![
        HexCoordSystem::Row,
        HexCoordSystem::Column,
        HexCoordSystem::RowEven,
        HexCoordSystem::RowOdd,
        HexCoordSystem::ColumnEven,
        HexCoordSystem::ColumnOdd,
    ]);
    prop_oneof![2 => Just(Kind::Square), 1 => system.prop_map(Kind::Hex), 1 => Just(Kind::Staggered)]
}

/// A map of `kind` with the model's walls.
fn spawn_model_map(app: &mut App, kind: Kind, grid: &OpacityGrid) -> Entity {
    let (w, h) = kind.size();
    let map = spawn_map(app, w, h, |x, y| grid.is_opaque(x, y));
    app.world_mut().entity_mut(map).insert(kind.tilemap_type());
    map
}

fn tile_pos((x, y): (u32, u32)) -> TilePos {
    TilePos { x, y }
}

/// Checks the app against the model: each view (and `NeedsLight::field_of_view`), each
/// enabled light's lit set, and the map's `Lighting` on every tile (and off the map).
fn check(app: &App, map: Entity, model: &Model) -> Result<(), TestCaseError> {
    let world = app.world();
    for thing in model.things.iter().filter(|thing| thing.enabled) {
        if let Some(lamp) = thing.light {
            let light = world.get::<LightSource>(thing.entity).unwrap();
            let lit: Tiles = light.lit().map(|t| (t.x, t.y)).collect();
            prop_assert_eq!(lit, model.lit_by(thing, lamp), "light {}", thing.entity);
        }
        if let Some(eye) = thing.viewer {
            let (fov, want) = model.view(thing, eye);
            let got: Tiles = seen(app, thing.entity).into_iter().collect();
            prop_assert_eq!(got, want, "viewer {} at {:?}", thing.entity, thing.at);
            if eye.dark.is_some() {
                let needs = world.get::<NeedsLight>(thing.entity).unwrap();
                let got: Tiles = needs.field_of_view().map(|t| (t.x, t.y)).collect();
                prop_assert_eq!(got, fov, "field of view of {}", thing.entity);
            }
        }
    }
    let lighting = lighting(app, map);
    let (w, h) = model.kind.size();
    let mut lit = BTreeSet::new();
    for y in 0..h {
        for x in 0..w {
            let tile = TilePos { x, y };
            let (count, want) = model.light_at((x, y));
            prop_assert_eq!(lighting.lights_at(tile), count, "lights at {:?}", (x, y));
            prop_assert_eq!(lighting.is_lit(tile), count > 0);
            if count > 0 {
                lit.insert((x, y));
            }
            let got = lighting.light_at(tile);
            for (got, want) in [got.red, got.green, got.blue].into_iter().zip(want) {
                // Each light is added in 1/1024ths, rounded; with no light the tile is
                // exactly black (nothing left behind by lights gone).
                let tolerance = f64::from(count) / 1024.0 + want * 1e-6;
                prop_assert!(
                    (f64::from(got) - want).abs() <= tolerance,
                    "light at {:?}: {} for {} from {} lights",
                    (x, y),
                    got,
                    want,
                    count
                );
            }
            prop_assert_eq!(
                lighting.brightness(tile),
                got.red.max(got.green).max(got.blue)
            );
        }
    }
    let lit_tiles: Tiles = lighting.lit_tiles().map(|t| (t.x, t.y)).collect();
    prop_assert_eq!(lit_tiles, lit);
    for off in [(w, 0), (0, h), (u32::MAX, u32::MAX)] {
        prop_assert_eq!(lighting.lights_at(tile_pos(off)), 0);
        prop_assert_eq!(lighting.brightness(tile_pos(off)), 0.0);
    }
    Ok(())
}

/// The sums are exact: the map's `Lighting` after a whole game is, bit for bit, that of a new
/// app where the lights that shine at the end were spawned at once.
fn check_exact(app: &App, map: Entity, model: &Model) -> Result<(), TestCaseError> {
    let mut fresh = common_app::app();
    let fresh_map = spawn_model_map(&mut fresh, model.kind, &model.grid);
    for thing in model
        .things
        .iter()
        .filter(|thing| thing.enabled && thing.mapped)
    {
        if let Some(lamp) = thing.light {
            fresh
                .world_mut()
                .spawn((lamp.component(), tile_pos(thing.at), TilemapId(fresh_map)));
        }
    }
    fresh.update();
    let (w, h) = model.kind.size();
    let (played, new) = (lighting(app, map), lighting(&fresh, fresh_map));
    for y in 0..h {
        for x in 0..w {
            let tile = TilePos { x, y };
            prop_assert_eq!(played.lights_at(tile), new.lights_at(tile));
            let bits = |l: LinearRgba| [l.red, l.green, l.blue].map(f32::to_bits);
            prop_assert_eq!(
                bits(played.light_at(tile)),
                bits(new.light_at(tile)),
                "light at {:?}",
                (x, y)
            );
        }
    }
    Ok(())
}

fn proptest_cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig {
        max_shrink_iters: 20_000,
        ..ProptestConfig::with_cases(proptest_cases())
    })]

    #[test]
    fn views_and_lighting_match_the_model(
        kind in kind(),
        walls in proptest::collection::vec(proptest::bool::weighted(0.25), 16 * 12),
        lights in proptest::collection::vec((spot(), radius(), look()), 1..5),
        viewers in proptest::collection::vec(spawn_viewer_op(), 1..4),
        frames in proptest::collection::vec(proptest::collection::vec(op(), 1..5), 0..10),
    ) {
        let (w, h) = kind.size();
        let grid = OpacityGrid::from_fn(w, h, |x, y| walls[(y * w + x) as usize]);
        let mut app = app();
        let map = spawn_model_map(&mut app, kind, &grid);
        let mut model = Model { kind, grid, things: vec![] };
        let spawns = lights
            .into_iter()
            .map(|(at, r, look)| Op::SpawnLight(at, r, look))
            .chain(viewers);
        for op in spawns {
            apply(&mut app, map, &mut model, op);
        }
        app.update();
        check(&app, map, &model)?;
        for frame in frames {
            for op in frame {
                apply(&mut app, map, &mut model, op);
            }
            app.update();
            check(&app, map, &model)?;
        }
        check_exact(&app, map, &model)?;
    }
}

/// Plays one op on the app and the model.
fn apply(app: &mut App, map: Entity, model: &mut Model, op: Op) {
    let size = model.kind.size();
    let any = |_: &Thing| true;
    let lit = |thing: &Thing| thing.light.is_some();
    let sees = |thing: &Thing| thing.viewer.is_some();
    let world = app.world_mut();
    match op {
        Op::SpawnLight(at, radius, look) => {
            let at = at.on(size);
            let lamp = Lamp { radius, look };
            let entity = world
                .spawn((lamp.component(), tile_pos(at), TilemapId(map)))
                .id();
            model.things.push(Thing {
                entity,
                at,
                mapped: true,
                enabled: true,
                light: Some(lamp),
                viewer: None,
            });
        }
        Op::SpawnViewer(at, options, dark, lantern) => {
            let at = at.on(size);
            let mut viewer = world.spawn((
                Viewshed::with_options(options),
                tile_pos(at),
                TilemapId(map),
            ));
            if let Some(dark) = dark {
                viewer.insert(NeedsLight::new(dark));
            }
            let light = lantern.map(|(radius, look)| Lamp { radius, look });
            if let Some(lamp) = light {
                viewer.insert(lamp.component());
            }
            model.things.push(Thing {
                entity: viewer.id(),
                at,
                mapped: true,
                enabled: true,
                light,
                viewer: Some(Eye { options, dark }),
            });
        }
        Op::Despawn(i) => {
            if let Some(i) = model.pick(i, any) {
                world.despawn(model.things.remove(i).entity);
            }
        }
        Op::Move(i, at) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                thing.at = at.on(size);
                *world.get_mut::<TilePos>(thing.entity).unwrap() = tile_pos(thing.at);
            }
        }
        Op::Disable(i) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                let mut entity = world.entity_mut(thing.entity);
                if thing.enabled {
                    entity.insert(Disabled);
                } else {
                    entity.remove::<Disabled>();
                }
                thing.enabled = !thing.enabled;
            }
        }
        Op::Unmap(i) => {
            // Not on viewers: a viewer whose `TilemapId` is removed keeps its view (a bug of
            // the viewers' recompute, outside the light module, issue #30).
            if let Some(i) = model.pick(i, |thing| thing.viewer.is_none()) {
                let thing = &mut model.things[i];
                let mut entity = world.entity_mut(thing.entity);
                if thing.mapped {
                    entity.remove::<TilemapId>();
                } else {
                    entity.insert(TilemapId(map));
                }
                thing.mapped = !thing.mapped;
            }
        }
        Op::Toggle(at) => {
            let (x, y) = at.tile(size);
            let opaque = !model.grid.is_opaque(x, y);
            model.grid.set_opaque(x, y, opaque);
            let tile = tile_entity(app, map, x, y);
            let mut tile = app.world_mut().entity_mut(tile);
            if opaque {
                tile.insert(Opaque);
            } else {
                tile.remove::<Opaque>();
            }
        }
        Op::Radius(i, radius) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                world.get_mut::<LightSource>(thing.entity).unwrap().radius = radius;
                thing.light.as_mut().unwrap().radius = radius;
            }
        }
        Op::Recolor(i, look) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                let mut light = world.get_mut::<LightSource>(thing.entity).unwrap();
                light.color = look.color;
                light.intensity = look.intensity;
                thing.light.as_mut().unwrap().look = look;
            }
        }
        Op::InsertLight(i, radius, look) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                let lamp = Lamp { radius, look };
                world.entity_mut(thing.entity).insert(lamp.component());
                thing.light = Some(lamp);
            }
        }
        Op::ReplaceLight(i, radius, look) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                let lamp = Lamp { radius, look };
                *world.get_mut::<LightSource>(thing.entity).unwrap() = lamp.component();
                thing.light = Some(lamp);
            }
        }
        Op::RemoveLight(i) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                world.entity_mut(thing.entity).remove::<LightSource>();
                thing.light = None;
            }
        }
        Op::SpawnClone(i, at) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = model.things[i];
                let light = world.get::<LightSource>(thing.entity).unwrap().clone();
                let at = at.on(size);
                let entity = world.spawn((light, tile_pos(at), TilemapId(map))).id();
                model.things.push(Thing {
                    entity,
                    at,
                    mapped: true,
                    enabled: true,
                    light: thing.light,
                    viewer: None,
                });
            }
        }
        Op::CopyLight(i, j, insert) => {
            if let (Some(i), Some(j)) = (model.pick(i, lit), model.pick(j, any)) {
                let light = world
                    .get::<LightSource>(model.things[i].entity)
                    .unwrap()
                    .clone();
                let target = model.things[j].entity;
                match world.get_mut::<LightSource>(target) {
                    Some(mut old) if !insert => *old = light,
                    _ => {
                        world.entity_mut(target).insert(light);
                    }
                }
                model.things[j].light = model.things[i].light;
            }
        }
        Op::CloneThing(i) => {
            if let Some(i) = model.pick(i, any) {
                let mut thing = model.things[i];
                thing.entity = world.entity_mut(thing.entity).clone_and_spawn();
                // Bevy clones `Disabled` with the rest (a clone of a disabled entity is
                // disabled), and the tilemap the thing stands on, if any.
                model.things.push(thing);
            }
        }
        Op::DarkVision(i, dark) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let eye = thing.viewer.as_mut().unwrap();
                if let Some(mut needs) = world.get_mut::<NeedsLight>(thing.entity) {
                    needs.dark_vision = dark;
                    eye.dark = Some(dark);
                }
            }
        }
        Op::InsertNeedsLight(i, dark) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                world.entity_mut(thing.entity).insert(NeedsLight::new(dark));
                thing.viewer.as_mut().unwrap().dark = Some(dark);
            }
        }
        Op::ReplaceNeedsLight(i, dark) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let eye = thing.viewer.as_mut().unwrap();
                if let Some(mut needs) = world.get_mut::<NeedsLight>(thing.entity) {
                    *needs = NeedsLight::new(dark);
                    eye.dark = Some(dark);
                }
            }
        }
        Op::RemoveNeedsLight(i) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                world.entity_mut(thing.entity).remove::<NeedsLight>();
                thing.viewer.as_mut().unwrap().dark = None;
            }
        }
        Op::Options(i, options) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                world.get_mut::<Viewshed>(thing.entity).unwrap().options = options;
                thing.viewer.as_mut().unwrap().options = options;
            }
        }
        Op::InsertViewshed(i, options) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let options = options.unwrap_or(thing.viewer.unwrap().options);
                world
                    .entity_mut(thing.entity)
                    .insert(Viewshed::with_options(options));
                thing.viewer.as_mut().unwrap().options = options;
            }
        }
        Op::ReplaceViewshed(i, options) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let options = options.unwrap_or(thing.viewer.unwrap().options);
                *world.get_mut::<Viewshed>(thing.entity).unwrap() = Viewshed::with_options(options);
                thing.viewer.as_mut().unwrap().options = options;
            }
        }
    }
}
