//! Ghosts for clients: a [`ReplicatesGhost`] entity that a team stops seeing leaves, on the
//! clients of that team, a stand-in entity of its own with a [`ClientGhost`] (where the
//! team's [`LastSeen`] puts it) and copies of the components the game chose
//! ([`GhostAppExt::ghost_keeps`]) as the team last saw them. The stand-in is made once and
//! never changes with the entity (only if the team's ghost moves), so a client learns nothing
//! of the entity while its team does not see it; it goes when the team's ghost goes (the team
//! sees its tile without the entity, or sees the entity).
//!
//! A stand-in rather than the entity itself kept on the client (replicon's
//! `ScopeLifetime::AfterFirstVisibility`): a frozen entity holds what last reached the client,
//! which after a lost message is older than what the team saw, and could only be despawned
//! by a message of our own once the entity is gone from the server; nor could a client that
//! joins later receive it without its current state. A stand-in is an ordinary replicated
//! entity: sent whole to whoever joins the team, reliably spawned and despawned.

use std::time::Duration;

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_replicon::prelude::Replicated;
use bevy_replicon::server::visibility::client_visibility::ClientVisibility;
use bevy_replicon::server::visibility::filters_mask::FilterBit;
use serde::{Deserialize, Serialize};

use super::sight::{ClientSight, SightBit};
use super::{ClientTeam, ReplicatesWhenSeen, SightSteps};
use crate::fog::Team;
use crate::ghosts::{LastSeen, LeavesGhost};

/// Entities that leave ghosts on the clients.
type Marked = (With<ReplicatesGhost>, With<ReplicatesWhenSeen>);

/// Entities marked in this frame.
type NewlyMarked = Or<(Added<ReplicatesGhost>, Added<ReplicatesWhenSeen>)>;

/// Marked entities whose `C` changed, or marked anew.
type ChangedOrNew<C> = (
    With<ReplicatesGhost>,
    Or<(Changed<C>, Added<ReplicatesGhost>)>,
);

/// Marks a [`ReplicatesWhenSeen`] entity (a monster, an enemy unit) to leave a ghost on the
/// clients of each team that stops seeing it, as [`LeavesGhost`] does on one screen (and by
/// its rules: it requires it): a stand-in entity with a [`ClientGhost`] and copies of the
/// components registered with [`GhostAppExt::ghost_keeps`], as the team last saw them. Mark
/// the entity when it is spawned.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::replicon::ReplicatesGhost;
/// # fn spawn(mut commands: Commands, map: Entity) {
/// // On the server: an orc the clients of a team remember where their team last saw it.
/// commands.spawn((ReplicatesGhost, TilePos { x: 4, y: 2 }, TilemapId(map)));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(ReplicatesWhenSeen, LeavesGhost)]
#[type_path = "bevy_viewshed::replicon"]
pub struct ReplicatesGhost;

/// On a client: the ghost of an entity its team saw and does not see now, on a stand-in entity
/// the server made for it (the entity itself is not on the client). The stand-in also holds
/// the components the server's game chose ([`GhostAppExt::ghost_keeps`]) as the team last saw
/// them, and nothing later: it does not change while the entity moves unseen, and goes when
/// the team sees the ghost's tile without the entity, or sees the entity (which is then
/// replicated itself).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "GhostWire", from = "GhostWire")]
pub struct ClientGhost {
    /// Where the team last saw the entity, or the neighbouring tile it stepped to out of view
    /// ([`LeavesGhost`]'s rules), in map coordinates (as [`TeamView::state`] takes them).
    ///
    /// [`TeamView::state`]: super::TeamView::state
    pub tile: TilePos,
    /// The server's `Time::elapsed` of the frame the team last saw it.
    pub seen_at: Duration,
}

/// A [`ClientGhost`] as it is sent.
#[derive(Serialize, Deserialize)]
struct GhostWire {
    x: u32,
    y: u32,
    seen_at: Duration,
}

