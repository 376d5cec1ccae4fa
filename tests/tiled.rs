//! The Tiled integration on Tiled files as the editor writes them (`assets/tiled/`, made by
//! `assets/make_tiled_maps.py`), loaded and spawned by bevy_ecs_tiled's own loader and systems
//! in a headless app (see `tests/common_tiled`). Every view is held to the core's field of
//! view on the opacity read from the same file with the `tiled` crate.
#![cfg(feature = "tiled")]

mod common_tiled;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::tiled::TiledOpacity;
use bevy_viewshed::{ChunkPlacement, LayerOf, MapOpacity};
use bevy_viewshed::{LightSource, OpacityGrid, Radius, Team, WorldMemory};
use common_tiled::*;
use viewshed_core::elevation::{ElevationGrid, ElevationOptions, field_of_view_with_elevation};

/// The player's view on `map` must be the core's view on the file's walls, from the tile
/// under the player object, with the tiles of `opened` clear.
fn assert_player_sees(app: &mut App, map: Entity, file: &str, opened: &[TilePos]) {
    let data = MapData::read(file);
    let player = object(app, map, "Player");
    let at = data.tile_of("Player");
    assert_eq!(
        app.world().get::<TilePos>(player),
        Some(&at),
        "{file}: the player's tile"
    );
    let root = root(app, map);
    let map_type = *app.world().get::<TilemapType>(root).unwrap();
    let mut grid = data.opacity();
    for tile in opened {
        grid.set_opaque(tile.x, tile.y, false);
    }
    let viewshed = app.world().get::<Viewshed>(player).unwrap();
    let expected = expected_view(&grid, map_type, at, viewshed.options);
    assert_eq!(view_of(viewshed), expected, "{file}: the player's view");
}

#[test]
fn the_tilemaps_of_a_map_are_layers_of_one_map_rooted_at_its_first() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let root = root(&app, map);
    let mut tilemaps = app
        .world_mut()
        .query_filtered::<(Entity, &TiledName), With<TiledTilemap>>();
    let tilemaps: Vec<(Entity, String)> = tilemaps
        .iter(app.world())
        .map(|(e, name)| (e, name.0.clone()))
        .collect();
    // The floor layer and the walls layer (in its group layer), each drawn with two tilesets
    // ("tiles" for floors, walls and doors, "props" for the pillar): bevy_ecs_tiled spawns a
    // tilemap per tileset for each tile layer.
    assert_eq!(tilemaps.len(), 4, "{tilemaps:?}");
    let floor_layer = app.world().get::<ChildOf>(root).unwrap().parent();
    assert_eq!(
        app.world().get::<TiledName>(floor_layer).unwrap().0,
        "Floor",
        "the root is the first layer's tilemap"
    );
    for (tilemap, name) in tilemaps {
        if tilemap != root {
            assert_eq!(
                app.world().get::<LayerOf>(tilemap),
                Some(&LayerOf(root)),
                "tilemap {name}"
            );
            assert!(app.world().get::<MapOpacity>(tilemap).is_none());
        }
    }
    let opacity = app.world().get::<MapOpacity>(root).unwrap();
    let data = MapData::read("room.tmx");
    let expected = data.opacity();
    for y in 0..data.height {
        for x in 0..data.width {
            let tile = TilePos::new(x, y);
            assert_eq!(
                opacity.is_opaque(tile),
                expected.is_opaque(x, y),
                "tile {tile:?}"
            );
        }
    }
}

#[test]
fn walls_doors_pillars_and_opaque_objects_shape_the_players_view() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    assert_player_sees(&mut app, map, "room.tmx", &[]);
    let player = object(&mut app, map, "Player");
    // Its class gives it `RevealsFog` and a radius of 8, its `sight_radius` property 7.
    let viewshed = app.world().get::<Viewshed>(player).unwrap();
    assert_eq!(viewshed.options.radius, Radius::Limited(7));
    assert!(app.world().get::<RevealsFog>(player).is_some());
}

