//! Fog of war: what each [`Team`] of viewers (the [`RevealsFog`] viewers are team 0) sees now
//! on a map and has ever seen, written for the team in [`FogTeam`] into the tile layers that
//! opt in with a [`FogStyle`], and the `Visibility` of [`HideOutsideView`] entities.
//!
//! Each map (root tilemap) gets a [`FogOfWar`] component. Every tile is in one
//! [`FogState`] per team: `Visible` (a member sees it now), `Remembered` (seen before) or
//! `Unexplored`. Tiles are written only when their state changed, and with
//! "set if not equal" semantics, so unchanged tiles are not extracted for rendering again.
//!
//! | module | its job |
//! |---|---|
//! | [`team`] | who reveals for whom: [`RevealsFog`], [`Team`], [`FogTeam`] |
//! | [`model`] | the fog itself: [`FogOfWar`], [`TeamFog`], [`FogState`] |
//! | [`memory`] | what a save game keeps: [`ExploredMemory`] |
//! | [`style`] | how each state looks on a layer: [`FogStyle`], [`TileLook`], [`SoftEdge`] |
//! | [`edge`] | which tiles border the view, for [`SoftEdge`] looks |
//! | [`fade`] | tiles moving between looks over time: [`FogFade`] |
//! | [`systems`] | the systems that keep fog and tiles up to date |
//! | [`hide`] | [`HideOutsideView`] entities |
//! | [`ghosts`] | where teams last saw [`RememberWhenSeen`] entities: [`LastSeen`], [`Ghost`] |

pub mod edge;
pub mod fade;
pub mod ghosts;
pub mod hide;
pub mod memory;
pub mod model;
pub mod style;
pub mod systems;
pub mod team;

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

pub use fade::FogFade;
pub use ghosts::{Ghost, LastSeen, RememberWhenSeen};
pub use hide::HideOutsideView;
pub use memory::{ExploredMemory, MemoryError};
pub use model::{FogOfWar, FogState, TeamFog};
pub use style::{FogStyle, SoftEdge, TileLook};
pub use team::{FogTeam, RevealsFog, Team};

/// Maps whose team views (the unions of their [`RevealsFog`] viewers' views) must be rebuilt.
#[derive(Resource, Debug, Default)]
pub(crate) struct FogDirty(pub EntityHashSet);
