//! The smooth fog's texture format: one texel per tile holding the fade it is in, from one
//! look to another since a time, so that the shader animates it with no upload per frame.
//!
//! A texel is two `u32`s (`Rg32Uint`, 8 bytes, little-endian): the first holds four levels of
//! 0 to 255, `from.seen`, `from.known`, `to.seen`, `to.known` (lowest byte first); the second
//! the time the fade started, in milliseconds of the fog's clock. `seen` is 255 for a tile
//! seen now, `known` 255 for a tile explored. At `now` the tile shows `from` moved towards
//! `to` by `(now - start) / length` (1 past the end), where `length` is the fade into view
//! when `to.seen > from.seen` and the fade out otherwise.

use std::time::Duration;

use crate::draw::FogFade;
use crate::fog::FogState;

/// How much a tile is seen and known, 0 to 255 each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Level {
    pub(crate) seen: u8,
    pub(crate) known: u8,
}

impl Level {
    /// The level of a tile in `state`.
    pub(crate) fn of(state: FogState) -> Self {
        match state {
            FogState::Visible => Self {
                seen: 255,
                known: 255,
            },
            FogState::Remembered => Self {
                seen: 0,
                known: 255,
            },
            FogState::Unexplored => Self::default(),
        }
    }
}

/// One tile's texel: a fade from `from` to `to` that started at `start` milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Texel {
    pub(crate) from: Level,
    pub(crate) to: Level,
    pub(crate) start: u32,
}

/// Bytes per texel.
pub(super) const TEXEL_BYTES: usize = 8;

impl Texel {
    /// A tile shown at `level` at once.
    pub(crate) fn still(level: Level) -> Self {
        Self {
            from: level,
            to: level,
            start: 0,
        }
    }

    /// The texel in the texture's bytes.
    pub(super) fn to_bytes(self) -> [u8; TEXEL_BYTES] {
        let levels = [self.from.seen, self.from.known, self.to.seen, self.to.known];
        let mut bytes = [0; TEXEL_BYTES];
        bytes[..4].copy_from_slice(&levels);
        bytes[4..].copy_from_slice(&self.start.to_le_bytes());
        bytes
    }

    /// The texel the texture's bytes hold.
    pub(super) fn from_bytes(bytes: &[u8]) -> Self {
        let start = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        Self {
            from: Level {
                seen: bytes[0],
                known: bytes[1],
            },
            to: Level {
                seen: bytes[2],
                known: bytes[3],
            },
            start,
        }
    }

    /// The level the tile shows at `now` milliseconds, as the shader works it out (to the
    /// nearest step of 1/255).
    pub(super) fn level_at(&self, now: u32, fade: Option<FogFade>) -> Level {
        let length = self.length(fade);
        let elapsed = now.wrapping_sub(self.start);
        if length == 0 || elapsed >= length {
            return self.to;
        }
        let progress = elapsed as f32 / length as f32;
        let mix = |from: u8, to: u8| {
            (f32::from(from) + (f32::from(to) - f32::from(from)) * progress).round() as u8
        };
        Level {
            seen: mix(self.from.seen, self.to.seen),
            known: mix(self.from.known, self.to.known),
        }
    }

    /// The length of this texel's fade in milliseconds (0: none).
    fn length(&self, fade: Option<FogFade>) -> u32 {
        let Some(fade) = fade else { return 0 };
        let length = if self.to.seen > self.from.seen {
            fade.fade_in
        } else {
            fade.fade_out
        };
        millis(length)
    }

    /// The texel of a tile going to `to` at `now`: from what it shows then, so nothing jumps;
    /// `None` when it is already on its way there.
    pub(super) fn towards(&self, to: Level, now: u32, fade: Option<FogFade>) -> Option<Self> {
        if self.to == to {
            return None;
        }
        Some(Self {
            from: self.level_at(now, fade),
            to,
            start: now,
        })
    }

    /// The time at which this texel's fade is over.
    pub(crate) fn end(&self, fade: Option<FogFade>) -> u32 {
        self.start.saturating_add(self.length(fade))
    }
}

/// A duration in whole milliseconds, as the texture and the shader count time (a fog clock of
/// more than 49 days stops there).
pub(super) fn millis(duration: Duration) -> u32 {
    u32::try_from(duration.as_millis()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FADE: FogFade = FogFade::new(Duration::from_millis(100), Duration::from_millis(400));

    #[test]
    fn a_texel_goes_through_its_bytes_unchanged() {
        let texel = Texel {
            from: Level { seen: 1, known: 2 },
            to: Level { seen: 3, known: 4 },
            start: 0x0a0b_0c0d,
        };
        assert_eq!(texel.to_bytes(), [1, 2, 3, 4, 0x0d, 0x0c, 0x0b, 0x0a]);
        assert_eq!(Texel::from_bytes(&texel.to_bytes()), texel);
    }

    #[test]
    fn a_fade_moves_in_a_straight_line_and_stops_at_its_end() {
        let remembered = Texel::still(Level::of(FogState::Remembered));
        let seen = remembered
            .towards(Level::of(FogState::Visible), 1000, Some(FADE))
            .unwrap();
        // Into view: 100 ms.
        assert_eq!(seen.level_at(1000, Some(FADE)).seen, 0);
        assert_eq!(seen.level_at(1050, Some(FADE)).seen, 128);
        assert_eq!(seen.level_at(1100, Some(FADE)).seen, 255);
        assert_eq!(seen.end(Some(FADE)), 1100);
        // Out of view half way in: from where it was, over 400 ms.
        let left = seen
            .towards(Level::of(FogState::Remembered), 1050, Some(FADE))
            .unwrap();
        assert_eq!(left.from.seen, 128);
        assert_eq!(left.level_at(1250, Some(FADE)).seen, 64);
        assert_eq!(
            left.level_at(9999, Some(FADE)),
            Level::of(FogState::Remembered)
        );
        // Without fades, at once; towards where it goes already, nothing.
        assert_eq!(seen.level_at(1000, None).seen, 255);
        assert_eq!(left.towards(left.to, 2000, Some(FADE)), None);
    }
}
