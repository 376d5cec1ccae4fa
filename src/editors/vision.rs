//! What an entity placed in a map editor gets from the game's configuration: one
//! [`EditorVision`] for LDtk entities (`ldtk::EntityVision`) and Tiled objects
//! (`tiled::ObjectVision`), the list of them by name the editors' configurations hold, and the
//! insertion of its components.

use bevy::prelude::*;

use crate::fog::{RevealsFog, Team};
use crate::ghosts::{HidesOutsideView, LeavesGhost};
use crate::light::LightSource;
use crate::sightings::CanBeSpotted;
use crate::viewshed::Viewshed;
use viewshed_core::options::VisionCone;

/// What an entity placed in a map editor gets (an LDtk entity by its identifier, a Tiled
/// object by its class): a [`Viewshed`](crate::Viewshed) of some radius (and cone), the
/// markers [`RevealsFog`](crate::RevealsFog), [`CanBeSpotted`](crate::CanBeSpotted),
/// [`HidesOutsideView`](crate::HidesOutsideView), [`LeavesGhost`](crate::LeavesGhost), a
/// [`Team`](crate::Team) and a [`LightSource`](crate::LightSource). A `Viewshed` or
/// `LightSource` the entity already has is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_viewshed"]
pub struct EditorVision {
    /// A `Viewshed` of this radius (`None`: no viewshed, unless a field or property gives one).
    pub radius: Option<u32>,
    /// The viewshed's vision cone (`None`: it sees all around).
    pub cone: Option<VisionCone>,
    /// Its view lifts the fog of war of its team.
    pub reveals_fog: bool,
    /// Viewers send `Spotted` / `LostSight` for it.
    pub spottable: bool,
    /// Hidden while its tile is not revealed to the team drawn.
    pub hide_outside_view: bool,
    /// Teams that saw it remember where they last did (`LastSeen`).
    pub leaves_ghost: bool,
    /// Its `Team` (none: team 0).
    pub team: Option<u32>,
    /// A `LightSource` of this radius.
    pub light: Option<u32>,
}

impl EditorVision {
    /// A viewer with a `Viewshed` of this radius.
    pub fn viewer(radius: u32) -> Self {
        Self {
            radius: Some(radius),
            ..default()
        }
    }

    /// Whether it is a thing that moves: a viewer, hidden out of view, or leaving a ghost.
    /// Editors' sprites that are not get a `FogSprite` (feature `render`), for things that stay.
    pub fn moves(&self) -> bool {
        self.radius.is_some() || self.hide_outside_view || self.leaves_ghost
    }

    /// Nothing but what the builder methods add.
    pub fn none() -> Self {
        Self::default()
    }

    /// Its viewshed sees only inside this cone.
    pub fn cone(mut self, cone: VisionCone) -> Self {
        self.cone = Some(cone);
        self
    }

    /// Its view lifts the fog of war.
    pub fn reveals_fog(mut self) -> Self {
        self.reveals_fog = true;
        self
    }

    /// Viewers spot it.
    pub fn spottable(mut self) -> Self {
        self.spottable = true;
        self
    }

    /// It is hidden outside the view of the team drawn.
    pub fn hide_outside_view(mut self) -> Self {
        self.hide_outside_view = true;
        self
    }

    /// Teams that saw it remember where they last did.
    pub fn leaves_ghost(mut self) -> Self {
        self.leaves_ghost = true;
        self
    }

    /// It belongs to `team`.
    pub fn team(mut self, team: u32) -> Self {
        self.team = Some(team);
        self
    }

    /// It lights `radius` tiles around it.
    pub fn light(mut self, radius: u32) -> Self {
        self.light = Some(radius);
        self
    }

    /// Inserts its components (a `Viewshed` or `LightSource` the entity already has, from a
    /// custom type or the game, is kept).
    pub(crate) fn insert(self, commands: &mut EntityCommands) {
        if let Some(radius) = self.radius {
            let mut viewshed = Viewshed::new(radius);
            viewshed.options.cone = self.cone;
            commands.try_insert_if_new(viewshed);
        }
        if let Some(radius) = self.light {
            commands.try_insert_if_new(LightSource::new(radius));
        }
        if self.reveals_fog {
            commands.try_insert(RevealsFog);
        }
        if self.spottable {
            commands.try_insert(CanBeSpotted);
        }
        if self.hide_outside_view {
            commands.try_insert(HidesOutsideView);
        }
        if self.leaves_ghost {
            commands.try_insert(LeavesGhost);
        }
        if let Some(team) = self.team {
            commands.try_insert(Team(team));
        }
    }
}

/// Puts `vision` in `list` under `name`, in place of an earlier entry of that name.
pub(super) fn set_named(
    list: &mut Vec<(String, EditorVision)>,
    name: String,
    vision: EditorVision,
) {
    list.retain(|(listed, _)| *listed != name);
    list.push((name, vision));
}

/// The vision listed under `name`, if any.
pub(crate) fn named(list: &[(String, EditorVision)], name: &str) -> Option<EditorVision> {
    list.iter()
        .find(|(listed, _)| listed == name)
        .map(|&(_, vision)| vision)
}
