//! How a fog layer's tiles look in each [`FogState`]: [`FogStyle`] and [`TileLook`] (with the
//! optional [`SoftEdge`] looks and [`FogFade`] transitions).

use std::time::Duration;

use bevy::color::Color;
use bevy::prelude::*;

use crate::fog::FogState;

/// How a fog layer's tiles look in one [`FogState`]: `None` leaves that property alone.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[type_path = "bevy_viewshed"]
pub struct TileLook {
    /// The tile's `TileVisible`.
    pub visible: Option<bool>,
    /// The tile's `TileColor`.
    pub color: Option<Color>,
}

impl TileLook {
    /// Leaves the tile as it is.
    pub const UNCHANGED: Self = Self {
        visible: None,
        color: None,
    };

    /// Shows the tile with this colour (white: as drawn).
    pub const fn shown(color: Color) -> Self {
        Self {
            visible: Some(true),
            color: Some(color),
        }
    }

    /// Shows the tile in the colour it has (its `TileColor` left alone: a game's tints stay).
    pub const SHOWN: Self = Self {
        visible: Some(true),
        color: None,
    };

    /// Hides the tile.
    pub const HIDDEN: Self = Self {
        visible: Some(false),
        color: None,
    };
}

/// The looks of the tiles at the border of the view: a tile that is not seen now but has a
/// neighbour that is (one of its 8 neighbours on a square or isometric map, of its 6 on a
/// hexagonal one) takes the look of its state here instead of its [`FogStyle`] look, so the
/// border between what is seen and what is not is a step of two shades, not a hard staircase.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[type_path = "bevy_viewshed"]
pub struct SoftEdge {
    /// Remembered tiles next to a visible one.
    pub remembered: TileLook,
    /// Unexplored tiles next to a visible one (a shown look here shows those tiles, dimly:
    /// the one ring of unexplored tiles around the view that games with soft fog show).
    pub unexplored: TileLook,
}

/// Opts a tilemap layer into fog of war and says how each [`FogState`] looks on it.
///
/// Put it on any tilemap of a map (the root or a [`LayerOf`](crate::LayerOf) it, directly or
/// through other layers). [`FogStyle::default`] dims remembered tiles and hides unexplored
/// ones on the layer itself; [`FogStyle::overlay`] is for a dedicated layer of black tiles
/// drawn over the others.
///
/// Two looks are optional and off by default: [`fade`](Self::fade) moves tiles between looks
/// over time instead of at once, [`soft_edge`](Self::soft_edge) gives the tiles at the border
/// of the view a look of their own.
///
/// ```
/// use std::time::Duration;
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::{FogFade, SoftEdge, TileLook};
///
/// let style = FogStyle::default()
///     .with_fade(FogFade::new(Duration::from_millis(150), Duration::from_millis(400)))
///     .with_soft_edge(SoftEdge {
///         remembered: TileLook::shown(Color::srgb(0.6, 0.6, 0.7)),
///         unexplored: TileLook::shown(Color::srgba(0.32, 0.32, 0.42, 0.5)),
///     });
/// assert!(style.fade.is_some());
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct FogStyle {
    /// Tiles seen now.
    pub visible: TileLook,
    /// Tiles seen before.
    pub remembered: TileLook,
    /// Tiles never seen.
    pub unexplored: TileLook,
    /// Tiles not seen now next to tiles seen now, if they look different (`None` by default).
    pub soft_edge: Option<SoftEdge>,
    /// Fades between looks (`None` by default: a tile takes its new look in the update its
    /// state changes, which is what a headless server, a turn-based game that wants crisp
    /// steps, and tests reading tiles right after `app.update()` expect).
    pub fade: Option<FogFade>,
}

impl Default for FogStyle {
    fn default() -> Self {
        Self {
            visible: TileLook::shown(Color::WHITE),
            remembered: TileLook::shown(Color::srgb(0.32, 0.32, 0.42)),
            unexplored: TileLook::HIDDEN,
            soft_edge: None,
            fade: None,
        }
    }
}

impl FogStyle {
    /// For a fog overlay layer: clear over visible tiles, translucent black over remembered
    /// ones, opaque black over unexplored ones.
    pub fn overlay() -> Self {
        Self {
            visible: TileLook::HIDDEN,
            remembered: TileLook::shown(Color::srgba(0.0, 0.0, 0.0, 0.6)),
            unexplored: TileLook::shown(Color::BLACK),
            ..Self::default()
        }
    }

