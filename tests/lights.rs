//! Light and darkness in a headless app: light sources light their field of view, viewers
//! that `NeedsLight` see lit tiles (and their dark vision), exactly as a plain model built
//! from `field_of_view` calls says, and a change is recomputed only where it matters. Random
//! games against a model of every light component: `tests/lights_model/`.

mod common_app;

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DistanceShape, FovOptions, SpottedTargets, ViewshedUpdated, VisionCone};
use bevy_viewshed::{Lighting, OpacityGrid, field_of_view};
use common_app::{app, generation, spawn_map, tile_entity};

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
    model_view_with(grid, lights, None, viewer, options, dark_vision)
}

/// [`model_view`] with the first light pointing through `cone`.
fn model_view_with(
    grid: &OpacityGrid,
    lights: &[((u32, u32), u32)],
    cone: Option<VisionCone>,
    viewer: (u32, u32),
    options: FovOptions,
    dark_vision: u32,
) -> Vec<(u32, u32)> {
    let lit = model_lit_cone(grid, lights, cone);
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
    model_lit_cone(grid, lights, None)
}

/// The same, the first light pointing through `cone`.
fn model_lit_cone(
    grid: &OpacityGrid,
    lights: &[((u32, u32), u32)],
    cone: Option<VisionCone>,
) -> BTreeSet<(u32, u32)> {
    lights
        .iter()
        .enumerate()
        .flat_map(|(i, &(at, radius))| {
            let options = FovOptions {
                cone: cone.filter(|_| i == 0),
                ..FovOptions::radius(radius)
            };
            field_of_view(grid, at, options)
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

// --- Lights that point ---------------------------------------------------------------------

/// A flashlight in the middle room: its lit tiles, on a square map.
fn lit_tiles(app: &App, light: Entity) -> Vec<(u32, u32)> {
    let light = app.world().get::<LightSource>(light).unwrap();
    let mut tiles: Vec<_> = light.lit().map(|t| (t.x, t.y)).collect();
    sort(&mut tiles);
    tiles
}

fn core_lit(grid: &OpacityGrid, at: (u32, u32), options: FovOptions) -> Vec<(u32, u32)> {
    let mut tiles: Vec<_> = field_of_view(grid, at, options).unwrap().iter().collect();
    sort(&mut tiles);
    tiles
}

/// A light with a cone lights exactly the field of view with that cone: facings along the
/// grid and between, narrow and wide beams, all around, and odd angles.
#[test]
fn a_light_with_a_cone_lights_exactly_its_cut_of_the_field_of_view() {
    let grid = grid_of(&ROOMS);
    let cones = [
        VisionCone::degrees(0.0, 40.0),
        VisionCone::degrees(90.0, 90.0),
        VisionCone::degrees(200.0, 10.0),
        VisionCone::degrees(-45.0, 120.0),
        VisionCone::degrees(0.0, 360.0),
        VisionCone::degrees(30.0, 0.0),
        VisionCone::new(f64::NAN, 1.0),
        VisionCone::toward_radians(-1, 1, 0.5),
    ];
    let mut app = app();
    let map = spawn_map(&mut app, 28, 7, wall_at(&ROOMS));
    let lights: Vec<_> = cones
        .iter()
        .map(|&cone| {
            let light = LightSource::new(9).with_cone(cone);
            let at = (TilePos { x: 13, y: 3 }, TilemapId(map));
            app.world_mut().spawn((light, at.0, at.1)).id()
        })
        .collect();
    app.update();
    for (light, cone) in lights.into_iter().zip(cones) {
        let options = FovOptions::radius(9).with_cone(cone);
        assert_eq!(
            lit_tiles(&app, light),
            core_lit(&grid, (13, 3), options),
            "{cone:?}"
        );
    }
}

/// Turning a beam recomputes that light only, and the map's light and the viewers that need
/// it follow: the dark viewer sees the beam's floors and nothing behind it.
#[test]
fn turning_a_beam_relights_the_map_and_recomputes_that_light_only() {
    let grid = grid_of(&ROOMS);
    let mut app = app();
    let map = spawn_map(&mut app, 28, 7, wall_at(&ROOMS));
    let east = VisionCone::degrees(0.0, 60.0);
    let beam = app
        .world_mut()
        .spawn((
            LightSource::new(8).with_cone(east),
            TilePos { x: 11, y: 3 },
            TilemapId(map),
        ))
        .id();
    let torch = spawn_light(&mut app, map, (22, 3), 2);
    let viewer = spawn_dark_viewer(&mut app, map, (3, 3), Viewshed::unlimited(), 0);
    app.update();
    let lit = |app: &App| {
        let mut tiles: Vec<_> = lighting(app, map).lit_tiles().map(|t| (t.x, t.y)).collect();
        sort(&mut tiles);
        tiles
    };
    let both = |cone: VisionCone| {
        let mut tiles = core_lit(&grid, (11, 3), FovOptions::radius(8).with_cone(cone));
        tiles.extend(core_lit(&grid, (22, 3), FovOptions::radius(2)));
        tiles.sort_unstable();
        tiles.dedup();
        sort(&mut tiles);
        tiles
    };
    assert_eq!(lit(&app), both(east));
    let (beam_gen, torch_gen) = (light_generation(&app, beam), light_generation(&app, torch));

    // Turned to face west, through the doorway at (9, 3) into the viewer's room.
    let west = VisionCone::degrees(180.0, 60.0);
    app.world_mut().get_mut::<LightSource>(beam).unwrap().cone = Some(west);
    app.update();
    assert_eq!(lit(&app), both(west));
    assert_eq!(light_generation(&app, beam), beam_gen + 1);
    assert_eq!(
        light_generation(&app, torch),
        torch_gen,
        "the torch did not move"
    );
    let lit_by = [((11, 3), 8), ((22, 3), 2)];
    let unlimited = FovOptions::unlimited();
    let beams = model_view_with(&grid, &lit_by, Some(west), (3, 3), unlimited, 0);
    assert_eq!(seen(&app, viewer), beams);
    assert!(
        seen(&app, viewer).contains(&(5, 3)),
        "the beam reaches the west room"
    );

    // All around again.
    app.world_mut().get_mut::<LightSource>(beam).unwrap().cone = None;
    app.update();
    assert_eq!(
        lit_tiles(&app, beam),
        core_lit(&grid, (11, 3), FovOptions::radius(8))
    );
}

/// On hexagonal and staggered maps a beam is cut as viewers' cones are there.
#[test]
fn beams_on_hexagonal_and_staggered_maps_are_cut_like_vision_cones() {
    let cone = VisionCone::degrees(30.0, 100.0);
    for map_type in [
        TilemapType::Hexagon(HexCoordSystem::Row),
        TilemapType::Isometric(IsoCoordSystem::Staggered),
    ] {
        let mut app = app();
        let map = spawn_map(&mut app, 15, 11, |x, y| (x * 3 + y * 5) % 11 == 0);
        app.world_mut().entity_mut(map).insert(map_type);
        let at = (TilePos { x: 7, y: 5 }, TilemapId(map));
        let options = FovOptions::radius(6).with_cone(cone);
        let light = app
            .world_mut()
            .spawn((LightSource::new(6).with_cone(cone), at.0, at.1))
            .id();
        let viewer = app
            .world_mut()
            .spawn((Viewshed::with_options(options), at.0, at.1))
            .id();
        app.update();
        let mut view = seen(&app, viewer);
        sort(&mut view);
        assert!(view.len() > 3, "{map_type:?}: the beam shows something");
        assert_eq!(lit_tiles(&app, light), view, "{map_type:?}");
    }
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