#[test]
fn objects_get_what_their_properties_and_custom_types_say() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let guard = object(&mut app, map, "Guard");
    let world = app.world();
    assert_eq!(
        world.get::<Viewshed>(guard).unwrap().options.radius,
        Radius::Limited(4)
    );
    assert_eq!(world.get::<Team>(guard), Some(&Team(1)));
    assert!(world.get::<CanBeSpotted>(guard).is_some());
    assert!(world.get::<HidesOutsideView>(guard).is_some());
    assert!(world.get::<LeavesGhost>(guard).is_some());
    assert!(world.get::<RevealsFog>(guard).is_none());
    let torch = object(&mut app, map, "Torch");
    assert_eq!(app.world().get::<LightSource>(torch).unwrap().radius, 3);
    assert!(app.world().get::<Viewshed>(torch).is_none());
    // The scout's `RevealsFog` and `Team` are our reflected components, set in Tiled as custom
    // types: read by the plugin from the map's properties (bevy_ecs_tiled's `user_properties`
    // is off, so it inserts nothing itself).
    let scout = object(&mut app, map, "Scout");
    assert!(app.world().get::<RevealsFog>(scout).is_some());
    assert_eq!(app.world().get::<Team>(scout), Some(&Team(2)));
    let data = MapData::read("room.tmx");
    for name in ["Guard", "Torch", "Scout", "Door", "Boulder"] {
        let object = object(&mut app, map, name);
        let at = app.world().get::<TilePos>(object).copied();
        if name == "Boulder" {
            // Its centre is a corner of four tiles: it stands on one of them.
            let covered = data.object_walls();
            assert!(
                at.is_some_and(|at| covered.contains(&at)),
                "{name} at {at:?}"
            );
        } else {
            let expected = data.tile_of(name);
            assert_eq!(
                at,
                Some(expected),
                "{name} stands on the tile under its centre"
            );
        }
        assert_eq!(
            app.world().get::<TilemapId>(object),
            Some(&TilemapId(root(&app, map)))
        );
    }
}

/// The maps of every orientation bevy_ecs_tiled loads, and the grid each is drawn on.
const ORIENTATIONS: [(&str, TilemapType); 8] = [
    (
        "isometric.tmx",
        TilemapType::Isometric(IsoCoordSystem::Diamond),
    ),
    (
        "isometric_tall.tmx",
        TilemapType::Isometric(IsoCoordSystem::Diamond),
    ),
    (
        "hex_y_odd.tmx",
        TilemapType::Hexagon(HexCoordSystem::RowEven),
    ),
    (
        "hex_y_even.tmx",
        TilemapType::Hexagon(HexCoordSystem::RowOdd),
    ),
    (
        "hex_x_odd.tmx",
        TilemapType::Hexagon(HexCoordSystem::ColumnEven),
    ),
    (
        "hex_x_even.tmx",
        TilemapType::Hexagon(HexCoordSystem::ColumnOdd),
    ),
    ("infinite.tmx", TilemapType::Square),
    ("room.tmx", TilemapType::Square),
];

/// Loads `file` and holds its player's and its guard's tiles and views to the core's on the
/// file's walls, on a map of `map_type`.
fn assert_views_equal_the_cores(file: &str, map_type: TilemapType) {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, file);
    let root = root(&app, map);
    assert_eq!(
        app.world().get::<TilemapType>(root),
        Some(&map_type),
        "{file}"
    );
    assert_player_sees(&mut app, map, file, &[]);
    // The guard stands on its tile too, and sees what the core says from there.
    let data = MapData::read(file);
    let guard = object(&mut app, map, "Guard");
    let at = data.tile_of("Guard");
    assert_eq!(
        app.world().get::<TilePos>(guard),
        Some(&at),
        "{file}: the guard"
    );
    let viewshed = app.world().get::<Viewshed>(guard).unwrap();
    let expected = expected_view(&data.opacity(), map_type, at, viewshed.options);
    assert_eq!(view_of(viewshed), expected, "{file}: the guard's view");
}

/// On maps of every orientation, made by `assets/make_tiled_maps.py`: the isometric ones of
/// two shapes (bevy_ecs_tiled places objects right by itself only on one exactly two tiles
/// wider than tall).
#[test]
fn views_equal_the_cores_on_every_orientation_bevy_ecs_tiled_loads() {
    for (file, map_type) in ORIENTATIONS {
        assert_views_equal_the_cores(file, map_type);
    }
}