impl From<ClientGhost> for GhostWire {
    fn from(ghost: ClientGhost) -> Self {
        Self {
            x: ghost.tile.x,
            y: ghost.tile.y,
            seen_at: ghost.seen_at,
        }
    }
}

impl From<GhostWire> for ClientGhost {
    fn from(wire: GhostWire) -> Self {
        Self {
            tile: TilePos::new(wire.x, wire.y),
            seen_at: wire.seen_at,
        }
    }
}

/// Registers, on the server, a component that the stand-ins of [`ReplicatesGhost`] entities
/// copy: as the entity had it in the last frame its team saw it. The game replicates it as
/// usual (`app.replicate::<C>()` on both sides), so its clients receive it on the entities
/// they see and on the ghosts.
pub trait GhostAppExt {
    /// Stand-ins copy `C` from their entity (see the [trait docs](GhostAppExt)).
    fn ghost_keeps<C: Component + Clone>(&mut self) -> &mut Self;
}

impl GhostAppExt for App {
    fn ghost_keeps<C: Component + Clone>(&mut self) -> &mut Self {
        self.init_resource::<SentCopies<C>>().add_systems(
            PostUpdate,
            (
                copy_into_stand_ins::<C>.in_set(SightSteps::Copy),
                remember_sent::<C>.in_set(SightSteps::Remember),
            ),
        )
    }
}

/// Each [`ReplicatesGhost`] entity's `C` as of the end of the last frame's
/// `ClientSightSystems`: what a team that stops seeing it in this frame last saw.
#[derive(Resource)]
struct SentCopies<C: Component>(EntityHashMap<C>);

impl<C: Component> Default for SentCopies<C> {
    fn default() -> Self {
        Self(EntityHashMap::default())
    }
}

/// One team's stand-in of one entity.
#[derive(Clone, Copy, Debug, PartialEq)]
struct StandIn {
    entity: Entity,
    ghost: ClientGhost,
}

/// The stand-ins on the server, and which entities leave them.
#[derive(Resource, Default)]
pub(super) struct ClientGhosts {
    stand_ins: HashMap<(Team, Entity), StandIn>,
    /// The marked entities, and those marked at the end of the last update (one despawned
    /// since leaves ghosts of that frame).
    ghostable: EntityHashSet,
    /// The stand-ins made in this update, with their entity: the copies go into them.
    made: Vec<(Entity, Entity)>,
}

impl ClientGhosts {
    /// Shows each stand-in to the clients of its team only.
    pub(super) fn show_to(
        &self,
        visibility: &mut ClientVisibility,
        team: Option<Team>,
        bit: FilterBit,
    ) {
        for (&(ghost_team, _), stand_in) in &self.stand_ins {
            visibility.set(stand_in.entity, bit, team == Some(ghost_team));
        }
    }

    /// The ghosts the stand-ins must show: those of every map's [`LastSeen`] whose entity is
    /// marked (or was, and is gone with its stand-in) and not seen by the team (its own).
    fn wanted<'a>(
        &self,
        maps: impl Iterator<Item = &'a LastSeen>,
        alive: impl Fn(Entity) -> bool,
        sight: &ClientSight,
    ) -> HashMap<(Team, Entity), ClientGhost> {
        let mut wanted = HashMap::default();
        for last_seen in maps {
            for (team, ghost) in last_seen.every_ghost() {
                let key = (team, ghost.entity);
                let leaves = self.ghostable.contains(&ghost.entity)
                    || (self.stand_ins.contains_key(&key) && !alive(ghost.entity));
                if leaves && !sight.sees(team, ghost.entity) {
                    let (tile, seen_at) = (ghost.tile, ghost.seen_at);
                    wanted.insert(key, ClientGhost { tile, seen_at });
                }
            }
        }
        wanted
    }
}

/// The clients' visibility of the stand-ins, and the sight bit.
type Clients<'w, 's> = Query<'w, 's, (&'static mut ClientVisibility, Option<&'static ClientTeam>)>;

