//! What the window draws, in two panels side by side (each its own camera, on its own part of
//! the window): for a client, the terrain of the seed's dungeon shown as its team's fog (the
//! `TeamView` the client received) says (seen: bright, remembered: dimmed, unexplored: black)
//! and a sprite for each piece the client holds; with `--server`, the left panel is the
//! server's world instead (every tile, every piece), to hold against team 0's client on the
//! right. Then a HUD line, and `--frames/--screenshot/--exit`.

use bevy::camera::Viewport;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FogState;
use bevy_viewshed::replicon::TeamView;

use crate::args::Options;
use crate::game::{CLIENTS, Game};
use crate::look::{
    TILE, TILESET, cell_centre, paint_terrain, piece_sprite, spawn_terrain, sprite_layout,
};
use crate::map::Dungeon;
use crate::protocol::{Cell, MAP_HEIGHT, MAP_WIDTH, Piece};
use crate::screenshot::save_and_exit;
use crate::shared_hud::hud_text;

/// A panel's size in window pixels: half the 1280x720 window.
const PANEL: UVec2 = UVec2::new(640, 720);
/// Panels' contents lie this far apart in the world, so that each camera sees only its own.
const APART: f32 = 10_000.0;

pub struct DrawPlugin;

impl Plugin for DrawPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Sprites>()
            .add_systems(Startup, setup)
            .add_systems(Update, (draw_fog, draw_pieces, follow, hud, finish).chain());
    }
}

/// What a panel draws: the server's whole world, or what client `i` holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Panel {
    Server,
    Client(usize),
}

impl Panel {
    /// The world this panel reads.
    fn world(self, game: &Game) -> &World {
        match self {
            Panel::Server => game.server.world(),
            Panel::Client(i) => game.clients[i].world(),
        }
    }

    /// The team whose units are drawn as the player's (the others' as guards).
    fn team(self) -> u32 {
        match self {
            Panel::Server => 0,
            Panel::Client(i) => i as u32,
        }
    }
}

/// The panels (left, right) with each one's terrain tilemap and camera, the sprite sheet.
#[derive(Resource)]
struct Drawing {
    panels: Vec<(Panel, Entity, Entity)>,
    sprites: Handle<Image>,
    layout: Handle<TextureAtlasLayout>,
}

/// The sprite drawn for each piece a panel holds, by (panel, its entity in the panel's world).
#[derive(Resource, Default)]
struct Sprites(HashMap<(usize, Entity), Entity>);

#[derive(Component)]
struct HudText;

/// Where panel `k`'s map is centred in the world.
fn origin(k: usize) -> Vec3 {
    Vec3::new(APART * k as f32, 0.0, 0.0)
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
    options: Res<Options>,
) {
    let texture: Handle<Image> = assets.load(TILESET);
    let dungeon = Dungeon::generate(MAP_WIDTH, MAP_HEIGHT, options.seed);
    let panels = options.panels().into_iter().enumerate();
    let panels = panels
        .map(|(k, panel)| {
            let at = Transform::from_translation(origin(k)).with_scale(Vec3::splat(options.zoom));
            let terrain = spawn_terrain(&mut commands, &dungeon, &texture, at);
            (panel, terrain, spawn_camera(&mut commands, k))
        })
        .collect();
    commands.insert_resource(Drawing {
        panels,
        sprites: texture,
        layout: layouts.add(sprite_layout()),
    });
    commands.spawn((HudText, hud_text("connecting...", 12.0, 1.0)));
}

/// Panel `k`'s camera: it draws its part of the window, looking at its map.
fn spawn_camera(commands: &mut Commands, k: usize) -> Entity {
    let viewport = Viewport {
        physical_position: UVec2::new(PANEL.x * k as u32, 0),
        physical_size: PANEL,
        ..default()
    };
    let camera = Camera {
        viewport: Some(viewport),
        order: k as isize,
        ..default()
    };
    let at = Transform::from_translation(origin(k));
    commands.spawn((Camera2d, camera, at)).id()
}

/// Client `i`'s fog: the `TeamView` in its world.
fn team_view(game: &Game, i: usize) -> Option<TeamView> {
    let world = game.clients[i].world();
    let mut views = world.try_query::<&TeamView>()?;
    views.iter(world).next().cloned()
}

