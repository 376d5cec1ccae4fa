//! `FogMinimap` in a headless `App` with `Assets<Image>`: the image holds one pixel per tile,
//! the top row for the highest tiles, each pixel the colour of the tile's kind when seen, that
//! colour tinted when remembered and black when never seen, by the core's field of view; it
//! follows a door opened in view, and a frame where nothing changed leaves it alone.

mod common_app;

use std::collections::BTreeSet;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use common_app::*;

const W: u32 = 20;
const H: u32 = 10;
/// A wall across `x == 10` with a door at `(10, 5)`.
fn wall(x: u32, _y: u32) -> bool {
    x == 10
}

const FLOOR: u32 = 0;
const WALL: u32 = 1;
const DOOR: u32 = 2;

fn floor_color() -> Color {
    Color::srgb(0.8, 0.7, 0.5)
}
fn wall_color() -> Color {
    Color::srgb(0.4, 0.4, 0.45)
}

#[derive(Resource, Default)]
struct Modified(usize);

fn count_modified(mut events: MessageReader<AssetEvent<Image>>, mut modified: ResMut<Modified>) {
    modified.0 += events
        .read()
        .filter(|event| matches!(event, AssetEvent::Modified { .. }))
        .count();
}

fn minimap_app() -> (App, Entity, Entity) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ViewshedPlugins::default(),
    ))
    .init_asset::<Image>()
    .init_resource::<Modified>()
    .add_systems(Last, count_modified);
    let map = spawn_map(&mut app, W, H, wall);
    for y in 0..H {
        for x in 0..W {
            let kind = match (x, y) {
                (10, 5) => DOOR,
                (10, _) => WALL,
                _ => FLOOR,
            };
            let tile = tile_entity(&app, map, x, y);
            app.world_mut()
                .entity_mut(tile)
                .insert(TileTextureIndex(kind));
        }
    }
    // Floors and walls have colours; the door has none (white when seen).
    let minimap = FogMinimap::default()
        .with_kind(FLOOR, floor_color())
        .with_kind(WALL, wall_color());
    app.world_mut().entity_mut(map).insert(minimap);
    let player = spawn_player(&mut app, map, 4, 5, 5);
    app.update();
    (app, map, player)
}

/// The minimap's pixel of tile `(x, y)`.
fn pixel(app: &App, map: Entity, x: u32, y: u32) -> [u8; 4] {
    let handle = app
        .world()
        .get::<FogMinimap>(map)
        .unwrap()
        .image()
        .expect("the plugin made the image");
    let image = app.world().resource::<Assets<Image>>().get(handle).unwrap();
    assert_eq!((image.width(), image.height()), (W, H));
    let at = (((H - 1 - y) * W + x) * 4) as usize;
    image.data.as_ref().unwrap()[at..at + 4].try_into().unwrap()
}

fn srgb(color: Color) -> [u8; 4] {
    color.to_srgba().to_u8_array()
}

/// `color` dimmed by the default remembered tint, multiplied in linear light.
fn remembered(color: Color) -> [u8; 4] {
    let (a, b) = (
        color.to_linear(),
        FogMinimap::default().remembered.to_linear(),
    );
    let tinted = LinearRgba::new(a.red * b.red, a.green * b.green, a.blue * b.blue, 1.0);
    srgb(Color::from(tinted))
}

fn kind_color(x: u32, y: u32) -> Color {
    match (x, y) {
        (10, 5) => Color::WHITE,
        (10, _) => wall_color(),
        _ => floor_color(),
    }
}

/// Every pixel against the core's view from each of `stops` (the last one seen now).
fn assert_pixels(app: &App, map: Entity, stops: &[u32], walls: impl Fn(u32, u32) -> bool) {
    let view = |x: u32| -> BTreeSet<(u32, u32)> {
        core_seen(W, H, &walls, (x, 5), 5).into_iter().collect()
    };
    let now = view(*stops.last().unwrap());
    let saw: BTreeSet<_> = stops.iter().flat_map(|&x| view(x)).collect();
    for y in 0..H {
        for x in 0..W {
            let expected = if now.contains(&(x, y)) {
                srgb(kind_color(x, y))
            } else if saw.contains(&(x, y)) {
                remembered(kind_color(x, y))
            } else {
                srgb(Color::BLACK)
            };
            assert_eq!(pixel(app, map, x, y), expected, "tile ({x}, {y})");
        }
    }
}

#[test]
fn the_minimap_shows_each_tiles_fog_and_kind() {
    let (mut app, map, player) = minimap_app();
    assert_pixels(&app, map, &[4], wall);
    app.world_mut().get_mut::<TilePos>(player).unwrap().x = 7;
    app.update();
    assert_pixels(&app, map, &[4, 7], wall);
    // Beyond the wall: black.
    assert_eq!(pixel(&app, map, 15, 5), srgb(Color::BLACK));
}

