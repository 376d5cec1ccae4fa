//! A versioned log of changed cells: the machinery that lets a view (of a viewer or a light)
//! know whether anything it depends on changed since it was computed, without copying the
//! data. [`MapOpacity`](crate::MapOpacity) keeps one for opacity and
//! [`Lighting`](crate::Lighting) one for which tiles are lit. A change is a rectangle of
//! cells: one cell, or a whole chunk of a world that came or went.

use std::collections::VecDeque;

use viewshed_core::visible::Window;

/// How many recent changes a log remembers; a view that missed more is recomputed whatever
/// its reach.
const CHANGE_LOG_LEN: usize = 1024;

/// Versions and the latest changed cells of one grid.
#[derive(Debug, Clone)]
pub(crate) struct ChangeLog {
    /// Bumped by every change.
    version: u64,
    /// The latest changes, oldest first: the version each made, and its cells.
    log: VecDeque<(u64, Window)>,
    /// Views computed at an older version may have missed a change no longer in the log.
    floor: u64,
}

impl Default for ChangeLog {
    fn default() -> Self {
        Self {
            version: 1,
            log: VecDeque::new(),
            floor: 1,
        }
    }
}

impl ChangeLog {
    /// The current version: it grows with every change.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Everything changed: every view computed before now is out of date.
    pub(crate) fn reset(&mut self) {
        self.version += 1;
        self.floor = self.version;
        self.log.clear();
    }

    /// `cell` changed.
    pub(crate) fn note_change(&mut self, (x, y): (u32, u32)) {
        self.note_area(Window {
            x,
            y,
            width: 1,
            height: 1,
        });
    }

    /// Every cell of `area` changed.
    pub(crate) fn note_area(&mut self, area: Window) {
        self.version += 1;
        self.log.push_back((self.version, area));
        if self.log.len() > CHANGE_LOG_LEN
            && let Some((forgotten, _)) = self.log.pop_front()
        {
            self.floor = forgotten;
        }
    }

    /// Whether an area for which `in_reach` holds (it holds a cell in reach) changed after
    /// version `since`.
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn(Window) -> bool) -> bool {
        self.changes_since(since)
            .is_none_or(|mut areas| areas.any(in_reach))
    }

    /// The areas changed after version `since`, newest first (a cell may come more than
    /// once), or `None` when they are not all known any more (the log was reset or overran
    /// since).
    pub(crate) fn changes_since(&self, since: u64) -> Option<impl Iterator<Item = Window>> {
        // The floor is never above the version: a view at the current version is told "none".
        (since >= self.floor).then(|| {
            self.log
                .iter()
                .rev()
                .take_while(move |(version, _)| *version > since)
                .map(|&(_, area)| area)
        })
    }
}
