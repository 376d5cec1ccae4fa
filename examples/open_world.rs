//! An open world streamed around a walking player: a `WorldMap` of 12x12-tile chunks (tinted
//! warm and cool like a chessboard, so their borders show), the 3x3 chunks around the player
//! loaded and the others despawned as it walks west and south into negative chunk
//! coordinates. The view crosses chunk borders as if the world were one map, the smooth fog
//! (`SmoothFog` on the world: a texture per chunk) flows on across them without a seam, and a
//! `WorldMemory` keeps what was explored of the chunks that go (walk back and the remembered
//! tiles are there again). The minimap in the corner (`FogMinimap` on the world) shows the
//! loaded chunks and the remembered ones; the chests (`FogSprite`) stay hidden until seen and
//! are drawn as last seen under the fog.
//!
//! ```text
//! cargo run --example open_world                      # the arrow keys walk, or it walks alone
//! cargo run --example open_world -- --screenshot out.png --exit
//! cargo run --example open_world -- --window 640x400 --zoom 3   # closer, in a smaller window
//! ```
//!
//! `tests/open_world_screenshot.rs` plays its scripted walk under Xvfb.

#[path = "shared/minimap.rs"]
mod minimap;
#[path = "shared/screenshot.rs"]
mod screenshot;

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{ChunkOf, ChunkPos};
use bevy_viewshed::{WORLD_ORIGIN, WorldMemory};

/// A chunk's side, in tiles; a tile's, in pixels.
const CHUNK: i32 = 12;
const TILE: f32 = 16.0;
/// The scripted walk from world tile (4, 4) of chunk (0, 0): legs of steps, one step every
/// 0.15 s: west through two doorways, then south through two more, into chunk (-1, -2).
const WALK: [((i32, i32), usize); 2] = [((-1, 0), 8), ((0, -1), 16)];

/// Whether world tile `(x, y)` (tiles from chunk (0, 0)'s tile (0, 0)) is a wall: rooms of 7x7
/// tiles with a doorway in the middle of each wall, and scattered pillars, the same across
/// chunk borders as inside a chunk.
fn is_wall(x: i32, y: i32) -> bool {
    let (rx, ry) = (x.rem_euclid(8), y.rem_euclid(8));
    let door = rx == 4 || ry == 4;
    let h = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) as u32;
    !door && (rx == 0 || ry == 0 || h.is_multiple_of(17))
}

/// The step of the scripted walk's `step`-th step, if the walk is not over.
fn scripted(step: usize) -> Option<(i32, i32)> {
    let mut left = step;
    for (direction, steps) in WALK {
        if left < steps {
            return Some(direction);
        }
        left -= steps;
    }
    None
}

fn main() {
    let (screenshot, exit, smooth, (width, height), zoom) = args();
    let window = Window {
        resolution: WindowResolution::new(width, height),
        ..default()
    };
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(ImagePlugin::default_nearest())
                .set(WindowPlugin {
                    primary_window: Some(window),
                    ..default()
                }),
        )
        .add_plugins(ViewshedPlugins::default())
        .add_plugins(minimap::CornerMinimapPlugin::<Player>::below(10.0))
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(Script {
            screenshot,
            exit,
            steps: 0,
        })
        .insert_resource(SmoothLook(smooth))
        .insert_resource(Zoom(zoom))
        .add_systems(Startup, setup)
        .add_systems(Update, (walk, stream_chunks, follow).chain())
        .run();
}

/// `--screenshot PATH` saves the window after the scripted walk; `--exit` quits then;
/// `--fog tiles` draws the fog as an overlay of tiles instead of the smooth fog; `--window WxH`
/// sizes the window (1280x720 by default) and `--zoom Z` draws a tile's pixel Z pixels wide (2).
fn args() -> (Option<PathBuf>, bool, bool, (u32, u32), f32) {
    let (mut screenshot, mut exit, mut smooth) = (None, false, true);
    let (mut size, mut zoom) = ((1280, 720), 2.0);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--screenshot" => screenshot = args.next().map(PathBuf::from),
            "--fog" => smooth = args.next().as_deref() != Some("tiles"),
            "--exit" => exit = true,
            "--window" => size = args.next().and_then(|s| window_size(&s)).unwrap_or(size),
            "--zoom" => zoom = args.next().and_then(|z| z.parse().ok()).unwrap_or(zoom),
            other => panic!(
                "unknown argument {other:?} (--screenshot PATH, --fog tiles, --window WxH, \
                 --zoom Z, --exit)"
            ),
        }
    }
    (screenshot, exit, smooth, size, zoom)
}

