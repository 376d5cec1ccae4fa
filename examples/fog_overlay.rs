//! A fog overlay over a tinted map: the floor keeps the colours the game gave it, and the fog
//! of war is a layer of its own drawn over it (`FogOverlay`, one component on the map). The
//! player walks east, leaving remembered tiles behind. `tests/fog_overlay_screenshot.rs` plays
//! it under Xvfb.
//!
//! ```text
//! cargo run --example fog_overlay
//! ```

#[path = "shared/square_map.rs"]
mod square_map;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use square_map::spawn_square_map;

const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.x - 1 || y == SIZE.y - 1 || (x % 6 == 3 && y % 5 == 2)
}

/// The game's own tints of the floor: orange and teal squares of 2x2 tiles.
fn tint(x: u32, y: u32) -> Color {
    match (x / 2 + y / 2) % 2 {
        0 => Color::srgb(1.0, 0.62, 0.25),
        _ => Color::srgb(0.3, 0.8, 0.85),
    }
}

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(ImagePlugin::default_nearest()))
        .add_plugins(ViewshedPlugins::default())
        .add_systems(Startup, setup)
        .add_systems(Update, walk)
        .run();
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    let zoom = OrthographicProjection {
        scale: 0.5,
        ..OrthographicProjection::default_2d()
    };
    commands.spawn((Camera2d, Projection::Orthographic(zoom)));
    let tiles = assets.load("tiles.png");
    let map = commands.spawn_empty().id();
    let look = |x, y| match is_wall(x, y) {
        true => (1, Color::WHITE), // a wall, untinted
        false => (7, tint(x, y)),  // a plain white tile, tinted
    };
    spawn_square_map(&mut commands, (map, SIZE, tiles.clone()), look, is_wall);
    // The fog of war on a layer of its own, drawn over the map: the tints above stay.
    commands.entity(map).insert(FogOverlay::default());
    // The player (tile 4 of the tileset, drawn above the overlay) sees 6 tiles around it.
    let figure = Rect::new(64.0, 0.0, 80.0, 16.0);
    commands.spawn((
        Viewshed::new(6),
        RevealsFog,
        TilePos { x: 2, y: 4 },
        TilemapId(map),
        Sprite {
            image: tiles,
            rect: Some(figure),
            ..default()
        },
    ));
}

/// One tile east every 0.2 s, from x = 2 to x = 16 (the view and the fog follow in that
/// frame); the sprite goes with it.
fn walk(time: Res<Time>, player: Single<(&mut TilePos, &mut Transform), With<RevealsFog>>) {
    let (mut tile, mut transform) = player.into_inner();
    if tile.x < 16 && time.elapsed_secs() > 0.2 * tile.x as f32 {
        tile.x += 1;
    }
    // Tile (0, 0) is 15.5 and 8.5 tiles from the centred map's centre; z = 10 is above the
    // map and its overlay.
    let centre = Vec2::new(tile.x as f32 - 15.5, tile.y as f32 - 8.5) * 16.0;
    transform.translation = centre.extend(10.0);
}
