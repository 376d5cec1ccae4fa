//! The fog of war drawn smooth on the GPU: `SmoothFog`, one component on the map, blurs the
//! edge of what is seen into a soft curve and fades tiles in the shader. The player walks east
//! through a room of pillars, leaving remembered tiles behind. `tests/smooth_fog_screenshot.rs`
//! plays it under Xvfb.
//!
//! ```text
//! cargo run --example smooth_fog
//! ```

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

const SIZE: TilemapSize = TilemapSize { x: 32, y: 18 };

fn is_wall(x: u32, y: u32) -> bool {
    x == 0 || y == 0 || x == SIZE.x - 1 || y == SIZE.y - 1 || (x % 6 == 3 && y % 5 == 2)
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
    let mut storage = TileStorage::empty(SIZE);
    for x in 0..SIZE.x {
        for y in 0..SIZE.y {
            let position = TilePos { x, y };
            // A wall, or a plain white floor tile in a pale stone colour.
            let (index, color) = match is_wall(x, y) {
                true => (1, Color::WHITE),
                false => (7, Color::srgb(0.78, 0.74, 0.66)),
            };
            let mut tile = commands.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(map),
                texture_index: TileTextureIndex(index),
                color: TileColor(color),
                ..default()
            });
            if is_wall(x, y) {
                tile.insert(Opaque);
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
        // The fog of war over the whole map, blurred and faded on the GPU; the tiles under it
        // drawn where they were seen (and in the ring the blur spreads over), hidden elsewhere.
        SmoothFog::default(),
        FogStyle::under_smooth_fog(),
    ));
    // The player (tile 4 of the tileset, drawn above the fog) sees 6 tiles around it.
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
    // map and its fog.
    let centre = Vec2::new(tile.x as f32 - 15.5, tile.y as f32 - 8.5) * 16.0;
    transform.translation = centre.extend(10.0);
}
