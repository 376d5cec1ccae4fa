//! Hexagonal tilemaps in the plugin: the map's `TilemapType` picks the hexagonal field of
//! view, in each of bevy_ecs_tilemap's six coordinate systems; viewers placed by `TilePos` or
//! by `Transform`, fog of war and line of sight all use it (staggered isometric maps:
//! `tests/isometric.rs`).

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::hex_distance;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{FovOptions, VisionCone};
use bevy_viewshed::{HexCoords, OpacityGrid, hex_field_of_view};
use common_app::*;

const SYSTEMS: [(HexCoordSystem, HexCoords); 6] = [
    (HexCoordSystem::Row, HexCoords::Row),
    (HexCoordSystem::Column, HexCoords::Column),
    (HexCoordSystem::RowEven, HexCoords::RowEven),
    (HexCoordSystem::RowOdd, HexCoords::RowOdd),
    (HexCoordSystem::ColumnEven, HexCoords::ColumnEven),
    (HexCoordSystem::ColumnOdd, HexCoords::ColumnOdd),
];

const WIDTH: u32 = 13;
const HEIGHT: u32 = 11;

fn wall(x: u32, y: u32) -> bool {
    (x * 7 + y * 3).is_multiple_of(11) && (x, y) != (6, 5)
}

/// A `WIDTH` x `HEIGHT` hexagonal tilemap of `system` with the walls of [`wall`].
fn hex_map(app: &mut App, system: HexCoordSystem) -> Entity {
    let map = spawn_map(app, WIDTH, HEIGHT, wall);
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Hexagon(system));
    map
}

/// What the core's hexagonal field of view says a viewer at `origin` sees.
fn core_hex_view(coords: HexCoords, origin: (u32, u32), options: FovOptions) -> Vec<(u32, u32)> {
    let mut grid = OpacityGrid::new(WIDTH, HEIGHT);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            grid.set_opaque(x, y, wall(x, y));
        }
    }
    let view = hex_field_of_view(&grid, coords, origin, options).expect("on the map");
    let mut cells: Vec<_> = view.iter().collect();
    cells.sort_unstable();
    cells
}

fn sorted(mut cells: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    cells.sort_unstable();
    cells
}

#[test]
fn a_viewer_on_a_hex_map_sees_the_hexagonal_view_in_every_coordinate_system() {
    for (system, coords) in SYSTEMS {
        let mut app = app();
        let map = hex_map(&mut app, system);
        let viewer = spawn_viewer(&mut app, map, 6, 5, 4);
        let coned = app
            .world_mut()
            .spawn((
                Viewshed::new(5).with_cone(VisionCone::degrees(30.0, 100.0)),
                TilePos { x: 6, y: 5 },
                TilemapId(map),
            ))
            .id();
        app.update();
        let want = core_hex_view(coords, (6, 5), FovOptions::radius(4));
        assert!(want.len() > 1, "{system:?}: the test map shows something");
        assert_eq!(sorted(seen(&app, viewer)), want, "{system:?}");
        let cone = viewshed(&app, coned).options;
        assert_eq!(
            sorted(seen(&app, coned)),
            core_hex_view(coords, (6, 5), cone),
            "{system:?} with a cone"
        );
    }
}