/// `WxH` as a window size in pixels.
fn window_size(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.split_once('x')?;
    Some((w.parse().ok()?, h.parse().ok()?))
}

/// How many window pixels a pixel of the tileset takes.
#[derive(Resource)]
struct Zoom(f32);

/// Whether the fog is drawn smooth (`SmoothFog` on the world) or as an overlay of tiles
/// (`FogOverlay` on each chunk).
#[derive(Resource)]
struct SmoothLook(bool);

/// The scripted walk's progress and what to do at its end.
#[derive(Resource)]
struct Script {
    screenshot: Option<PathBuf>,
    exit: bool,
    steps: usize,
}

/// The world entity, the tileset and the props (chests).
#[derive(Resource)]
struct Streamed {
    entity: Entity,
    tiles: Handle<Image>,
    props: Handle<Image>,
    /// The fog drawn smooth (else as an overlay of tiles).
    smooth: bool,
}

/// Where the player stands, in world tiles from chunk (0, 0)'s tile (0, 0).
#[derive(Component)]
struct Player(IVec2);

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    (look, zoom): (Res<SmoothLook>, Res<Zoom>),
) {
    let zoom = OrthographicProjection {
        scale: 1.0 / zoom.0,
        ..OrthographicProjection::default_2d()
    };
    commands.spawn((Camera2d, Projection::Orthographic(zoom)));
    // The chunks kept around the player remember what was explored of those that go; the
    // fog is drawn smooth over every chunk, and the minimap shows walls and floors.
    let minimap = FogMinimap::default()
        .with_unexplored(Color::srgba(0.0, 0.0, 0.0, 0.8))
        .with_kind(0, Color::srgb(0.62, 0.6, 0.55))
        .with_kind(1, Color::srgb(0.3, 0.3, 0.36));
    let world = commands
        .spawn((
            WorldMap,
            WorldMemory::default(),
            minimap,
            Transform::default(),
        ))
        .id();
    if look.0 {
        commands.entity(world).insert(SmoothFog::default());
    }
    let tiles = assets.load("tiles.png");
    commands.insert_resource(Streamed {
        entity: world,
        tiles: tiles.clone(),
        props: assets.load("props.png"),
        smooth: look.0,
    });
    let figure = Rect::new(64.0, 0.0, 80.0, 16.0);
    let sprite = Sprite {
        image: tiles,
        rect: Some(figure),
        ..default()
    };
    // Placed by `Transform` on the world: the tile under it, on whichever chunk that is.
    commands.spawn((
        Player(IVec2::new(4, 4)),
        Viewshed::new(7),
        RevealsFog,
        TilemapId(world),
        sprite,
        Transform::from_xyz(4.0 * TILE, 4.0 * TILE, 10.0),
    ));
}

/// One step of the scripted walk every 0.15 s (or an arrow key), then the screenshot.
fn walk(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    mut script: ResMut<Script>,
    mut player: Single<(&mut Player, &mut Transform)>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    let legs: usize = WALK.iter().map(|(_, steps)| steps).sum();
    let step = match keys.get_just_pressed().next() {
        Some(KeyCode::ArrowLeft) => Some((-1, 0)),
        Some(KeyCode::ArrowRight) => Some((1, 0)),
        Some(KeyCode::ArrowDown) => Some((0, -1)),
        Some(KeyCode::ArrowUp) => Some((0, 1)),
        _ if script.steps < legs && time.elapsed_secs() > 0.5 + 0.15 * script.steps as f32 => {
            script.steps += 1;
            scripted(script.steps - 1)
        }
        _ => None,
    };
    if let Some((dx, dy)) = step {
        let to = player.0.0 + IVec2::new(dx, dy);
        if !is_wall(to.x, to.y) {
            player.0.0 = to;
            player.1.translation = (to.as_vec2() * TILE).extend(10.0);
        }
    }
    if script.steps == legs && time.elapsed_secs() > 1.5 + 0.15 * legs as f32 {
        script.steps += 1;
        let at = player.0.0;
        println!(
            "autoplay done player ({}, {}) world tile ({}, {}) chunk size {CHUNK}",
            at.x,
            at.y,
            WORLD_ORIGIN.wrapping_add_signed(at.x),
            WORLD_ORIGIN.wrapping_add_signed(at.y)
        );
        let shot = script.screenshot.take();
        screenshot::save_and_exit(&mut commands, shot, script.exit, &mut exit);
    }
}

