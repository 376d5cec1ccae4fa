//! [`TeamView`]: a team's fog of war on one map (what it sees now and what it has explored),
//! kept by the server on an entity of its own and replicated to the clients of that team only,
//! so that a client draws its own fog without ever receiving another team's. It is replicated
//! with replicon's diff replication: whole when a client first gets it, then as the changes of
//! each server frame since the one the client acknowledged ([`TeamViewChange`]).

use std::sync::Mutex;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_replicon::prelude::{AppRuleExt, Replicated};
use bevy_replicon::server::visibility::client_visibility::ClientVisibility;
use bevy_replicon::server::visibility::filters_mask::FilterBit;
use bevy_replicon::shared::replication::diff::{Diffable, EntityCommandsDiffExt};
use serde::{Deserialize, Serialize};

use super::ClientTeam;
use super::sight::SightBit;
use super::wire::{MOST_TILES, decode, encode, flip_runs, runs};
use crate::fog::{FogOfWar, FogState, RadarContacts, Team, TeamFog};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// One team's fog of war on one map, as its clients receive it: read
/// [`state`](Self::state) for each tile to draw it. The server spawns one per map and team
/// (with `Replicated`) and replicates it only to the clients whose [`ClientTeam`] is that team.
/// A client gets it whole when it first may see it (it joins, comes back, or its team
/// changes); after that, only what changed in each server frame ([`TeamViewChange`]), which
/// replicon resends until the client acknowledges it, and sends whole again if the client fell
/// too far behind. A client therefore always holds the team's fog as of some server frame,
/// and the latest one once messages get through.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "TeamViewWire", try_from = "TeamViewWire")]
pub struct TeamView {
    team: Team,
    /// The map's tiles: tile `(area.x + x, area.y + y)` is row `y`, bit `x` of the planes.
    area: Window,
    visible: BitRows,
    explored: BitRows,
}

/// A [`TeamView`] as it is sent whole: its planes as `wire.rs` writes them.
#[derive(Serialize, Deserialize)]
struct TeamViewWire {
    team: Team,
    area: (u32, u32, u32, u32),
    visible: Vec<u8>,
    explored: Vec<u8>,
}

impl From<TeamView> for TeamViewWire {
    fn from(view: TeamView) -> Self {
        let area = view.area;
        let mut found = Vec::new();
        let mut plane = |rows: &BitRows| {
            runs(area.width, area.height, |i| rows.words()[i], &mut found);
            let mut bytes = Vec::new();
            encode(&found, &mut bytes);
            bytes
        };
        Self {
            team: view.team,
            area: (area.x, area.y, area.width, area.height),
            visible: plane(&view.visible),
            explored: plane(&view.explored),
        }
    }
}

impl TryFrom<TeamViewWire> for TeamView {
    type Error = String;

    fn try_from(wire: TeamViewWire) -> Result<Self, String> {
        let (x, y, width, height) = wire.area;
        let area = Window {
            x,
            y,
            width,
            height,
        };
        let tiles = u64::from(width) * u64::from(height);
        if tiles > MOST_TILES {
            return Err(format!(
                "a team view of {width}x{height} tiles is too large"
            ));
        }
        let mut found = Vec::new();
        let mut plane = |bytes: &[u8]| -> Result<BitRows, String> {
            let rest = decode(bytes, tiles, &mut found)?;
            if !rest.is_empty() {
                return Err("a team view's plane runs on".into());
            }
            let mut rows = BitRows::new(height, width);
            flip_runs(&found, width, rows.words_mut());
            Ok(rows)
        };
        Ok(Self {
            team: wire.team,
            area,
            visible: plane(&wire.visible)?,
            explored: plane(&wire.explored)?,
        })
    }
}

/// What changed in a [`TeamView`] in one server frame, as it travels: the tiles whose
/// "seen now" flipped, and the tiles whose "explored" is not what it was with the tiles seen
/// now added (none, unless the game changed the team's memory), each as a plane of runs of
/// flipped and unchanged tiles. A frame in which one viewer steps costs its team's clients a
/// few dozen bytes; one malformed is an error on the client, which keeps its view.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TeamViewChange {
    visible: Vec<u8>,
    explored: Vec<u8>,
    /// On the server, the planes after the change, taken by the one `apply_diff` that follows
    /// there, so that the server copies them instead of decoding what it has just encoded;
    /// never sent (a client decodes). In the 10,000-unit, 16-team server of
    /// `benches/replicon.rs`, decoding cost 39 million instructions a frame
    /// (`frame_instructions replicon-large-fog 10000 2` under callgrind), and
    /// `client_sight_only` went from 10.6 ms to 8.9 ms without it.
    #[serde(skip)]
    after: Mutex<Option<Box<(BitRows, BitRows)>>>,
}

