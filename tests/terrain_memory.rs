//! `TerrainMemory` in a headless `App`: a door seen closed stays drawn closed while the team
//! remembers it, and is drawn as it is once seen again; a wall knocked down out of sight still
//! stands in memory; each team remembers what it saw, and the team drawn decides what the tiles
//! show; the memory is saved and put back with the game (feature `serde`).

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DrawnTeam, Team};
use common_app::*;

const FLOOR: u32 = 0;
const WALL: u32 = 1;
const CLOSED: u32 = 2;
const OPEN: u32 = 3;

/// A corridor 20x3 (walls at `y == 0` and `y == 2`) with a closed door at (10, 1), every tile
/// with its `TileTextureIndex`, a `TerrainMemory` on the map.
fn corridor(app: &mut App) -> Entity {
    let map = spawn_map(app, 20, 3, |x, y| y != 1 || x == 10);
    for y in 0..3 {
        for x in 0..20 {
            let kind = match (x, y) {
                (10, 1) => CLOSED,
                (_, 1) => FLOOR,
                _ => WALL,
            };
            let tile = tile_entity(app, map, x, y);
            app.world_mut()
                .entity_mut(tile)
                .insert(TileTextureIndex(kind));
        }
    }
    app.world_mut()
        .entity_mut(map)
        .insert(TerrainMemory::default());
    map
}

fn shown(app: &App, map: Entity, x: u32, y: u32) -> u32 {
    let tile = tile_entity(app, map, x, y);
    app.world().get::<TileTextureIndex>(tile).unwrap().0
}

/// The game changes tile `(x, y)`: its index, and whether it blocks sight.
fn set_tile(app: &mut App, map: Entity, (x, y): (u32, u32), kind: u32) {
    let tile = tile_entity(app, map, x, y);
    let mut tile = app.world_mut().entity_mut(tile);
    tile.insert(TileTextureIndex(kind));
    if kind == WALL || kind == CLOSED {
        tile.insert(Opaque);
    } else {
        tile.remove::<Opaque>();
    }
}

fn move_to(app: &mut App, viewer: Entity, x: u32) {
    app.world_mut().get_mut::<TilePos>(viewer).unwrap().x = x;
}

fn memory(app: &App, map: Entity) -> &TerrainMemory {
    app.world().get::<TerrainMemory>(map).unwrap()
}

#[test]
fn a_door_seen_closed_stays_drawn_closed_until_it_is_seen_again() {
    let mut app = app();
    let map = corridor(&mut app);
    let player = spawn_player(&mut app, map, 7, 1, 4);
    app.update();
    assert!(fog(&app, map).is_visible(TilePos { x: 10, y: 1 }));
    // The player walks away; the door opens out of its sight.
    move_to(&mut app, player, 2);
    app.update();
    set_tile(&mut app, map, (10, 1), OPEN);
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 10, y: 1 }),
        FogState::Remembered
    );
    assert_eq!(shown(&app, map, 10, 1), CLOSED, "drawn as last seen");
    let door = TilePos { x: 10, y: 1 };
    assert_eq!(
        memory(&app, map).remembered(Team(0), door),
        Some(TileTextureIndex(CLOSED))
    );
    // Closed and opened again out of sight: still the look it was seen with.
    set_tile(&mut app, map, (10, 1), CLOSED);
    app.update();
    assert_eq!(
        memory(&app, map).remembered(Team(0), door),
        None,
        "as it is"
    );
    assert_eq!(shown(&app, map, 10, 1), CLOSED);
    set_tile(&mut app, map, (10, 1), OPEN);
    app.update();
    assert_eq!(shown(&app, map, 10, 1), CLOSED);
    // Seen again: drawn open, and no longer remembered otherwise.
    move_to(&mut app, player, 8);
    app.update();
    assert!(fog(&app, map).is_visible(door));
    assert_eq!(shown(&app, map, 10, 1), OPEN);
    assert_eq!(memory(&app, map).remembered(Team(0), door), None);
    // Tiles never seen are drawn as they are.
    assert_eq!(shown(&app, map, 19, 1), FLOOR);
}

#[test]
fn a_wall_knocked_down_out_of_sight_stands_in_memory_and_each_team_remembers_its_own() {
    let mut app = app();
    let map = corridor(&mut app);
    set_tile(&mut app, map, (10, 1), OPEN);
    let player = spawn_player(&mut app, map, 13, 1, 3);
    let scout = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            RevealsFog,
            Team(1),
            TilePos { x: 17, y: 1 },
            TilemapId(map),
        ))
        .id();
    app.update();
    // Both teams saw the wall at (15, 0); the player walks west, out of its sight.
    move_to(&mut app, player, 6);
    app.update();
    set_tile(&mut app, map, (15, 0), FLOOR);
    app.update();
    let wall = TilePos { x: 15, y: 0 };
    assert!(fog(&app, map).team(Team(1)).unwrap().is_visible(wall));
    assert_eq!(
        shown(&app, map, 15, 0),
        WALL,
        "team 0 drawn: the wall stands"
    );
    assert_eq!(
        memory(&app, map).remembered(Team(0), wall),
        Some(TileTextureIndex(WALL))
    );
    assert_eq!(
        memory(&app, map).remembered(Team(1), wall),
        None,
        "team 1 saw it go"
    );
    // Drawing team 1: the tile as it is; team 0 again: as team 0 remembers it.
    app.insert_resource(DrawnTeam(Team(1)));
    app.update();
    assert_eq!(shown(&app, map, 15, 0), FLOOR);
    // Team 1 walks away too; team 0's memory is what the tile shows when it is drawn again.
    move_to(&mut app, scout, 19);
    app.insert_resource(DrawnTeam(Team(0)));
    app.update();
    assert_eq!(shown(&app, map, 15, 0), WALL);
    let remembered: Vec<_> = memory(&app, map).remembered_tiles(Team(0)).collect();
    assert_eq!(remembered, [(wall, TileTextureIndex(WALL))]);
    // The game forgets the tile: drawn as it is; remembers it again: drawn so.
    let mut terrain = app.world_mut().get_mut::<TerrainMemory>(map).unwrap();
    terrain.forget(Team(0), wall);
    app.update();
    assert_eq!(shown(&app, map, 15, 0), FLOOR);
    let mut terrain = app.world_mut().get_mut::<TerrainMemory>(map).unwrap();
    terrain.remember(Team(0), wall, TileTextureIndex(WALL));
    app.update();
    assert_eq!(shown(&app, map, 15, 0), WALL);
    // Without its `TerrainMemory`, the layer is drawn as it is.
    app.world_mut().entity_mut(map).remove::<TerrainMemory>();
    assert_eq!(shown(&app, map, 15, 0), FLOOR);
}

