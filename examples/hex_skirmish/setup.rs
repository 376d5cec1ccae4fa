//! The start of a game: the camera, the hexagonal terrain tilemap, and both teams' units.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::TileLook;
use bevy_viewshed::prelude::*;

use crate::fog_mode::FogLooks;
use crate::map::{HexMap, MAP_SIZE, Terrain, tiles};
use crate::script::Options;
use crate::sprites::{self, TILESET, UnitSprites, tilemap};
use crate::turns::{Unit, Units};

/// Units per team, and how far they see (in hexagons).
const TEAM_SIZE: u32 = 5;
const SIGHT: u32 = 6;

pub fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
    options: Res<Options>,
    array_texture_loader: Res<ArrayTextureLoader>,
) {
    commands.spawn(sprites::camera());
    let texture: Handle<Image> = assets.load(TILESET);
    let map = HexMap::generate(options.seed);
    let terrain = spawn_terrain(&mut commands, &map, &texture);
    array_texture_loader.add(sprites::array_texture(&texture));

    let sprites = UnitSprites::new(texture, &mut layouts);
    spawn_units(&mut commands, terrain, &sprites);
    commands.insert_resource(sprites);
    commands.insert_resource(map);
    commands.insert_resource(Units { terrain });
}

/// The terrain tilemap: forests and rocks are `Opaque`; it draws team 0's fog of war.
fn spawn_terrain(commands: &mut Commands, map: &HexMap, texture: &Handle<Image>) -> Entity {
    let layer = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(MAP_SIZE);
    for position in tiles() {
        let terrain = map.terrain(position);
        let texture_index = match terrain {
            Terrain::Grass => sprites::tiles::GRASS,
            Terrain::Forest => sprites::tiles::FOREST,
            Terrain::Rock => sprites::tiles::ROCK,
        };
        let mut tile = commands.spawn(TileBundle {
            position,
            tilemap_id: TilemapId(layer),
            texture_index: TileTextureIndex(texture_index),
            ..default()
        });
        if terrain != Terrain::Grass {
            tile.insert(Opaque);
        }
        storage.set(&position, tile.id());
    }
    // In tile colours: visible hexagons as drawn, remembered ones dimmed to a cold grey-blue,
    // unexplored ones hidden (the black clear colour shows through). Smooth: a blurred field
    // over the map, remembered hexagons under a translucent blue (`fog_mode.rs` puts on the
    // look of the current mode).
    let looks = FogLooks {
        tiles: FogStyle {
            remembered: TileLook::shown(Color::srgb(0.36, 0.38, 0.62)),
            ..default()
        },
        smooth: SmoothFog::default().with_remembered(Color::srgba(0.04, 0.05, 0.2, 0.78)),
    };
    commands
        .entity(layer)
        .insert((tilemap(storage, texture), looks));
    layer
}

/// Blue units (team 0, whose fog is drawn) down the left edge, red ones (team 1, hidden
/// outside blue's view) down the right edge.
fn spawn_units(commands: &mut Commands, terrain: Entity, sprites: &UnitSprites) {
    for index in 0..TEAM_SIZE {
        let y = 2 + index * (MAP_SIZE.y - 4) / (TEAM_SIZE - 1);
        let left = TilePos {
            x: 1 + index % 2,
            y,
        };
        let right = TilePos {
            x: MAP_SIZE.x - 2 - index % 2,
            y,
        };
        for (team, tile, look) in [
            (0, left, sprites::tiles::BLUE_UNIT),
            (1, right, sprites::tiles::RED_UNIT),
        ] {
            let mut unit = commands.spawn((
                Unit { team, index },
                Viewshed::new(SIGHT),
                RevealsFog,
                Team(team),
                tile,
                TilemapId(terrain),
                sprites.unit(look),
            ));
            if team != 0 {
                unit.insert(HidesOutsideView);
            }
        }
    }
}
