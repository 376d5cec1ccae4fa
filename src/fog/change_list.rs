//! What the fog's update changed in a frame, the one list the later steps read (the ghosts,
//! the drawing, replication): per map, the tiles whose state changed for the team drawn, and
//! the tiles each team started or stopped seeing. Written by `update_fog` alone, anew each
//! frame.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::Team;
use viewshed_core::bits::{BitRows, WORD_BITS, for_each_one, low_bits};
use viewshed_core::visible::Window;

/// What changed in the fog of one map in the last update.
#[derive(Debug)]
pub(crate) struct MapChanges {
    /// The tiles whose state (visible, remembered, unexplored) changed for the team drawn:
    /// every tile when the map is new, resized, or another team is drawn.
    drawn: ChangedTiles,
    /// The teams whose view was gathered again, each with the tiles it started or stopped
    /// seeing (every tile when the map is new or resized: `whole`).
    seen: Vec<(Team, BitRows)>,
    /// Whether every team's view is to be looked at whole: the map's fog is new, resized, or
    /// was written by the game.
    whole: bool,
}

/// How one team's view of one map changed in the last update.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SeenChange<'a> {
    /// It did not change.
    Unchanged,
    /// These tiles (row `y` bit `x` for tile `(area.x + x, area.y + y)` of the map's area)
    /// came into or went out of view.
    Tiles(&'a BitRows),
    /// Any tile may have: look at every one.
    Whole,
}

impl MapChanges {
    pub(crate) fn new(drawn: ChangedTiles, seen: Vec<(Team, BitRows)>, whole: bool) -> Self {
        Self { drawn, seen, whole }
    }

    /// The tiles whose state changed for the team drawn.
    pub(crate) fn drawn(&self) -> &ChangedTiles {
        &self.drawn
    }

    /// How `team`'s view changed.
    pub(crate) fn seen(&self, team: Team) -> SeenChange<'_> {
        if self.whole {
            return SeenChange::Whole;
        }
        self.seen
            .iter()
            .find(|(t, _)| *t == team)
            .map_or(SeenChange::Unchanged, |(_, tiles)| SeenChange::Tiles(tiles))
    }
}

/// The maps whose fog the last update changed, and what changed on each.
#[derive(Resource, Default)]
pub(crate) struct FogChanges(EntityHashMap<MapChanges>);

impl FogChanges {
    /// Each changed map and its changes.
    pub(crate) fn maps(&self) -> impl Iterator<Item = (Entity, &MapChanges)> {
        self.0.iter().map(|(&map, changes)| (map, changes))
    }

    /// What changed on `map`, if its fog changed.
    pub(crate) fn of(&self, map: Entity) -> Option<&MapChanges> {
        self.0.get(&map)
    }

    /// The tiles of `map` whose state changed for the team drawn, if its fog changed.
    pub(crate) fn drawn(&self, map: Entity) -> Option<&ChangedTiles> {
        self.of(map).map(MapChanges::drawn)
    }

    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    pub(super) fn insert(&mut self, map: Entity, changes: MapChanges) {
        self.0.insert(map, changes);
    }
}

/// The words of the tiles that differ between `now` and `before`.
pub(crate) fn differs<'a>(now: &'a BitRows, before: &'a BitRows) -> impl Iterator<Item = u64> + 'a {
    now.words()
        .iter()
        .zip(before.words())
        .map(|(now, before)| now ^ before)
}

/// Calls `f` for the cell `(x, y)` of each set bit of `words`, rows of `stride` words (row
/// `y`, bit `x`).
pub(crate) fn for_each_set_bit(
    stride: usize,
    words: impl Iterator<Item = u64>,
    mut f: impl FnMut(TilePos),
) {
    for (index, word) in words.enumerate() {
        let (y, x0) = (
            (index / stride) as u32,
            ((index % stride) * WORD_BITS) as u32,
        );
        for_each_one(word, |bit| f(TilePos { x: x0 + bit, y }));
    }
}

/// Tiles of a map that changed (in map coordinates).
#[derive(Clone, Debug)]
pub(crate) enum ChangedTiles {
    /// Every tile of the map's area.
    All(Window),
    /// The tiles whose bit is set, row `y` bit `x` standing for tile
    /// `(area.x + x, area.y + y)`.
    Changed { area: Window, bits: BitRows },
}

impl ChangedTiles {
    /// How many tiles.
    pub(crate) fn count(&self) -> usize {
        match self {
            Self::All(area) => area.width as usize * area.height as usize,
            Self::Changed { bits, .. } => bits.count_ones(),
        }
    }

    /// The map's area the tiles lie in.
    pub(crate) fn area(&self) -> Window {
        match self {
            Self::All(area) | Self::Changed { area, .. } => *area,
        }
    }

    /// Calls `f` for each of them, row after row.
    pub(crate) fn for_each(&self, f: impl FnMut(TilePos)) {
        self.for_each_in(self.area(), f);
    }

    /// Calls `f` for each of them in `window` (a layer's tiles, a band of rows), row after row.
    pub(crate) fn for_each_in(&self, window: Window, mut f: impl FnMut(TilePos)) {
        let Some(part) = self.area().intersection(&window) else {
            return;
        };
        match self {
            Self::All(_) => part.cells().for_each(|(x, y)| f(TilePos { x, y })),
            // The layer covers the whole map (every tilemap but a world's chunks): every word.
            Self::Changed { area, bits } if part == *area => {
                for_each_set_bit(bits.stride(), bits.words().iter().copied(), |bit| {
                    f(TilePos::new(area.x + bit.x, area.y + bit.y));
                });
            }
            Self::Changed { area, bits } => {
                // The part's columns as whole words, the first and last masked.
                let (x0, x1) = (part.x - area.x, part.x - area.x + part.width);
                let (first, last) = (x0 as usize / WORD_BITS, (x1 as usize - 1) / WORD_BITS);
                let mask = |i: usize| {
                    let low = if i == first {
                        !low_bits(x0 % u64::BITS)
                    } else {
                        u64::MAX
                    };
                    let end = x1 - (i * WORD_BITS) as u32;
                    low & if i == last { low_bits(end) } else { u64::MAX }
                };
                for y in part.y - area.y..part.y - area.y + part.height {
                    let row = &bits.row(y)[first..=last];
                    for (i, &word) in (first..).zip(row) {
                        let start = area.x + (i * WORD_BITS) as u32;
                        for_each_one(word & mask(i), |bit| {
                            f(TilePos::new(start + bit, area.y + y))
                        });
                    }
                }
            }
        }
    }
}
