//! Soft edges: which tiles not seen now border the view of the team drawn (for
//! [`SoftEdge`](crate::SoftEdge) looks), kept up to date around the tiles whose state changed,
//! in [`FogEdges`], the drawing's bookkeeping beside the map's [`FogOfWar`].

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapType;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::change_list::{ChangedTiles, differs, for_each_set_bit};
use crate::fog::{FogOfWar, TeamFog};
use crate::support::neighbours::Neighbourhood;
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// The edge of the view of the team drawn on a map (on maps with a soft-edged layer): the
/// tiles not seen now next to tiles that are, as of this update and as the tiles show it.
/// Crate bookkeeping on the map, in a component no game names.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogEdges {
    /// The map's tiles the bits below stand for (see `FogOfWar::area`).
    area: Window,
    /// The map's grid when its edges were last worked out.
    map_type: Option<TilemapType>,
    /// The edge as of this update.
    edge: BitRows,
    /// The edge the tiles show.
    shown: BitRows,
}

impl FogEdges {
    /// Whether the map's grid is another than when the edges were last worked out (a new
    /// neighbourhood: every edge is worked out again); notes the grid.
    pub(super) fn regridded(&mut self, map_type: TilemapType) -> bool {
        self.map_type.replace(map_type) != Some(map_type)
    }

    /// Whether `tile` is not seen now by the team drawn but borders a tile that is (as of the
    /// last update of a map with a soft-edged layer).
    #[inline]
    pub(super) fn is_edge(&self, tile: TilePos) -> bool {
        let area = self.area;
        area.contains(tile.x, tile.y) && self.edge.get(tile.y - area.y, tile.x - area.x)
    }

    /// Brings the edge up to date for `fog`'s team drawn, every tile when `all` (or the fog
    /// was laid out anew), else around the tiles of `changed`; returns `changed` with the tiles
    /// whose edge differs from what the tiles show added.
    pub(super) fn update(
        &mut self,
        fog: &FogOfWar,
        (changed, all): (ChangedTiles, bool),
        around: &Neighbourhood,
    ) -> ChangedTiles {
        let Some(team) = fog.team(fog.drawn_team()) else {
            return changed;
        };
        let all = self.fit(fog) || all || matches!(changed, ChangedTiles::All(_));
        let mut refresh = self.refresher(team, around);
        match (&changed, all) {
            (_, true) => ChangedTiles::All(fog.area()).for_each(&mut refresh),
            (ChangedTiles::Changed { bits, .. }, false) => {
                let area = fog.area();
                for_each_set_bit(bits.stride(), bits.words().iter().copied(), |bit| {
                    let tile = TilePos::new(area.x + bit.x, area.y + bit.y);
                    refresh(tile);
                    around.for_each(tile, &mut refresh);
                });
            }
            (ChangedTiles::All(_), false) => unreachable!("all is set for every tile"),
        }
        drop(refresh);
        match changed {
            ChangedTiles::Changed { area, mut bits } => {
                let flips = differs(&self.edge, &self.shown);
                for (word, flip) in bits.words_mut().iter_mut().zip(flips) {
                    *word |= flip;
                }
                ChangedTiles::Changed { area, bits }
            }
            every => every,
        }
    }

    /// Refreshes the edge bit of one tile, for `team`.
    fn refresher<'a>(
        &'a mut self,
        team: &'a TeamFog,
        around: &'a Neighbourhood,
    ) -> impl FnMut(TilePos) + 'a {
        let (area, edge) = (self.area, &mut self.edge);
        move |tile: TilePos| {
            if area.contains(tile.x, tile.y) {
                edge.set_to(
                    tile.y - area.y,
                    tile.x - area.x,
                    at_edge(team, around, tile),
                );
            }
        }
    }

    /// The tiles now show the edge.
    pub(super) fn mark_shown(&mut self) {
        self.shown.clone_from(&self.edge);
    }

    /// Sizes the edge like `fog`; returns whether it was laid out anew (the tiles then show
    /// nothing of it).
    fn fit(&mut self, fog: &FogOfWar) -> bool {
        let size = fog.size();
        let same = (self.edge.rows(), self.edge.bits_per_row()) == (size.y, size.x);
        if self.area == fog.area() && same {
            return false;
        }
        self.area = fog.area();
        self.edge.reset(size.y, size.x);
        self.shown.reset(size.y, size.x);
        true
    }
}

/// Whether `tile` is not seen now by `team` but one of its neighbours is.
fn at_edge(team: &TeamFog, around: &Neighbourhood, tile: TilePos) -> bool {
    if team.is_visible(tile) {
        return false;
    }
    let mut seen_next = false;
    around.for_each(tile, |n| seen_next |= team.is_visible(n));
    seen_next
}
