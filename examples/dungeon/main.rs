//! The bundled dungeon: a turn-based roguelike room-and-corridor dungeon where the player, the
//! monsters and the fog of war all run on bevy_viewshed.
//!
//! ```text
//! cargo run --example dungeon                       # a new dungeon each run
//! cargo run --example dungeon -- --seed 42          # the same dungeon again
//! cargo run --example dungeon -- --seed 42 --autoplay 60 --screenshot shot.png --exit
//! cargo run --example dungeon -- --help             # all the options
//! ```
//!
//! Keys: arrows, WASD, vi keys (hjkl yubn) or the numpad to move (diagonals too), `.` or
//! numpad 5 to wait, `o` to open or close the doors next to you, `+`/`-` to change your view
//! radius, `c` to cycle its shape (disk, square, diamond), `p` for the permissive rule, `v` to
//! show what the monsters see (guards see through a cone), `t` to draw the monsters' fog of
//! war instead of yours.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod autoplay;
mod hud;
mod input;
mod map;
mod monsters;

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;

use map::{Cell, Dungeon};

/// Map size in tiles: 16-pixel tiles fill a 1280x720 window below the HUD line.
pub const MAP_WIDTH: u32 = 80;
pub const MAP_HEIGHT: u32 = 43;
pub const TILE: f32 = 16.0;

/// Tileset indices (see assets/make_tileset.py).
pub mod tiles {
    pub const FLOOR: u32 = 0;
    pub const WALL: u32 = 1;
    pub const DOOR_CLOSED: u32 = 2;
    pub const DOOR_OPEN: u32 = 3;
    pub const PLAYER: usize = 4;
    pub const MONSTER: usize = 5;
    pub const GUARD: usize = 6;
    pub const PLAIN: u32 = 7;
}

const USAGE: &str = "usage: dungeon [--seed N] [--radius N] [--monster-views] \
                     [--autoplay TURNS] [--screenshot PATH] [--exit]";

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub autoplay: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
    pub radius: u32,
    /// Start with the monsters' views drawn (as `v` does).
    pub monster_views: bool,
}

impl Options {
    fn parse() -> Result<Self, String> {
        let mut options = Options {
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64 % 100_000),
            autoplay: None,
            screenshot: None,
            exit: false,
            radius: 10,
            monster_views: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--seed" => {
                    options.seed = value("--seed")?
                        .parse()
                        .map_err(|e| format!("--seed: {e}"))?
                }
                "--autoplay" => {
                    options.autoplay = Some(
                        value("--autoplay")?
                            .parse()
                            .map_err(|e| format!("--autoplay: {e}"))?,
                    )
                }
                "--radius" => {
                    options.radius = value("--radius")?
                        .parse()
                        .map_err(|e| format!("--radius: {e}"))?
                }
                "--screenshot" => options.screenshot = Some(value("--screenshot")?.into()),
                "--exit" => options.exit = true,
                "--monster-views" => options.monster_views = true,
                "--help" | "-h" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => {
                    return Err(format!("unknown argument {other:?}\n{USAGE}"));
                }
            }
        }
        Ok(options)
    }
}

/// The dungeon's layout and its tilemaps.
#[derive(Resource)]
pub struct Level {
    pub dungeon: Dungeon,
    pub terrain: Entity,
    pub overlay: Entity,
    /// The door tile entities by position.
    pub door_tiles: HashMap<(u32, u32), Entity>,
}

/// The turn counter: one turn per player action.
#[derive(Resource, Default)]
pub struct Turn(pub u32);

/// Written when the player has acted: the monsters take their turn.
#[derive(Message)]
pub struct PlayerActed;

#[derive(Component)]
pub struct Player;

/// A door tile; closed doors are `Opaque`.
#[derive(Component)]
pub struct Door {
    pub open: bool,
}

/// The actors' sprite sheet.
#[derive(Resource)]
pub struct ActorSprites {
    pub image: Handle<Image>,
    pub layout: Handle<TextureAtlasLayout>,
}

