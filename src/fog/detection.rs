//! Cloaking and detection: a [`Cloaked`] entity is seen by a team only on the tiles one of
//! its [`Detector`]s sees.

use bevy::prelude::*;

use crate::fog::RevealsFog;

/// An entity the teams see only where one of their [`Detector`]s sees its tile (a cloaked
/// scout, a submarine, a buried mine), among those the plugin follows (a `CanBeSpotted`,
/// `HidesOutsideView`, `LeavesGhost`, `ReplicatesWhenSeen` or `FogSprite` entity). Elsewhere, on a tile the team sees, it is as if it
/// were not there for that team: it is hidden ([`HidesOutsideView`](crate::HidesOutsideView)),
/// it is not sent to the team's clients, and
/// [`TeamKnowledge::sees`](crate::TeamKnowledge::sees) is false; a team that saw it and no
/// longer does remembers it as it remembers an entity that left its view. Allies that share their sight
/// share their detection. A viewer's own sightings (`Spotted`) are what its view holds,
/// cloaked or not: a game's reactions to cloaked units read the team's knowledge.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::{Cloaked, Detector, Team};
/// fn spawn(mut commands: Commands, map: Entity) {
///     // Team 1's scout, seen by team 0 only within its detector tower's view.
///     commands.spawn((Cloaked, CanBeSpotted, Team(1), TilePos::new(9, 4), TilemapId(map)));
///     commands.spawn((Detector, Viewshed::new(6), Team(0), TilePos::new(4, 4), TilemapId(map)));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Cloaked;

/// A [`RevealsFog`] viewer whose view is also where its [`Team`](crate::Team) detects
/// [`Cloaked`] entities.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(RevealsFog)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Detector;
