//! Soft edges: which tiles not seen now border the view of the team drawn (for
//! [`SoftEdge`](crate::SoftEdge) looks), kept up to date around the tiles whose visibility
//! changed.

use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::model::{TilesToWrite, differs, for_each_set_bit};
use crate::fog::neighbours::Neighbourhood;
use crate::fog::shown::FogShown;
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

impl FogShown {
    /// Brings the edge up to date for `fog`'s team drawn: every tile when `all` (or the map
    /// must be rewritten anyway), else only the tiles whose visibility differs from what the
    /// tiles show, and their neighbours (the only tiles whose neighbourhood changed).
    pub(super) fn update_edges(&mut self, fog: &FogOfWar, all: bool, around: &Neighbourhood) {
        let Some(team) = fog.team(fog.drawn_team()) else {
            return;
        };
        self.fit(fog);
        let all = all || self.must_write_all(fog);
        let (shown, edge, area) = (&self.visible, &mut self.edge, self.area);
        let changed = differs(&team.visible, shown);
        let mut refresh = |tile: TilePos| {
            if area.contains(tile.x, tile.y) {
                let edged = at_edge(team, around, tile);
                edge.set_to(tile.y - area.y, tile.x - area.x, edged);
            }
        };
        if all {
            return TilesToWrite::All(area).for_each(refresh);
        }
        for_each_set_bit(team.visible.stride(), changed, |bit| {
            let tile = TilePos::new(area.x + bit.x, area.y + bit.y);
            refresh(tile);
            around.for_each(tile, &mut refresh);
        });
    }
}
