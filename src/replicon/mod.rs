//! Server-side fog of war for [bevy_replicon] (feature `replicon`): an entity marked
//! [`ReplicatesWhenSeen`] is replicated to a client only while the client's [`Team`] sees it,
//! and despawned on that client when the team loses sight of it. The server decides; a client
//! never receives what its team cannot see, so there is nothing to hack on its side.
//!
//! The server runs [`ViewshedPlugins`](crate::ViewshedPlugins), replicon's server and
//! [`ViewshedReplicationPlugin`]; a client runs replicon's client only. The rules:
//!
//! - **Binding clients to teams.** Each client's entity on the server (the one with
//!   replicon's `ConnectedClient`) gets a [`ClientTeam`], e.g. in an observer on
//!   `Add<ConnectedClient>` or when the client asks to join a team. A client without one sees
//!   no marked entity; a client whose `ClientTeam` changes (inserted anew or changed in place)
//!   sees what its new team sees, and no longer what its old team sees, from the next
//!   replication on.
//! - **What a team sees.** A team sees a marked entity when the entity stands on a tile of its
//!   view ([`FogOfWar::team`](crate::FogOfWar::team)`(team).is_visible(tile)`, the union of its
//!   [`RevealsFog`] members' viewsheds) on the root map of its tilemap. Entities stand where the
//!   plugin places everything: their `TilePos` + `TilemapId`, or under their `Transform` on
//!   their `TilemapId`.
//! - **Own team.** A marked entity that belongs to a team is always seen by that team, wherever
//!   it stands: it belongs to its [`Team`], or to team 0 if it is a [`RevealsFog`] viewer
//!   without one (the fog's own rule). So the players' own units, marked, are always
//!   replicated to their teammates and to the others only while seen.
//! - **Unmarked entities** are replicated as replicon would without this plugin (to every
//!   client, or as the game's own filters say). Removing `ReplicatesWhenSeen` from an entity
//!   makes it visible to every client again. [`HidesOutsideView`](crate::HidesOutsideView) is a
//!   separate, client-side matter (the team drawn on one screen) and implies nothing here.
//! - **Timing.** Visibility is decided in `PostUpdate`, after
//!   [`ViewshedSystems`] (the whole plugin) and before replicon's
//!   `ServerSystems::Send`: an entity spotted in a server frame is sent in that frame's
//!   replication, and one lost from sight is despawned on the client by it.
//!
//! **lightyear.** lightyear 0.30 replicates through bevy_replicon 0.44, so this plugin works
//! inside a lightyear server as it is (add it after lightyear's `ServerPlugins`; clients add
//! [`TeamViewProtocolPlugin`] after `ClientPlugins`, with this crate's `lightyear` feature, so
//! that a client never applies what its closed connection delivered late to its next one).
//! There a client is lightyear's link entity
//! on the server (`LinkOf`, then `ClientOf` + `Connected` with the client's `RemoteId`): give it
//! its `ClientTeam`, e.g. in an observer on `Add<Connected>`, and lightyear's
//! `ReplicationSender`. lightyear's rooms and replication targets are visibility bits of their
//! own: an entity reaches a client only if they and the client's team's sight all allow it.
//! lightyear replicates on fixed ticks: a client holds what its team saw at the last tick that
//! replicated. See `docs/lightyear.md` in the repository.
//!
//! The cost follows what changed, and each verdict is reached once per team, not per client:
//! marked entities that moved (or changed team) are placed again and judged for each team;
//! each team's view is compared with the one of the previous frame, and when it changed on a
//! map, the entities on that map are judged again (on all threads). Each verdict that changed
//! is written into the `ClientVisibility` of the clients of that team (replicon's own
//! per-client visibility, one bit registered with its `FilterRegistry`), so a frame in which
//! nothing moved writes nothing.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy::state::app::StatesPlugin;
//! use bevy_replicon::prelude::*;
//! use bevy_viewshed::prelude::*;
//! use bevy_viewshed::Team;
//! use bevy_viewshed::replicon::{ClientTeam, ReplicatesWhenSeen, ViewshedReplicationPlugin};
//!
//! let mut server = App::new();
//! server.add_plugins((
//!     MinimalPlugins,
//!     StatesPlugin,
//!     RepliconPlugins,
//!     ViewshedPlugins::default(),
//!     ViewshedReplicationPlugin,
//! ));
//! // Every client joins team 1 when it connects (a game would pick from a lobby).
//! server.add_observer(|connected: On<Add, ConnectedClient>, mut commands: Commands| {
//!     commands.entity(connected.entity).insert(ClientTeam(Team(1)));
//! });
//! server.finish();
//! // A monster replicated to a client only while the client's team sees it (spawn marked
//! // entities once the app is built: the plugin follows them from their `Add`).
//! server.world_mut().spawn(ReplicatesWhenSeen);
//! server.update();
//! ```
//!
//! | module | its job |
//! |---|---|
//! | this one | the marks (`ReplicatesWhenSeen`, `ClientTeam`), `ViewshedReplicationPlugin` and its systems |
//! | `sight` | what each team's clients may hold of the marked entities, kept from what changed |
//! | `clients` | the systems and observers that write each client's `ClientVisibility` from it |
//! | `team_view` | `TeamView`: each team's fog on a map, and its `TeamContacts`, replicated to its own clients only |
//! | `wire` | how a `TeamView`'s bit planes travel: runs of equal tiles, whole or a frame's changes |
//! | `ghosts` | `ReplicatesGhost` entities leave their clients a stand-in (`ClientGhost`) where last seen |
//! | `closed_session` | (feature `lightyear`) a client drops what reaches it after its connection closed |
//!
//! [bevy_replicon]: https://crates.io/crates/bevy_replicon

