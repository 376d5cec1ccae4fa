//! Isometric tilemaps: diamond maps are square grids drawn turned, and staggered maps are the
//! same square grid in other coordinates (bevy_ecs_tilemap draws staggered tile `(x, y)` where
//! a diamond map draws tile `(x, x + y)`). A viewer on a staggered map sees what the square
//! field of view sees on that diamond grid, brought back to staggered tiles.

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{FovOptions, MapOpacity};
use bevy_viewshed::{Lighting, OpacityGrid, field_of_view};
use common_app::*;

const WIDTH: u32 = 12;
const HEIGHT: u32 = 9;

fn wall(x: u32, y: u32) -> bool {
    (x * 5 + y * 3).is_multiple_of(7) && (x, y) != (5, 4)
}

fn staggered_map(app: &mut App) -> Entity {
    let map = spawn_map(app, WIDTH, HEIGHT, wall);
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Isometric(IsoCoordSystem::Staggered));
    map
}

/// The staggered tiles a viewer at `origin` sees, computed here the long way: the map drawn
/// on a diamond grid (tile `(x, y)` at cell `(x, x + y)`, every other cell a wall), the square
/// field of view there, its cells that are tiles read back.
fn expected(
    origin: (u32, u32),
    options: FovOptions,
    wall: impl Fn(u32, u32) -> bool,
) -> Vec<(u32, u32)> {
    let mut diamond = OpacityGrid::new(WIDTH, WIDTH + HEIGHT - 1);
    for u in 0..diamond.width() {
        for v in 0..diamond.height() {
            let tile = (v >= u && v - u < HEIGHT).then(|| (u, v - u));
            diamond.set_opaque(u, v, tile.is_none_or(|(x, y)| wall(x, y)));
        }
    }
    let (ox, oy) = origin;
    let view = field_of_view(&diamond, (ox, ox + oy), options).expect("on the map");
    let mut tiles: Vec<(u32, u32)> = view
        .iter()
        .filter(|&(u, v)| v >= u && v - u < HEIGHT)
        .map(|(u, v)| (u, v - u))
        .collect();
    tiles.sort_unstable();
    tiles
}

fn sorted(mut cells: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    cells.sort_unstable();
    cells
}

#[test]
fn a_viewer_on_a_staggered_map_sees_the_diamond_grids_view() {
    let mut app = app();
    let map = staggered_map(&mut app);
    let near = spawn_viewer(&mut app, map, 5, 4, 3);
    let far = app
        .world_mut()
        .spawn((
            Viewshed::unlimited(),
            TilePos { x: 1, y: 7 },
            TilemapId(map),
        ))
        .id();
    app.update();
    let want = expected((5, 4), FovOptions::radius(3), wall);
    assert!(want.len() > 4, "the test map shows something");
    assert_eq!(sorted(seen(&app, near)), want);
    assert_eq!(
        sorted(seen(&app, far)),
        expected((1, 7), FovOptions::unlimited(), wall)
    );
    assert!(
        app.world()
            .get::<MapOpacity>(map)
            .unwrap()
            .is_opaque(TilePos { x: 0, y: 0 }),
        "tile (0, 0) is a wall"
    );
}

#[test]
fn walls_on_a_staggered_map_follow_their_tiles() {
    let mut app = app();
    let map = staggered_map(&mut app);
    let viewer = spawn_viewer(&mut app, map, 5, 4, 4);
    app.update();
    // Every tile within reach becomes a wall but the viewer's: it sees its own tile and
    // the walls next to it.
    let mut built = Vec::new();
    for x in 1..10 {
        for y in 0..HEIGHT {
            if (x, y) != (5, 4) && !wall(x, y) {
                let tile = tile_entity(&app, map, x, y);
                app.world_mut().entity_mut(tile).insert(Opaque);
                built.push((x, y));
            }
        }
    }
    app.update();
    let all_walls = |x: u32, y: u32| wall(x, y) || built.contains(&(x, y));
    assert_eq!(
        sorted(seen(&app, viewer)),
        expected((5, 4), FovOptions::radius(4), all_walls)
    );
    for &(x, y) in &built {
        let tile = tile_entity(&app, map, x, y);
        app.world_mut().entity_mut(tile).remove::<Opaque>();
    }
    app.update();
    assert_eq!(
        sorted(seen(&app, viewer)),
        expected((5, 4), FovOptions::radius(4), wall)
    );
}

