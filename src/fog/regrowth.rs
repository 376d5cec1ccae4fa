//! Fog that grows back: [`FogRegrowth`] on a map makes the tiles a team has not seen for a
//! while unexplored again for it.

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::change_list::for_each_set_bit;
use crate::fog::seen_times::SeenTimes;
use crate::fog::shared::or_into;
use crate::fog::{FogOfWar, Team, TeamFog};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// On a map, makes a tile a team remembers but has not seen for `after` (by the app's `Time`)
/// unexplored for that team, at the first update at which that much time has passed since
/// the last update in which the team saw it (or explored it unseen: `explore_all`,
/// `set_explored`). What the team remembered there goes with it, as with
/// [`TeamFog::forget_all`](crate::TeamFog::forget_all). The spectator
/// ([`Team::SPECTATOR`](crate::Team::SPECTATOR)) keeps a tile while any team remembers it.
///
/// ```
/// # use std::time::Duration;
/// # use bevy::prelude::*;
/// # use bevy_viewshed::FogRegrowth;
/// fn regrow(mut commands: Commands, map: Entity) {
///     commands.entity(map).insert(FogRegrowth::after(Duration::from_secs(30)));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct FogRegrowth {
    /// How long a remembered tile stays explored unseen.
    pub after: Duration,
}

impl FogRegrowth {
    /// Remembered tiles unseen for `after` grow back.
    pub fn after(after: Duration) -> Self {
        Self { after }
    }

    /// Makes every tile of `fog` that a team remembers and last saw at least `after` before
    /// `now` unexplored for that team (for the spectator, only once no other team remembers
    /// it, after theirs grew back); returns whether any was.
    pub(super) fn grow_back(&self, fog: &mut FogOfWar, times: &SeenTimes, now: Duration) -> bool {
        let Some(deadline) = now.checked_sub(self.after) else {
            return false;
        };
        let area = fog.area();
        let mut grew = false;
        let teams = fog
            .teams
            .iter_mut()
            .filter(|(team, _)| **team != Team::SPECTATOR);
        for (&team, team_fog) in teams {
            grew |= grow_team((team, team_fog), None, times, (deadline, area));
        }
        let kept = remembered_by_teams(fog);
        if let (Some(kept), Some(spectator)) = (kept, fog.teams.get_mut(&Team::SPECTATOR)) {
            let spectator = (Team::SPECTATOR, spectator);
            grew |= grow_team(spectator, Some(&kept), times, (deadline, area));
        }
        grew
    }
}

/// Makes the tiles `team` remembers (but those in `keep`) and last saw at `deadline` or
/// before unexplored; returns whether any was.
fn grow_team(
    (team, fog): (Team, &mut TeamFog),
    keep: Option<&BitRows>,
    times: &SeenTimes,
    (deadline, area): (Duration, Window),
) -> bool {
    let stride = fog.visible_rows().stride();
    let words = fog
        .visible_rows()
        .words()
        .iter()
        .zip(fog.explored_rows().words());
    let remembered = words.enumerate().map(|(i, (&v, &e))| {
        let kept = keep.map_or(0, |keep| keep.words()[i]);
        e & !v & !kept
    });
    let mut old = Vec::new();
    for_each_set_bit(stride, remembered, |bit| {
        let tile = TilePos::new(area.x + bit.x, area.y + bit.y);
        if times.of(team, tile).is_some_and(|(at, _)| at <= deadline) {
            old.push(tile);
        }
    });
    for &tile in &old {
        fog.set_explored(tile, false);
    }
    !old.is_empty()
}

/// The tiles some team other than the spectator remembers, if `fog` keeps a spectator.
fn remembered_by_teams(fog: &FogOfWar) -> Option<BitRows> {
    fog.team(Team::SPECTATOR)?;
    let area = fog.area();
    let mut kept = BitRows::new(area.height, area.width);
    for (_, team) in fog.teams().filter(|(team, _)| *team != Team::SPECTATOR) {
        or_into(&mut kept, team.explored_rows());
    }
    Some(kept)
}
