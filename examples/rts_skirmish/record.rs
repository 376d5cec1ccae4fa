//! `--record PATH`: the scripted battle films itself. It runs on a fixed clock, `FRAME_TIME` a
//! frame, so the marches, the scan and the fog look the same however fast the machine draws; from
//! frame `FIRST` a frame in every `CAPTURE_EVERY` is captured, cropped to the `CROP` in the middle
//! of the battlefield and drawn at twice its size, and when the script ends the frames are written
//! as a looping GIF: the README's animated picture.

use std::path::Path;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

use crate::film::{Film, capture};
use crate::options::Options;
use crate::orders::Frame;

/// Game time a frame while filming.
const FRAME_TIME: Duration = Duration::from_millis(50);
/// A frame in this many is captured: the units step every 6 frames (a capture between two
/// steps only lengthened the frame before).
const CAPTURE_EVERY: u64 = 6;
/// The part of the 1280x720 window kept, each pixel drawn 2 x 2: the middle of the
/// battlefield (drawn from (18, 40) to (1042, 680)), where the armies meet.
const CROP: UVec2 = UVec2::new(320, 180);
const CROP_CENTRE: Vec2 = Vec2::new(720.0, 340.0);
const ZOOM: u32 = 2;
/// Frames played before the first capture: the armies' march into the middle of the field.
const FIRST: u64 = 60;

/// Films the scripted battle when `--record` asks for it.
pub struct RecordPlugin;

impl Plugin for RecordPlugin {
    fn build(&self, app: &mut App) {
        let options = app.world().resource::<Options>();
        if options.record.is_some() && options.autoplay.is_some() {
            app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_TIME))
                .init_resource::<Film>()
                .add_systems(Last, film_frame);
        }
    }
}

/// Asks for a capture of every `CAPTURE_EVERY`th frame of the script.
fn film_frame(
    mut commands: Commands,
    film: Option<ResMut<Film>>,
    frame: Res<Frame>,
    options: Res<Options>,
) {
    let playing = options.autoplay.is_some_and(|frames| frame.0 < frames);
    if let Some(mut film) = film
        && playing
        && frame.is_changed()
        && frame.0 >= FIRST
        && frame.0.is_multiple_of(CAPTURE_EVERY)
    {
        capture(
            &mut commands,
            &mut film,
            frame.0 as u32,
            Some(CROP_CENTRE),
            (CROP, ZOOM),
        );
    }
}

/// Whether the film, if one is made, is written: once every capture asked for has arrived, it
/// is saved to `path` and put away (no film: nothing to wait for).
pub fn written(commands: &mut Commands, film: Option<ResMut<Film>>, path: Option<&Path>) -> bool {
    let (Some(mut film), Some(path)) = (film, path) else {
        return true;
    };
    if !film.complete() {
        return false;
    }
    match film.save(path, FRAME_TIME * CAPTURE_EVERY as u32) {
        Ok(frames) => println!("recorded {frames} frames to {}", path.display()),
        Err(error) => eprintln!("rts_skirmish: the recording was not saved: {error}"),
    }
    commands.remove_resource::<Film>();
    true
}
