//! The fog's update of each map: its team views gathered again when a member's view changed,
//! its explored memory, the edge of the view, and the tiles whose look changed written into
//! its fog layers, for the team drawn.

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::fog::layers::{FogLayers, Frame};
use crate::fog::model::TilesToWrite;
use crate::fog::neighbours::Neighbourhood;
use crate::fog::shown::FogShown;
use crate::fog::union::{TeamUnion, gather_members};
use crate::fog::{DrawnTeam, DrawnTeamOverride, FogDirty, FogOfWar, RevealsFog, Team};
use crate::maps::map_opacity::MapOpacity;
use crate::viewshed::{Viewshed, ViewshedUpdated};

/// The maps whose fog the last update changed, and for each the tiles whose look (state or
/// edge, for the team drawn) changed: written by [`update_fog`] every frame, read by the later
/// systems of the fog (hiding entities, the smooth fog's textures, the minimaps, the remembered
/// terrain).
#[derive(Resource, Default)]
pub(crate) struct FogChanges(EntityHashMap<TilesToWrite>);

impl FogChanges {
    /// Each changed map and its changed tiles.
    pub(crate) fn maps(&self) -> impl Iterator<Item = (&Entity, &TilesToWrite)> {
        self.0.iter()
    }

    /// The tiles of `map` whose look changed, if its fog changed.
    pub(crate) fn of(&self, map: Entity) -> Option<&TilesToWrite> {
        self.0.get(&map)
    }
}

/// A map as the fog updates it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct FogMap {
    entity: Entity,
    fog: &'static mut FogOfWar,
    shown: &'static mut FogShown,
    opacity: Ref<'static, MapOpacity>,
    drawn: Option<&'static DrawnTeamOverride>,
}

/// The members whose views make each team's view.
type Members<'w, 's> = Query<'w, 's, (&'static Viewshed, Option<&'static Team>), With<RevealsFog>>;

/// Which maps' team views must be gathered again, and what to gather them from.
#[derive(SystemParam)]
pub(super) struct TeamViews<'w, 's> {
    dirty: ResMut<'w, FogDirty>,
    union: ResMut<'w, TeamUnion>,
    updated: MessageReader<'w, 's, ViewshedUpdated>,
    members: Members<'w, 's>,
    /// Members whose `Team` the game changed in place (an inserted one is marked by its
    /// observer).
    retinted: Query<'w, 's, &'static Viewshed, (With<RevealsFog>, Changed<Team>)>,
}

impl TeamViews<'_, '_> {
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

    /// Gathers the team views of `map` into `fog` again if they must be; returns whether they
    /// were.
    fn rebuild(&mut self, map: Entity, fog: &mut FogOfWar) -> bool {
        if !self.dirty.take(map) {
            return false;
        }
        gather_members(map, fog.area(), &self.members, &self.union);
        self.union.merge_into(map, fog);
        true
    }
}

/// Rebuilds the team views of the maps that need it and writes what changed into the fog
/// layers, for the team drawn.
pub(super) fn update_fog(
    mut maps: Query<FogMap>,
    mut teams: TeamViews,
    mut layers: FogLayers,
    drawn: Res<DrawnTeam>,
    mut changes: ResMut<FogChanges>,
) {
    changes.0.clear();
    teams.mark_changed();
    let frame = layers.frame();
    for mut map in &mut maps {
        if let Some(changed) = update_map(&mut map, &mut teams, &mut layers, (drawn.0, frame)) {
            changes.0.insert(map.entity, changed);
        }
    }
    // Maps that no longer exist.
    teams.dirty.clear();
}

/// Updates one map's fog and writes its layers; returns the tiles whose look changed, `None`
/// when nothing could have.
fn update_map(
    map: &mut FogMapItem,
    teams: &mut TeamViews,
    layers: &mut FogLayers,
    (drawn, frame): (Team, Frame),
) -> Option<TilesToWrite> {
    let written_by_game = map.fog.is_changed();
    let rebuilt = teams.rebuild(map.entity, map.fog.bypass_change_detection());
    let (mut restyled, soft) = layers.look_of(map.entity, frame);
    // A new grid is a new neighbourhood: every edge is worked out again (a map's opacity is
    // new when its type changes, and changes in every frame its walls do: compare the types).
    restyled |= map.shown.map_type != Some(map.opacity.map_type());
    map.shown.map_type = Some(map.opacity.map_type());
    let team = map.drawn.map_or(drawn, |drawn| drawn.0);
    let switched = map.fog.drawn_team != team;
    if !rebuilt && !written_by_game && !restyled && !switched {
        return None;
    }
    let fog = map.fog.bypass_change_detection();
    fog.draw_team(team);
    map.shown.fit(fog);
    for team in fog.teams.values_mut() {
        team.explore_visible();
    }
    if soft {
        let around = Neighbourhood::of(map.opacity.map_type(), fog.area());
        map.shown.update_edges(fog, restyled, &around);
    }
    let changed = map.shown.tiles_to_write(fog, false);
    layers.write(map.entity, (fog, &map.shown), &changed, frame);
    map.shown.mark_shown(fog);
    Some(changed)
}