/// The same maps as Tiled itself writes them (`assets/export_with_tiled.sh`: re-saved by Tiled
/// 1.8.2 into `assets/tiled/by_tiled/`, with its own attribute order, paths and versions).
#[test]
fn views_equal_the_cores_on_the_maps_tiled_itself_wrote() {
    for (file, map_type) in ORIENTATIONS {
        assert_views_equal_the_cores(&format!("by_tiled/{file}"), map_type);
    }
}

#[test]
fn an_infinite_maps_chunks_are_one_tilemap_per_layer_over_their_bounding_box() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "infinite.tmx");
    let data = MapData::read("infinite.tmx");
    // Chunks from (-16, -16) to (15, 15), the south-east one left out of the file.
    assert_eq!((data.origin, data.width, data.height), ((-16, -16), 32, 32));
    let root = root(&app, map);
    assert_eq!(
        app.world().get::<TilemapSize>(root),
        Some(&TilemapSize::new(32, 32))
    );
    let opacity = app.world().get::<MapOpacity>(root).unwrap();
    let expected = data.opacity();
    for y in 0..32 {
        for x in 0..32 {
            assert_eq!(
                opacity.is_opaque(TilePos::new(x, y)),
                expected.is_opaque(x, y),
                "tile ({x}, {y})"
            );
        }
    }
}

/// Removes `Opaque` from an object (a door opened by the game) or inserts it again.
fn set_door(app: &mut App, door: Entity, closed: bool) {
    if closed {
        app.world_mut().entity_mut(door).insert(Opaque);
    } else {
        app.world_mut().entity_mut(door).remove::<Opaque>();
    }
    app.update();
}

#[test]
fn a_door_object_or_tile_opened_and_closed_by_the_game_is_followed() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let data = MapData::read("room.tmx");
    // The door object south of the player's room, then the door tile east of it.
    let door = object(&mut app, map, "Door");
    let door_tile = data.tile_of("Door");
    set_door(&mut app, door, false);
    assert_player_sees(&mut app, map, "room.tmx", &[door_tile]);
    set_door(&mut app, door, true);
    assert_player_sees(&mut app, map, "room.tmx", &[]);
    let east_door = TilePos::new(10, data.height - 1 - 3);
    assert!(data.opacity().is_opaque(east_door.x, east_door.y));
    let mut tiles = app
        .world_mut()
        .query_filtered::<(Entity, &TilePos), (With<TiledTile>, With<Opaque>)>();
    let door_tiles: Vec<Entity> = tiles
        .iter(app.world())
        .filter(|(_, pos)| **pos == east_door)
        .map(|(e, _)| e)
        .collect();
    assert_eq!(
        door_tiles.len(),
        1,
        "one opaque tile there (the walls layer's)"
    );
    set_door(&mut app, door_tiles[0], false);
    assert_player_sees(&mut app, map, "room.tmx", &[east_door]);
    set_door(&mut app, door_tiles[0], true);
    assert_player_sees(&mut app, map, "room.tmx", &[]);
}

#[test]
fn a_boulder_blocks_every_tile_it_covers_while_it_is_opaque() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let data = MapData::read("room.tmx");
    let walls = data.object_walls();
    let root = root(&app, map);
    let boulder = object(&mut app, map, "Boulder");
    let boulder_tiles: Vec<TilePos> = walls
        .iter()
        .copied()
        .filter(|&t| t != data.tile_of("Door"))
        .collect();
    assert_eq!(boulder_tiles.len(), 4, "a 2x2 boulder");
    let opaque =
        |app: &App, tile: TilePos| app.world().get::<MapOpacity>(root).unwrap().is_opaque(tile);
    assert!(boulder_tiles.iter().all(|&t| opaque(&app, t)));
    set_door(&mut app, boulder, false);
    assert!(boulder_tiles.iter().all(|&t| !opaque(&app, t)));
    set_door(&mut app, boulder, true);
    assert!(boulder_tiles.iter().all(|&t| opaque(&app, t)));
    // Pushed one tile east by the game, it blocks the tiles it covers there.
    app.world_mut()
        .get_mut::<Transform>(boulder)
        .unwrap()
        .translation
        .x += 16.0;
    app.update();
    for &tile in &boulder_tiles {
        let east = TilePos::new(tile.x + 1, tile.y);
        assert!(opaque(&app, east), "{east:?} is covered now");
    }
    let west_column = boulder_tiles.iter().map(|t| t.x).min().unwrap();
    for tile in boulder_tiles.iter().filter(|t| t.x == west_column) {
        assert!(!opaque(&app, *tile), "{tile:?} is uncovered now");
    }
}

