//! What the player sees besides the fog: the units on their tiles, the radar's blips on the
//! minimap, the line of text at the bottom, and the autoplay's report and screenshot.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DrawnTeam, RadarContacts, SharedVision, Team};

use crate::battle::{Battlefield, CAMERA_X, SIZE, TILE, centre};
use crate::film::Film;
use crate::options::Options;
use crate::orders::Frame;
use crate::record::written;
use crate::screenshot::save_and_exit;

/// Window pixels per minimap tile, and the minimap's top (as `main.rs` places it).
const MINIMAP_SCALE: f32 = 3.0;
const MINIMAP_TOP: f32 = 10.0;

/// The layer over the minimap that holds the blips.
#[derive(Component)]
pub struct BlipLayer;

/// The line of text at the bottom.
#[derive(Component)]
pub struct Hud;

/// The text line, and an empty layer over the minimap (inside its 1-pixel frame).
pub fn setup(mut commands: Commands) {
    commands.spawn((
        Hud,
        Text::default(),
        TextFont::from_font_size(15.0),
        Node {
            position_type: PositionType::Absolute,
            bottom: Val::Px(12.0),
            left: Val::Px(18.0),
            ..default()
        },
    ));
    commands.spawn((
        BlipLayer,
        GlobalZIndex(1), // over the minimap
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(MINIMAP_TOP + 1.0),
            right: Val::Px(11.0),
            width: Val::Px(SIZE.x as f32 * MINIMAP_SCALE),
            height: Val::Px(SIZE.y as f32 * MINIMAP_SCALE),
            ..default()
        },
    ));
}

/// Each unit's square on the centre of its tile.
pub fn place_units(mut units: Query<(&TilePos, &mut Transform), Changed<TilePos>>) {
    for (tile, mut transform) in &mut units {
        transform.translation = centre(*tile).extend(transform.translation.z);
    }
}

/// The drawn team's radar contacts as red blips on the minimap, drawn again when they, the view
/// or the minimap's tiles change.
pub fn blips(
    mut commands: Commands,
    maps: Query<(Ref<RadarContacts>, &FogMinimap)>,
    drawn: Res<DrawnTeam>,
    layer: Single<Entity, With<BlipLayer>>,
    mut shown: Local<Option<(u32, u32, u32, u32)>>,
) {
    let Ok((contacts, minimap)) = maps.single() else {
        return;
    };
    // The image's tiles: none until the plugin made it (the minimap changes every frame the
    // fog does; blips spawned anew every frame would never be laid out).
    let tiles = minimap.tiles().map(|w| (w.x, w.y, w.width, w.height));
    if !contacts.is_changed() && *shown == tiles && !drawn.is_changed() {
        return;
    }
    *shown = tiles;
    commands.entity(*layer).despawn_children();
    for tile in contacts.of(drawn.0) {
        let Some(pixel) = minimap.pixel_of(*tile) else {
            continue;
        };
        let blip = Node {
            position_type: PositionType::Absolute,
            left: Val::Px(pixel.x as f32 * MINIMAP_SCALE - 1.0),
            top: Val::Px(pixel.y as f32 * MINIMAP_SCALE - 1.0),
            width: Val::Px(MINIMAP_SCALE + 2.0),
            height: Val::Px(MINIMAP_SCALE + 2.0),
            ..default()
        };
        let red = BackgroundColor(Color::srgb(1.0, 0.15, 0.1));
        commands.entity(*layer).with_child((blip, red));
    }
}

/// The name of a view.
fn view_name(team: Team) -> String {
    match team.0 {
        0 => "blue".into(),
        1 => "green".into(),
        2 => "red".into(),
        3 => "yellow".into(),
        _ => "spectator (every team)".into(),
    }
}

/// The view, the alliance, the contacts, the keys.
pub fn hud(
    mut text: Single<&mut Text, With<Hud>>,
    drawn: Res<DrawnTeam>,
    vision: Res<SharedVision>,
    contacts: Query<&RadarContacts>,
) {
    let count: usize = contacts.iter().map(|c| c.of(drawn.0).len()).sum();
    let allied = match vision.shares(Team(0), Team(1)) {
        true => "allied",
        false => "apart",
    };
    let line = format!(
        "view: {} | blue and green: {allied} | radar contacts: {count} | \
         Tab view, A alliance, S scan",
        view_name(drawn.0)
    );
    if text.0 != line {
        text.0 = line;
    }
}

/// At the end of the autoplay: the report (map, where tile (0, 0) is drawn, the view, how many
/// tiles it sees and its contacts), then, the battle standing still, the film, the screenshot
/// and the exit as asked, a few frames later (UI spawned in the last frame is laid out by then,
/// and the film's last captures have arrived).
pub fn finish(
    frame: Res<Frame>,
    options: Res<Options>,
    film: Option<ResMut<Film>>,
    maps: Query<(&FogOfWar, &RadarContacts)>,
    map: Res<Battlefield>,
    mut time: ResMut<Time<Virtual>>,
    mut wait: Local<Option<u32>>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(frames) = wait.as_mut() {
        *frames = frames.saturating_sub(1);
        if *frames == 0 && written(&mut commands, film, options.record.as_deref()) {
            save_and_exit(
                &mut commands,
                options.screenshot.clone(),
                options.exit,
                &mut exit,
            );
            *wait = Some(u32::MAX);
        }
        return;
    }
    if options.autoplay != Some(frame.0) {
        return;
    }
    let Ok((fog, contacts)) = maps.get(map.0) else {
        return;
    };
    let origin = centre(TilePos::new(0, 0)) - Vec2::new(CAMERA_X, 0.0);
    let pixel = (640.0 + origin.x, 360.0 - origin.y);
    println!(
        "autoplay done: map {}x{}, tile {TILE}, pixel ({:.1}, {:.1}), view {}, sees {}, contacts {}",
        SIZE.x,
        SIZE.y,
        pixel.0,
        pixel.1,
        fog.drawn_team().0,
        fog.visible_tiles().count(),
        contacts.of(fog.drawn_team()).len()
    );
    // Reveals and regrowth run on the app's time: stopped, the fog stays as reported.
    time.pause();
    *wait = Some(3);
}
