//! Shared by the examples that film themselves (`--record PATH`, each includes it with
//! `#[path]`): frames captured with Bevy's `Screenshot`, cropped, and written as a looping GIF
//! in which each frame holds only what changed since the one before.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use image::RgbaImage;
use image::imageops::{FilterType, crop_imm, resize};

/// The frames captured so far, by frame number (captures arrive a few frames late).
#[derive(Resource, Default)]
pub struct Film {
    frames: Vec<(u32, RgbaImage)>,
    pending: u32,
}

impl Film {
    /// Whether every capture asked for has arrived.
    pub fn complete(&self) -> bool {
        self.pending == 0
    }

    /// Writes the frames captured so far to `path` as a looping GIF, `step` apart: each frame
    /// but the first only where it differs from the one before (the rest of it transparent, so
    /// the one before shows), a frame the same as the one before lengthening that one.
    pub fn save(&mut self, path: &Path, step: Duration) -> Result<usize, String> {
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
        let step = (step.as_millis() / 10) as u16;
        let mut previous: Option<&RgbaImage> = None;
        let mut pending: Option<gif::Frame> = None;
        let mut count = 0;
        for (_, image) in &self.frames {
            match changed_part(previous, image) {
                None => pending.iter_mut().for_each(|frame| frame.delay += step),
                Some(mut frame) => {
                    frame.delay = step;
                    if let Some(done) = pending.replace(frame) {
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

/// Captures the primary window as frame `frame` of the film: the `crop` around `centre` (the
/// window's middle without one), kept inside the window, each pixel drawn `zoom` x `zoom`.
pub fn capture(
    commands: &mut Commands,
    film: &mut Film,
    frame: u32,
    centre: Option<Vec2>,
    (crop, zoom): (UVec2, u32),
) {
    film.pending += 1;
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut film: ResMut<Film>| {
            film.pending -= 1;
            if let Some(image) = cropped(&captured.image, centre, crop) {
                let (width, height) = (image.width() * zoom, image.height() * zoom);
                let image = resize(&image, width, height, FilterType::Nearest);
                film.frames.push((frame, image));
            }
        },
    );
}

/// The `crop` of `image` around `centre` (its middle without one), kept inside the image.
fn cropped(image: &Image, centre: Option<Vec2>, crop: UVec2) -> Option<RgbaImage> {
    let rgba = image.clone().try_into_dynamic().ok()?.to_rgba8();
    let size = UVec2::new(rgba.width(), rgba.height());
    let centre = centre.unwrap_or(size.as_vec2() / 2.0);
    let corner = (centre - crop.as_vec2() / 2.0).max(Vec2::ZERO).as_uvec2();
    let corner = corner.min(size.saturating_sub(crop));
    Some(crop_imm(&rgba, corner.x, corner.y, crop.x, crop.y).to_image())
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
    let mut part = crop_imm(image, min.0, min.1, w, h).to_image();
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