/// Keeps a stand-in for each ghost a team's clients must hold: made (shown to that team's
/// clients only) when the ghost appears, moved with it, despawned when it goes.
#[allow(clippy::too_many_arguments)]
pub(super) fn update_client_ghosts(
    mut commands: Commands,
    maps: Query<&LastSeen>,
    marked: Query<(), (Marked, Allow<Disabled>)>,
    newly: Query<Entity, (Marked, NewlyMarked)>,
    mut unmarked: (
        RemovedComponents<ReplicatesGhost>,
        RemovedComponents<ReplicatesWhenSeen>,
    ),
    entities: &bevy::ecs::entity::Entities,
    (sight, mut ghosts): (Res<ClientSight>, ResMut<ClientGhosts>),
    (mut clients, bit): (Clients, Res<SightBit>),
) {
    ghosts.made.clear();
    ghosts.ghostable.extend(&newly);
    let wanted = ghosts.wanted(maps.iter(), |e| entities.contains_spawned(e), &sight);
    ghosts.drop_unwanted(&wanted, &mut clients, bit.0, &mut commands);
    ghosts.keep_wanted(wanted, &mut clients, bit.0, &mut commands);
    let (gone, unmarked) = &mut unmarked;
    for entity in gone.read().chain(unmarked.read()) {
        if !marked.contains(entity) {
            ghosts.ghostable.remove(&entity);
        }
    }
}

impl ClientGhosts {
    /// Despawns the stand-ins whose ghost is no longer wanted.
    fn drop_unwanted(
        &mut self,
        wanted: &HashMap<(Team, Entity), ClientGhost>,
        clients: &mut Clients,
        bit: FilterBit,
        commands: &mut Commands,
    ) {
        self.stand_ins.retain(|key, stand_in| {
            let kept = wanted.contains_key(key);
            if !kept {
                // Shown to all as it goes, so that replicon sends its despawn to every client that
                // holds it, one hidden from it in this frame too.
                for (mut visibility, _) in clients.iter_mut() {
                    visibility.set(stand_in.entity, bit, true);
                }
                commands.entity(stand_in.entity).despawn();
            }
            kept
        });
    }

    /// Makes a stand-in for each wanted ghost that has none (shown to its team's clients
    /// only), and moves those whose ghost changed.
    fn keep_wanted(
        &mut self,
        wanted: HashMap<(Team, Entity), ClientGhost>,
        clients: &mut Clients,
        bit: FilterBit,
        commands: &mut Commands,
    ) {
        for (key, ghost) in wanted {
            if let Some(stand_in) = self.stand_ins.get_mut(&key) {
                if stand_in.ghost != ghost {
                    stand_in.ghost = ghost;
                    commands.entity(stand_in.entity).insert(ghost);
                }
                continue;
            }
            let entity = commands.spawn((Replicated, ghost)).id();
            for (mut visibility, team) in clients.iter_mut() {
                visibility.set(entity, bit, team.map(|t| t.0) == Some(key.0));
            }
            self.stand_ins.insert(key, StandIn { entity, ghost });
            self.made.push((entity, key.1));
        }
    }
}

/// Puts into the stand-ins made in this update the `C` their entity had when their team last
/// saw it.
fn copy_into_stand_ins<C: Component + Clone>(
    mut commands: Commands,
    ghosts: Res<ClientGhosts>,
    copies: Res<SentCopies<C>>,
) {
    for &(stand_in, entity) in &ghosts.made {
        if let Some(copy) = copies.0.get(&entity) {
            commands.entity(stand_in).insert(copy.clone());
        }
    }
}

/// Keeps each marked entity's `C` as of this frame, for the stand-ins of the next.
fn remember_sent<C: Component + Clone>(
    changed: Query<(Entity, &C), ChangedOrNew<C>>,
    mut lost: RemovedComponents<C>,
    mut unmarked: RemovedComponents<ReplicatesGhost>,
    mut copies: ResMut<SentCopies<C>>,
) {
    for entity in lost.read().chain(unmarked.read()) {
        copies.0.remove(&entity);
    }
    for (entity, copy) in &changed {
        copies.0.insert(entity, copy.clone());
    }
}