#[cfg(feature = "serde")]
#[test]
fn the_terrain_memory_is_saved_and_drawn_again_when_loaded() {
    let mut app = app();
    let map = corridor(&mut app);
    let player = spawn_player(&mut app, map, 7, 1, 4);
    app.update();
    move_to(&mut app, player, 2);
    app.update();
    set_tile(&mut app, map, (10, 1), OPEN);
    app.update();
    let saved_fog = serde_json::to_string(fog(&app, map)).unwrap();
    let saved = serde_json::to_string(memory(&app, map)).unwrap();
    assert!(saved.contains("\"format\":1"), "{saved}");

    // A new game on the same corridor, the door open, the player where it was.
    let mut app = self::app();
    let map = corridor(&mut app);
    set_tile(&mut app, map, (10, 1), OPEN);
    spawn_player(&mut app, map, 2, 1, 4);
    app.update();
    assert_eq!(shown(&app, map, 10, 1), OPEN, "nothing remembered yet");
    let fog: FogOfWar = serde_json::from_str(&saved_fog).unwrap();
    let memory: TerrainMemory = serde_json::from_str(&saved).unwrap();
    app.world_mut().entity_mut(map).insert((fog, memory));
    app.update();
    assert_eq!(shown(&app, map, 10, 1), CLOSED, "drawn as remembered");

    let twice = r#"{"format":1,"teams":[[0,[[10,1,2],[10,1,3]]]]}"#;
    assert!(serde_json::from_str::<TerrainMemory>(twice).is_err());
    let later = r#"{"format":99,"teams":[]}"#;
    assert!(serde_json::from_str::<TerrainMemory>(later).is_err());
}

/// A world's chunk with a `TerrainMemory`: the door seen closed and opened out of sight is
/// drawn closed, on the chunk's own tiles; streamed out and in again (its tiles spawned anew,
/// the door open, an empty `TerrainMemory`), the chunk draws what the team remembers of it from
/// its first frame.
#[test]
fn a_chunk_remembers_its_terrain_across_a_stream_out_and_in() {
    use bevy_viewshed::{ChunkOf, ChunkPos, WorldMemory};
    let mut app = app();
    let world = app
        .world_mut()
        .spawn((WorldMap, WorldMemory::default()))
        .id();
    // Two 6x3 chunks, a corridor along y == 1; chunk 1 has a door at its tile (2, 1).
    let spawn_chunk = |app: &mut App, cx: i32, door: u32| {
        let chunk = spawn_map(app, 6, 3, |_, y| y != 1);
        for y in 0..3 {
            for x in 0..6 {
                let kind = match (x, y) {
                    (2, 1) if cx == 1 => door,
                    (_, 1) => FLOOR,
                    _ => WALL,
                };
                let tile = tile_entity(app, chunk, x, y);
                app.world_mut()
                    .entity_mut(tile)
                    .insert(TileTextureIndex(kind));
            }
        }
        let place = (
            ChunkOf(world),
            ChunkPos(IVec2::new(cx, 0)),
            TerrainMemory::default(),
        );
        app.world_mut().entity_mut(chunk).insert(place);
        chunk
    };
    let west = spawn_chunk(&mut app, 0, CLOSED);
    let east = spawn_chunk(&mut app, 1, CLOSED);
    let player = spawn_player(&mut app, west, 5, 1, 4);
    app.update();
    assert_eq!(shown(&app, east, 2, 1), CLOSED);
    move_to(&mut app, player, 0);
    app.update();
    set_tile(&mut app, east, (2, 1), OPEN);
    app.update();
    assert_eq!(shown(&app, east, 2, 1), CLOSED, "drawn as last seen");
    // Streamed out, and in again as it is now: the door open.
    app.world_mut().despawn(east);
    app.update();
    let east = spawn_chunk(&mut app, 1, OPEN);
    app.update();
    assert_eq!(
        shown(&app, east, 2, 1),
        CLOSED,
        "remembered from the first frame"
    );
    assert_eq!(shown(&app, east, 3, 1), FLOOR);
    // Seen again: as it is.
    move_to(&mut app, player, 5);
    app.update();
    assert_eq!(shown(&app, east, 2, 1), OPEN);
}