#[test]
fn a_player_moved_by_its_transform_sees_from_its_new_tile() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let data = MapData::read("room.tmx");
    let player = object(&mut app, map, "Player");
    let start = data.tile_of("Player");
    // Three tiles east and two south, as a game moves a Tiled object.
    let mut transform = app.world_mut().get_mut::<Transform>(player).unwrap();
    transform.translation += Vec3::new(48.0, -32.0, 0.0);
    app.update();
    let now = TilePos::new(start.x + 3, start.y - 2);
    assert_eq!(app.world().get::<TilePos>(player), Some(&now));
    let viewshed = app.world().get::<Viewshed>(player).unwrap();
    let expected = expected_view(&data.opacity(), TilemapType::Square, now, viewshed.options);
    assert_eq!(view_of(viewshed), expected);
}

#[test]
fn the_fog_of_war_covers_every_tile_layer_and_follows_the_player() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let root = root(&app, map);
    let player = object(&mut app, map, "Player");
    let mut tilemaps = app
        .world_mut()
        .query_filtered::<(Entity, Has<FogStyle>), With<TiledTilemap>>();
    let styled: Vec<(Entity, bool)> = tilemaps.iter(app.world()).collect();
    assert!(
        styled.iter().all(|(_, has)| *has),
        "every tilemap has a fog style"
    );
    let fog = app.world().get::<FogOfWar>(root).unwrap().clone();
    let viewshed = app.world().get::<Viewshed>(player).unwrap().clone();
    let size = *app.world().get::<TilemapSize>(root).unwrap();
    for y in 0..size.y {
        for x in 0..size.x {
            let tile = TilePos::new(x, y);
            assert_eq!(
                fog.is_explored(tile),
                viewshed.is_visible(tile),
                "tile {tile:?}: explored exactly where the player sees"
            );
        }
    }
    // The floor tiles the player does not see are hidden, those it sees are shown.
    let mut tiles = app
        .world_mut()
        .query::<(&TilePos, &TilemapId, &TileVisible)>();
    for (pos, tilemap, visible) in tiles.iter(app.world()) {
        if tilemap.0 == root {
            assert_eq!(visible.0, viewshed.is_visible(*pos), "floor tile {pos:?}");
        }
    }
}

/// A map hot-reloaded (respawned by bevy_ecs_tiled) is followed: the player's view is
/// computed on the new root, a sentry of the game's own placed by the map's entity stands on
/// it, and what the player explored stays explored; on our file and on Tiled's own.
#[test]
fn a_reloaded_map_is_followed_and_keeps_what_the_player_explored() {
    assert_reload_is_followed("room.tmx");
    assert_reload_is_followed("by_tiled/room.tmx");
}

fn assert_reload_is_followed(file: &str) {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, file);
    let old_root = root(&app, map);
    let player = object(&mut app, map, "Player");
    // A sentry of the game's own, on the map by the map's entity: the handle that outlives
    // the reload (the root tilemap does not).
    let sentry = app
        .world_mut()
        .spawn((Viewshed::new(3), TilePos::new(2, 2), TilemapId(map)))
        .id();
    app.update();
    let sentry_view = |app: &App| app.world().get::<Viewshed>(sentry).unwrap().origin();
    assert_eq!(sentry_view(&app), Some((old_root, TilePos::new(2, 2))));
    let explored: Vec<TilePos> = app
        .world()
        .get::<Viewshed>(player)
        .unwrap()
        .iter()
        .collect();
    // The player walks away east; what it saw first stays explored.
    app.world_mut()
        .get_mut::<Transform>(player)
        .unwrap()
        .translation
        .x += 32.0;
    app.update();
    // bevy_ecs_tiled respawns every layer and object of a map it reloads (a hot reload).
    app.world_mut().entity_mut(map).insert(RespawnTiledMap);
    update_until(
        &mut app,
        |app| map_ready(app, map) && root(app, map) != old_root,
        "the reloaded map",
    );
    app.update();
    assert!(
        app.world().get_entity(old_root).is_err(),
        "the old layers went"
    );
    assert_player_sees(&mut app, map, file, &[]);
    assert_eq!(
        sentry_view(&app),
        Some((root(&app, map), TilePos::new(2, 2))),
        "the sentry stands on the new root"
    );
    let fog = app.world().get::<FogOfWar>(root(&app, map)).unwrap();
    for tile in explored {
        assert!(fog.is_explored(tile), "{tile:?} is still explored");
    }
}

