//! The fog's update of each map: its team views gathered again when a member's view changed,
//! its explored memory, and the one list of what changed ([`FogChanges`]) that the later steps
//! read.

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use std::time::Duration;

use crate::fog::change_list::{FogChanges, MapChanges};
use crate::fog::past::FogPast;
use crate::fog::regrowth::FogRegrowth;
use crate::fog::seen_times::{SeenTimes, Updates};
use crate::fog::shared::{SharedVision, spectate_explored, spectate_visible};
use crate::fog::union::{Members, TeamUnion, gather_members};
use crate::fog::{DrawnTeam, DrawnTeamOverride, FogDirty, FogOfWar, RevealsFog, Team};
use crate::viewshed::{Viewshed, ViewshedUpdated};

/// A map as the fog updates it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct FogMap {
    entity: Entity,
    fog: &'static mut FogOfWar,
    past: &'static mut FogPast,
    times: &'static mut SeenTimes,
    drawn: Option<&'static DrawnTeamOverride>,
    regrowth: Option<&'static FogRegrowth>,
}

/// Which maps' team views must be gathered again, and what to gather them from.
#[derive(SystemParam)]
pub(super) struct TeamGathering<'w, 's> {
    dirty: ResMut<'w, FogDirty>,
    union: ResMut<'w, TeamUnion>,
    updated: MessageReader<'w, 's, ViewshedUpdated>,
    members: Members<'w, 's>,
    vision: Res<'w, SharedVision>,
    /// Members whose `Team` the game changed in place (an inserted one is marked by its
    /// observer).
    retinted: Query<'w, 's, &'static Viewshed, (With<RevealsFog>, Changed<Team>)>,
}

impl TeamGathering<'_, '_> {
    /// Marks the maps that a changed view of a member left or reached, and those of members
    /// that changed team. Most views stay on the map of the one before, so that one is not
    /// marked again.
    fn mark_changed(&mut self) {
        let mut last = None;
        let members = &self.members;
        for update in self.updated.read() {
            if !members.contains(update.viewer) {
                continue;
            }
            for map in [update.previous_map, update.map].into_iter().flatten() {
                if last != Some(map) {
                    self.dirty.mark(map);
                    last = Some(map);
                }
            }
        }
        for map in self.retinted.iter().filter_map(Viewshed::map) {
            self.dirty.mark(map);
        }
    }

    /// Gathers the team views of `map` into `fog` again if they must be (every map's when
    /// the shared vision changed), each receiver's with what its givers see; returns whether
    /// they were.
    fn rebuild(&mut self, map: Entity, fog: &mut FogOfWar) -> bool {
        if !self.dirty.take(map) && !self.vision.is_changed() {
            return false;
        }
        gather_members(map, fog.area(), &self.members, &self.union);
        self.union.merge_into(map, fog);
        self.vision.apply(fog);
        true
    }
}

/// Rebuilds the team views of the maps that need it, brings their memory up to date and lists
/// what changed, for the team drawn and for each team.
pub(super) fn update_fog(
    mut maps: Query<FogMap>,
    mut teams: TeamGathering,
    drawn: Res<DrawnTeam>,
    mut changes: ResMut<FogChanges>,
    time: Option<Res<Time>>,
    mut before: Local<Duration>,
) {
    let now = time.map_or(Duration::ZERO, |time| time.elapsed());
    let at = Updates {
        before: std::mem::replace(&mut *before, now),
        now,
    };
    changes.clear();
    teams.mark_changed();
    for mut map in &mut maps {
        if let Some(changed) = update_map(&mut map, &mut teams, drawn.0, at) {
            changes.insert(map.entity, changed);
        }
    }
    // Maps that no longer exist.
    teams.dirty.clear();
}

/// Updates one map's fog; returns what changed, `None` when nothing did.
fn update_map(
    map: &mut FogMapItem,
    teams: &mut TeamGathering,
    drawn: Team,
    at: Updates,
) -> Option<MapChanges> {
    let written_by_game = map.fog.is_changed();
    let rebuilt = teams.rebuild(map.entity, map.fog.bypass_change_detection());
    let team = map.drawn.map_or(drawn, |drawn| drawn.0);
    let switched = map.fog.drawn_team() != team;
    let fits = map.past.fits(&map.fog);
    if !rebuilt && !written_by_game && !switched && fits && map.regrowth.is_none() {
        return None;
    }
    let fog = map.fog.bypass_change_detection();
    fog.draw_team(team);
    spectate_visible(fog);
    fog.explore_visible();
    spectate_explored(fog);
    map.times.update(fog, &map.past, at);
    if let Some(regrowth) = map.regrowth {
        regrowth.grow_back(fog, &map.times, at.now);
    }
    let forgotten = fog.take_forgotten();
    let changes = map.past.changes_to(fog, forgotten);
    (!changes.is_empty()).then_some(changes)
}
