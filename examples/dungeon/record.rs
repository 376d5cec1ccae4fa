//! `--record PATH`: the example films itself. A scripted game (`--autoplay N`) runs on a fixed
//! clock, `FRAME_TIME` per frame, so its fades look the same however fast the machine draws;
//! while recording it advances a turn every `TURN_FRAMES` frames, the HUD's text is hidden, a
//! frame in every `CAPTURE_EVERY` is captured at full size and cropped to the `CROP` around
//! the player,
//! and when the scripted game ends the frames are written as a looping GIF, each frame with
//! a palette of its own (so the player's yellow and the lantern's light keep their colours):
//! the README's animated picture.

use std::path::Path;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

use crate::args::Options;
use crate::film::{Film, capture};
use crate::hud::HudText;
use crate::world::Player;

/// Game time per frame in a scripted game.
pub const FRAME_TIME: Duration = Duration::from_millis(25);
/// A frame in this many is captured: one a turn while recording (`TURN_FRAMES`). The camera
/// follows the player, so every frame of a GIF changes whole: one frame a turn keeps 26 turns
/// under 2 MB (at 10 frames a second, 720 by 450 pixels, it was 4.7 MB).
const CAPTURE_EVERY: u32 = TURN_FRAMES;
/// The part of the 1280x720 window a recording keeps: 448 by 280 pixels around the player, at
/// full size (14 by 8.75 tiles at the default zoom; 560 by 360 made a 2.7 MB GIF).
const CROP: UVec2 = UVec2::new(448, 280);
/// While recording, the scripted player acts once in this many frames (150 ms of game time).
pub const TURN_FRAMES: u32 = 6;
/// While recording, nothing is captured and the scripted player waits for this many frames:
/// the GPU compiles the shaders (the smooth fog's among them) while the first frames are
/// drawn.
pub const WARM_UP: u32 = 40;

pub struct RecordPlugin;

impl Plugin for RecordPlugin {
    fn build(&self, app: &mut App) {
        let options = app.world().resource::<Options>();
        let (scripted, recording) = (options.autoplay.is_some(), options.record.is_some());
        let screenshot = options.screenshot.is_some();
        if scripted {
            app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_TIME));
        }
        if recording || screenshot {
            app.add_systems(Update, hide_hud_text);
        }
        if recording {
            app.init_resource::<Film>().add_systems(Last, film_frame);
        }
    }
}

/// Hides the HUD's text while recording or for a screenshot: the pictures show the game.
fn hide_hud_text(mut texts: Query<&mut Visibility, With<HudText>>) {
    for mut visibility in &mut texts {
        visibility.set_if_neq(Visibility::Hidden);
    }
}

/// Asks for a capture of every `CAPTURE_EVERY`th frame, centred on the player.
fn film_frame(
    mut commands: Commands,
    mut film: ResMut<Film>,
    mut frame: Local<u32>,
    player: Single<&GlobalTransform, With<Player>>,
    camera: Single<(&Camera, &GlobalTransform)>,
) {
    *frame += 1;
    let frame = *frame;
    if frame <= WARM_UP || !frame.is_multiple_of(CAPTURE_EVERY) {
        return;
    }
    let (camera, at) = *camera;
    let centre = camera.world_to_viewport(at, player.translation()).ok();
    capture(&mut commands, &mut film, frame, centre, (CROP, 1));
}

/// Writes the film of the scripted game to `path`, saying where or why not.
pub fn save(film: &mut Film, path: &Path) {
    match film.save(path, FRAME_TIME * CAPTURE_EVERY) {
        Ok(frames) => println!("recorded {frames} frames to {}", path.display()),
        Err(error) => eprintln!("dungeon: the recording was not saved: {error}"),
    }
}
