//! What the team drawn on each map saw and remembered at the last update: [`FogPast`], the
//! fog's bookkeeping beside the public [`FogOfWar`], so that the update lists exactly the tiles
//! whose state changed for the team drawn since (whoever changed it: the viewers, the game, a
//! switch of the team drawn).

use bevy::prelude::*;

use crate::fog::FogOfWar;
use crate::fog::change_list::{ChangedTiles, differs};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// The state of every tile for the team drawn as of the last update of a map's fog. Crate
/// bookkeeping on the map, in a component no game names, so a clone, a reflected copy or a
/// save of the `FogOfWar` carries none of it; a `FogOfWar` inserted anew changes every tile.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(crate) struct FogPast {
    /// Whether it holds an update of this map's fog at all.
    known: bool,
    /// The map's tiles the bits below stand for (see `FogOfWar::area`).
    area: Window,
    visible: BitRows,
    explored: BitRows,
}

impl FogPast {
    /// Whether `fog` is laid out over the tiles of the last update.
    pub(super) fn fits(&self, fog: &FogOfWar) -> bool {
        let size = fog.size();
        self.known
            && self.area == fog.area()
            && (self.visible.rows(), self.visible.bits_per_row()) == (size.y, size.x)
    }

    /// The tiles whose state for `fog`'s team drawn differs from the last update (every tile
    /// when the fog does not [`fit`](Self::fit) it); remembers `fog`'s state for the next one.
    pub(super) fn changes_to(&mut self, fog: &FogOfWar) -> ChangedTiles {
        let area = fog.area();
        let changed = match fog.team(fog.drawn_team()) {
            Some(drawn) if self.fits(fog) => {
                let mut bits = BitRows::new(area.height, area.width);
                let differ = differs(drawn.visible_rows(), &self.visible)
                    .zip(differs(drawn.explored_rows(), &self.explored));
                for (word, (visible, explored)) in bits.words_mut().iter_mut().zip(differ) {
                    *word = visible | explored;
                }
                ChangedTiles::Changed { area, bits }
            }
            _ => ChangedTiles::All(area),
        };
        self.remember(fog);
        changed
    }

    /// Keeps `fog`'s state for the team drawn.
    fn remember(&mut self, fog: &FogOfWar) {
        let Some(drawn) = fog.team(fog.drawn_team()) else {
            self.known = false;
            return;
        };
        self.known = true;
        self.area = fog.area();
        self.visible.clone_from(drawn.visible_rows());
        self.explored.clone_from(drawn.explored_rows());
    }
}
