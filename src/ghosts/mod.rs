//! What the teams know of the entities they do not see now, from the fog's model: the
//! [`LastSeen`] ghosts of [`LeavesGhost`] entities (where each team last saw them), and the
//! [`HidesOutsideView`] entities, shown only on tiles the team drawn sees.
//!
//! | module | its job |
//! |---|---|
//! | [`last_seen`] | where teams last saw [`LeavesGhost`] entities: [`LastSeen`], [`Ghost`] |
//! | [`hide`] | [`HidesOutsideView`] entities |
//! | `plugin` | [`GhostsPlugin`]: its systems in [`ViewshedStepSystems::Ghosts`](crate::ViewshedStepSystems::Ghosts), its observer |

pub mod hide;
pub mod last_seen;
mod plugin;

pub use hide::HidesOutsideView;
pub use last_seen::{Ghost, LastSeen, LeavesGhost};
pub use plugin::GhostsPlugin;