/// Keeps the 3x3 chunks around the player loaded: spawns those missing, despawns the others
/// (with their tiles).
fn stream_chunks(
    mut commands: Commands,
    world: Res<Streamed>,
    player: Single<&Player>,
    chunks: Query<(Entity, &ChunkPos)>,
) {
    let here = player.0.div_euclid(IVec2::splat(CHUNK));
    let near = |pos: IVec2| (pos - here).abs().max_element() <= 1;
    for (chunk, pos) in &chunks {
        if !near(pos.0) {
            commands.entity(chunk).despawn();
        }
    }
    for dy in -1..=1 {
        for dx in -1..=1 {
            let pos = here + IVec2::new(dx, dy);
            if !chunks.iter().any(|(_, p)| p.0 == pos) {
                spawn_chunk(&mut commands, &world, pos);
            }
        }
    }
}

/// Spawns the chunk at chunk position `pos`: its tiles children of it (they go with it), its
/// walls `Opaque`, tinted warm or cool like a chessboard of chunks (so that their borders
/// show), the fog drawn over it as an overlay (which keeps the tints).
fn spawn_chunk(commands: &mut Commands, world: &Streamed, pos: IVec2) {
    let size = TilemapSize::new(CHUNK as u32, CHUNK as u32);
    let chunk = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..CHUNK {
        for x in 0..CHUNK {
            let (wx, wy) = (pos.x * CHUNK + x, pos.y * CHUNK + y);
            let position = TilePos::new(x as u32, y as u32);
            let wall = is_wall(wx, wy);
            let mut tile = commands.spawn((
                TileBundle {
                    position,
                    tilemap_id: TilemapId(chunk),
                    texture_index: TileTextureIndex(u32::from(wall)),
                    color: TileColor(tint(pos)),
                    ..default()
                },
                ChildOf(chunk),
            ));
            if wall {
                tile.insert(Opaque);
            }
            storage.set(&position, tile.id());
            if is_chest(wx, wy) {
                spawn_chest(commands, world, (chunk, position));
            }
        }
    }
    let tile_size = TilemapTileSize::new(TILE, TILE);
    let at = (pos.as_vec2() * CHUNK as f32 * TILE).extend(0.0);
    commands.entity(chunk).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            size,
            storage,
            texture: TilemapTexture::Single(world.tiles.clone()),
            tile_size,
            transform: Transform::from_translation(at),
            ..default()
        },
        ChunkOf(world.entity),
        ChunkPos(pos),
    ));
    match world.smooth {
        true => commands.entity(chunk).insert(FogStyle::under_smooth_fog()),
        false => commands.entity(chunk).insert(FogOverlay::default()),
    };
}

/// Whether a chest stands on world tile `(x, y)`: a few, on floor in the rooms' corners.
fn is_chest(x: i32, y: i32) -> bool {
    let (rx, ry) = (x.rem_euclid(8), y.rem_euclid(8));
    let h = (x.wrapping_mul(83_492_791) ^ y.wrapping_mul(2_654_435_761_u32 as i32)) as u32;
    !is_wall(x, y) && rx == 1 && ry == 6 && !h.is_multiple_of(3)
}

/// A chest on a chunk's tile, a child of the chunk (it goes with it), under the fog: hidden
/// until seen, then drawn as last seen.
fn spawn_chest(commands: &mut Commands, world: &Streamed, (chunk, at): (Entity, TilePos)) {
    let sprite = Sprite {
        image: world.props.clone(),
        rect: Some(Rect::new(0.0, 0.0, TILE, TILE)),
        ..default()
    };
    let local = Vec3::new(at.x as f32 * TILE, at.y as f32 * TILE, 5.0);
    commands.spawn((
        sprite,
        FogSprite::Remembered,
        Transform::from_translation(local),
        TilemapId(chunk),
        at,
        ChildOf(chunk),
    ));
}

/// A chunk's tint: warm or cool, like the squares of a chessboard of chunks.
fn tint(pos: IVec2) -> Color {
    match (pos.x + pos.y).rem_euclid(2) {
        0 => Color::srgb(1.0, 0.9, 0.78),
        _ => Color::srgb(0.8, 0.9, 1.0),
    }
}

/// The camera follows the player.
fn follow(
    player: Single<&Transform, With<Player>>,
    mut camera: Single<&mut Transform, (With<Camera2d>, Without<Player>)>,
) {
    camera.translation = player.translation.with_z(camera.translation.z);
}
