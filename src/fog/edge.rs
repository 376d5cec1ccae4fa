//! Soft edges: which tiles not seen now border the view of the team drawn (for
//! [`SoftEdge`](crate::SoftEdge) looks), kept up to date around the tiles whose visibility
//! changed.

use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::model::{TilesToWrite, differs, for_each_set_bit};
use crate::fog::neighbours::Neighbourhood;
use crate::fog::{FogOfWar, TeamFog};

/// Whether `tile` is not seen now by `team` but one of its neighbours is.
fn at_edge(team: &TeamFog, around: &Neighbourhood, tile: TilePos) -> bool {
    if team.is_visible(tile) {
        return false;
    }
    let mut seen_next = false;
    around.for_each(tile, |n| seen_next |= team.is_visible(n));
    seen_next
}

impl FogOfWar {
    /// Whether `tile` is not seen now by the team drawn but borders a tile that is (as of the
    /// last update of a map with a soft-edged layer).
    pub(super) fn is_edge(&self, tile: TilePos) -> bool {
        self.edge.get(tile.y, tile.x)
    }

    /// Brings the edge up to date for the team drawn: every tile when `all` (or the map must
    /// be rewritten anyway), else only the tiles whose visibility differs from what the tiles
    /// show, and their neighbours (the only tiles whose neighbourhood changed).
    pub(super) fn update_edges(&mut self, all: bool, around: &Neighbourhood) {
        let Some(team) = self.teams.get(&self.shown_team) else {
            return;
        };
        let edge = &mut self.edge;
        let mut refresh = |tile: TilePos| edge.set_to(tile.y, tile.x, at_edge(team, around, tile));
        if all || self.refresh_all {
            let (width, height) = (self.width, self.height);
            return TilesToWrite::All { width, height }.for_each(refresh);
        }
        let changed = differs(&team.visible, &self.shown_visible);
        for_each_set_bit(team.visible.stride(), changed, |tile| {
            refresh(tile);
            around.for_each(tile, &mut refresh);
        });
    }
}
