//! High ground: a valley, a terrace one level up and a plateau two levels up, with rocks and
//! pillars. The scout walks east from the valley, climbs the terrace and the plateau, and its
//! view opens over the valley behind it, while from the valley it saw only the cliff faces.
//! The levels are `ElevationCells` on the map; the fog of war
//! follows the scout as usual.
//!
//! ```text
//! cargo run --example high_ground
//! cargo run --example high_ground -- --screenshot out.png --exit   # after the walk
//! ```
//!
//! `tests/high_ground_screenshot.rs` plays it under Xvfb and holds every tile on screen to
//! the core's view on the walls thresholded at the scout's eye.

#[path = "shared/screenshot.rs"]
mod screenshot;
#[path = "shared/square_map.rs"]
mod square_map;

use std::path::PathBuf;

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::ElevationCells;
use bevy_viewshed::prelude::*;
use square_map::spawn_square_map;

const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };
/// The scout's walk: along row 9 from column 3 to column 17 (the plateau's edge), one tile
/// every 0.2 s.
const ROW: u32 = 9;
const FROM: u32 = 3;
const TO: u32 = 17;

/// The ground's level: the valley (0) west of column 12, the terrace (1) to column 16, the
/// plateau (2) beyond, with a level-3 outcrop on the plateau.
fn level(x: u32, y: u32) -> u8 {
    match x {
        0..12 => 0,
        12..16 => 1,
        _ if (21..24).contains(&x) && (4..7).contains(&y) => 3,
        _ => 2,
    }
}

/// The walls around the map, pillars in the valley and rocks on the plateau.
fn is_wall(x: u32, y: u32) -> bool {
    let border = x == 0 || y == 0 || x == SIZE.x - 1 || y == SIZE.y - 1;
    let pillar = x < 12 && x % 4 == 2 && y % 5 == 3;
    let rock = x >= 18 && (x * 7 + y * 3).is_multiple_of(23) && y != ROW;
    border || pillar || rock
}

fn main() {
    let (screenshot, exit) = args();
    App::new()
        .add_plugins(DefaultPlugins.set(ImagePlugin::default_nearest()))
        .add_plugins(ViewshedPlugins::default())
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(Walk {
            screenshot,
            exit,
            at: FROM,
        })
        .add_systems(Startup, setup)
        .add_systems(Update, walk)
        .run();
}

/// `--screenshot PATH` saves the window at the end of the walk; `--exit` quits then.
fn args() -> (Option<PathBuf>, bool) {
    let (mut screenshot, mut exit) = (None, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--screenshot" => screenshot = args.next().map(PathBuf::from),
            "--exit" => exit = true,
            other => panic!("unknown argument {other:?} (--screenshot PATH, --exit)"),
        }
    }
    (screenshot, exit)
}

/// The walk's progress and what to do at its end.
#[derive(Resource)]
struct Walk {
    screenshot: Option<PathBuf>,
    exit: bool,
    at: u32,
}

/// Where a tile's centre is (the map is centred on the origin), just above the map.
fn centre(x: u32, y: u32) -> Vec3 {
    Vec3::new(x as f32 - 15.5, y as f32 - 8.5, 0.1) * 16.0
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    let room = ScalingMode::AutoMin {
        min_width: 512.0,
        min_height: 288.0,
    };
    let projection = OrthographicProjection {
        scaling_mode: room,
        ..OrthographicProjection::default_2d()
    };
    commands.spawn((Camera2d, Projection::Orthographic(projection)));
    let tiles: Handle<Image> = assets.load("tiles.png");
    let map = commands.spawn_empty().id();
    // The fog's style colours each tile by what the scout knows of it.
    let look = |x, y| (u32::from(is_wall(x, y)), Color::WHITE);
    spawn_square_map(&mut commands, (map, SIZE, tiles.clone()), look, is_wall);
    commands.entity(map).insert((
        ElevationCells::from_fn(SIZE.x, SIZE.y, level),
        FogStyle::default(),
    ));
    commands.spawn((
        Viewshed::new(10),
        RevealsFog,
        TilePos { x: FROM, y: ROW },
        TilemapId(map),
        Sprite {
            image: tiles,
            rect: Some(Rect::new(64.0, 0.0, 80.0, 16.0)),
            ..default()
        },
        Transform::from_translation(centre(FROM, ROW) + Vec3::Z),
    ));
}

/// One tile east every 0.2 s; at the end, the screenshot and the exit if asked for.
fn walk(
    time: Res<Time>,
    mut state: ResMut<Walk>,
    scout: Single<(&mut TilePos, &mut Transform), With<RevealsFog>>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    let due = FROM + (time.elapsed_secs() / 0.2) as u32;
    if state.at >= TO || due <= state.at {
        return;
    }
    state.at += 1;
    let (mut tile, mut transform) = scout.into_inner();
    *tile = TilePos {
        x: state.at,
        y: ROW,
    };
    transform.translation = centre(state.at, ROW) + Vec3::Z;
    if state.at == TO {
        println!("autoplay done: scout at ({}, {ROW})", state.at);
        let shot = state.screenshot.take();
        screenshot::save_and_exit(&mut commands, shot, state.exit, &mut exit);
    }
}
