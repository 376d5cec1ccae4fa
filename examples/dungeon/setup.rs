//! The start of a game: the camera, the dungeon's terrain (walls and doors `Opaque`, the grass
//! patch's tiles a `Density`) and overlay tilemaps, the player and the monsters, spawned in
//! that order.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::LayerOf;
use bevy_viewshed::prelude::*;

use crate::args::Options;
use crate::camera;
use crate::lighting;
use crate::looks::{self, Looks};
use crate::map::{Cell, Dungeon};
use crate::minimap;
use crate::monsters;
use crate::sprites::{self, ActorSprites, MAP_SIZE, TILESET, tilemap, tiles};
use crate::world::{Door, Level, MAP_HEIGHT, MAP_WIDTH, Player, map_tiles};

pub fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
    options: Res<Options>,
    array_texture_loader: Res<ArrayTextureLoader>,
) {
    let texture: Handle<Image> = assets.load(TILESET);
    let dungeon = Dungeon::generate(MAP_WIDTH, MAP_HEIGHT, options.seed);
    let start = dungeon.center(0);
    let start = TilePos {
        x: start.0,
        y: start.1,
    };
    camera::spawn_camera(&mut commands, options.zoom, sprites::tile_center(start));
    let (terrain, door_tiles) = spawn_terrain(&mut commands, &dungeon, &texture);
    let overlay = spawn_overlay(&mut commands, &texture, terrain);
    let glow = spawn_layer(
        &mut commands,
        &texture,
        0.5,
        LayerOf(terrain),
        |commands, bundle| commands.spawn(lighting::glow_tile(bundle)).id(),
    );
    lighting::spawn_torches(&mut commands, &dungeon, terrain);
    lighting::spawn_tufts(&mut commands, &dungeon, terrain);
    array_texture_loader.add(sprites::array_texture(&texture));

    let sprites = ActorSprites::new(texture, &mut layouts);
    spawn_player(&mut commands, &dungeon, terrain, &sprites, options.radius);
    monsters::spawn(&mut commands, &dungeon, terrain, &sprites, options.seed);
    commands.insert_resource(sprites);
    commands.insert_resource(Level {
        dungeon,
        terrain,
        overlay,
        glow,
        door_tiles,
    });
}

/// The terrain: walls and closed doors block sight. Returns the tilemap and its door tiles by
/// position.
fn spawn_terrain(
    commands: &mut Commands,
    dungeon: &Dungeon,
    texture: &Handle<Image>,
) -> (Entity, HashMap<(u32, u32), Entity>) {
    let mut door_tiles = HashMap::new();
    // The fog in both modes (`fog_mode.rs` puts on the current one): in tile colours,
    // visible tiles as drawn, remembered ones dimmed to a cold grey-blue, unexplored ones
    // hidden (the black clear colour shows through); smooth, a blurred field over the map.
    let fog_looks = looks::fog_looks(Looks::default());
    // Doors the player saw closed stay drawn closed until seen again; the minimap in the
    // corner.
    let extra = (fog_looks, TerrainMemory::default(), minimap::fog_minimap());
    let terrain = spawn_layer(commands, texture, 0.0, extra, |commands, bundle| {
        let position = bundle.position;
        let cell = dungeon.cell(position.x, position.y);
        let texture_index = match cell {
            Cell::Wall => tiles::WALL,
            Cell::Floor => tiles::FLOOR,
            Cell::Door => tiles::DOOR_CLOSED,
        };
        let mut tile = commands.spawn(TileBundle {
            texture_index: TileTextureIndex(texture_index),
            ..bundle
        });
        if dungeon.foliage.contains(&(position.x, position.y)) {
            tile.insert(Density(lighting::FOLIAGE));
        }
        match cell {
            Cell::Wall => {
                tile.insert(Opaque);
            }
            Cell::Door => {
                tile.insert((Opaque, Door { open: false }));
                door_tiles.insert((position.x, position.y), tile.id());
            }
            Cell::Floor => {}
        }
        tile.id()
    });
    (terrain, door_tiles)
}

/// A layer above the terrain that shows what the monsters see, when asked to.
fn spawn_overlay(commands: &mut Commands, texture: &Handle<Image>, terrain: Entity) -> Entity {
    spawn_layer(
        commands,
        texture,
        1.0,
        LayerOf(terrain),
        |commands, bundle| {
            commands
                .spawn(TileBundle {
                    texture_index: TileTextureIndex(tiles::PLAIN),
                    visible: TileVisible(false),
                    color: TileColor(Color::srgba(1.0, 0.35, 0.1, 0.14)),
                    ..bundle
                })
                .id()
        },
    )
}

/// A map-sized tilemap at depth `z` with `extra` on it; `spawn_tile` spawns each tile, row by
/// row from the bottom, from a `TileBundle` that holds its position and tilemap.
fn spawn_layer(
    commands: &mut Commands,
    texture: &Handle<Image>,
    z: f32,
    extra: impl Bundle,
    mut spawn_tile: impl FnMut(&mut Commands, TileBundle) -> Entity,
) -> Entity {
    let layer = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(MAP_SIZE);
    for position in map_tiles() {
        let bundle = TileBundle {
            position,
            tilemap_id: TilemapId(layer),
            ..default()
        };
        storage.set(&position, spawn_tile(commands, bundle));
    }
    commands
        .entity(layer)
        .insert((tilemap(storage, texture, z), extra));
    layer
}

/// The player, in the middle of the first room.
fn spawn_player(
    commands: &mut Commands,
    dungeon: &Dungeon,
    terrain: Entity,
    sprites: &ActorSprites,
    radius: u32,
) {
    let start = dungeon.center(0);
    let start_tile = TilePos {
        x: start.0,
        y: start.1,
    };
    commands.spawn((
        Player,
        lighting::Beam::new(start_tile),
        Viewshed::new(radius),
        RevealsFog,
        // The monsters get `Spotted` / `LostSight` when they see it or lose it.
        CanBeSpotted,
        TilePos {
            x: start.0,
            y: start.1,
        },
        TilemapId(terrain),
        sprites.actor(tiles::PLAYER),
    ));
}
