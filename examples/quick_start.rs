//! The README's quick start, as it is there (`tests/quick_start.rs` checks that the two stay
//! the same, and plays this under Xvfb for a screenshot): a walled room with pillars, a player
//! the arrow keys move, the fog of war following it.
//!
//! ```text
//! cargo run --example quick_start
//! ```

use bevy::asset::RenderAssetUsages;
use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.x - 1 || y == SIZE.y - 1 || (x % 6 == 3 && y % 5 == 2)
}

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(ImagePlugin::default_nearest()))
        .add_plugins(ViewshedPlugins::default()) // adds bevy_ecs_tilemap's TilemapPlugin too
        .insert_resource(ClearColor(Color::BLACK)) // what shows where tiles are hidden
        .add_systems(Startup, setup)
        .add_systems(Update, walk)
        .run();
}

/// Where a tile's centre is (the room is centred on the origin), just above the map.
fn center(tile: TilePos) -> Vec3 {
    Vec3::new(tile.x as f32 - 15.5, tile.y as f32 - 8.5, 0.1) * 16.0
}

/// The tileset, drawn here so that no file is needed: floor, wall and the player's figure,
/// side by side, 16x16 pixels each.
fn tileset() -> Image {
    let pixel = |tile: u32, x: u32, y: u32| -> [u8; 4] {
        let (dx, dy) = (x as i32 * 2 - 15, y as i32 * 2 - 15);
        let mortar = y.is_multiple_of(8) || (x + y / 8 * 8).is_multiple_of(16);
        match tile {
            0 if x == 0 || y == 0 => [48, 52, 62, 255], // the floor's grout
            0 => [96, 104, 120, 255],                   // the floor
            1 if mortar => [70, 45, 35, 255],           // the bricks' mortar
            1 => [170, 110, 75, 255],                   // bricks
            _ if dx * dx + dy * dy < 120 => [255, 215, 60, 255], // the player
            _ => [0, 0, 0, 0],
        }
    };
    let data = (0..16)
        .flat_map(|y| (0..48).flat_map(move |x| pixel(x / 16, x % 16, y)))
        .collect();
    let size = Extent3d {
        width: 48,
        height: 16,
        depth_or_array_layers: 1,
    };
    let (dimension, format) = (TextureDimension::D2, TextureFormat::Rgba8UnormSrgb);
    Image::new(size, dimension, data, format, RenderAssetUsages::default())
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    // The room, 32x18 tiles of 16 pixels, fills the window.
    let room = ScalingMode::AutoMin {
        min_width: 512.0,
        min_height: 288.0,
    };
    let projection = OrthographicProjection {
        scaling_mode: room,
        ..OrthographicProjection::default_2d()
    };
    commands.spawn((Camera2d, Projection::Orthographic(projection)));
    let tiles = images.add(tileset());
    let map = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(SIZE);
    for x in 0..SIZE.x {
        for y in 0..SIZE.y {
            let position = TilePos { x, y };
            let texture_index = TileTextureIndex(if is_wall(x, y) { 1 } else { 0 });
            let bundle = TileBundle {
                position,
                tilemap_id: TilemapId(map),
                texture_index,
                ..default()
            };
            let mut tile = commands.spawn(bundle);
            if is_wall(x, y) {
                tile.insert(Opaque); // blocks sight
            }
            storage.set(&position, tile.id());
        }
    }
    let tile_size = TilemapTileSize::new(16.0, 16.0);
    commands.entity(map).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            size: SIZE,
            storage,
            texture: TilemapTexture::Single(tiles.clone()),
            tile_size,
            anchor: TilemapAnchor::Center,
            ..default()
        },
        FogStyle::default(), // seen: as drawn; remembered: dimmed; never seen: hidden
    ));
    // The player sees 8 tiles around it and lifts the fog of war; it is drawn with the
    // tileset's third tile. It starts beside a pillar, whose shadow shows at once.
    let start = TilePos { x: 2, y: 2 };
    let figure = Rect::new(32.0, 0.0, 48.0, 16.0);
    commands.spawn((
        Viewshed::new(8),
        RevealsFog,
        start,
        TilemapId(map),
        Sprite {
            image: tiles,
            rect: Some(figure),
            ..default()
        },
        Transform::from_translation(center(start)),
    ));
}

fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    player: Single<(&mut TilePos, &mut Transform), With<RevealsFog>>,
) {
    let (mut tile, mut transform) = player.into_inner();
    let (dx, dy) = match keys.get_just_pressed().next() {
        Some(KeyCode::ArrowLeft) => (-1, 0),
        Some(KeyCode::ArrowRight) => (1, 0),
        Some(KeyCode::ArrowDown) => (0, -1),
        Some(KeyCode::ArrowUp) => (0, 1),
        _ => return,
    };
    let (x, y) = (
        tile.x.saturating_add_signed(dx),
        tile.y.saturating_add_signed(dy),
    );
    if !is_wall(x, y) {
        *tile = TilePos { x, y }; // the view and the fog follow in this frame
        transform.translation = center(*tile);
    }
}