#[test]
fn the_minimap_follows_a_door_opened_in_view_and_rests_when_nothing_changes() {
    let (mut app, map, player) = minimap_app();
    app.world_mut().get_mut::<TilePos>(player).unwrap().x = 7;
    app.update();
    app.update();
    app.world_mut().resource_mut::<Modified>().0 = 0;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().resource::<Modified>().0, 0, "nothing changed");
    // The door opens: a floor now (its kind's colour), and the view goes through.
    let door = tile_entity(&app, map, 10, 5);
    app.world_mut()
        .entity_mut(door)
        .insert(TileTextureIndex(FLOOR))
        .remove::<Opaque>();
    app.update();
    app.update();
    assert!(app.world().resource::<Modified>().0 >= 1);
    let open = |x, y| x == 10 && y != 5;
    let view_now: BTreeSet<_> = core_seen(W, H, open, (7, 5), 5).into_iter().collect();
    assert!(
        view_now.contains(&(12, 5)),
        "the view goes through the door"
    );
    assert_eq!(pixel(&app, map, 10, 5), srgb(floor_color()));
    assert_eq!(pixel(&app, map, 12, 5), srgb(floor_color()));
}

/// A world's minimap (`FogMinimap` on the `WorldMap`): one image over the loaded chunks, and
/// the chunks streamed out that its `WorldMemory` remembers, drawn remembered in the kind they
/// had; `pixel_of` says where a tile is on it.
#[test]
fn a_worlds_minimap_covers_its_loaded_chunks_and_the_remembered_ones() {
    use bevy_viewshed::{ChunkOf, ChunkPos, WORLD_ORIGIN, WorldMemory};
    let (mut app, _, _) = minimap_app();
    let minimap = FogMinimap::default().with_kind(FLOOR, floor_color());
    let world = app
        .world_mut()
        .spawn((WorldMap, WorldMemory::default(), minimap))
        .id();
    // Two 6x3 chunks side by side, (-1, 0) and (0, 0): a corridor along y == 1.
    let chunks: Vec<Entity> = [-1, 0]
        .map(|cx| {
            let chunk = spawn_map(&mut app, 6, 3, |_, y| y != 1);
            for x in 0..6 {
                for y in 0..3 {
                    let tile = tile_entity(&app, chunk, x, y);
                    let kind = if y == 1 { FLOOR } else { WALL };
                    app.world_mut()
                        .entity_mut(tile)
                        .insert(TileTextureIndex(kind));
                }
            }
            let place = (ChunkOf(world), ChunkPos(IVec2::new(cx, 0)));
            app.world_mut().entity_mut(chunk).insert(place);
            chunk
        })
        .into();
    let player = spawn_player(&mut app, chunks[1], 1, 1, 4);
    app.update();
    let tile = |x: i32| TilePos::new(WORLD_ORIGIN.wrapping_add_signed(x), WORLD_ORIGIN + 1);
    let read = |app: &App, at: TilePos| -> Option<[u8; 4]> {
        let minimap = app.world().get::<FogMinimap>(world).unwrap();
        let pixel = minimap.pixel_of(at)?;
        let tiles = minimap.tiles().unwrap();
        let image = app
            .world()
            .resource::<Assets<Image>>()
            .get(minimap.image()?)?;
        assert_eq!((image.width(), image.height()), (tiles.width, tiles.height));
        let i = ((pixel.y * tiles.width + pixel.x) * 4) as usize;
        image.data.as_ref()?[i..i + 4].try_into().ok()
    };
    assert_eq!(
        read(&app, tile(-2)),
        Some(srgb(floor_color())),
        "seen across the border"
    );
    assert_eq!(read(&app, tile(-6)), Some(srgb(Color::BLACK)), "too far");
    // The player walks east; chunk (-1, 0) is streamed out and stays on the minimap.
    app.world_mut().get_mut::<TilePos>(player).unwrap().x = 5;
    app.update();
    app.world_mut().despawn(chunks[0]);
    app.update();
    assert_eq!(
        read(&app, tile(-2)),
        Some(remembered(floor_color())),
        "remembered"
    );
    assert_eq!(read(&app, tile(-6)), Some(srgb(Color::BLACK)));
    let minimap = app.world().get::<FogMinimap>(world).unwrap();
    assert!(minimap.tiles().unwrap().contains(tile(-6).x, tile(-6).y));
    assert!(minimap.pixel_of(tile(-40)).is_none(), "off the minimap");
}