#[test]
fn a_despawned_map_takes_its_views_and_walls_with_it() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "room.tmx");
    let other = load_map(&mut app, "isometric.tmx");
    app.world_mut().entity_mut(map).despawn();
    app.update();
    app.update();
    let mut viewers = app.world_mut().query::<(&Viewshed, &TiledMapReference)>();
    let maps: Vec<Entity> = viewers.iter(app.world()).map(|(_, m)| m.0).collect();
    assert!(!maps.is_empty() && maps.iter().all(|&m| m == other));
    let mut opacities = app.world_mut().query::<(Entity, &MapOpacity)>();
    assert_eq!(opacities.iter(app.world()).count(), 1, "the other map's");
    assert_player_sees(&mut app, other, "isometric.tmx", &[]);
}

#[test]
fn mistakes_in_a_map_are_ignored_with_a_warning_not_a_panic() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "odd_cases.tmx");
    // A radius typed as text gives no viewer; a negative team is ignored.
    let blind = object(&mut app, map, "Blind");
    assert!(app.world().get::<Viewshed>(blind).is_none());
    let negative = object(&mut app, map, "Negative");
    assert!(app.world().get::<Viewshed>(negative).is_some());
    assert!(app.world().get::<Team>(negative).is_none());
    // A viewer off every tile of its map stands nowhere and sees nothing.
    let lost = object(&mut app, map, "Lost");
    assert_eq!(app.world().get::<Viewshed>(lost).unwrap().count(), 0);
    // `block_line_of_sight` given as an int blocks nothing; the layer drawn offset by half a
    // tile counts its tiles at their cells.
    let data = MapData::read("odd_cases.tmx");
    let opacity = app.world().get::<MapOpacity>(root(&app, map)).unwrap();
    assert!(!opacity.is_opaque(TilePos::new(0, 0)));
    assert!((0..data.width).all(|x| !data.opacity().is_opaque(x, 0)));
    // A staggered isometric map, which bevy_ecs_tiled cannot load: it is despawned, and the
    // app goes on.
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("tiled/staggered.tmx");
    let staggered = app.world_mut().spawn(TiledMap(handle)).id();
    update_until(
        &mut app,
        |app| app.world().get_entity(staggered).is_err(),
        "the staggered map's failure",
    );
    let at = data.tile_of("Negative");
    let viewshed = app.world().get::<Viewshed>(negative).unwrap();
    let expected = expected_view(&data.opacity(), TilemapType::Square, at, viewshed.options);
    assert_eq!(view_of(viewshed), expected);
}

/// The maps of a loaded world, by file name (`world_nw.tmx`, ...).
fn world_maps(app: &mut App) -> Vec<(String, Entity)> {
    let mut maps = app.world_mut().query::<(Entity, &TiledMap)>();
    let server = app.world().resource::<AssetServer>();
    let mut found: Vec<(String, Entity)> = maps
        .iter(app.world())
        .map(|(entity, map)| {
            let path = server
                .get_path(map.0.id())
                .expect("a map loaded from a file");
            let name = path
                .path()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, entity)
        })
        .collect();
    found.sort();
    found
}

/// Spawns `assets/tiled/four_maps.world` (with `chunking`) and updates until `count` of its
/// maps are placed in it.
fn load_world(app: &mut App, chunking: TiledWorldChunking, count: usize) -> Entity {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("tiled/four_maps.world");
    let world = app.world_mut().spawn((TiledWorld(handle), chunking)).id();
    update_until(app, |app| placed_maps(app) == count, "the world");
    world
}

