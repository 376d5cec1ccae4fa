//! When each team last saw each tile of a map: [`SeenTimes`], the fog's bookkeeping beside
//! the public [`FogOfWar`], kept from the tiles whose state changed at each update, read by
//! the regrowth of the fog and by what a team knows.

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::past::FogPast;
use crate::fog::{FogOfWar, Team, TeamFog};
use viewshed_core::bits::{BitRows, for_each_one};
use viewshed_core::visible::Window;

/// A tile never seen, or not remembered.
const NEVER: u64 = u64::MAX;

/// The bit of a time that says the game explored the tile unseen (times are below 2^63 ns).
const UNSEEN: u64 = 1 << 63;

/// Per team, for each tile the team remembers without seeing it now, the time (nanoseconds
/// of the app's `Time::elapsed`) of the last update in which it saw it, or in which the game
/// explored it unseen (with the `UNSEEN` bit). A tile seen now is seen now; a tile not
/// remembered has no time.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct SeenTimes {
    area: Window,
    teams: BTreeMap<Team, Vec<u64>>,
}

/// The times of the update before this one and of this one.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Updates {
    pub(crate) before: Duration,
    pub(crate) now: Duration,
}

impl SeenTimes {
    /// Brings the times up to date with `fog`, against `past` (the fog at the last update):
    /// the tiles a team saw at the last update and no longer sees were last seen then; the
    /// tiles explored since without being seen, now.
    pub(super) fn update(&mut self, fog: &FogOfWar, past: &FogPast, at: Updates) {
        let area = fog.area();
        if self.area != area {
            self.area = area;
            self.teams.clear();
        }
        self.teams.retain(|&team, _| fog.team(team).is_some());
        let size = area.width as usize * area.height as usize;
        let blank = BitRows::new(area.height, area.width);
        for (team, now) in fog.teams() {
            let times = self.teams.entry(team).or_insert_with(|| vec![NEVER; size]);
            let (seen, explored) = past.of(team, fog).unwrap_or((&blank, &blank));
            stamp(times, now, (seen, explored), at, area);
        }
    }

    /// The time `team` last saw `tile` (remembered, not seen now), if it saw it since it
    /// last explored it.
    pub(crate) fn seen(&self, team: Team, tile: TilePos) -> Option<Duration> {
        self.of(team, tile)
            .filter(|&(_, seen)| seen)
            .map(|(at, _)| at)
    }

    /// The time `team` last saw `tile` (remembered, not seen now), or explored it unseen, and
    /// whether it saw it; if it has one.
    pub(crate) fn of(&self, team: Team, tile: TilePos) -> Option<(Duration, bool)> {
        let times = self.teams.get(&team)?;
        let area = self.area;
        if !area.contains(tile.x, tile.y) {
            return None;
        }
        let i = (tile.y - area.y) as usize * area.width as usize + (tile.x - area.x) as usize;
        let time = times[i];
        (time != NEVER).then(|| (Duration::from_nanos(time & !UNSEEN), time & UNSEEN == 0))
    }
}

/// Stamps, in `times`, the tiles `now` remembers but does not see that it saw at the last
/// update (`before`), with the time of that update, and those it had neither seen nor
/// remembered, or forgot since, with this update's.
fn stamp(
    times: &mut [u64],
    now: &TeamFog,
    before: (&BitRows, &BitRows),
    at: Updates,
    area: Window,
) {
    let stride = now.visible_rows().stride();
    let words = now
        .visible_rows()
        .words()
        .iter()
        .zip(now.explored_rows().words());
    let past = before.0.words().iter().zip(before.1.words());
    let forgot = now.forgotten_rows().words();
    for (i, ((&v, &e), (&pv, &pe))) in words.zip(past).enumerate() {
        let (pv, pe) = (pv & !forgot[i], pe & !forgot[i]);
        let unseen = e & !v;
        let (left, found) = (unseen & pv, unseen & !pv & !pe);
        if left | found == 0 {
            continue;
        }
        let (row, first) = (i / stride, (i % stride) as u32 * 64);
        let base = row * area.width as usize + first as usize;
        let time = |at: Duration| at.as_nanos().min(u128::from(UNSEEN - 1)) as u64;
        for_each_one(left, |bit| times[base + bit as usize] = time(at.before));
        for_each_one(found, |bit| {
            times[base + bit as usize] = time(at.now) | UNSEEN
        });
    }
}
