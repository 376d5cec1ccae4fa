//! A versioned log of changed cells: the machinery that lets a view (of a viewer or a light)
//! know whether anything it depends on changed since it was computed, without copying the
//! data. [`MapOpacity`](crate::MapOpacity) keeps one for opacity and
//! [`Lighting`](crate::Lighting) one for which tiles are lit.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many recent changes a log remembers cell by cell; a view that missed more is
/// recomputed whatever its reach.
const CHANGE_LOG_LEN: usize = 1024;

/// The next version of any log. Versions are drawn from one count for every log of the
/// program, so a log made or reset now is newer than every version any log gave before: a
/// view computed against a map's log that was then replaced (a `MapOpacity` or `Lighting`
/// inserted by the game, another map's copy) sees "everything changed", never an older log
/// whose numbers happen to be higher.
static NEXT_VERSION: AtomicU64 = AtomicU64::new(1);

fn next_version() -> u64 {
    NEXT_VERSION.fetch_add(1, Ordering::Relaxed)
}

/// Versions and the latest changed cells of one grid.
#[derive(Debug, Clone)]
pub(crate) struct ChangeLog {
    /// Bumped by every change.
    version: u64,
    /// The latest changes, oldest first: the version each made, and its cell.
    log: VecDeque<(u64, (u32, u32))>,
    /// Views computed at an older version may have missed a change no longer in the log.
    floor: u64,
}

impl Default for ChangeLog {
    fn default() -> Self {
        let version = next_version();
        Self {
            version,
            log: VecDeque::new(),
            floor: version,
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
        self.version = next_version();
        self.floor = self.version;
        self.log.clear();
    }

    /// `cell` changed.
    pub(crate) fn note_change(&mut self, cell: (u32, u32)) {
        self.version = next_version();
        self.log.push_back((self.version, cell));
        if self.log.len() > CHANGE_LOG_LEN
            && let Some((forgotten, _)) = self.log.pop_front()
        {
            self.floor = forgotten;
        }
    }

    /// Whether a cell for which `in_reach` holds changed after version `since`.
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn((u32, u32)) -> bool) -> bool {
        self.changes_since(since)
            .is_none_or(|mut cells| cells.any(in_reach))
    }

    /// The cells changed after version `since`, newest first (a cell may come more than
    /// once), or `None` when they are not all known any more (the log was reset or overran
    /// since).
    pub(crate) fn changes_since(&self, since: u64) -> Option<impl Iterator<Item = (u32, u32)>> {
        // The floor is never above the version: a view at the current version is told "none".
        (since >= self.floor).then(|| {
            self.log
                .iter()
                .rev()
                .take_while(move |(version, _)| *version > since)
                .map(|&(_, cell)| cell)
        })
    }
}
