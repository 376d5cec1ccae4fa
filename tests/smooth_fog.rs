//! `SmoothFog` in a headless `App` with `Assets<Image>`: what the map's texture holds after
//! changes, read texel by texel in its documented format (`Rg32Uint`, texel `(x, y)` for tile
//! `(x, y)`: the levels seen and known a fade starts from and goes to, one byte each, then the
//! time it started in milliseconds) and held to the core's field of view; only the texels of
//! the tiles whose state changed are written, fades start from what a tile shows, and a frame
//! where nothing changed leaves the image alone (no `AssetEvent::Modified`, the same bytes).
#![cfg(feature = "render")]

mod common_app;

use std::collections::BTreeSet;
use std::time::Duration;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FogFade;
use bevy_viewshed::SmoothFogTexture;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{ChunkOf, ChunkPos, WORLD_ORIGIN};
use common_app::*;

/// The map: 20x10, a wall across `x == 10` but for a gap at `y == 5`.
const W: u32 = 20;
const H: u32 = 10;
fn wall(x: u32, y: u32) -> bool {
    x == 10 && y != 5
}

const STEP: Duration = Duration::from_millis(50);

/// One texel as the documentation of `SmoothFog` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Texel {
    from: (u8, u8),
    to: (u8, u8),
    start: u32,
}

/// How many times the smooth fog's texture was modified (`AssetEvent::Modified`).
#[derive(Resource, Default)]
struct Modified(usize);

fn count_modified(mut events: MessageReader<AssetEvent<Image>>, mut modified: ResMut<Modified>) {
    modified.0 += events
        .read()
        .filter(|event| matches!(event, AssetEvent::Modified { .. }))
        .count();
}

/// A headless app with assets (so textures are made), a clock of [`STEP`] per update, the map
/// with `smooth` on it and the player at `(x, 5)`, radius 6, updated once.
fn smooth_app(smooth: SmoothFog, x: u32) -> (App, Entity, Entity) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ViewshedPlugins::default(),
    ))
    .init_asset::<Image>()
    .insert_resource(TimeUpdateStrategy::ManualDuration(STEP))
    .init_resource::<Modified>()
    .add_systems(Last, count_modified);
    let map = spawn_map(&mut app, W, H, wall);
    app.world_mut().entity_mut(map).insert(smooth);
    let player = spawn_player(&mut app, map, x, 5, 6);
    app.update();
    (app, map, player)
}

fn texels(app: &App, map: Entity) -> Vec<Texel> {
    let handle = app
        .world()
        .get::<SmoothFogTexture>(map)
        .map(SmoothFogTexture::handle)
        .expect("the plugin made the texture");
    let image = app.world().resource::<Assets<Image>>().get(handle).unwrap();
    assert_eq!(
        image.texture_descriptor.format,
        bevy::render::render_resource::TextureFormat::Rg32Uint
    );
    assert_eq!((image.width(), image.height()), (W, H));
    let data = image.data.as_ref().unwrap();
    data.chunks(8)
        .map(|b| Texel {
            from: (b[0], b[1]),
            to: (b[2], b[3]),
            start: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
        .collect()
}

fn at(texels: &[Texel], x: u32, y: u32) -> Texel {
    texels[(y * W + x) as usize]
}

/// The tiles seen from `(x, 5)` at radius 6, by the core alone.
fn sees(x: u32) -> BTreeSet<(u32, u32)> {
    core_seen(W, H, wall, (x, 5), 6).into_iter().collect()
}

/// The levels (seen, known) of a tile seen now, remembered or unexplored.
fn level(
    seen: &BTreeSet<(u32, u32)>,
    explored: &BTreeSet<(u32, u32)>,
    tile: (u32, u32),
) -> (u8, u8) {
    match (seen.contains(&tile), explored.contains(&tile)) {
        (true, _) => (255, 255),
        (false, true) => (0, 255),
        (false, false) => (0, 0),
    }
}

fn step_player(app: &mut App, player: Entity, x: u32) {
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x, y: 5 };
    app.update();
}

#[test]
fn the_texture_holds_each_tiles_state_and_only_changed_tiles_are_written() {
    let (mut app, map, player) = smooth_app(SmoothFog::default().with_fade(None), 3);
    let first = sees(3);
    let before = texels(&app, map);
    for y in 0..H {
        for x in 0..W {
            let level = level(&first, &first, (x, y));
            let texel = at(&before, x, y);
            assert_eq!((texel.from, texel.to), (level, level), "tile ({x}, {y})");
        }
    }

    step_player(&mut app, player, 8);
    let now = sees(8);
    let explored: BTreeSet<_> = first.union(&now).copied().collect();
    let after = texels(&app, map);
    let mut written = 0;
    for y in 0..H {
        for x in 0..W {
            let (old, new) = (
                level(&first, &first, (x, y)),
                level(&now, &explored, (x, y)),
            );
            let texel = at(&after, x, y);
            assert_eq!(texel.to, new, "tile ({x}, {y}) goes to its state");
            if old == new {
                assert_eq!(texel, at(&before, x, y), "tile ({x}, {y}) was not written");
            } else {
                written += 1;
            }
        }
    }
    assert!(written > 10, "the step changed {written} tiles");
    // Behind the wall, through the gap only: never seen, still black.
    assert_eq!(at(&after, 15, 1).to, (0, 0));
}

#[test]
fn fades_start_from_what_a_tile_shows_and_a_still_frame_uploads_nothing() {
    let fade = FogFade::new(Duration::from_millis(100), Duration::from_millis(400));
    let (mut app, map, player) = smooth_app(SmoothFog::default().with_fade(Some(fade)), 3);
    // (0, 5) is seen from (3, 5), not from (9, 5).
    assert!(sees(3).contains(&(0, 5)) && !sees(9).contains(&(0, 5)));
    step_player(&mut app, player, 9);
    let left = at(&texels(&app, map), 0, 5);
    let started = left.start;
    assert_eq!(
        started, 50,
        "the second update's clock (the first is at 0), in milliseconds"
    );
    assert_eq!((left.from, left.to), ((255, 255), (0, 255)));

    // Back two updates (100 ms) later: a quarter of the way out, 255 - 64 = 191.
    app.update();
    step_player(&mut app, player, 3);
    let back = at(&texels(&app, map), 0, 5);
    assert_eq!(
        (back.from, back.to, back.start),
        ((191, 255), (255, 255), started + 100)
    );

    // Nothing moves: the image is neither modified nor changed.
    for _ in 0..3 {
        app.update();
    }
    let still = texels(&app, map);
    app.world_mut().resource_mut::<Modified>().0 = 0;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().resource::<Modified>().0, 0, "no upload");
    assert_eq!(texels(&app, map), still);
}

