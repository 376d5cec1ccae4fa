//! [`TeamView`]: a team's fog of war on one map (what it sees now and what it has explored),
//! kept by the server on an entity of its own and replicated to the clients of that team only,
//! so that a client draws its own fog without ever receiving another team's.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_replicon::prelude::{AppRuleExt, Replicated};
use bevy_replicon::server::visibility::client_visibility::ClientVisibility;
use bevy_replicon::server::visibility::filters_mask::FilterBit;
use serde::{Deserialize, Serialize};

use super::ClientTeam;
use super::sight::SightBit;
use super::wire::{runs, words};
use crate::fog::{FogOfWar, FogState, Team, TeamFog};
use viewshed_core::bits::{WORD_BITS, words_for};

/// One team's fog of war on one map, as its clients receive it: read
/// [`state`](Self::state) for each tile to draw it. The server spawns one per map and team
/// (with `Replicated`) and replicates it only to the clients whose [`ClientTeam`] is that team;
/// it changes when the team's view does (the whole component is sent, each plane as the
/// lengths of its runs of equal tiles).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "TeamViewWire", try_from = "TeamViewWire")]
pub struct TeamView {
    team: Team,
    width: u32,
    height: u32,
    /// Row after row, `words_for(width)` words per row.
    visible: Vec<u64>,
    explored: Vec<u64>,
}

/// A [`TeamView`] as it is sent.
#[derive(Serialize, Deserialize)]
struct TeamViewWire {
    team: Team,
    width: u32,
    height: u32,
    /// Alternate runs of tiles not seen and seen, starting with the former (maybe empty).
    visible: Vec<u32>,
    /// The same for explored tiles.
    explored: Vec<u32>,
}

impl From<TeamView> for TeamViewWire {
    fn from(view: TeamView) -> Self {
        Self {
            team: view.team,
            width: view.width,
            height: view.height,
            visible: runs(&view.visible, view.width, view.height),
            explored: runs(&view.explored, view.width, view.height),
        }
    }
}

impl TryFrom<TeamViewWire> for TeamView {
    type Error = String;

    fn try_from(wire: TeamViewWire) -> Result<Self, String> {
        let (width, height) = (wire.width, wire.height);
        Ok(Self {
            team: wire.team,
            width,
            height,
            visible: words(&wire.visible, width, height)?,
            explored: words(&wire.explored, width, height)?,
        })
    }
}

impl TeamView {
    fn of(team: Team, fog: &TeamFog) -> Self {
        let size = fog.size();
        Self {
            team,
            width: size.x,
            height: size.y,
            visible: fog.visible.words().to_vec(),
            explored: fog.explored.words().to_vec(),
        }
    }

    /// The team whose view this is.
    pub fn team(&self) -> Team {
        self.team
    }

    /// The map's size in tiles.
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.width, self.height)
    }

    /// The state of `tile` for the team (tiles off the map, or missing from a malformed
    /// message, are unexplored).
    pub fn state(&self, tile: TilePos) -> FogState {
        if self.bit(&self.visible, tile) {
            FogState::Visible
        } else if self.bit(&self.explored, tile) {
            FogState::Remembered
        } else {
            FogState::Unexplored
        }
    }

    fn bit(&self, words: &[u64], tile: TilePos) -> bool {
        if tile.x >= self.width || tile.y >= self.height {
            return false;
        }
        let index = tile.y as usize * words_for(self.width) + tile.x as usize / WORD_BITS;
        words
            .get(index)
            .is_some_and(|word| word >> (tile.x as usize % WORD_BITS) & 1 != 0)
    }

    /// Copies the team's fog if it changed (its tiles, or only its size: a map that grows by a
    /// column may keep the same words).
    fn follow(&mut self, fog: &TeamFog) -> bool {
        let size = fog.size();
        let now = (fog.visible.words(), fog.explored.words());
        if (self.visible.as_slice(), self.explored.as_slice()) == now && self.size() == size {
            return false;
        }
        (self.width, self.height) = (size.x, size.y);
        self.visible.clear();
        self.visible.extend_from_slice(now.0);
        self.explored.clear();
        self.explored.extend_from_slice(now.1);
        true
    }
}

/// Registers the replication of [`TeamView`]. A client that draws its team's fog adds it, in
/// the same place among its replication rules as the server adds
/// [`ViewshedReplicationPlugin`](super::ViewshedReplicationPlugin) (which adds it too), so
/// that both sides have the same protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct TeamViewProtocolPlugin;

impl Plugin for TeamViewProtocolPlugin {
    fn build(&self, app: &mut App) {
        app.replicate::<TeamView>();
    }
}

/// The server's [`TeamView`] entities, by (root map, team).
#[derive(Resource, Default)]
pub(super) struct TeamViews(HashMap<(Entity, Team), Entity>);

impl TeamViews {
    /// Shows each view to the clients of its team only.
    pub(super) fn show_to(
        &self,
        visibility: &mut ClientVisibility,
        team: Option<Team>,
        bit: FilterBit,
    ) {
        for (&(_, view_team), &entity) in &self.0 {
            visibility.set(entity, bit, team == Some(view_team));
        }
    }
}

/// Keeps a [`TeamView`] entity per map and team in step with the map's [`FogOfWar`]: spawned
/// (shown to that team's clients only) when the team gets a fog, copied when it changes,
/// despawned when the map loses its fog.
pub(super) fn update_team_views(
    mut commands: Commands,
    fogs: Query<(Entity, &FogOfWar)>,
    mut views: Query<&mut TeamView>,
    mut index: ResMut<TeamViews>,
    mut clients: Query<(&mut ClientVisibility, Option<&ClientTeam>)>,
    bit: Res<SightBit>,
) {
    for (map, fog) in &fogs {
        for (team, team_fog) in fog.teams() {
            if let Some(mut view) = index
                .0
                .get(&(map, team))
                .and_then(|&e| views.get_mut(e).ok())
            {
                if view.bypass_change_detection().follow(team_fog) {
                    view.set_changed();
                }
                continue;
            }
            let entity = commands
                .spawn((Replicated, TeamView::of(team, team_fog)))
                .id();
            index.0.insert((map, team), entity);
            for (mut visibility, client_team) in &mut clients {
                visibility.set(entity, bit.0, client_team.map(|c| c.0) == Some(team));
            }
        }
    }
    index.0.retain(|&(map, team), &mut entity| {
        let kept = fogs.get(map).is_ok_and(|(_, fog)| fog.team(team).is_some());
        if !kept {
            // Shown to all as it goes, so that replicon sends its despawn to every client that
            // holds it, one hidden from it in this frame too (see `on_unmarked`).
            for (mut visibility, _) in &mut clients {
                visibility.set(entity, bit.0, true);
            }
            commands.entity(entity).despawn();
        }
        kept
    });
}
