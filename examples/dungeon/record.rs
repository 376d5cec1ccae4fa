//! `--record PATH`: the example films itself. A scripted game (`--autoplay N`) runs on a fixed
//! clock, `FRAME_TIME` per frame, so its fades look the same however fast the machine draws;
//! while recording it advances a turn every `TURN_FRAMES` frames, a frame in every
//! `CAPTURE_EVERY` is captured at half size, and when the scripted game ends the frames are
//! written as a looping GIF, the README's animated picture.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::time::TimeUpdateStrategy;
use image::codecs::gif::{GifEncoder, Repeat};
use image::imageops::{FilterType, resize};
use image::{Delay, Frame, RgbaImage};

use crate::args::Options;

/// Game time per frame in a scripted game.
pub const FRAME_TIME: Duration = Duration::from_millis(25);
/// A frame in this many is captured: 10 GIF frames per second of game time.
const CAPTURE_EVERY: u32 = 4;
/// While recording, the scripted player acts once in this many frames (150 ms of game time).
pub const TURN_FRAMES: u32 = 6;

/// The captured frames, by frame number (captures arrive a few frames late).
#[derive(Resource, Default)]
pub struct Recording {
    frame: u32,
    frames: Vec<(u32, RgbaImage)>,
    pending: u32,
}

pub struct RecordPlugin;

impl Plugin for RecordPlugin {
    fn build(&self, app: &mut App) {
        let options = app.world().resource::<Options>();
        let (scripted, recording) = (options.autoplay.is_some(), options.record.is_some());
        if scripted {
            app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_TIME));
        }
        if recording {
            app.init_resource::<Recording>().add_systems(Last, capture);
        }
    }
}

/// Asks for a capture of every `CAPTURE_EVERY`th frame.
fn capture(mut commands: Commands, mut recording: ResMut<Recording>) {
    recording.frame += 1;
    let frame = recording.frame;
    if !frame.is_multiple_of(CAPTURE_EVERY) {
        return;
    }
    recording.pending += 1;
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut recording: ResMut<Recording>| {
            recording.pending -= 1;
            if let Some(image) = half_size(&captured.image) {
                recording.frames.push((frame, image));
            }
        },
    );
}

/// The frame at half its size (nearest pixel, so the tiles stay crisp and the GIF small).
fn half_size(image: &Image) -> Option<RgbaImage> {
    let rgba = image.clone().try_into_dynamic().ok()?.to_rgba8();
    Some(resize(
        &rgba,
        rgba.width() / 2,
        rgba.height() / 2,
        FilterType::Nearest,
    ))
}

impl Recording {
    /// Whether every capture asked for has arrived.
    pub fn complete(&self) -> bool {
        self.pending == 0
    }

    /// Writes the frames captured so far to `path` as a looping GIF.
    pub fn save(&mut self, path: &Path) -> Result<usize, String> {
        self.frames.sort_by_key(|(frame, _)| *frame);
        let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut encoder = GifEncoder::new_with_speed(BufWriter::new(file), 20);
        encoder
            .set_repeat(Repeat::Infinite)
            .map_err(|e| e.to_string())?;
        let delay = Delay::from_saturating_duration(FRAME_TIME * CAPTURE_EVERY);
        let count = self.frames.len();
        let frames = self
            .frames
            .drain(..)
            .map(|(_, image)| Frame::from_parts(image, 0, 0, delay));
        encoder.encode_frames(frames).map_err(|e| e.to_string())?;
        Ok(count)
    }
}