/// A tile's state in a panel: as its client's fog says, or seen on the server's.
fn panel_state(panel: Panel, view: Option<&TeamView>, tile: TilePos) -> Option<FogState> {
    match panel {
        Panel::Server => Some(FogState::Visible),
        Panel::Client(_) => view.map(|view| view.state(tile)),
    }
}

/// Each panel's fog (a client's as received; the server's: all seen) written into its tiles.
fn draw_fog(
    game: NonSend<Game>,
    drawing: Res<Drawing>,
    storages: Query<&TileStorage>,
    mut tiles: Query<(&mut TileVisible, &mut TileColor)>,
) {
    for &(panel, terrain, _) in &drawing.panels {
        let view = match panel {
            Panel::Client(i) => team_view(&game, i),
            Panel::Server => None,
        };
        let Ok(storage) = storages.get(terrain) else {
            continue;
        };
        paint_terrain(storage, &mut tiles, |tile| {
            panel_state(panel, view.as_ref(), tile)
        });
    }
}

/// The pieces a panel's world holds: its own entity for each, what it is and where it stands.
fn pieces(game: &Game, panel: Panel) -> Vec<(Entity, Piece, Cell)> {
    let world = panel.world(game);
    let Some(mut pieces) = world.try_query::<(Entity, &Piece, &Cell)>() else {
        return Vec::new();
    };
    pieces.iter(world).map(|(e, p, c)| (e, *p, *c)).collect()
}

/// The world position of the centre of `cell` in panel `k`, drawn `zoom` times.
fn centre(k: usize, zoom: f32, cell: Cell) -> Vec3 {
    origin(k) + (cell_centre(cell) * zoom).extend(2.0)
}

/// A sprite for each piece a panel holds (its team's as the player, the other's as guards),
/// moved with it, despawned when the panel no longer holds it.
fn draw_pieces(
    mut commands: Commands,
    (game, options): (NonSend<Game>, Res<Options>),
    drawing: Res<Drawing>,
    mut sprites: ResMut<Sprites>,
    mut placed: Query<&mut Transform>,
) {
    let mut held = HashMap::new();
    for (k, &(panel, ..)) in drawing.panels.iter().enumerate() {
        for (entity, piece, cell) in pieces(&game, panel) {
            held.insert((k, entity), (panel, piece, cell));
        }
    }
    sprites.0.retain(|key, &mut sprite| {
        let kept = held.contains_key(key);
        if !kept {
            commands.entity(sprite).despawn();
        }
        kept
    });
    for ((k, entity), (panel, piece, cell)) in held {
        let at = Transform::from_translation(centre(k, options.zoom, cell))
            .with_scale(Vec3::splat(options.zoom));
        if let Some(mut transform) = sprites
            .0
            .get(&(k, entity))
            .and_then(|&s| placed.get_mut(s).ok())
        {
            *transform = at;
            continue;
        }
        let index = piece_sprite(piece, Some(panel.team()));
        let atlas = TextureAtlas {
            layout: drawing.layout.clone(),
            index,
        };
        let sprite = Sprite::from_atlas_image(drawing.sprites.clone(), atlas);
        sprites
            .0
            .insert((k, entity), commands.spawn((sprite, at)).id());
    }
}

/// Closer than the whole map (`--zoom` over 0.5), each camera follows team 0's first unit.
fn follow(
    (game, options): (NonSend<Game>, Res<Options>),
    drawing: Res<Drawing>,
    mut cameras: Query<&mut Transform, With<Camera>>,
) {
    let units = pieces(&game, Panel::Server);
    let Some(&(_, _, cell)) = units.iter().find(|(_, p, _)| *p == Piece::Unit(0)) else {
        return;
    };
    for (k, &(.., camera)) in drawing.panels.iter().enumerate() {
        if let Ok(mut transform) = cameras.get_mut(camera)
            && options.zoom > 0.5
        {
            transform.translation = centre(k, options.zoom, cell).with_z(0.0);
        }
    }
}