    /// For the tile layers under a [`SmoothFog`](crate::SmoothFog) (which darkens and blurs
    /// them): tiles seen now or before drawn as they are, and so are the unexplored tiles
    /// next to a tile seen now (the ring the blur spreads over); the other unexplored tiles
    /// hidden, so that no part of the map shows before the fog's shader is ready (its first
    /// frames, while the GPU compiles it) or where it cannot draw. Shown tiles keep their
    /// `TileColor`, so a game's tints (a chunk's, a level's) show under the fog.
    pub fn under_smooth_fog() -> Self {
        let shown = TileLook::SHOWN;
        Self {
            visible: shown,
            remembered: shown,
            unexplored: TileLook::HIDDEN,
            soft_edge: Some(SoftEdge {
                remembered: shown,
                unexplored: shown,
            }),
            fade: None,
        }
    }

    /// This style, fading tiles between looks.
    pub fn with_fade(self, fade: FogFade) -> Self {
        Self {
            fade: Some(fade),
            ..self
        }
    }

    /// This style, with a look of their own for the tiles at the border of the view.
    pub fn with_soft_edge(self, soft_edge: SoftEdge) -> Self {
        Self {
            soft_edge: Some(soft_edge),
            ..self
        }
    }

    /// How a tile in `state` looks (away from the border of the view).
    pub fn look(&self, state: FogState) -> TileLook {
        match state {
            FogState::Visible => self.visible,
            FogState::Remembered => self.remembered,
            FogState::Unexplored => self.unexplored,
        }
    }

    /// How a tile in `state` looks, `at_edge` when it has a neighbour seen now.
    pub fn look_at(&self, state: FogState, at_edge: bool) -> TileLook {
        match (self.soft_edge, state) {
            (Some(edge), FogState::Remembered) if at_edge => edge.remembered,
            (Some(edge), FogState::Unexplored) if at_edge => edge.unexplored,
            _ => self.look(state),
        }
    }
}

/// How long a fog layer's tiles take to change look, set in
/// [`FogStyle::fade`](crate::FogStyle::fade).
///
/// The rules:
/// - A tile's `TileColor` moves in a straight line ([`Mix`], in the colour space of the look's
///   colour) from the colour it has when its state changes to the colour of its new look. A
///   change in the middle of a fade starts from the colour the tile has then, so nothing jumps.
/// - A hidden tile that comes into a shown look is made visible at the start and fades in
///   from transparent; a shown tile that goes to a hidden look fades to transparent and is
///   hidden at the end (its colour is then put back, so a later look that leaves the colour
///   alone shows it as it was).
/// - Coming into view takes [`fade_in`](Self::fade_in); every other change (leaving the
///   view, being forgotten, a soft edge) takes [`fade_out`](Self::fade_out).
/// - Only the tiles in transition are written in a frame; the others keep the rule that a
///   tile whose state did not change is not written.
/// - Tiles written as a whole take their look at once: the tiles of a new layer, of a
///   layer whose style changed, of a resized map, tiles spawned into a layer, and tiles
///   without `TileVisible` or `TileColor`.
/// - Time is Bevy's `Time` in the schedule the plugin runs in (virtual time in `PostUpdate`:
///   pausing it pauses the fades). An app without `Time` does not fade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[type_path = "bevy_viewshed"]
pub struct FogFade {
    /// The time a tile takes to come into view (to its visible look).
    pub fade_in: Duration,
    /// The time a tile takes to any other look.
    pub fade_out: Duration,
}

impl Default for FogFade {
    /// 150 ms in, 400 ms out: the view opens quickly and closes softly.
    fn default() -> Self {
        Self::new(Duration::from_millis(150), Duration::from_millis(400))
    }
}

impl FogFade {
    /// Fades taking `fade_in` into view and `fade_out` to any other look.
    pub const fn new(fade_in: Duration, fade_out: Duration) -> Self {
        Self { fade_in, fade_out }
    }

    /// The time a tile takes to come into `state`.
    pub fn length_to(&self, state: FogState) -> Duration {
        match state {
            FogState::Visible => self.fade_in,
            FogState::Remembered | FogState::Unexplored => self.fade_out,
        }
    }
}
