//! What the fog layers of a map show now: [`FogShown`], the fog's bookkeeping beside the
//! public [`FogOfWar`], so that only the tiles whose look changed are written.

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapType;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::FogOfWar;
use crate::fog::model::{TilesToWrite, differs};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// What the tiles of a map's fog layers show of the team drawn: its view and memory as last
/// written, and the edge of its view (on maps with a soft-edged layer). Crate bookkeeping on
/// the map, in a component no game names, so a clone, a reflected copy or a save of the
/// `FogOfWar` carries none of it; a `FogOfWar` inserted anew is written whole.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(crate) struct FogShown {
    /// Whether the tiles show this map's fog at all (false: every tile must be written).
    written: bool,
    /// The map's tiles the bits below stand for (see `FogOfWar::area`).
    pub(super) area: Window,
    /// The map's grid when its edges were last worked out.
    pub(super) map_type: Option<TilemapType>,
    /// The view of the team drawn the tiles show.
    pub(super) visible: BitRows,
    explored: BitRows,
    /// The tiles not seen now by the team drawn next to tiles that are, as of this update.
    pub(super) edge: BitRows,
    /// The edge the tiles show.
    shown_edge: BitRows,
}

impl FogShown {
    /// Whether every tile must be written: nothing was, or the fog changed size since.
    pub(super) fn must_write_all(&self, fog: &FogOfWar) -> bool {
        !self.written || self.area != fog.area() || !same_shape(&self.visible, fog)
    }

    /// Sizes the edge like `fog` (the tiles then show nothing of it).
    pub(super) fn fit(&mut self, fog: &FogOfWar) {
        if self.area != fog.area() || !same_shape(&self.edge, fog) {
            let size = fog.size();
            self.area = fog.area();
            self.edge.reset(size.y, size.x);
            self.written = false;
        }
    }

    /// Whether `tile` is not seen now by the team drawn but borders a tile that is (as of the
    /// last update of a map with a soft-edged layer).
    #[inline]
    pub(super) fn is_edge(&self, tile: TilePos) -> bool {
        let area = self.area;
        area.contains(tile.x, tile.y) && self.edge.get(tile.y - area.y, tile.x - area.x)
    }

    /// The tiles whose look must be written: every tile when `all` or when it must, else the
    /// tiles whose state for the team drawn (or whether they are at the edge of its view)
    /// differs from what the tiles show.
    pub(super) fn tiles_to_write(&self, fog: &FogOfWar, all: bool) -> TilesToWrite {
        let size = fog.size();
        if all || self.must_write_all(fog) {
            return TilesToWrite::All(fog.area());
        }
        let mut changed = BitRows::new(size.y, size.x);
        if let Some(drawn) = fog.team(fog.drawn_team()) {
            let differ = differs(&drawn.visible, &self.visible)
                .zip(differs(&drawn.explored, &self.explored))
                .zip(differs(&self.edge, &self.shown_edge));
            for (word, ((visible, explored), edge)) in changed.words_mut().iter_mut().zip(differ) {
                *word = visible | explored | edge;
            }
        }
        TilesToWrite::Changed {
            area: fog.area(),
            bits: changed,
        }
    }

    /// The tiles now show `fog`'s team drawn.
    pub(super) fn mark_shown(&mut self, fog: &FogOfWar) {
        let Some(drawn) = fog.team(fog.drawn_team()) else {
            return;
        };
        self.written = true;
        self.visible.clone_from(&drawn.visible);
        self.explored.clone_from(&drawn.explored);
        self.shown_edge.clone_from(&self.edge);
    }
}

/// Whether `rows` has the shape of `fog`'s map.
fn same_shape(rows: &BitRows, fog: &FogOfWar) -> bool {
    let size = fog.size();
    (rows.rows(), rows.bits_per_row()) == (size.y, size.x)
}