impl Clone for TeamViewChange {
    /// The change as it travels (without the server's planes).
    fn clone(&self) -> Self {
        Self {
            visible: self.visible.clone(),
            explored: self.explored.clone(),
            after: Mutex::default(),
        }
    }
}

impl PartialEq for TeamViewChange {
    /// The same change as it travels.
    fn eq(&self, other: &Self) -> bool {
        (&self.visible, &self.explored) == (&other.visible, &other.explored)
    }
}

impl Eq for TeamViewChange {}

impl Diffable for TeamView {
    type Diff = TeamViewChange;
    /// The changes kept for clients that have not acknowledged them (replicon's default, about
    /// a second at 60 frames a second); a client further behind gets the view whole.
    const HISTORY_LEN: usize = 64;

    fn apply_diff(&mut self, change: &TeamViewChange) -> Result<()> {
        let after = change.after.lock().ok().and_then(|mut after| after.take());
        if let Some(after) = after {
            (self.visible, self.explored) = *after;
            return Ok(());
        }
        let (width, height) = (self.area.width, self.area.height);
        let tiles = u64::from(width) * u64::from(height);
        let (mut seen, mut explored) = (Vec::new(), Vec::new());
        let rest = decode(&change.visible, tiles, &mut seen)?;
        let rest_explored = decode(&change.explored, tiles, &mut explored)?;
        if !rest.is_empty() || !rest_explored.is_empty() {
            return Err("a team view's change runs on".into());
        }
        flip_runs(&seen, width, self.visible.words_mut());
        for (explored, &visible) in self
            .explored
            .words_mut()
            .iter_mut()
            .zip(self.visible.words())
        {
            *explored |= visible;
        }
        flip_runs(&explored, width, self.explored.words_mut());
        Ok(())
    }
}

/// How a [`TeamView`] follows its team's fog in a frame.
enum Follow {
    /// Nothing changed.
    Same,
    /// These tiles changed.
    Change(TeamViewChange),
    /// The map's area changed: the view is sent whole.
    Whole,
}

impl TeamView {
    fn of(team: Team, fog: &TeamFog) -> Self {
        Self {
            team,
            area: fog.area(),
            visible: fog.visible_rows().clone(),
            explored: fog.explored_rows().clone(),
        }
    }

    /// The team whose view this is.
    pub fn team(&self) -> Team {
        self.team
    }

    /// The map's tiles, in the coordinates [`state`](Self::state) takes: `(0, 0)` and its size
    /// for a tilemap, the rectangle around its chunks for a [`WorldMap`](crate::WorldMap)
    /// (whose tiles are numbered from [`WORLD_ORIGIN`](crate::WORLD_ORIGIN)), as
    /// [`FogOfWar::area`] on the server.
    pub fn area(&self) -> Window {
        self.area
    }

    /// The map's size in tiles (of its area).
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.area.width, self.area.height)
    }

    /// The state of `tile` (map coordinates, see [`area`](Self::area)) for the team; tiles
    /// off the map are unexplored.
    pub fn state(&self, tile: TilePos) -> FogState {
        let area = self.area;
        if !area.contains(tile.x, tile.y) {
            return FogState::Unexplored;
        }
        let (row, bit) = (tile.y - area.y, tile.x - area.x);
        if self.visible.get(row, bit) {
            FogState::Visible
        } else if self.explored.get(row, bit) {
            FogState::Remembered
        } else {
            FogState::Unexplored
        }
    }

    /// What changed between this view and the team's fog now (`runs`: scratch).
    fn follow(&self, fog: &TeamFog, found: &mut Vec<u32>) -> Follow {
        let (area, now) = (fog.area(), (fog.visible_rows(), fog.explored_rows()));
        if area != self.area || now.0.stride() != self.visible.stride() {
            return Follow::Whole;
        }
        if (&self.visible, &self.explored) == now {
            return Follow::Same;
        }
        let (was_seen, was_explored) = (self.visible.words(), self.explored.words());
        let (seen, explored) = (now.0.words(), now.1.words());
        let mut change = TeamViewChange::default();
        runs(area.width, area.height, |i| was_seen[i] ^ seen[i], found);
        encode(found, &mut change.visible);
        let surprise = |i: usize| explored[i] ^ (was_explored[i] | seen[i]);
        runs(area.width, area.height, surprise, found);
        encode(found, &mut change.explored);
        change.after = Mutex::new(Some(Box::new((now.0.clone(), now.1.clone()))));
        Follow::Change(change)
    }
}