mod clients;
#[cfg(feature = "lightyear")]
mod closed_session;
mod ghosts;
mod sight;
mod team_view;
mod wire;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_replicon::prelude::{Replicated, ServerSystems};
use bevy_replicon::server::visibility::client_visibility::ClientVisibility;
use bevy_replicon::server::visibility::registry::FilterRegistry;
use bevy_replicon::shared::replication::registry::ReplicationRegistry;
use bevy_replicon::shared::replication::visibility::ScopeLifetime;

use crate::fog::{RevealsFog, Team};
use crate::schedule::ViewshedSystems;
use clients::{
    keep_spectator_fogs, on_client_changed, on_client_team_removed, on_marked, on_unmarked,
    recheck_marked, resync_changed_teams, update_client_sight,
};
pub use ghosts::{ClientGhost, GhostAppExt, ReplicatesGhost};
use ghosts::{ClientGhosts, update_client_ghosts};
use sight::{ClientSight, SightBit};
pub use team_view::{TeamContacts, TeamView, TeamViewChange, TeamViewProtocolPlugin};
use team_view::{TeamViewIndex, update_team_views};

/// Marks an entity (a monster, a unit, an item) on the server to be replicated to a client
/// only while the client's [`ClientTeam`] sees it (see the [module docs](self) for the rules).
/// It requires replicon's `Replicated`.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::replicon::{ClientTeam, ReplicatesWhenSeen};
/// # use bevy_viewshed::Team;
/// # fn spawn(mut commands: Commands, map: Entity, client: Entity) {
/// // On the server: a monster sent to a client only while the client's team sees it ...
/// commands.spawn((ReplicatesWhenSeen, TilePos { x: 4, y: 2 }, TilemapId(map)));
/// // ... and the team a connected client plays for.
/// commands.entity(client).insert(ClientTeam(Team(1)));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Replicated, crate::placement::placed::Findable)]
#[type_path = "bevy_viewshed::replicon"]
pub struct ReplicatesWhenSeen;

/// The team a connected client plays for: put it on replicon's client entity on the server
/// (the entity with `ConnectedClient`), at connection or later. The client is sent the
/// [`ReplicatesWhenSeen`] entities this team sees; without a `ClientTeam`, none of them.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component, Debug)]
#[type_path = "bevy_viewshed::replicon"]
pub struct ClientTeam(pub Team);

