//! The fog of war's model: what each [`Team`] of viewers (the [`RevealsFog`] viewers are team
//! 0) sees now on a map and has ever seen, in each map's [`FogOfWar`], and the one list of what
//! changed in a frame that the later steps read. How it is drawn is the
//! [`draw`](crate::draw) module's; the ghosts of entities out of view are
//! [`ghosts`](crate::ghosts)'.
//!
//! Each map (root tilemap, or world) gets a [`FogOfWar`] component. Every tile is in one
//! [`FogState`] per team: `Visible` (a member sees it now), `Remembered` (seen before) or
//! `Unexplored`.
//!
//! | module | its job |
//! |---|---|
//! | [`team`] | who reveals for whom: [`RevealsFog`], [`Team`], [`DrawnTeam`] |
//! | [`shared`] | sight shared between teams ([`SharedVision`]) and the spectator's |
//! | [`reveal`] | areas a team sees for a while: [`Reveal`] |
//! | [`detection`] | cloaked entities seen only where a team detects: [`Cloaked`], [`Detector`] |
//! | [`radar`] | enemies found without line of sight, as tiles: [`Radar`], [`RadarContacts`] |
//! | `fogged_maps` | which maps have a fog: every map the opacity step made; a world's chunks that come and go |
//! | [`model`] | the fog itself: [`FogOfWar`], [`TeamFog`], [`FogState`] |
//! | `union` | the team views, gathered per thread and merged into a map's fog |
//! | `update` | each map's fog brought up to date: team views, memory, what changed |
//! | `past` | what each team saw at the last update (the fog's bookkeeping beside `FogOfWar`) |
//! | `seen_times` | when each team last saw each tile it remembers |
//! | [`regrowth`] | remembered tiles unseen for a while unexplored again: [`FogRegrowth`] |
//! | `change_list` | the one list of what changed in a frame, per map |
//! | `sight` | which findable entities each team sees now, and what changed: `TeamSight` |
//! | [`knowledge`] | what a team knows, for its bots: [`TeamKnowledge`] |
//! | [`memory`] | what a save game keeps: [`ExploredMemory`] |
//! | [`world_memory`] | what the teams remember of a world's chunks not loaded: [`WorldMemory`] |
//! | `plugin` | [`FogPlugin`]: the systems above in [`ViewshedStepSystems::Fog`](crate::ViewshedStepSystems::Fog), their observers |

pub(crate) mod change_list;
pub mod detection;
mod fogged_maps;
pub mod knowledge;
pub mod memory;
pub mod model;
mod past;
mod plugin;
pub mod radar;
pub mod regrowth;
pub mod reveal;
mod seen_times;
pub mod shared;
pub(crate) mod sight;
pub mod team;
mod union;
mod update;
pub mod world_memory;

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

pub use detection::{Cloaked, Detector};
pub use knowledge::{Sighting, TeamKnowledge};
pub use memory::{ExploredMemory, MemoryError};
pub use model::{FogOfWar, FogState, TeamFog};
pub use plugin::FogPlugin;
pub use radar::{Radar, RadarContacts};
pub use regrowth::FogRegrowth;
pub use reveal::Reveal;
pub use shared::SharedVision;
pub use team::{DrawnTeam, DrawnTeamOverride, RevealsFog, Team};
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