#[test]
fn a_resized_map_gets_a_texture_of_its_new_size_and_the_state_carries_over() {
    let (mut app, map, _) = smooth_app(SmoothFog::default().with_fade(None), 3);
    let old = app
        .world()
        .get::<SmoothFogTexture>(map)
        .map(|texture| texture.handle().clone());
    // Wider by five columns: the new tiles are unexplored, the rest as it was.
    let world = app.world_mut();
    let mut storage = TileStorage::empty(TilemapSize::new(W + 5, H));
    for y in 0..H {
        for x in 0..W + 5 {
            let tile = world.spawn((TilePos { x, y }, TilemapId(map))).id();
            storage.set(&TilePos { x, y }, tile);
        }
    }
    world
        .entity_mut(map)
        .insert((TilemapSize::new(W + 5, H), storage));
    app.update();
    let texture = app.world().get::<SmoothFogTexture>(map).unwrap();
    let handle = texture.handle().clone();
    assert_ne!(Some(&handle), old.as_ref(), "a new texture");
    let image = app
        .world()
        .resource::<Assets<Image>>()
        .get(&handle)
        .unwrap();
    assert_eq!((image.width(), image.height()), (W + 5, H));
    let fog = fog(&app, map);
    let data = image.data.as_ref().unwrap();
    for y in 0..H {
        for x in 0..W + 5 {
            let at = ((y * (W + 5) + x) * 8) as usize;
            let expected = match fog.state(TilePos { x, y }) {
                FogState::Visible => [255, 255],
                FogState::Remembered => [0, 255],
                FogState::Unexplored => [0, 0],
            };
            assert_eq!(data[at + 2..at + 4], expected, "tile ({x}, {y})");
        }
    }
    assert!(fog.is_visible(TilePos { x: 3, y: 5 }));
}

/// How many images were added (`AssetEvent::Added`).
#[derive(Resource, Default)]
struct Added(usize);

fn count_added(mut events: MessageReader<AssetEvent<Image>>, mut added: ResMut<Added>) {
    added.0 += events
        .read()
        .filter(|event| matches!(event, AssetEvent::Added { .. }))
        .count();
}

/// A chunk of [`world_app`]'s world: 6x5 tiles, walls where `wall` says (in world tiles from
/// chunk (0, 0)'s corner).
fn spawn_chunk(app: &mut App, world: Entity, (cx, cy): (i32, i32)) -> Entity {
    let wall = move |x: u32, y: u32| {
        let (wx, wy) = (cx * 6 + x as i32, cy * 5 + y as i32);
        (wx + 2 * wy).rem_euclid(7) == 0 && wy != 2
    };
    let chunk = spawn_map(app, 6, 5, wall);
    let place = (ChunkOf(world), ChunkPos(IVec2::new(cx, cy)));
    app.world_mut().entity_mut(chunk).insert(place);
    chunk
}

