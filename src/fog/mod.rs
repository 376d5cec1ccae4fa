//! Fog of war: what each [`Team`] of viewers (the [`RevealsFog`] viewers are team 0) sees now
//! on a map and has ever seen, written for the team in [`DrawnTeam`] into the tile layers that
//! opt in with a [`FogStyle`], and the `Visibility` of [`HidesOutsideView`] entities.
//!
//! Each map (root tilemap) gets a [`FogOfWar`] component. Every tile is in one
//! [`FogState`] per team: `Visible` (a member sees it now), `Remembered` (seen before) or
//! `Unexplored`. Tiles are written only when their state changed, and with
//! "set if not equal" semantics, so unchanged tiles are not extracted for rendering again.
//!
//! | module | its job |
//! |---|---|
//! | [`team`] | who reveals for whom: [`RevealsFog`], [`Team`], [`DrawnTeam`] |
//! | `maps` | which maps have a fog: every map the maps step made |
//! | [`model`] | the fog itself: [`FogOfWar`], [`TeamFog`], [`FogState`] |
//! | `shown` | what the fog layers show now (the fog's bookkeeping beside `FogOfWar`) |
//! | [`memory`] | what a save game keeps: [`ExploredMemory`] |
//! | [`terrain`] | tiles drawn as each team last saw them: [`TerrainMemory`] |
//! | [`minimap`] | one pixel per tile of a team's fog: [`FogMinimap`] |
//! | [`style`] | how each state looks on a layer: [`FogStyle`], [`TileLook`], [`SoftEdge`], [`FogFade`] |
//! | `edge` | which tiles border the view, for [`SoftEdge`] looks |
//! | `neighbours` | the neighbours of a tile on each kind of map |
//! | [`overlay`] | a fog overlay layer in one component: [`FogOverlay`] |
//! | `smooth` | (feature `render`) the fog drawn on the GPU, smooth and blurred: `SmoothFog` |
//! | `fade` | tiles moving between looks over time, as a [`FogFade`] says |
//! | `tiles` | writing looks into tiles: a tile at a time, or many on all threads |
//! | `union` | the team views, gathered per thread and merged into a map's fog |
//! | `update` | each map's fog brought up to date: team views, memory, edges, what to write |
//! | `layers` | the writing of a map's fog into its fog layers, and of tiles new to them |
//! | [`hide`] | [`HidesOutsideView`] entities |
//! | [`world_memory`] | what the teams remember of a world's chunks not loaded: [`WorldMemory`] |
//! | [`ghosts`] | where teams last saw [`LeavesGhost`] entities: [`LastSeen`], [`Ghost`] |
//! | `plugin` | [`FogPlugin`]: the systems above in [`ViewshedStepSystems::Fog`](crate::ViewshedStepSystems::Fog), their observers |

mod edge;
mod fade;
pub mod ghosts;
pub mod hide;
mod layers;
mod maps;
pub mod memory;
pub mod minimap;
pub mod model;
mod neighbours;
pub mod overlay;
mod plugin;
mod shown;
#[cfg(feature = "render")]
pub mod smooth;
pub mod style;
pub mod team;
pub mod terrain;
pub(crate) mod tiles;
mod union;
pub(crate) mod update;
pub mod world_memory;

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

pub use ghosts::{Ghost, LastSeen, LeavesGhost};
pub use hide::HidesOutsideView;
pub use memory::{ExploredMemory, MemoryError};
pub use minimap::FogMinimap;
pub use model::{FogOfWar, FogState, TeamFog};
pub use overlay::{FogOverlay, FogOverlayLayer};
pub use plugin::FogPlugin;
#[cfg(feature = "render")]
pub use smooth::SmoothFog;
pub use style::{FogFade, FogStyle, SoftEdge, TileLook};
#[allow(deprecated)]
pub use team::FogTeam;
pub use team::{DrawnTeam, DrawnTeamOverride, RevealsFog, Team};
pub use terrain::TerrainMemory;
pub use world_memory::WorldMemory;

/// Maps whose team views (the unions of their [`RevealsFog`] viewers' views) must be rebuilt:
/// marked by the fog's own observers and systems, from the views the view step announced
/// ([`ViewshedUpdated`](crate::ViewshedUpdated)) and from team changes.
#[derive(Resource, Debug, Default)]
pub(crate) struct FogDirty {
    maps: EntityHashSet,
}

impl FogDirty {
    /// `map` needs its team views rebuilt.
    pub(crate) fn mark(&mut self, map: Entity) {
        self.maps.insert(map);
    }

    /// Whether `map` needed its team views rebuilt; it no longer does.
    pub(crate) fn take(&mut self, map: Entity) -> bool {
        self.maps.remove(&map)
    }

    /// No map needs its team views rebuilt.
    pub(crate) fn clear(&mut self) {
        self.maps.clear();
    }
}
