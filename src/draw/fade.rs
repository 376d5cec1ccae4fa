//! Fades: how a tile of a layer whose [`FogStyle`](crate::FogStyle) has a [`FogFade`](crate::FogFade) moves
//! from one look to the next over time, and the set of tiles in transition on each layer
//! (in a frame where no fog state changed, the only tiles written).

use std::time::Duration;

use bevy::color::{Alpha, Color, Mix};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::{TileColor, TilePos, TileStorage, TileVisible};

use crate::draw::TileLook;

/// When a fade starts and how long it lasts.
#[derive(Clone, Copy, Debug)]
pub(super) struct FadeStart {
    pub(crate) now: Duration,
    pub(crate) length: Duration,
}

/// How a fade ends.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FadeEnd {
    /// The tile stays shown in the colour faded to.
    Shown,
    /// The tile is hidden and its colour put back to `rest`.
    Hidden { rest: Color },
}

/// One tile's fade.
#[derive(Clone, Copy, Debug)]
struct Fade {
    from: Color,
    to: Color,
    start: Duration,
    length: Duration,
    end: FadeEnd,
}

impl Fade {
    /// How far the fade is at `now`, from 0 to 1 and over (exact for whole milliseconds).
    fn progress(&self, now: Duration) -> f32 {
        if self.length.is_zero() {
            return 1.0;
        }
        (now.saturating_sub(self.start).as_nanos() as f64 / self.length.as_nanos() as f64) as f32
    }

    /// The colour the tile has once the fade is over.
    fn final_color(&self) -> Color {
        match self.end {
            FadeEnd::Shown => self.to,
            FadeEnd::Hidden { rest } => rest,
        }
    }
}

/// The tiles of one fog layer in transition. Every [`FogStyle`](crate::FogStyle) layer has
/// one (a required component); it is empty unless the style fades.
#[derive(Component, Debug, Default)]
pub(super) struct FadingTiles(HashMap<TilePos, Fade>);

impl FadingTiles {
    /// Stops the fade of `tile`, if it has one.
    pub(crate) fn stop(&mut self, tile: TilePos) {
        self.0.remove(&tile);
    }

    /// Stops every fade.
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Starts fading `tile`, `shown` now in `color`, to `look`. Returns whether the tile must
    /// be shown now, or `None` when there is nothing to fade (the look is written at once).
    pub(crate) fn start(
        &mut self,
        tile: TilePos,
        shown: bool,
        color: Color,
        look: TileLook,
        start: FadeStart,
    ) -> Option<bool> {
        let previous = self.0.remove(&tile);
        let intended = previous.map_or(color, |fade| fade.final_color());
        let target = look.color.unwrap_or(intended);
        let (from, to, end) = match (shown, look.visible.unwrap_or(shown)) {
            (false, false) => return None,
            (true, true) => (color, target, FadeEnd::Shown),
            (false, true) => (target.with_alpha(0.0), target, FadeEnd::Shown),
            (true, false) => (
                color,
                target.with_alpha(0.0),
                FadeEnd::Hidden { rest: target },
            ),
        };
        if let Some(previous) = previous.filter(|fade| (fade.to, fade.end) == (to, end)) {
            // Already on its way there (the tile is written again for its edge, say).
            self.0.insert(tile, previous);
            return Some(false);
        }
        if from == to && end == FadeEnd::Shown {
            return None;
        }
        let fade = Fade {
            from,
            to,
            start: start.now,
            length: start.length,
            end,
        };
        self.0.insert(tile, fade);
        Some(!shown)
    }
}

/// A layer lost its [`FogStyle`](crate::FogStyle): its tiles are the game's again, and the fades
/// under way stop where they are (they are dropped, not finished).
pub(super) fn on_fog_style_removed(
    event: On<Remove, crate::draw::style::FogStyle>,
    mut layers: Query<&mut FadingTiles, Allow<Disabled>>,
) {
    if let Ok(mut fades) = layers.get_mut(event.entity) {
        fades.clear();
    }
}

/// Moves the tiles in transition one frame on, and ends the fades that are over.
pub(super) fn advance_fades(
    time: Option<Res<Time>>,
    mut layers: Query<(&TileStorage, &mut FadingTiles)>,
    mut tiles: Query<(&mut TileVisible, &mut TileColor), Allow<Disabled>>,
) {
    // Without a clock, fades end at once (the fog does not start any then).
    let now = time.map_or(Duration::MAX, |time| time.elapsed());
    for (storage, mut fades) in &mut layers {
        if fades.0.is_empty() {
            continue;
        }
        fades.bypass_change_detection().0.retain(|tile, fade| {
            let Some(Ok((mut visible, mut color))) =
                storage.checked_get(tile).map(|tile| tiles.get_mut(tile))
            else {
                return false;
            };
            let progress = fade.progress(now);
            let done = progress >= 1.0;
            let new = if done {
                fade.final_color()
            } else {
                fade.from.mix(&fade.to, progress)
            };
            // TileColor has no PartialEq: compare the colours so unchanged tiles stay unchanged.
            if color.0 != new {
                color.0 = new;
            }
            if done && matches!(fade.end, FadeEnd::Hidden { .. }) {
                visible.set_if_neq(TileVisible(false));
            }
            !done
        });
    }
}
