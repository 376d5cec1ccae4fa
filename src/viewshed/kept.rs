//! [`KeptView`]: what the recompute needs of a component whose field of view it keeps up to
//! date, a viewer's [`Viewshed`] or a [`LightSource`](crate::LightSource).

use bevy::ecs::component::Mutable;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::viewshed::Viewshed;
use viewshed_core::elevation::ElevationOptions;
use viewshed_core::options::FovOptions;
use viewshed_core::visible::VisibleSet;

/// A component whose field of view the recompute keeps up to date: a viewer's [`Viewshed`]
/// or a [`LightSource`](crate::LightSource). Both are placed, keyed and recomputed by the same
/// rules, their bookkeeping in a [`ViewState`](super::state::ViewState) beside them; only what
/// follows a recomputation differs.
pub(crate) trait KeptView: Component<Mutability = Mutable> {
    /// What a warning calls the entity ("viewer", "light").
    const WHO: &'static str;
    /// What a warning says it does when it stands nowhere ("it sees nothing").
    const NOTHING: &'static str;
    /// The options its field of view is computed with.
    fn options(&self) -> FovOptions;
    /// How far above its tile's ground it sees from and what it sees of higher tiles (a
    /// light shines from the ground and lights the faces of higher tiles).
    fn elevation(&self) -> ElevationOptions {
        ElevationOptions::default()
    }
    /// Whether it holds anything an empty view would take away.
    fn has_view(&self) -> bool;
    /// The view it holds.
    fn view(&self) -> &VisibleSet;
    /// Starts a new view computed at `at` (`None`: empty), the first on this entity when
    /// `first`, and returns the set to compute it into.
    fn start_view(&mut self, at: Option<(Entity, TilePos)>, first: bool) -> &mut VisibleSet;
}

impl KeptView for Viewshed {
    const WHO: &'static str = "viewer";
    const NOTHING: &'static str = "it sees nothing";

    fn options(&self) -> FovOptions {
        self.options
    }

    fn elevation(&self) -> ElevationOptions {
        ElevationOptions::eye_height(self.eye_height).with_cliff_faces(self.cliff_faces)
    }

    fn has_view(&self) -> bool {
        self.at.is_some() || !self.visible.is_empty()
    }

    fn view(&self) -> &VisibleSet {
        &self.visible
    }

    fn start_view(&mut self, at: Option<(Entity, TilePos)>, first: bool) -> &mut VisibleSet {
        self.replace_view(at, first);
        &mut self.visible
    }
}
