//! [`FogPlugin`]: the fog model's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;

use super::change_list::FogChanges;
use super::fogged_maps::{FogChunks, track_fog};
use super::knowledge::{TeamSightings, record_sightings};
use super::past::FogPast;
use super::radar::{RadarContacts, find_contacts};
use super::reveal::{expire_reveals, follow_parents};
use super::seen_times::SeenTimes;
use super::sight::{TeamSight, on_cloak_changed, on_findable_gone, update_team_sight};
use super::team::rebuild_team_views;
use super::union::TeamUnion;
use super::update::update_fog;
use super::{
    Cloaked, Detector, DrawnTeam, DrawnTeamOverride, FogDirty, FogOfWar, FogRegrowth, FogState,
    Radar, Reveal, RevealsFog, SharedVision, Team, WorldMemory,
};
use crate::placement::placed::{Findable, place_entities};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};
use crate::viewshed::Viewshed;

/// The fog of war's model: a [`FogOfWar`] on every map with each team's view (the union of its
/// [`RevealsFog`] members' views) and explored memory, a world's chunks that go remembered in
/// its [`WorldMemory`], and the list of what changed that the later steps read. Its systems
/// run in [`ViewshedStepSystems::Fog`], from the views that
/// [`ViewshedUpdated`](crate::ViewshedUpdated) names. It draws nothing: the drawing
/// ([`FogDrawPlugin`](crate::draw::FogDrawPlugin)) and the ghosts
/// ([`GhostsPlugin`](crate::ghosts::GhostsPlugin)) read it. A game without fog of war can
/// leave the three out of [`ViewshedPlugins`](crate::ViewshedPlugins); the replicon
/// integration needs this one.
#[derive(Debug, Clone, Copy, Default)]
pub struct FogPlugin;

impl Plugin for FogPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FogChanges>()
            .init_resource::<FogDirty>()
            .init_resource::<TeamUnion>()
            .init_resource::<TeamSight>()
            .init_resource::<DrawnTeam>()
            .init_resource::<SharedVision>()
            .init_resource::<TeamSightings>()
            .register_type::<SharedVision>()
            .register_type::<Reveal>()
            .register_type::<Radar>()
            .register_type::<RadarContacts>()
            .register_type::<Cloaked>()
            .register_type::<Detector>()
            .register_type::<FogRegrowth>()
            .register_type::<Team>()
            .register_type::<DrawnTeam>()
            .register_type::<DrawnTeamOverride>()
            .register_type::<FogOfWar>()
            .register_type::<RevealsFog>()
            .register_type::<FogState>()
            .register_type::<WorldMemory>();
        app.register_required_components::<FogOfWar, FogPast>()
            .register_required_components::<FogOfWar, FogChunks>()
            .register_required_components::<FogOfWar, SeenTimes>()
            .register_required_components::<FogOfWar, RadarContacts>();
        app.add_systems(
            ViewshedSchedule,
            (
                expire_reveals,
                track_fog,
                update_fog,
                update_team_sight,
                record_sightings,
                find_contacts,
            )
                .chain()
                .in_set(ViewshedStepSystems::Fog),
        );
        // A child reveal stands where its parent stands, before the entities are placed.
        app.add_systems(
            ViewshedSchedule,
            follow_parents
                .in_set(ViewshedStepSystems::Placement)
                .before(place_entities),
        );
        // Team membership changes rebuild the team views of the map concerned.
        app.add_observer(rebuild_team_views::<Remove, RevealsFog, ()>)
            .add_observer(rebuild_team_views::<Discard, Viewshed, With<RevealsFog>>)
            .add_observer(rebuild_team_views::<Add, RevealsFog, ()>)
            .add_observer(rebuild_team_views::<Insert, Team, With<RevealsFog>>)
            .add_observer(rebuild_team_views::<Remove, Team, With<RevealsFog>>)
            .add_observer(rebuild_team_views::<Add, Disabled, With<RevealsFog>>)
            .add_observer(rebuild_team_views::<Add, Detector, ()>)
            .add_observer(rebuild_team_views::<Remove, Detector, ()>);
        // Findable entities that go: each team that saw one stops seeing it.
        app.add_observer(on_findable_gone::<Add, Disabled>)
            .add_observer(on_findable_gone::<Remove, Findable>);
        // Cloaked or uncloaked: judged again.
        app.add_observer(on_cloak_changed::<Add>)
            .add_observer(on_cloak_changed::<Remove>);
    }
}
