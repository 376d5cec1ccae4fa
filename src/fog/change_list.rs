//! What the fog's update changed in a frame, the one list the later steps read (the team
//! sight, the ghosts, the drawing, replication): per map, the tiles whose state changed for
//! each team and for the team drawn. Written by `update_fog` alone, anew each frame.

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
    /// every tile when the map is new or resized, the tiles that differ between the two
    /// teams when another team is drawn.
    drawn: ChangedTiles,
    /// Whether another team is drawn than at the last update (or the map's fog is new or
    /// laid out anew): what the team drawn sees of the entities is to be looked at whole.
    redrawn: bool,
    /// The teams whose tiles changed, each with the tiles whose state changed for it (every
    /// tile when the map is new or resized; a team the map's fog lost: the tiles it saw or
    /// remembered; the tiles the game made it forget, even if explored again since).
    teams: Vec<(Team, ChangedTiles)>,
    /// The tiles the game made each team forget since the last update (`forget_all`,
    /// `set_explored(.., false)`), for the teams that forgot any.
    #[cfg_attr(
        not(feature = "render"),
        allow(dead_code, reason = "read by the sprites under the fog")
    )]
    forgotten: Vec<(Team, BitRows)>,
}

impl MapChanges {
    pub(crate) fn new(
        (drawn, redrawn): (ChangedTiles, bool),
        teams: Vec<(Team, ChangedTiles)>,
        forgotten: Vec<(Team, BitRows)>,
    ) -> Self {
        Self {
            drawn,
            redrawn,
            teams,
            forgotten,
        }
    }

    /// Whether the game made `team` forget `tile` since the last update.
    #[cfg_attr(
        not(feature = "render"),
        allow(dead_code, reason = "read by the sprites under the fog")
    )]
    pub(crate) fn forgot(&self, team: Team, tile: TilePos) -> bool {
        let forgotten = self.forgotten.iter().find(|(t, _)| *t == team);
        forgotten.is_some_and(|(_, bits)| {
            let area = self.drawn.area();
            area.contains(tile.x, tile.y) && bits.get(tile.y - area.y, tile.x - area.x)
        })
    }

    /// The tiles whose state changed for the team drawn.
    pub(crate) fn drawn(&self) -> &ChangedTiles {
        &self.drawn
    }

    /// Whether another team is drawn than at the last update, or the fog is new or laid out
    /// anew.
    pub(crate) fn redrawn(&self) -> bool {
        self.redrawn
    }

    /// Each team whose tiles changed, with those tiles.
    pub(crate) fn teams(&self) -> impl Iterator<Item = (Team, &ChangedTiles)> {
        self.teams.iter().map(|(team, tiles)| (*team, tiles))
    }

    /// Whether no tile changed for any team, nor for the team drawn.
    pub(crate) fn is_empty(&self) -> bool {
        self.teams.is_empty() && !self.redrawn && self.drawn.count() == 0
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

    /// Whether `tile` is one of them.
    pub(crate) fn holds(&self, tile: TilePos) -> bool {
        let area = self.area();
        if !area.contains(tile.x, tile.y) {
            return false;
        }
        match self {
            Self::All(_) => true,
            Self::Changed { bits, .. } => bits.get(tile.y - area.y, tile.x - area.x),
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