#[test]
fn a_viewer_placed_by_transform_finds_its_staggered_tile() {
    let mut app = app();
    let map = staggered_map(&mut app);
    let at = TilePos { x: 7, y: 3 };
    let centre = at.center_in_world(
        &TilemapSize::new(WIDTH, HEIGHT),
        &TilemapGridSize::new(16.0, 16.0),
        &TilemapTileSize::new(16.0, 16.0),
        &TilemapType::Isometric(IsoCoordSystem::Staggered),
        &TilemapAnchor::None,
    );
    let viewer = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            Transform::from_translation(centre.extend(1.0)),
            GlobalTransform::from_translation(centre.extend(1.0)),
            TilemapId(map),
        ))
        .id();
    app.update();
    let origin = viewshed(&app, viewer).origin().map(|(_, tile)| tile);
    assert_eq!(origin, Some(at));
    assert_eq!(
        sorted(seen(&app, viewer)),
        expected((7, 3), FovOptions::radius(3), wall)
    );
}

#[test]
fn maps_that_turn_staggered_or_diamond_are_seen_as_such() {
    let mut app = app();
    let map = spawn_map(&mut app, WIDTH, HEIGHT, wall);
    let viewer = spawn_viewer(&mut app, map, 5, 4, 4);
    app.update();
    let square = sorted(core_seen(WIDTH, HEIGHT, wall, (5, 4), 4));
    assert_eq!(sorted(seen(&app, viewer)), square);
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Isometric(IsoCoordSystem::Staggered));
    app.update();
    assert_eq!(
        sorted(seen(&app, viewer)),
        expected((5, 4), FovOptions::radius(4), wall)
    );
    // A diamond map is the square grid drawn turned.
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Isometric(IsoCoordSystem::Diamond));
    app.update();
    assert_eq!(sorted(seen(&app, viewer)), square);
}

#[test]
fn the_fog_of_a_staggered_map_follows_its_view() {
    let mut app = app();
    let map = staggered_map(&mut app);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    app.world_mut().spawn((
        Viewshed::new(3),
        RevealsFog,
        TilePos { x: 5, y: 4 },
        TilemapId(map),
    ));
    app.update();
    let want = expected((5, 4), FovOptions::radius(3), wall);
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    let lit = sorted(fog.visible_tiles().map(|t| (t.x, t.y)).collect());
    assert_eq!(lit, want);
}

/// A staggered map of odd width keeps its opacity on a diamond grid taller than the map; a
/// viewer or a light moved onto one of those extra cells is off the map: it sees and lights
/// nothing, and the target it saw is lost (`LostSight`), at every step further away too.
#[test]
fn a_viewer_or_light_moved_off_an_odd_staggered_map_sees_and_lights_nothing() {
    let mut app = logging_app();
    let map = spawn_map(&mut app, 5, 3, |_, _| false);
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Isometric(IsoCoordSystem::Staggered));
    let viewer = spawn_viewer(&mut app, map, 1, 1, 4);
    let target = app
        .world_mut()
        .spawn((TilePos { x: 2, y: 1 }, TilemapId(map), CanBeSpotted))
        .id();
    let light = app
        .world_mut()
        .spawn((LightSource::new(3), TilePos { x: 1, y: 1 }, TilemapId(map)))
        .id();
    app.update();
    assert!(viewshed(&app, viewer).count() > 0);
    assert!(
        app.world()
            .get::<Lighting>(map)
            .unwrap()
            .lit_tiles()
            .count()
            > 0
    );
    assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
    // (1, 4) and (1, 8): rows 4 and 8 of a 3-row map; the diamond grid (5x7) holds the first.
    for y in [4, 8] {
        *app.world_mut().get_mut::<TilePos>(viewer).unwrap() = TilePos { x: 1, y };
        *app.world_mut().get_mut::<TilePos>(light).unwrap() = TilePos { x: 1, y };
        app.update();
        assert_eq!(viewshed(&app, viewer).count(), 0, "row {y}: off the map");
        assert_eq!(viewshed(&app, viewer).origin(), None);
        let lighting = app.world().get::<Lighting>(map).unwrap();
        assert_eq!(
            lighting.lit_tiles().count(),
            0,
            "row {y}: the light is off the map"
        );
        let log = take_log(&mut app);
        if y == 4 {
            assert_eq!(log, vec![(false, viewer, target)]);
        } else {
            assert!(log.is_empty());
        }
    }
}
