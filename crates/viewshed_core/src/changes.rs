//! A versioned log of changed cells: what lets a view (of a viewer or a light) know whether
//! anything it depends on changed since it was computed, without copying the data.
//! bevy_viewshed keeps one per map for opacity and one for which tiles are lit. A change is a
//! rectangle of cells: one cell, or a whole chunk of a world that came or went.
//!
//! ```
//! use viewshed_core::changes::ChangeLog;
//!
//! let mut log = ChangeLog::default();
//! let computed_at = log.version();
//! log.note_change((3, 4));
//! // A view around (10, 10) that reaches 2 cells is not concerned; one around (3, 3) is.
//! let near = |x: u32, y: u32| move |area: viewshed_core::visible::Window| {
//!     area.x.abs_diff(x) <= 2 && area.y.abs_diff(y) <= 2
//! };
//! assert!(!log.changed_within(computed_at, near(10, 10)));
//! assert!(log.changed_within(computed_at, near(3, 3)));
//! ```

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::visible::Window;

/// How many recent changes a log remembers; a view that missed more is recomputed whatever
/// its reach.
const CHANGE_LOG_LEN: usize = 1024;

/// Whether `outer` holds every cell of `inner`.
fn holds(outer: Window, inner: Window) -> bool {
    outer.intersection(&inner) == Some(inner)
}

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
pub struct ChangeLog {
    /// Bumped by every change.
    version: u64,
    /// The latest changes, oldest first: the version each made, and its cells.
    log: VecDeque<(u64, Window)>,
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
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Everything changed: every view computed before now is out of date.
    pub fn reset(&mut self) {
        self.version = next_version();
        self.floor = self.version;
        self.log.clear();
    }

    /// `cell` changed.
    pub fn note_change(&mut self, (x, y): (u32, u32)) {
        self.note_area(Window {
            x,
            y,
            width: 1,
            height: 1,
        });
    }

    /// Every cell of `area` changed. The latest changes that `area` holds are dropped: a view
    /// told of `area` (newer than them) is told every cell they would have told it, so a chunk
    /// of a world that goes with its walls is one entry, not one per wall that would overrun
    /// the log (in `cargo bench --bench worlds`, `streaming` visited every view of the world
    /// each time its chunk went, before).
    pub fn note_area(&mut self, area: Window) {
        self.version = next_version();
        // A change inside the newest area (a chunk's walls noted after the chunk) is that area
        // changed again: it moves to now, and a view that has seen it is told once more.
        if let Some(newest) = self.log.back_mut()
            && holds(newest.1, area)
        {
            newest.0 = self.version;
            return;
        }
        while self.log.back().is_some_and(|&(_, last)| holds(area, last)) {
            self.log.pop_back();
        }
        self.log.push_back((self.version, area));
        if self.log.len() > CHANGE_LOG_LEN
            && let Some((forgotten, _)) = self.log.pop_front()
        {
            self.floor = forgotten;
        }
    }

    /// Whether an area for which `in_reach` holds (it holds a cell in reach) changed after
    /// version `since`.
    pub fn changed_within(&self, since: u64, in_reach: impl Fn(Window) -> bool) -> bool {
        self.changes_since(since)
            .is_none_or(|mut areas| areas.any(in_reach))
    }

    /// The areas changed after version `since`, newest first (a cell may come more than
    /// once), or `None` when they are not all known any more (the log was reset or overran
    /// since).
    pub fn changes_since(&self, since: u64) -> Option<impl Iterator<Item = Window>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(x: u32, y: u32) -> Window {
        Window {
            x,
            y,
            width: 1,
            height: 1,
        }
    }

    #[test]
    fn changes_inside_the_newest_area_move_it_to_now_and_add_no_entry() {
        let mut log = ChangeLog::default();
        let chunk = Window {
            x: 32,
            y: 0,
            width: 32,
            height: 32,
        };
        log.note_area(chunk);
        let after_chunk = log.version();
        for x in 0..1000 {
            log.note_change((32 + x % 32, x / 32 % 32));
        }
        assert_eq!(
            log.log.len(),
            1,
            "the walls of the chunk are the chunk's entry"
        );
        let areas: Vec<Window> = log.changes_since(after_chunk).unwrap().collect();
        assert_eq!(
            areas,
            vec![chunk],
            "a view that saw the chunk is told it changed again"
        );
        assert!(log.changes_since(log.version()).unwrap().next().is_none());
        log.note_change((0, 0));
        assert_eq!(
            log.log.len(),
            2,
            "a change outside it is an entry of its own"
        );
    }

    #[test]
    fn an_area_replaces_the_latest_changes_it_holds_and_tells_every_view_as_much() {
        let mut log = ChangeLog::default();
        let start = log.version();
        log.note_change((50, 50));
        let before_walls = log.version();
        for x in 0..1000 {
            log.note_change((x % 32, x / 32 % 32));
        }
        let chunk = Window {
            x: 0,
            y: 0,
            width: 32,
            height: 32,
        };
        log.note_area(chunk);
        // The walls went with their chunk: two entries, and nothing overran.
        let since_start: Vec<Window> = log.changes_since(start).unwrap().collect();
        assert_eq!(since_start, vec![chunk, cell(50, 50)]);
        let since_walls: Vec<Window> = log.changes_since(before_walls).unwrap().collect();
        assert_eq!(since_walls, vec![chunk]);
        // A change the area does not hold stays.
        log.note_change((40, 40));
        log.note_area(chunk);
        assert_eq!(log.changes_since(start).unwrap().count(), 4);
    }
}