/// How many maps have their root placed in a world.
fn placed_maps(app: &mut App) -> usize {
    let mut groups = app.world_mut().query::<&LayerGroup>();
    let roots: Vec<Entity> = groups
        .iter(app.world())
        .filter_map(LayerGroup::root)
        .collect();
    roots
        .into_iter()
        .filter(|&root| app.world().get::<ChunkPlacement>(root).is_some())
        .count()
}

/// A map of the world and where its tile `(0, 0)` lies in the world's grid.
type Quadrant = (&'static str, (u32, u32));

/// The four maps' opacity as one 24x20 grid (the north maps on top), and where each map's
/// tile `(0, 0)` lies in it.
fn four_maps_grid() -> (OpacityGrid, Vec<Quadrant>) {
    let quadrants = [
        ("world_nw.tmx", (0, 10)),
        ("world_ne.tmx", (12, 10)),
        ("world_sw.tmx", (0, 0)),
        ("world_se.tmx", (12, 0)),
    ];
    let data: Vec<(MapData, (u32, u32))> = quadrants
        .iter()
        .map(|&(file, at)| (MapData::read(file), at))
        .collect();
    let grid = OpacityGrid::from_fn(24, 20, |x, y| {
        data.iter().any(|(map, (x0, y0))| {
            (*x0..x0 + 12).contains(&x)
                && (*y0..y0 + 10).contains(&y)
                && map.opacity().is_opaque(x - x0, y - y0)
        })
    });
    (grid, quadrants.to_vec())
}

#[test]
fn a_tiled_world_is_one_map_whose_views_cross_from_one_map_to_the_next() {
    let mut app = tiled_app(configure);
    let world = load_world(&mut app, TiledWorldChunking::default(), 4);
    assert!(app.world().get::<WorldMap>(world).is_some());
    let maps = world_maps(&mut app);
    let (grid, quadrants) = four_maps_grid();
    let first = |app: &App, file: &str| {
        let map = maps.iter().find(|(name, _)| name == file).unwrap().1;
        app.world()
            .get::<ChunkPlacement>(root(app, map))
            .unwrap()
            .first()
    };
    // Placed by their transforms where the .world file puts them.
    let sw = first(&app, "world_sw.tmx");
    for (file, (x0, y0)) in &quadrants {
        assert_eq!(
            first(&app, file),
            TilePos::new(sw.x + x0, sw.y + y0),
            "{file}"
        );
    }
    // The player on the north-west map and the guard on the north-east one see across the
    // border between them, exactly as on one map of the four.
    for (file, name) in [("world_nw.tmx", "Player"), ("world_ne.tmx", "Guard")] {
        let map = maps.iter().find(|(n, _)| n == file).unwrap().1;
        let viewer = object(&mut app, map, name);
        let local = MapData::read(file).tile_of(name);
        assert_eq!(app.world().get::<TilePos>(viewer), Some(&local), "{name}");
        let (x0, y0) = quadrants.iter().find(|(f, _)| f == &file).unwrap().1;
        let at = TilePos::new(x0 + local.x, y0 + local.y);
        let viewshed = app.world().get::<Viewshed>(viewer).unwrap();
        let in_world: Vec<TilePos> = view_of(viewshed)
            .into_iter()
            .map(|t| TilePos::new(t.x - sw.x, t.y - sw.y))
            .collect();
        let expected = expected_view(&grid, TilemapType::Square, at, viewshed.options);
        assert_eq!(in_world, expected, "{name}'s view");
        assert!(
            in_world.iter().any(|t| (t.x < 12) != (at.x < 12)),
            "{name} sees across the border"
        );
    }
}

#[test]
fn maps_streamed_out_and_in_by_world_chunking_keep_what_the_teams_explored() {
    let mut app = tiled_app(configure);
    // Maps are spawned around the camera: 40 pixels each way.
    let camera = app
        .world_mut()
        .spawn((Camera::default(), Transform::from_xyz(96.0, 240.0, 0.0)))
        .id();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("tiled/four_maps.world");
    let chunking = TiledWorldChunking::new(40.0, 40.0);
    let world = app.world_mut().spawn((TiledWorld(handle), chunking)).id();
    // bevy_ecs_tiled 0.13 keeps the maps around the cameras whose `Transform` changed since it
    // last ran (and despawns the others): the plugin marks the cameras changed while a chunked
    // world is loaded, so the camera, never moved, keeps its map loaded.
    update_until(&mut app, |app| placed_maps(app) == 1, "the world");
    for _ in 0..5 {
        app.update();
        assert_eq!(placed_maps(&mut app), 1, "a still camera keeps its map");
    }
    assert!(app.world().get::<WorldMemory>(world).is_some());
    let maps = world_maps(&mut app);
    assert_eq!(maps.len(), 1, "{maps:?}");
    let nw = maps[0].1;
    let player = object(&mut app, nw, "Player");
    // The player explores the south of its map, then comes back.
    let step = |app: &mut App, dy: f32| {
        app.world_mut()
            .get_mut::<Transform>(player)
            .unwrap()
            .translation
            .y += dy;
        app.update();
    };
    step(&mut app, -64.0);
    let explored_there: Vec<TilePos> = app
        .world()
        .get::<Viewshed>(player)
        .unwrap()
        .iter()
        .collect();
    step(&mut app, 64.0);
    let seen_now: Vec<TilePos> = app
        .world()
        .get::<Viewshed>(player)
        .unwrap()
        .iter()
        .collect();
    let only_remembered: Vec<TilePos> = explored_there
        .into_iter()
        .filter(|t| !seen_now.contains(t))
        .collect();
    assert!(!only_remembered.is_empty());
    let fog = |app: &App| app.world().get::<FogOfWar>(world).unwrap().clone();
    assert!(only_remembered.iter().all(|&t| fog(&app).is_explored(t)));
    // The camera goes to the south-east map: the north-west one (and its player) is streamed
    // out, its memory kept; back again, it is streamed in and remembered.
    app.world_mut()
        .get_mut::<Transform>(camera)
        .unwrap()
        .translation = Vec3::new(288.0, 80.0, 0.0);
    update_until(
        &mut app,
        |app| app.world().get_entity(nw).is_err() && placed_maps(app) == 1,
        "the south-east map",
    );
    assert_eq!(app.world().get::<WorldMemory>(world).unwrap().len(), 1);
    assert!(only_remembered.iter().all(|&t| !fog(&app).is_explored(t)));
    app.world_mut()
        .get_mut::<Transform>(camera)
        .unwrap()
        .translation = Vec3::new(96.0, 240.0, 0.0);
    update_until(
        &mut app,
        |app| world_maps_named(app, "world_nw.tmx") && placed_maps(app) == 1,
        "the north-west map again",
    );
    assert!(only_remembered.iter().all(|&t| fog(&app).is_explored(t)));
}

/// Whether the one map loaded is `file`.
fn world_maps_named(app: &mut App, file: &str) -> bool {
    let names: Vec<String> = world_maps(app).into_iter().map(|(name, _)| name).collect();
    names == [file]
}

/// The level of Tiled tile `(x, y)` of `hills.tmx` by the file: its tileset tile's int
/// `elevation`, or 0.
fn file_level(data: &MapData, (x, y): (i32, i32)) -> u8 {
    let layer = data
        .map
        .layers()
        .find_map(|layer| layer.as_tile_layer())
        .unwrap();
    let tile = layer.get_tile(x, y).and_then(|tile| tile.get_tile());
    match tile.and_then(|tile| tile.properties.get("elevation").cloned()) {
        Some(tiled::PropertyValue::IntValue(level)) => level as u8,
        _ => 0,
    }
}

/// High ground drawn in Tiled: tiles take their level from their tileset tile's int
/// `elevation` property and an object (a watchtower) raises its own tile by its property; the
/// map's levels are the file's, and the scout in the valley sees what the core sees on the
/// walls thresholded at its eye (the terrace's face, nothing beyond). With no elevation
/// property configured, the levels the integration put are taken away again.
#[test]
fn elevation_properties_of_tiles_and_objects_make_high_ground() {
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "hills.tmx");
    let data = MapData::read("hills.tmx");
    let root = root(&app, map);
    let tower = data.tile_of("Tower");
    let mut levels = ElevationGrid::new(data.width, data.height);
    for (x, y) in (0..data.width as i32).flat_map(|x| (0..data.height as i32).map(move |y| (x, y)))
    {
        let at = data.tile_pos((x, y));
        let level = if at == tower {
            5
        } else {
            file_level(&data, (x, y))
        };
        levels.set(at.x, at.y, level).unwrap();
    }
    update_until(
        &mut app,
        |app| {
            app.world()
                .get::<MapOpacity>(root)
                .unwrap()
                .elevation(tower)
                == 5
        },
        "the tower's level",
    );
    let opacity = app.world().get::<MapOpacity>(root).unwrap();
    for (x, y) in (0..data.width).flat_map(|x| (0..data.height).map(move |y| (x, y))) {
        let want = levels.get(x, y).unwrap();
        assert_eq!(
            opacity.elevation(TilePos::new(x, y)),
            want,
            "the level of ({x}, {y})"
        );
    }
    assert!(
        (2..=4).contains(&levels.get(5, 2).unwrap()),
        "the file has high ground"
    );
    let scout = object(&mut app, map, "Scout");
    let viewshed = app.world().get::<Viewshed>(scout).unwrap();
    let at = data.tile_of("Scout");
    let expected = field_of_view_with_elevation(
        &data.opacity(),
        &levels,
        (at.x, at.y),
        ElevationOptions::default(),
        viewshed.options,
    )
    .unwrap();
    let mut expected: Vec<TilePos> = expected.iter().map(|(x, y)| TilePos::new(x, y)).collect();
    expected.sort_by_key(|p| (p.y, p.x));
    assert_eq!(
        view_of(viewshed),
        expected,
        "the scout's view from the valley"
    );
    assert!(
        !expected.iter().any(|tile| tile.x > 6),
        "the plateau is hidden"
    );

    app.world_mut().resource_mut::<TiledOpacity>().elevation = None;
    app.update();
    app.update();
    let opacity = app.world().get::<MapOpacity>(root).unwrap();
    let raised = (0..data.width).flat_map(|x| (0..data.height).map(move |y| TilePos::new(x, y)));
    assert!(
        raised.clone().all(|tile| opacity.elevation(tile) == 0),
        "no level is left"
    );
}

