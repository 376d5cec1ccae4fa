//! Fog that grows back: [`FogRegrowth`] on a map makes the tiles a team has not seen for a
//! while unexplored again for it.

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::seen_times::SeenTimes;
use crate::fog::{FogOfWar, Team};
use viewshed_core::bits::for_each_one;

/// On a map, makes a tile a team remembers but has not seen for `after` (by the app's `Time`)
/// unexplored for that team, at the first update at which that much time has passed since
/// the last update in which the team saw it (or explored it unseen: `explore_all`,
/// `set_explored`). What the team remembered there goes with it, as with
/// [`TeamFog::forget_all`](crate::TeamFog::forget_all). The spectator
/// ([`Team::SPECTATOR`](crate::Team::SPECTATOR)) does not forget: it remembers what any team
/// remembered.
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
    /// `now` unexplored for that team (the spectator remembers what any team remembers);
    /// returns whether any was.
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
            let stride = team_fog.visible_rows().stride();
            let mut old = Vec::new();
            let words = team_fog.visible_rows().words().iter();
            for (i, (&v, &e)) in words.zip(team_fog.explored_rows().words()).enumerate() {
                let (row, first) = ((i / stride) as u32, (i % stride) as u32 * 64);
                for_each_one(e & !v, |bit| {
                    let tile = TilePos::new(area.x + first + bit, area.y + row);
                    if times.of(team, tile).is_some_and(|(at, _)| at <= deadline) {
                        old.push(tile);
                    }
                });
            }
            grew |= !old.is_empty();
            for tile in old {
                team_fog.set_explored(tile, false);
            }
        }
        grew
    }
}
