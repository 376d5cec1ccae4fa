//! What the client draws: the terrain of the seed's dungeon, each tile shown as its team's fog
//! says (seen: bright, remembered: dimmed, unexplored: black), sprites for the pieces received,
//! a HUD line, and `--frames/--screenshot/--exit`.

use bevy::prelude::*;

use crate::shared_hud::hud_text;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FogState;
use bevy_viewshed::replicon::TeamView;

use crate::args::Options;
use crate::map::{Cell as MapCell, Dungeon};
use crate::protocol::{Cell, MAP_HEIGHT, MAP_WIDTH, Piece};
use crate::screenshot::save_and_exit;

const TILE: f32 = 16.0;
const MAP_SIZE: TilemapSize = TilemapSize::new(MAP_WIDTH, MAP_HEIGHT);
/// The dungeon example's tileset and its indices (see assets/make_tileset.py).
const TILESET: &str = "tiles.png";
const FLOOR: u32 = 0;
const WALL: u32 = 1;
const PLAYER: usize = 4;
const MONSTER: usize = 5;
const GUARD: usize = 6;

pub struct DrawPlugin;

impl Plugin for DrawPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, setup).add_systems(
            Update,
            (draw_fog, add_sprites, place_sprites, hud, finish).chain(),
        );
    }
}

/// The terrain tilemap and the sprite sheet.
#[derive(Resource)]
struct Drawing {
    terrain: Entity,
    sprites: Handle<Image>,
    layout: Handle<TextureAtlasLayout>,
}

#[derive(Component)]
struct HudText;

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
    options: Res<Options>,
) {
    commands.spawn((Camera2d, Transform::from_xyz(0.0, TILE, 0.0)));
    let texture: Handle<Image> = assets.load(TILESET);
    let dungeon = Dungeon::generate(MAP_WIDTH, MAP_HEIGHT, options.seed);
    let terrain = spawn_terrain(&mut commands, &dungeon, &texture);
    let layout = TextureAtlasLayout::from_grid(UVec2::splat(16), 8, 1, None, None);
    commands.insert_resource(Drawing {
        terrain,
        sprites: texture,
        layout: layouts.add(layout),
    });
    commands.spawn((HudText, hud_text("connecting...", 12.0, 1.0)));
}

/// Every tile hidden until the team's fog says otherwise.
fn spawn_terrain(commands: &mut Commands, dungeon: &Dungeon, texture: &Handle<Image>) -> Entity {
    let terrain = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(MAP_SIZE);
    for y in 0..MAP_HEIGHT {
        for x in 0..MAP_WIDTH {
            let position = TilePos { x, y };
            let index = if dungeon.cell(x, y) == MapCell::Wall {
                WALL
            } else {
                FLOOR
            };
            let tile = commands.spawn(TileBundle {
                position,
                tilemap_id: TilemapId(terrain),
                texture_index: TileTextureIndex(index),
                visible: TileVisible(false),
                ..default()
            });
            storage.set(&position, tile.id());
        }
    }
    let tile_size = TilemapTileSize::new(TILE, TILE);
    commands.entity(terrain).insert(TilemapBundle {
        grid_size: tile_size.into(),
        size: MAP_SIZE,
        storage,
        texture: TilemapTexture::Single(texture.clone()),
        tile_size,
        anchor: TilemapAnchor::Center,
        ..default()
    });
    terrain
}

/// The team's fog, as received, written into the terrain's tiles.
fn draw_fog(
    views: Query<&TeamView, Changed<TeamView>>,
    drawing: Res<Drawing>,
    storages: Query<&TileStorage>,
    mut tiles: Query<(&mut TileVisible, &mut TileColor)>,
) {
    let Ok(storage) = storages.get(drawing.terrain) else {
        return;
    };
    for view in &views {
        for (position, tile) in storage.iter().enumerate() {
            let Some(tile) = tile else { continue };
            let Ok((mut visible, mut color)) = tiles.get_mut(*tile) else {
                continue;
            };
            let (x, y) = (position as u32 % MAP_WIDTH, position as u32 / MAP_WIDTH);
            let (shown, tint) = match view.state(TilePos { x, y }) {
                FogState::Visible => (true, Color::WHITE),
                FogState::Remembered => (true, Color::srgb(0.36, 0.38, 0.62)),
                FogState::Unexplored => (false, Color::WHITE),
            };
            visible.set_if_neq(TileVisible(shown));
            if color.0 != tint {
                color.0 = tint;
            }
        }
    }
}

