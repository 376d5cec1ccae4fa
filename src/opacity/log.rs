//! Each map's log of changed tiles ([`OpacityLog`]): how the views and lights learn which of
//! them a change of opacity reaches.

use bevy::prelude::*;

use super::map_opacity::MapOpacity;
use viewshed_core::changes::ChangeLog;
use viewshed_core::visible::Window;

/// The versioned log of a map's changed tiles: which views a change reaches. The opacity
/// domain's bookkeeping beside [`MapOpacity`], read by the views and lights to know whether
/// they must be computed again.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(crate) struct OpacityLog(ChangeLog);

impl OpacityLog {
    /// `tile` changed; returns the new version.
    pub(super) fn note_change(&mut self, tile: (u32, u32)) -> u64 {
        self.0.note_change(tile);
        self.0.version()
    }

    /// Every tile of `area` changed; returns the new version.
    pub(super) fn note_area(&mut self, area: Window) -> u64 {
        self.0.note_area(area);
        self.0.version()
    }

    /// Everything changed; returns the new version.
    pub(super) fn reset(&mut self) -> u64 {
        self.0.reset();
        self.0.version()
    }

    /// Whether opacity changed after version `since` in an area for which `in_reach` holds
    /// (tiles beyond a view's reach cannot change what is seen inside it).
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn(Window) -> bool) -> bool {
        self.0.changed_within(since, in_reach)
    }

    /// The areas whose opacity changed after version `since` (`None`: not all known any
    /// more, see [`ChangeLog::changes_since`]).
    pub(crate) fn changes_since(&self, since: u64) -> Option<impl Iterator<Item = Window>> {
        self.0.changes_since(since)
    }
}

/// A map's grids and its change log, as the views read them (the grids through `Deref`).
#[derive(Clone, Copy)]
pub(crate) struct MapRead<'a> {
    pub(crate) opacity: &'a MapOpacity,
    pub(crate) log: &'a OpacityLog,
}

impl std::ops::Deref for MapRead<'_> {
    type Target = MapOpacity;

    fn deref(&self) -> &MapOpacity {
        self.opacity
    }
}

impl MapRead<'_> {
    /// Whether opacity changed after version `since` in an area for which `in_reach` holds.
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn(Window) -> bool) -> bool {
        self.log.changed_within(since, in_reach)
    }
}