/// The system of [`ViewshedReplicationPlugin`] that decides, each frame, which marked entities
/// each client may see. It runs in `PostUpdate`, after
/// [`ViewshedSystems`] (the whole plugin) and before replicon's
/// `ServerSystems::Send`; order a system that moves or spawns marked entities in `PostUpdate`
/// before it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientSightSystems;

/// The steps inside [`ClientSightSystems`], chained: each writes replicon's
/// `ClientVisibility`, and the stand-ins of ghosts are made from what the teams see, copied
/// into, and set for clients whose team changed in place.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum SightSteps {
    /// What each team sees, and each team's fog.
    Judge,
    /// The ghosts' stand-ins.
    Ghosts,
    /// The components the stand-ins made in this frame copy.
    Copy,
    /// The components the next frame's stand-ins will copy.
    Remember,
    /// Clients whose team changed in place.
    Resync,
}

/// Server-side fog of war for bevy_replicon: [`ReplicatesWhenSeen`] entities reach a client
/// only while its [`ClientTeam`] sees them. Add it on the server, after replicon's
/// `RepliconPlugins` (its server part) and with [`ViewshedPlugins`](crate::ViewshedPlugins).
/// Without replicon's server it logs an error and does nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct ViewshedReplicationPlugin;

impl Plugin for ViewshedReplicationPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<ReplicatesWhenSeen>()
            .register_type::<ClientTeam>();
        if !app.is_plugin_added::<TeamViewProtocolPlugin>() {
            app.add_plugins(TeamViewProtocolPlugin);
        }
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<crate::fog::FogPlugin>() {
            error!(
                "bevy_viewshed: ViewshedReplicationPlugin needs ViewshedPlugins (its FogPlugin: \
                 the teams' views); nothing will be hidden from clients"
            );
            return;
        }
        let world = app.world_mut();
        if !world.contains_resource::<FilterRegistry>()
            || !world.contains_resource::<ReplicationRegistry>()
        {
            error!(
                "bevy_viewshed: ViewshedReplicationPlugin needs bevy_replicon's server plugin \
                 (RepliconPlugins with the `server` feature); nothing will be hidden from clients"
            );
            return;
        }
        let bit = world.resource_scope(|world, mut filters: Mut<FilterRegistry>| {
            world.resource_scope(|world, mut registry: Mut<ReplicationRegistry>| {
                filters.register_scope::<Entity>(world, &mut registry, ScopeLifetime::WhileVisible)
            })
        });
        app.insert_resource(SightBit(bit));
        add_systems(app);
        add_observers(app);
    }
}

/// The systems that judge, copy and remember what each client's team sees, in
/// `ClientSightSystems` after the plugin.
fn add_systems(app: &mut App) {
    app.init_resource::<ClientSight>()
        .init_resource::<TeamViewIndex>()
        .init_resource::<ClientGhosts>()
        .add_systems(
            PostUpdate,
            (
                (update_client_sight, update_team_views)
                    .chain()
                    .in_set(SightSteps::Judge),
                update_client_ghosts.in_set(SightSteps::Ghosts),
                (resync_changed_teams, keep_spectator_fogs).in_set(SightSteps::Resync),
            ),
        )
        .configure_sets(
            PostUpdate,
            (
                ClientSightSystems
                    .after(ViewshedSystems)
                    .before(ServerSystems::Send),
                (
                    SightSteps::Judge,
                    SightSteps::Ghosts,
                    SightSteps::Copy,
                    SightSteps::Remember,
                    SightSteps::Resync,
                )
                    .chain()
                    .in_set(ClientSightSystems),
            ),
        );
}

fn add_observers(app: &mut App) {
    app.add_observer(on_client_changed::<ClientVisibility>)
        .add_observer(on_client_changed::<ClientTeam>)
        .add_observer(on_client_team_removed)
        .add_observer(on_marked)
        .add_observer(on_unmarked)
        .add_observer(recheck_marked::<Remove, Team>)
        .add_observer(recheck_marked::<Remove, RevealsFog>)
        .add_observer(recheck_marked::<Add, Disabled>)
        .add_observer(recheck_marked::<Remove, Disabled>);
}