#[test]
fn a_viewer_placed_by_transform_finds_its_hex() {
    for (system, coords) in SYSTEMS {
        let mut app = app();
        let map = hex_map(&mut app, system);
        let map_type = TilemapType::Hexagon(system);
        let at = TilePos { x: 4, y: 7 };
        let centre = at.center_in_world(
            &TilemapSize::new(WIDTH, HEIGHT),
            &TilemapGridSize::new(16.0, 16.0),
            &TilemapTileSize::new(16.0, 16.0),
            &map_type,
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
        assert_eq!(origin, Some(at), "{system:?}");
        let want = core_hex_view(coords, (4, 7), FovOptions::radius(3));
        assert_eq!(sorted(seen(&app, viewer)), want, "{system:?}");
    }
}

#[test]
fn walls_built_and_opened_on_a_hex_map_change_the_view() {
    let mut app = app();
    let map = hex_map(&mut app, HexCoordSystem::RowOdd);
    let viewer = spawn_viewer(&mut app, map, 6, 5, 6);
    app.update();
    let before = seen(&app, viewer);
    // A ring of walls around the viewer: it sees its own hex and the ring.
    let coords = HexCoords::RowOdd;
    let ring: Vec<(u32, u32)> = (0..WIDTH)
        .flat_map(|x| (0..HEIGHT).map(move |y| (x, y)))
        .filter(|&cell| hex_distance(coords, (6, 5), cell) == 1)
        .collect();
    assert_eq!(ring.len(), 6);
    for &(x, y) in &ring {
        let tile = tile_entity(&app, map, x, y);
        app.world_mut().entity_mut(tile).insert(Opaque);
    }
    app.update();
    let mut walled = ring.clone();
    walled.push((6, 5));
    assert_eq!(sorted(seen(&app, viewer)), sorted(walled));
    for &(x, y) in &ring {
        if !wall(x, y) {
            let tile = tile_entity(&app, map, x, y);
            app.world_mut().entity_mut(tile).remove::<Opaque>();
        }
    }
    app.update();
    assert_eq!(sorted(seen(&app, viewer)), sorted(before));
}

#[test]
fn the_fog_of_a_hex_map_follows_the_hexagonal_view() {
    let mut app = app();
    let map = hex_map(&mut app, HexCoordSystem::ColumnEven);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    app.world_mut().spawn((
        Viewshed::new(3),
        RevealsFog,
        TilePos { x: 6, y: 5 },
        TilemapId(map),
    ));
    app.update();
    let want = core_hex_view(HexCoords::ColumnEven, (6, 5), FovOptions::radius(3));
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    let lit: Vec<(u32, u32)> = sorted(fog.visible_tiles().map(|t| (t.x, t.y)).collect());
    assert_eq!(lit, want);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let shown = app
                .world()
                .get::<TileVisible>(tile_entity(&app, map, x, y))
                .unwrap()
                .0;
            assert_eq!(shown, want.contains(&(x, y)), "tile ({x}, {y})");
        }
    }
}

#[test]
fn a_map_that_turns_hexagonal_is_seen_as_one() {
    let mut app = app();
    let map = spawn_map(&mut app, WIDTH, HEIGHT, wall);
    let viewer = spawn_viewer(&mut app, map, 6, 5, 4);
    app.update();
    assert_eq!(
        sorted(seen(&app, viewer)),
        sorted(core_seen(WIDTH, HEIGHT, wall, (6, 5), 4))
    );
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Hexagon(HexCoordSystem::Column));
    app.update();
    assert_eq!(
        sorted(seen(&app, viewer)),
        core_hex_view(HexCoords::Column, (6, 5), FovOptions::radius(4))
    );
}

#[test]
fn sightings_and_newly_seen_tiles_follow_the_hexagonal_view() {
    let mut app = logging_app();
    let map = hex_map(&mut app, HexCoordSystem::RowEven);
    let viewer = spawn_viewer(&mut app, map, 6, 5, 3);
    let view = core_hex_view(HexCoords::RowEven, (6, 5), FovOptions::radius(3));
    let seen_tile = *view.iter().find(|&&t| t != (6, 5)).expect("it sees a hex");
    let unseen_tile = (0..WIDTH)
        .flat_map(|x| (0..HEIGHT).map(move |y| (x, y)))
        .find(|t| !view.contains(t) && !wall(t.0, t.1))
        .expect("a hex out of sight");
    let target = app
        .world_mut()
        .spawn((
            CanBeSpotted,
            TilePos {
                x: seen_tile.0,
                y: seen_tile.1,
            },
            TilemapId(map),
        ))
        .id();
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
    let newly: Vec<(u32, u32)> = viewshed(&app, viewer)
        .newly_seen()
        .map(|t| (t.x, t.y))
        .collect();
    assert_eq!(sorted(newly), view, "a first view is all new");
    // The target steps out of sight: lost.
    *app.world_mut().get_mut::<TilePos>(target).unwrap() = TilePos {
        x: unseen_tile.0,
        y: unseen_tile.1,
    };
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, viewer, target)]);
}
