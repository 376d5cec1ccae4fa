//! Who lifts the fog for whom: [`RevealsFog`] viewers, their [`Team`], and the team whose fog
//! is drawn ([`DrawnTeam`]). A membership change rebuilds the team views of the map concerned.

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::{Allow, QueryFilter};
use bevy::prelude::*;

use crate::fog::FogDirty;
use crate::viewshed::Viewshed;

/// Marks viewers whose sight lifts the fog of war (the player and allies, not monsters).
///
/// Their views, united per map, make their [`Team`]'s view: team 0 (the team drawn unless
/// [`DrawnTeam`] says otherwise) when the entity has no `Team`.
///
/// It needs a [`Viewshed`]: give the entity one with the radius you want. An entity that has
/// none gets `Viewshed::default()` (radius 8), and a warning says so once.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::Team;
/// # fn spawn(mut commands: Commands, map: Entity) {
/// // The player lifts the fog for team 0; an ally of another team for team 1.
/// commands.spawn((Viewshed::new(8), RevealsFog, TilePos { x: 2, y: 2 }, TilemapId(map)));
/// commands.spawn((Viewshed::new(6), RevealsFog, Team(1), TilePos { x: 9, y: 2 }, TilemapId(map)));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Viewshed = crate::viewshed::required_by("RevealsFog"))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct RevealsFog;

/// The team a [`RevealsFog`] viewer sees for (team 0 without this component). A team's view,
/// per map, is the union of its members' viewsheds, with an explored memory of its own (see
/// [`FogOfWar`](crate::FogOfWar)); the fog of war is drawn for the team in the [`DrawnTeam`]
/// resource, which a spectator mode or a hot-seat game switches at run time. Change a
/// viewer's team by inserting another `Team`.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Team(pub u32);

impl Team {
    /// The spectator: on each map where its fog is kept (once it is drawn there, or the game
    /// asks for it with [`FogOfWar::team_mut`](crate::FogOfWar::team_mut)), it sees the union
    /// of every other team's view and remembers every tile any of them remembers (a viewer of
    /// this team adds its view too). See `docs/strategy.md`.
    pub const SPECTATOR: Team = Team(u32::MAX);
}

/// Whose fog of war is drawn: the [`Team`] whose view and memory the fog layers and the
/// [`HidesOutsideView`](crate::HidesOutsideView) entities show (team 0, the [`RevealsFog`]
/// viewers, by default), on every map without a [`DrawnTeamOverride`] of its own. Change it at run
/// time for a spectator mode or a hot-seat game; the tiles follow at the next update.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::{DrawnTeam};
/// # use bevy_viewshed::Team;
/// // Hot seat: the next player's fog is drawn.
/// fn next_player(mut drawn: ResMut<DrawnTeam>) {
///     drawn.0 = Team((drawn.0.0 + 1) % 2);
/// }
/// ```
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct DrawnTeam(pub Team);

/// Whose fog of war one map draws, overriding [`DrawnTeam`] there: put it on the root tilemap
/// (split screen, or a minimap of the enemy's view beside the player's). Its fog layers and the
/// [`HidesOutsideView`](crate::HidesOutsideView) entities on it show this team; removing it
/// goes back to [`DrawnTeam`]. [`FogOfWar::drawn_team`](crate::FogOfWar::drawn_team) tells which
/// team a map draws.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::Team;
/// use bevy_viewshed::DrawnTeamOverride;
///
/// fn show_the_enemy_map(mut commands: Commands, minimap: Single<Entity, With<FogOfWar>>) {
///     commands.entity(*minimap).insert(DrawnTeamOverride(Team(1)));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct DrawnTeamOverride(pub Team);

/// Team membership changed for the entity of a lifecycle event `E` on `C` (a revealing viewer
/// left, lost its viewshed, was disabled, started revealing, changed or lost its `Team`): the
/// map its view is on has its team views rebuilt. `F` says which viewers count.
pub(super) fn rebuild_team_views<E: EntityEvent, C: Component, F: QueryFilter>(
    event: On<E, C>,
    viewers: Query<&Viewshed, (F, Allow<Disabled>)>,
    mut dirty: ResMut<FogDirty>,
) {
    if let Ok(Some(map)) = viewers.get(event.event_target()).map(Viewshed::map) {
        dirty.mark(map);
    }
}