fn main() {
    let options = match Options::parse() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("dungeon: {message}");
            std::process::exit(2);
        }
    };
    println!("dungeon seed {}", options.seed);
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: format!("bevy_viewshed dungeon (seed {})", options.seed),
                        resolution: WindowResolution::new(1280, 720),
                        resizable: false,
                        ..default()
                    }),
                    ..default()
                })
                .set(ImagePlugin::default_nearest()),
        )
        .add_plugins(ViewshedPlugin::default())
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(monsters::ShowMonsterViews(options.monster_views))
        .insert_resource(options)
        .init_resource::<Turn>()
        .add_message::<PlayerActed>()
        .add_systems(Startup, (setup, hud::setup))
        .add_systems(
            Update,
            (
                (
                    input::player_turn.run_if(input::players_turn),
                    autoplay::play.run_if(not(input::players_turn)),
                ),
                monsters::take_turns,
                (
                    input::change_sight,
                    monsters::toggle_views,
                    monsters::toggle_fog_team,
                ),
                place_sprites,
            )
                .chain(),
        )
        .add_plugins((
            hud::HudPlugin,
            autoplay::AutoplayPlugin,
            monsters::MonsterViewsPlugin,
        ))
        .run();
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
    options: Res<Options>,
    array_texture_loader: Res<ArrayTextureLoader>,
) {
    commands.spawn((Camera2d, Transform::from_xyz(0.0, TILE, 0.0)));
    let texture: Handle<Image> = assets.load("tiles.png");
    let dungeon = Dungeon::generate(MAP_WIDTH, MAP_HEIGHT, options.seed);
    let size = TilemapSize::new(MAP_WIDTH, MAP_HEIGHT);
    let tile_size = TilemapTileSize::new(TILE, TILE);

    // The terrain: walls and closed doors block sight.
    let terrain = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    let mut door_tiles = HashMap::new();
    for y in 0..MAP_HEIGHT {
        for x in 0..MAP_WIDTH {
            let position = TilePos { x, y };
            let cell = dungeon.cell(x, y);
            let texture_index = match cell {
                Cell::Wall => tiles::WALL,
                Cell::Floor => tiles::FLOOR,
                Cell::Door => tiles::DOOR_CLOSED,
            };
            let mut tile = commands.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(terrain),
                texture_index: TileTextureIndex(texture_index),
                ..default()
            });
            match cell {
                Cell::Wall => {
                    tile.insert(Opaque);
                }
                Cell::Door => {
                    tile.insert((Opaque, Door { open: false }));
                    door_tiles.insert((x, y), tile.id());
                }
                Cell::Floor => {}
            }
            storage.set(&position, tile.id());
        }
    }
    commands.entity(terrain).insert((
        tilemap(storage, &texture, 0.0),
        // Visible tiles as drawn, remembered ones dimmed to a cold grey-blue, unexplored
        // ones hidden (the black clear colour shows through).
        FogStyle {
            remembered: TileLook::shown(Color::srgb(0.36, 0.38, 0.62)),
            ..default()
        },
    ));

    // A layer above the terrain that shows what the monsters see, when asked to.
    let overlay = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..MAP_HEIGHT {
        for x in 0..MAP_WIDTH {
            let position = TilePos { x, y };
            let tile = commands
                .spawn(TileBundle {
                    position,
                    tilemap_id: TilemapId(overlay),
                    texture_index: TileTextureIndex(tiles::PLAIN),
                    visible: TileVisible(false),
                    color: TileColor(Color::srgba(1.0, 0.35, 0.1, 0.14)),
                    ..default()
                })
                .id();
            storage.set(&position, tile);
        }
    }
    commands
        .entity(overlay)
        .insert((tilemap(storage, &texture, 1.0), LayerOf(terrain)));
    array_texture_loader.add(TilemapArrayTexture {
        texture: TilemapTexture::Single(texture.clone()),
        tile_size,
        ..default()
    });

    let sprites = ActorSprites {
        image: texture,
        layout: layouts.add(TextureAtlasLayout::from_grid(
            UVec2::splat(16),
            8,
            1,
            None,
            None,
        )),
    };
    let start = dungeon.center(0);
    commands.spawn((
        Player,
        Viewshed::new(options.radius),
        RevealsFog,
        // The monsters get `Spotted` / `LostSight` when they see it or lose it.
        Spottable,
        TilePos {
            x: start.0,
            y: start.1,
        },
        TilemapId(terrain),
        sprite(&sprites, tiles::PLAYER),
        Transform::from_xyz(0.0, 0.0, 2.0),
    ));
    monsters::spawn(&mut commands, &dungeon, terrain, &sprites, options.seed);
    commands.insert_resource(sprites);
    commands.insert_resource(Level {
        dungeon,
        terrain,
        overlay,
        door_tiles,
    });
}

/// A map-sized tilemap of 16-pixel tiles from the tileset, centred, drawn at depth `z`.
fn tilemap(storage: TileStorage, texture: &Handle<Image>, z: f32) -> TilemapBundle {
    let tile_size = TilemapTileSize::new(TILE, TILE);
    TilemapBundle {
        grid_size: tile_size.into(),
        size: TilemapSize::new(MAP_WIDTH, MAP_HEIGHT),
        storage,
        texture: TilemapTexture::Single(texture.clone()),
        tile_size,
        anchor: TilemapAnchor::Center,
        transform: Transform::from_xyz(0.0, 0.0, z),
        ..default()
    }
}

pub fn sprite(sprites: &ActorSprites, index: usize) -> Sprite {
    Sprite::from_atlas_image(
        sprites.image.clone(),
        TextureAtlas {
            layout: sprites.layout.clone(),
            index,
        },
    )
}

/// Where a tile's centre is in the world.
pub fn tile_center(tile: TilePos) -> Vec2 {
    tile.center_in_world(
        &TilemapSize::new(MAP_WIDTH, MAP_HEIGHT),
        &TilemapGridSize::new(TILE, TILE),
        &TilemapTileSize::new(TILE, TILE),
        &TilemapType::Square,
        &TilemapAnchor::Center,
    )
}

/// Keeps actor sprites on their tiles.
fn place_sprites(mut actors: Query<(&TilePos, &mut Transform), (Changed<TilePos>, With<Sprite>)>) {
    for (tile, mut transform) in &mut actors {
        let center = tile_center(*tile);
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
}
