//! `--record PATH`: the example films itself. A scripted game (`--autoplay N`) runs on a fixed
//! clock, `FRAME_TIME` per frame, so its fades look the same however fast the machine draws;
//! while recording it advances a turn every `TURN_FRAMES` frames, the HUD's text is hidden, a
//! frame in every `CAPTURE_EVERY` is captured at full size and cropped to the `CROP` around
//! the player,
//! and when the scripted game ends the frames are written as a looping GIF, each frame with
//! a palette of its own (so the player's yellow and the lantern's light keep their colours):
//! the README's animated picture.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::time::TimeUpdateStrategy;
use image::RgbaImage;
use image::imageops::crop_imm;

use crate::args::Options;
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
        let screenshot = options.screenshot.is_some();
        if scripted {
            app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME_TIME));
        }
        if recording || screenshot {
            app.add_systems(Update, hide_hud_text);
        }
        if recording {
            app.init_resource::<Recording>().add_systems(Last, capture);
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
fn capture(
    mut commands: Commands,
    mut recording: ResMut<Recording>,
    player: Single<&GlobalTransform, With<Player>>,
    camera: Single<(&Camera, &GlobalTransform)>,
) {
    recording.frame += 1;
    let frame = recording.frame;
    if frame <= WARM_UP || !frame.is_multiple_of(CAPTURE_EVERY) {
        return;
    }
    let (camera, at) = *camera;
    let centre = camera.world_to_viewport(at, player.translation()).ok();
    recording.pending += 1;
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut recording: ResMut<Recording>| {
            recording.pending -= 1;
            if let Some(image) = cropped(&captured.image, centre) {
                recording.frames.push((frame, image));
            }
        },
    );
}

/// The frame's [`CROP`] around `centre` (the window's middle without one), kept inside the
/// window, at full size.
fn cropped(image: &Image, centre: Option<Vec2>) -> Option<RgbaImage> {
    let rgba = image.clone().try_into_dynamic().ok()?.to_rgba8();
    let size = UVec2::new(rgba.width(), rgba.height());
    let centre = centre.unwrap_or(size.as_vec2() / 2.0);
    let corner = (centre - CROP.as_vec2() / 2.0).max(Vec2::ZERO).as_uvec2();
    let corner = corner.min(size.saturating_sub(CROP));
    Some(crop_imm(&rgba, corner.x, corner.y, CROP.x, CROP.y).to_image())
}

impl Recording {
    /// Whether every capture asked for has arrived.
    pub fn complete(&self) -> bool {
        self.pending == 0
    }

    /// Writes the frames captured so far to `path` as a looping GIF: each frame but the first
    /// only where it differs from the one before (the rest of it transparent, so the one before
    /// shows), a frame the same as the one before lengthening that one.
    pub fn save(&mut self, path: &Path) -> Result<usize, String> {
        self.frames.sort_by_key(|(frame, _)| *frame);
        let Some((_, first)) = self.frames.first() else {
            return Err("no frame was captured".into());
        };
        let (width, height) = (first.width() as u16, first.height() as u16);
        let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut encoder = gif::Encoder::new(BufWriter::new(file), width, height, &[])
            .map_err(|e| e.to_string())?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| e.to_string())?;
        let step = (FRAME_TIME * CAPTURE_EVERY).as_millis() as u16 / 10;
        let mut previous: Option<&RgbaImage> = None;
        let mut pending: Option<gif::Frame> = None;
        let mut count = 0;
        for (_, image) in &self.frames {
            match changed_part(previous, image) {
                None => pending.iter_mut().for_each(|frame| frame.delay += step),
                Some(mut frame) => {
                    if let Some(done) = pending.replace({
                        frame.delay = step;
                        frame
                    }) {
                        encoder.write_frame(&done).map_err(|e| e.to_string())?;
                    }
                    count += 1;
                }
            }
            previous = Some(image);
        }
        if let Some(done) = pending {
            encoder.write_frame(&done).map_err(|e| e.to_string())?;
        }
        self.frames.clear();
        Ok(count)
    }
}

/// The part of `image` that differs from `previous` (all of it without one), its pixels that
/// do not differ transparent, as a GIF frame drawn over the one before; `None` when nothing
/// differs.
fn changed_part(previous: Option<&RgbaImage>, image: &RgbaImage) -> Option<gif::Frame<'static>> {
    let same = |x, y| previous.is_some_and(|p| p.get_pixel(x, y) == image.get_pixel(x, y));
    let (mut min, mut max) = ((u32::MAX, u32::MAX), (0, 0));
    for (x, y, _) in image.enumerate_pixels() {
        if !same(x, y) {
            min = (min.0.min(x), min.1.min(y));
            max = (max.0.max(x), max.1.max(y));
        }
    }
    if min.0 > max.0 {
        return None;
    }
    let (w, h) = (max.0 - min.0 + 1, max.1 - min.1 + 1);
    let mut part = image::imageops::crop_imm(image, min.0, min.1, w, h).to_image();
    for (x, y, pixel) in part.enumerate_pixels_mut() {
        if same(x + min.0, y + min.1) {
            *pixel = image::Rgba([0, 0, 0, 0]);
        }
    }
    let mut frame = gif::Frame::from_rgba_speed(w as u16, h as u16, &mut part, 10);
    (frame.left, frame.top) = (min.0 as u16, min.1 as u16);
    frame.dispose = gif::DisposalMethod::Keep;
    Some(frame)
}
