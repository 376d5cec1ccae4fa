//! What the client draws: the terrain of the seed's dungeon, each tile shown as its team's fog
//! says (seen: bright, remembered: dimmed, unexplored: black), sprites for the pieces received,
//! a HUD line, and `--frames/--screenshot/--exit`.

use bevy::prelude::*;

use crate::shared_hud::hud_text;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FogState;
use bevy_viewshed::replicon::TeamView;

use crate::args::Options;
use crate::look::{
    TILE, TILESET, cell_centre, paint_terrain, piece_sprite, spawn_terrain, sprite_layout,
};
use crate::map::Dungeon;
use crate::protocol::{Cell, MAP_HEIGHT, MAP_WIDTH, Piece};
use crate::screenshot::save_and_exit;

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
    let terrain = spawn_terrain(&mut commands, &dungeon, &texture, Transform::default());
    commands.insert_resource(Drawing {
        terrain,
        sprites: texture,
        layout: layouts.add(sprite_layout()),
    });
    commands.spawn((HudText, hud_text("connecting...", 12.0, 1.0)));
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
        paint_terrain(storage, &mut tiles, |tile| Some(view.state(tile)));
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
        let index = piece_sprite(*piece, own_team);
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
        let center = cell_centre(*cell);
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
    let corner = cell_centre(Cell { x: 0, y: 0 });
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