/// A sprite for each piece received: own units as the player, the other team's as guards.
fn add_sprites(
    mut commands: Commands,
    pieces: Query<(Entity, &Piece), Added<Piece>>,
    views: Query<&TeamView>,
    drawing: Res<Drawing>,
) {
    let own_team = views.iter().next().map(|view| view.team().0);
    for (entity, piece) in &pieces {
        let index = match *piece {
            Piece::Unit(team) if Some(team) == own_team => PLAYER,
            Piece::Unit(_) => GUARD,
            Piece::Monster => MONSTER,
        };
        let sprite = Sprite::from_atlas_image(
            drawing.sprites.clone(),
            TextureAtlas {
                layout: drawing.layout.clone(),
                index,
            },
        );
        commands
            .entity(entity)
            .insert((sprite, Transform::from_xyz(0.0, 0.0, 2.0)));
    }
}

fn place_sprites(mut pieces: Query<(&Cell, &mut Transform), Changed<Cell>>) {
    for (cell, mut transform) in &mut pieces {
        let tile_size = TilemapTileSize::new(TILE, TILE);
        let center = TilePos {
            x: cell.x,
            y: cell.y,
        }
        .center_in_world(
            &MAP_SIZE,
            &tile_size.into(),
            &tile_size,
            &TilemapType::Square,
            &TilemapAnchor::Center,
        );
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
}

/// The team and how many pieces of each kind the server sent.
fn hud(pieces: Query<&Piece>, views: Query<&TeamView>, mut text: Single<&mut Text, With<HudText>>) {
    let Some(team) = views.iter().next().map(|view| view.team().0) else {
        return;
    };
    let own = pieces.iter().filter(|p| **p == Piece::Unit(team)).count();
    let others = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Unit(t) if *t != team))
        .count();
    let monsters = pieces.iter().filter(|p| **p == Piece::Monster).count();
    text.0 = format!(
        "team {team}: the server sent {own} own units, {others} enemy units and {monsters} \
         monsters, only what the team sees; the fog is the team's, replicated"
    );
}

/// After `--frames` frames with the team's fog received: the report (what the client holds),
/// then screenshot and/or exit.
fn finish(
    mut commands: Commands,
    options: Res<Options>,
    views: Query<&TeamView>,
    pieces: Query<(&Piece, &Cell)>,
    mut frames: Local<u32>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(last) = options.frames else { return };
    let Some(view) = views.iter().next() else {
        return;
    };
    *frames += 1;
    if *frames == last {
        println!("{}", report(view, &pieces));
        save_and_exit(
            &mut commands,
            options.screenshot.clone(),
            options.exit,
            &mut exit,
        );
    }
}

/// `autoplay done: ...`: the team, where tile (0, 0) is in the window, how many tiles its fog
/// shows as seen and remembered, the pieces received, and how many of those that are not the
/// team's own stand outside its view (none, if the server kept its secrets).
fn report(view: &TeamView, pieces: &Query<(&Piece, &Cell)>) -> String {
    let tiles = (0..MAP_HEIGHT).flat_map(|y| (0..MAP_WIDTH).map(move |x| TilePos { x, y }));
    let states: Vec<FogState> = tiles.map(|tile| view.state(tile)).collect();
    let count = |state| states.iter().filter(|&&s| s == state).count();
    let team = view.team().0;
    let outside = pieces
        .iter()
        .filter(|(piece, _)| **piece != Piece::Unit(team))
        .filter(|(_, cell)| {
            view.state(TilePos {
                x: cell.x,
                y: cell.y,
            }) != FogState::Visible
        })
        .count();
    let tile_size = TilemapTileSize::new(TILE, TILE);
    let corner = TilePos { x: 0, y: 0 }.center_in_world(
        &MAP_SIZE,
        &tile_size.into(),
        &tile_size,
        &TilemapType::Square,
        &TilemapAnchor::Center,
    );
    // The camera is at (0, TILE) in a 1280x720 window.
    let pixel = (640.0 + corner.x, 360.0 - (corner.y - TILE));
    format!(
        "autoplay done: team {team}, pixel ({:.1}, {:.1}), size {TILE}, map {MAP_WIDTH}x{MAP_HEIGHT}, \
         sees {}, remembered {}, pieces {}, foreign pieces outside the view {outside}",
        pixel.0,
        pixel.1,
        count(FogState::Visible),
        count(FogState::Remembered),
        pieces.iter().count(),
    )
}
