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
//! | `tiles` | writing looks into tiles: a tile at a time, or many on all threads |
//! | [`systems`] | the systems that keep fog and tiles up to date |
//! | `union` | the team views, gathered per thread and merged into a map's fog |
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
pub(crate) mod tiles;
pub(crate) mod union;

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

pub use fade::FogFade;
pub use ghosts::{Ghost, LastSeen, RememberWhenSeen};
pub use hide::HideOutsideView;
pub use memory::{ExploredMemory, MemoryError};
pub use model::{FogOfWar, FogState, TeamFog};
pub use style::{FogStyle, SoftEdge, TileLook};
pub use team::{DrawnTeam, FogTeam, RevealsFog, Team};

/// Maps whose team views (the unions of their [`RevealsFog`] viewers' views) must be rebuilt,
/// and whether the recompute's gathered views ([`union::TeamUnion`]) can rebuild them.
#[derive(Resource, Debug, Default)]
pub(crate) struct FogDirty {
    maps: EntityHashSet,
    /// The recompute visited every viewer and gathered the team views of every map, and no
    /// view or team changed since.
    gathered: bool,
}

impl FogDirty {
    /// `map` needs its team views rebuilt because a view or a team changed outside the
    /// recompute: what the recompute gathered no longer holds.
    pub(crate) fn mark(&mut self, map: Entity) {
        self.maps.insert(map);
        self.gathered = false;
    }

    /// `map` needs its team views rebuilt because the recompute changed a view on it.
    pub(crate) fn mark_recomputed(&mut self, map: Entity) {
        self.maps.insert(map);
    }

    /// Whether the recompute just gathered the team views of every map.
    pub(crate) fn set_gathered(&mut self, gathered: bool) {
        self.gathered = gathered;
    }

    /// Whether `map` needed its team views rebuilt; it no longer does.
    pub(crate) fn take(&mut self, map: Entity) -> bool {
        self.maps.remove(&map)
    }

    /// Whether the team views the recompute gathered hold; from now on they do not.
    pub(crate) fn finish_gathered(&mut self) -> bool {
        std::mem::take(&mut self.gathered)
    }

    /// No map needs its team views rebuilt.
    pub(crate) fn clear(&mut self) {
        self.maps.clear();
    }
}