/// A team's radar contacts on one map ([`RadarContacts::of`] on the server), on the entity
/// of its [`TeamView`] there, so it reaches that team's clients only: tiles, never the
/// entities found.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamContacts(Vec<(u32, u32)>);

impl TeamContacts {
    /// The tiles of the contacts, as [`RadarContacts::of`] lists them.
    pub fn tiles(&self) -> impl ExactSizeIterator<Item = TilePos> + '_ {
        self.0.iter().map(|&(x, y)| TilePos::new(x, y))
    }

    fn of(contacts: Option<&RadarContacts>, team: Team) -> Self {
        Self(Self::tiles_of(contacts, team).map(|t| (t.x, t.y)).collect())
    }

    /// `team`'s contacts on a map with `contacts`.
    fn tiles_of(contacts: Option<&RadarContacts>, team: Team) -> impl Iterator<Item = &TilePos> {
        contacts
            .map_or(&[][..], |contacts| contacts.of(team))
            .iter()
    }

    /// Becomes `team`'s contacts, written (and sent) only when they differ.
    fn follow(this: &mut Mut<Self>, contacts: Option<&RadarContacts>, team: Team) {
        let same = this
            .0
            .iter()
            .copied()
            .eq(Self::tiles_of(contacts, team).map(|t| (t.x, t.y)));
        if !same {
            **this = Self::of(contacts, team);
        }
    }
}

/// Registers the replication of [`TeamView`]. A client that draws its team's fog adds it, in
/// the same place among its replication rules as the server adds
/// [`ViewshedReplicationPlugin`](super::ViewshedReplicationPlugin) (which adds it too), so
/// that both sides have the same protocol. With the `lightyear` feature, it also drops on a
/// client the server's messages that reach it after its connection has closed, which lightyear
/// 0.30 would otherwise apply to the next connection.
#[derive(Debug, Clone, Copy, Default)]
pub struct TeamViewProtocolPlugin;

impl Plugin for TeamViewProtocolPlugin {
    fn build(&self, app: &mut App) {
        app.replicate_diff::<TeamView>()
            .replicate::<TeamContacts>()
            .replicate::<super::ClientGhost>();
        #[cfg(feature = "lightyear")]
        super::closed_session::add_closed_session_guard(app);
    }
}

/// The server's [`TeamView`] entities, by (root map, team).
#[derive(Resource, Default)]
pub(super) struct TeamViewIndex(HashMap<(Entity, Team), Entity>);

impl TeamViewIndex {
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
/// (shown to that team's clients only) when the team gets a fog, changed by the tiles that
/// changed (written whole when the map's area changed), despawned when the map loses its fog.
pub(super) fn update_team_views(
    mut commands: Commands,
    fogs: Query<(Entity, &FogOfWar, Option<&RadarContacts>)>,
    mut views: Query<(&mut TeamView, &mut TeamContacts)>,
    mut index: ResMut<TeamViewIndex>,
    mut clients: Query<(&mut ClientVisibility, Option<&ClientTeam>)>,
    bit: Res<SightBit>,
) {
    let mut found = Vec::new();
    for (map, fog, radar) in &fogs {
        for (team, team_fog) in fog.teams() {
            if let Some(&entity) = index.0.get(&(map, team))
                && let Ok((mut view, mut contacts)) = views.get_mut(entity)
            {
                TeamContacts::follow(&mut contacts, radar, team);
                // A change goes through replicon's diff API, which keeps it for the clients
                // that have not acknowledged it; a whole view written over it is sent whole.
                match view.follow(team_fog, &mut found) {
                    Follow::Same => {}
                    Follow::Change(change) => {
                        commands.entity(entity).apply_diff::<TeamView>(change);
                    }
                    Follow::Whole => *view = TeamView::of(team, team_fog),
                }
                continue;
            }
            let entity = commands
                .spawn((
                    Replicated,
                    TeamView::of(team, team_fog),
                    TeamContacts::of(radar, team),
                ))
                .id();
            index.0.insert((map, team), entity);
            for (mut visibility, client_team) in &mut clients {
                visibility.set(entity, bit.0, client_team.map(|c| c.0) == Some(team));
            }
        }
    }
    index.0.retain(|&(map, team), &mut entity| {
        let kept = fogs
            .get(map)
            .is_ok_and(|(_, fog, _)| fog.team(team).is_some());
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