/// A world of 3x3 chunks (from (-1, -1) to (1, 1)) with a `SmoothFog` without fades and the
/// player in chunk (0, 0), updated once.
fn world_app() -> (App, Entity, Vec<Entity>) {
    let (mut app, _, _) = smooth_app(SmoothFog::default().with_fade(None), 3);
    app.init_resource::<Added>().add_systems(Last, count_added);
    let world = app
        .world_mut()
        .spawn((WorldMap, SmoothFog::default().with_fade(None)))
        .id();
    let mut chunks = Vec::new();
    for cy in -1..=1 {
        for cx in -1..=1 {
            chunks.push(spawn_chunk(&mut app, world, (cx, cy)));
        }
    }
    spawn_player(&mut app, chunks[4], 2, 2, 5);
    app.update();
    (app, world, chunks)
}

/// Each texel of `chunk`'s texture, by the world tile it holds.
fn chunk_texels(app: &App, chunk: Entity) -> Vec<(TilePos, [u8; 4])> {
    let texture = app.world().get::<SmoothFogTexture>(chunk).unwrap();
    let tiles = texture.tiles();
    let image = app
        .world()
        .resource::<Assets<Image>>()
        .get(texture.handle());
    let data = image.unwrap().data.as_ref().unwrap();
    let mut texels = Vec::new();
    for y in 0..tiles.height {
        for x in 0..tiles.width {
            let at = ((y * tiles.width + x) * 8) as usize;
            let bytes = [data[at], data[at + 1], data[at + 2], data[at + 3]];
            texels.push((TilePos::new(tiles.x + x, tiles.y + y), bytes));
        }
    }
    texels
}

/// Each chunk of a world gets a texture of its own tiles and two of its neighbours' around
/// them, holding the world's fog: the texels of a tile are the same in every texture that
/// holds it, so the blur flows on across borders (negative chunks included).
#[test]
fn a_worlds_chunks_each_get_a_texture_of_their_tiles_and_a_margin_that_agree_at_borders() {
    let (app, world, chunks) = world_app();
    let fog = app.world().get::<FogOfWar>(world).unwrap();
    let mut seen_in: std::collections::BTreeMap<(u32, u32), [u8; 4]> = Default::default();
    let mut shared = 0;
    for &chunk in &chunks {
        let texture = app.world().get::<SmoothFogTexture>(chunk).unwrap();
        let (tiles, own) = (texture.tiles(), chunk_corner(&app, chunk));
        assert_eq!(
            (tiles.x + 2, tiles.y + 2, tiles.width, tiles.height),
            (own.0, own.1, 6 + 4, 5 + 4),
            "its own tiles and a margin of two"
        );
        for (tile, texel) in chunk_texels(&app, chunk) {
            let level = match fog.state(tile) {
                FogState::Visible => [255, 255],
                FogState::Remembered => [0, 255],
                FogState::Unexplored => [0, 0],
            };
            assert_eq!(texel[2..4], level, "tile ({}, {})", tile.x, tile.y);
            if let Some(other) = seen_in.insert((tile.x, tile.y), texel) {
                assert_eq!(other, texel, "the same tile in two textures");
                shared += 1;
            }
        }
    }
    assert!(shared > 100, "borders are shared ({shared} texels)");
    let seen = fog.visible_tiles().count();
    assert!(seen > 40, "the player sees across borders ({seen} tiles)");
}

/// The world tile of `chunk`'s tile (0, 0).
fn chunk_corner(app: &App, chunk: Entity) -> (u32, u32) {
    let pos = app.world().get::<ChunkPos>(chunk).unwrap().0;
    (
        WORLD_ORIGIN.wrapping_add_signed(pos.x * 6),
        WORLD_ORIGIN.wrapping_add_signed(pos.y * 5),
    )
}

/// On a world, a frame in which no tile changed writes no texture, and a chunk streamed in
/// far from what the team explored (and from every other chunk) makes its own texture and
/// touches no other, the first time and when it comes back.
#[test]
fn a_still_world_uploads_nothing_and_a_chunk_streamed_in_makes_only_its_own_texture() {
    let (mut app, world, _) = world_app();
    for _ in 0..3 {
        app.update();
    }
    app.world_mut().resource_mut::<Modified>().0 = 0;
    app.world_mut().resource_mut::<Added>().0 = 0;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().resource::<Modified>().0, 0, "no upload");
    for time in ["first", "again"] {
        app.world_mut().resource_mut::<Added>().0 = 0;
        let far = spawn_chunk(&mut app, world, (4, -3));
        app.update();
        app.update();
        assert!(app.world().get::<SmoothFogTexture>(far).is_some());
        assert_eq!(
            app.world().resource::<Added>().0,
            1,
            "its own texture ({time})"
        );
        assert_eq!(app.world().resource::<Modified>().0, 0, "no other ({time})");
        app.world_mut().despawn(far);
        app.update();
        assert_eq!(app.world().resource::<Modified>().0, 0, "none when it goes");
    }
}