/// What each panel holds, by kind (not in a screenshot: the pictures show the game).
fn hud(
    (game, options): (NonSend<Game>, Res<Options>),
    drawing: Res<Drawing>,
    mut text: Single<&mut Text, With<HudText>>,
) {
    if options.screenshot.is_some() {
        text.0.clear();
        return;
    }
    let line = |panel: Panel| {
        let held = pieces(&game, panel);
        let own = held
            .iter()
            .filter(|(_, p, _)| *p == Piece::Unit(panel.team()))
            .count();
        let monsters = held.iter().filter(|(_, p, _)| *p == Piece::Monster).count();
        let others = held.len() - own - monsters;
        let whose = match panel {
            Panel::Server => "the server".to_string(),
            Panel::Client(i) => format!("team {i}'s client"),
        };
        format!(
            "{whose} holds {own} team {} units, {others} others, {monsters} monsters",
            panel.team()
        )
    };
    let lines: Vec<String> = drawing
        .panels
        .iter()
        .map(|&(panel, ..)| line(panel))
        .collect();
    text.0 = format!(
        "{} (the server sends only what each team sees, and each team's fog)",
        lines.join(" | ")
    );
}

/// After `--frames` frames with both clients' fog received: the report, then screenshot
/// and/or exit.
fn finish(
    mut commands: Commands,
    options: Res<Options>,
    game: NonSend<Game>,
    mut frames: Local<u32>,
    mut exit: MessageWriter<AppExit>,
    drawing: Res<Drawing>,
    cameras: Query<&Transform, With<Camera>>,
) {
    let Some(last) = options.frames else { return };
    if (0..CLIENTS).any(|i| team_view(&game, i).is_none()) {
        return;
    }
    *frames += 1;
    if *frames == last {
        let sides = drawing
            .panels
            .iter()
            .enumerate()
            .filter_map(|(k, &(panel, _, camera))| {
                let Panel::Client(i) = panel else { return None };
                let camera = cameras.get(camera).map_or(origin(k), |t| t.translation);
                Some(report(&game, i, (k, options.zoom, camera)))
            });
        println!(
            "autoplay done: size {}, map {MAP_WIDTH}x{MAP_HEIGHT}; {}",
            TILE * options.zoom,
            sides.collect::<Vec<_>>().join("; ")
        );
        let screenshot = options.screenshot.clone();
        save_and_exit(&mut commands, screenshot, options.exit, &mut exit);
    }
}

/// `client i: team t, pixel (x, y), sees n, remembered m, pieces p, foreign pieces outside the
/// view f`: where tile (0, 0) of its view is in the window (it is in panel `k`, drawn `zoom`
/// times, its camera at `camera`), how many tiles its fog shows as seen and remembered, the
/// pieces it holds and how many of those not its team's own stand outside its view (none, if
/// the server kept its secrets).
fn report(game: &Game, i: usize, (k, zoom, camera): (usize, f32, Vec3)) -> String {
    let Some(view) = team_view(game, i) else {
        return format!("client {i}: no fog");
    };
    let tiles = (0..MAP_HEIGHT).flat_map(|y| (0..MAP_WIDTH).map(move |x| TilePos { x, y }));
    let states: Vec<FogState> = tiles.map(|tile| view.state(tile)).collect();
    let count = |state| states.iter().filter(|&&s| s == state).count();
    let team = view.team().0;
    let held = pieces(game, Panel::Client(i));
    let outside = held
        .iter()
        .filter(|(_, piece, _)| *piece != Piece::Unit(team))
        .filter(|(_, _, cell)| {
            let tile = TilePos {
                x: cell.x,
                y: cell.y,
            };
            view.state(tile) != FogState::Visible
        })
        .count();
    // The panel's camera is at the middle of its part of the window.
    let corner = centre(k, zoom, Cell { x: 0, y: 0 }) - camera;
    let middle = (PANEL.x as f32 * (k as f32 + 0.5), PANEL.y as f32 / 2.0);
    format!(
        "client {i}: team {team}, pixel ({:.1}, {:.1}), sees {}, remembered {}, pieces {}, \
         foreign pieces outside the view {outside}",
        middle.0 + corner.x,
        middle.1 - corner.y,
        count(FogState::Visible),
        count(FogState::Remembered),
        held.len(),
    )
}