/// A Tiled world of one hexagonal map and three orthogonal ones, the hexagonal one listed
/// first, its maps written by Tiled itself: the world keeps the three orthogonal maps (the
/// grid most of its maps share, whichever loads first) and leaves the hexagonal one out, whose
/// player then stands nowhere; the player on a kept map sees across into the next one.
#[test]
fn a_tiled_world_of_mixed_grids_keeps_the_grid_most_of_its_maps_share() {
    let mut app = tiled_app(configure);
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load("tiled/by_tiled/mixed.world");
    app.world_mut()
        .spawn((TiledWorld(handle), TiledWorldChunking::default()));
    update_until(&mut app, |app| world_maps(app).len() == 4, "the four maps");
    update_until(&mut app, |app| placed_maps(app) == 3, "three maps placed");
    for _ in 0..20 {
        app.update();
    }
    assert_eq!(
        placed_maps(&mut app),
        3,
        "the three orthogonal maps stay placed"
    );
    let maps = world_maps(&mut app);
    let map = |file: &str| maps.iter().find(|(name, _)| name == file).unwrap().1;
    let hex = map("hex_y_odd.tmx");
    assert!(app.world().get::<ChunkPlacement>(root(&app, hex)).is_none());
    let stranded = object(&mut app, hex, "Player");
    assert_eq!(app.world().get::<Viewshed>(stranded).unwrap().count(), 0);
    let player = object(&mut app, map("world_nw.tmx"), "Player");
    let viewshed = app.world().get::<Viewshed>(player).unwrap();
    let nw = app
        .world()
        .get::<ChunkPlacement>(root(&app, map("world_nw.tmx")))
        .unwrap()
        .first();
    assert!(
        viewshed.iter().any(|tile| tile.x >= nw.x + 12),
        "the player sees across into the north-east map"
    );
}
