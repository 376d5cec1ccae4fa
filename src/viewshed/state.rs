//! What the recompute remembers about a kept view ([`Viewshed`](crate::Viewshed) or
//! [`LightSource`](crate::LightSource)): what it was computed from and what was warned about.
//! Crate bookkeeping, in a component no game names, beside the public one: a clone, a
//! reflected copy or a save of the public component carries none of it, and a view written
//! over in place (a new `Viewshed` inserted) starts afresh.

use std::marker::PhantomData;

use bevy::ecs::component::Mutable;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::prelude::*;

use crate::placement::locate::PlaceProblem;
use crate::viewshed::ViewKey;

/// The recompute's bookkeeping for the view of kind `C` of one entity.
#[derive(Component, Debug)]
#[component(clone_behavior = Ignore)]
pub(crate) struct ViewState<C: Send + Sync + 'static> {
    /// What the current view was computed from (`None`: compute it afresh).
    key: Option<ViewKey>,
    /// The last problem warned about, so each is logged once.
    pub(super) warned: Option<PlaceProblem>,
    /// No view was computed for this value of `C` yet (it is new, or was inserted over
    /// another, or cloned): its first one has no previous view.
    pub(super) fresh: bool,
    /// The address of the buffer the recompute last computed the view into: a value the
    /// game wrote in place (`*viewshed = Viewshed::new(8)`, or a clone of another viewer's)
    /// holds another buffer, so its view is computed afresh even though its key is the same.
    pub(super) written: usize,
    kind: PhantomData<fn() -> C>,
}

impl<C: Send + Sync + 'static> Default for ViewState<C> {
    fn default() -> Self {
        Self {
            key: None,
            warned: None,
            fresh: true,
            written: 0,
            kind: PhantomData,
        }
    }
}

impl<C: Send + Sync + 'static> ViewState<C> {
    /// What the current view was computed from.
    pub(crate) fn key(&self) -> Option<&ViewKey> {
        self.key.as_ref()
    }

    /// The same, to update.
    pub(super) fn key_mut(&mut self) -> &mut Option<ViewKey> {
        &mut self.key
    }

    /// The view is computed afresh at the next update, whatever it was computed from (the
    /// views' own observers, and the light filter when a viewer starts or stops needing
    /// light). The caller marks the view's component changed, so that the recompute's change
    /// scan (of that one column) finds it.
    pub(crate) fn compute_afresh(&mut self) {
        self.key = None;
    }
}

/// A kept view `C` was inserted (spawned, inserted again over the old one, or cloned from
/// another entity): it is computed afresh at the next update, as a first view.
pub(crate) fn on_view_inserted<C: Component>(
    event: On<Insert, C>,
    mut states: Query<&mut ViewState<C>, Allow<Disabled>>,
) {
    if let Ok(mut state) = states.get_mut(event.entity) {
        let state = state.bypass_change_detection();
        state.compute_afresh();
        state.fresh = true;
    }
}

/// The entity of a kept view `C` was re-enabled: its view is computed afresh at the next
/// update (the world may have changed in ways it did not follow while disabled).
pub(crate) fn on_view_enabled<C: Component<Mutability = Mutable>>(
    event: On<Remove, Disabled>,
    mut states: Query<(&mut ViewState<C>, &mut C), Allow<Disabled>>,
) {
    if let Ok((mut state, mut view)) = states.get_mut(event.entity) {
        state.bypass_change_detection().compute_afresh();
        view.set_changed();
    }
}
