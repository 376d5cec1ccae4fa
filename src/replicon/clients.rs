//! The Bevy side of server-side fog of war: the system that brings [`ClientSight`] up to date
//! each frame and writes its changes into replicon's [`ClientVisibility`] of each client, and
//! the observers that keep clients right when they connect, change team, or when marked
//! entities appear, lose their mark or stop standing anywhere.

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::prelude::*;
use bevy_replicon::server::visibility::client_visibility::ClientVisibility;
use bevy_replicon::server::visibility::filters_mask::FilterBit;

use super::ghosts::ClientGhosts;
use super::sight::{ClientSight, Owner, SightBit};
use super::team_view::TeamViewIndex;
use super::{ClientTeam, ReplicatesWhenSeen};
use crate::fog::sight::TeamSight;
use crate::fog::{FogOfWar, RevealsFog, Team};

/// What names a marked entity's team.
type OwnerItem = (Option<&'static Team>, Has<RevealsFog>);

/// Marked entities that may have changed team or just been marked.
type Reowned = (
    With<ReplicatesWhenSeen>,
    Or<(Added<ReplicatesWhenSeen>, Changed<Team>, Added<RevealsFog>)>,
);

/// Brings what each team's clients may hold up to date (the team sight's changes, changed
/// owners) and tells the clients of each team what changed for it.
pub(super) fn update_client_sight(
    reowned: Query<Entity, Reowned>,
    marked: Query<OwnerItem, With<ReplicatesWhenSeen>>,
    team_sight: Res<TeamSight>,
    mut sight: ResMut<ClientSight>,
    mut clients: Query<(&mut ClientVisibility, Option<&ClientTeam>)>,
    bit: Res<SightBit>,
) {
    sight.recheck.extend(&reowned);
    let owner_of = |entity| marked.get(entity).ok().and_then(owner);
    sight.update(&team_sight, owner_of);
    apply_changes(&sight, &mut clients, bit.0);
}

/// Whose a marked entity is: its `Team`, or team 0 for a `RevealsFog` viewer without one (the
/// fog's rule), or nobody's.
fn owner((team, reveals): (Option<&Team>, bool)) -> Owner {
    team.copied().or(reveals.then_some(Team(0)))
}

/// Writes what changed for each team into the visibility of its clients (each client's on a
/// thread of its own: the verdicts are the team's, only the writing is per client).
fn apply_changes(
    sight: &ClientSight,
    clients: &mut Query<(&mut ClientVisibility, Option<&ClientTeam>)>,
    bit: FilterBit,
) {
    if !sight.changed() {
        return;
    }
    clients.par_iter_mut().for_each(|(mut visibility, team)| {
        let Some(&ClientTeam(team)) = team else {
            return;
        };
        for &(entity, visible) in sight.changes_of(team) {
            visibility.set(entity, bit, visible);
        }
    });
}

/// What a client of a team may see: the teams' sight, views and ghosts.
type Known<'w> = (
    Res<'w, ClientSight>,
    Res<'w, TeamViewIndex>,
    Res<'w, ClientGhosts>,
);

/// Sets a client's visibility of every marked entity to what its team sees, and of every team
/// view and ghost to its team's: none for a client without a team.
fn resync(visibility: &mut ClientVisibility, team: Option<Team>, known: &Known, bit: FilterBit) {
    let (sight, views, ghosts) = known;
    for entity in sight.entities() {
        let visible = team.is_some_and(|team| sight.sees(team, entity));
        visibility.set(entity, bit, visible);
    }
    views.show_to(visibility, team, bit);
    ghosts.show_to(visibility, team, bit);
}

/// A client was authorized (replicon inserted its `ClientVisibility`) or got a team: it sees
/// what its team sees, from now on.
pub(super) fn on_client_changed<C: Component>(
    event: On<Insert, C>,
    mut clients: Query<(&mut ClientVisibility, Option<&ClientTeam>)>,
    known: Known,
    bit: Res<SightBit>,
) {
    if let Ok((mut visibility, team)) = clients.get_mut(event.entity) {
        resync(&mut visibility, team.map(|t| t.0), &known, bit.0);
    }
}

/// A client whose team the game changed in place (`client_team.0 = Team(1)`, no insert) sees
/// what its new team sees, and that team's fog, from this update on. (An inserted `ClientTeam`
/// is dealt with at once by [`on_client_changed`]; meeting it here again changes nothing.)
pub(super) fn resync_changed_teams(
    mut clients: Query<(&mut ClientVisibility, &ClientTeam), Changed<ClientTeam>>,
    known: Known,
    bit: Res<SightBit>,
) {
    for (mut visibility, &ClientTeam(team)) in &mut clients {
        resync(&mut visibility, Some(team), &known, bit.0);
    }
}

/// While a client plays the spectator (`ClientTeam(Team::SPECTATOR)`), every map's fog keeps
/// the spectator's view, as `FogOfWar::team_mut(Team::SPECTATOR)` would: filled at the next
/// update and kept from then on, so a spectator client receives every team's sight without
/// the game keeping it. (Looking a map's fog up marks nothing changed.)
pub(super) fn keep_spectator_fogs(clients: Query<&ClientTeam>, mut fogs: Query<&mut FogOfWar>) {
    if !clients.iter().any(|team| team.0 == Team::SPECTATOR) {
        return;
    }
    for mut fog in &mut fogs {
        if fog.team(Team::SPECTATOR).is_none() {
            fog.team_mut(Team::SPECTATOR);
        }
    }
}

/// A client lost its team: it sees no marked entity.
pub(super) fn on_client_team_removed(
    event: On<Remove, ClientTeam>,
    mut clients: Query<&mut ClientVisibility>,
    known: Known,
    bit: Res<SightBit>,
) {
    if let Ok(mut visibility) = clients.get_mut(event.entity) {
        resync(&mut visibility, None, &known, bit.0);
    }
}

/// An entity was marked: hidden from every client until the next update places it.
pub(super) fn on_marked(
    event: On<Add, ReplicatesWhenSeen>,
    mut clients: Query<&mut ClientVisibility>,
    mut sight: ResMut<ClientSight>,
    bit: Res<SightBit>,
) {
    sight.add(event.entity);
    for mut visibility in &mut clients {
        visibility.set(event.entity, bit.0, false);
    }
}

/// An entity lost its mark: it is replicated to every client again (like any entity without
/// a visibility filter). A despawned one is shown too: replicon then sends its despawn to
/// every client that holds it, even one it was hidden from in this same frame (replicon skips
/// the despawn of an entity hidden at the time, and would leave it on that client for good).
pub(super) fn on_unmarked(
    event: On<Remove, ReplicatesWhenSeen>,
    mut clients: Query<&mut ClientVisibility>,
    mut sight: ResMut<ClientSight>,
    bit: Res<SightBit>,
) {
    sight.forget(event.entity);
    for mut visibility in &mut clients {
        visibility.set(event.entity, bit.0, true);
    }
}

/// A marked entity lost or got back something that places it or names its team (`C` is the
/// component of the lifecycle event `E`): it is placed again at the next update.
pub(super) fn recheck_marked<E: EntityEvent, C: Component>(
    event: On<E, C>,
    marked: Query<(), (With<ReplicatesWhenSeen>, Allow<Disabled>)>,
    mut sight: ResMut<ClientSight>,
) {
    let entity = event.event_target();
    if marked.contains(entity) {
        sight.recheck.insert(entity);
    }
}
