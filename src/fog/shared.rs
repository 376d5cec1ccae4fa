//! Sight shared between teams: [`SharedVision`], one-way pairs a game switches at run time,
//! and the spectator ([`Team::SPECTATOR`]), who sees every team's view and remembers what any
//! team remembers. The fog's update applies both to a map's team views right after gathering
//! its members' views, so everything that reads a team's fog follows.

use std::collections::BTreeSet;

use bevy::prelude::*;

use crate::fog::{FogOfWar, Team, TeamFog};
use viewshed_core::bits::BitRows;

/// Which teams see what which other teams see: one-way pairs `(giver, receiver)`, made and
/// broken at run time. While a pair holds, the receiver's view on every map is its own
/// members' views united with the giver's members' views (not what the giver receives in
/// turn), and the receiver explores it. When it stops, what the receiver explored stays
/// explored.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::{SharedVision, Team};
/// fn alliance(mut vision: ResMut<SharedVision>) {
///     vision.share(Team(0), Team(1));
///     vision.share(Team(1), Team(0));
///     assert!(vision.shares(Team(1), Team(0)));
/// }
/// ```
#[derive(Resource, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct SharedVision {
    pairs: BTreeSet<(Team, Team)>,
}

impl SharedVision {
    /// `receiver` sees what `giver`'s members see, from the next update on. A team sharing
    /// with itself changes nothing.
    pub fn share(&mut self, giver: Team, receiver: Team) {
        if giver != receiver {
            self.pairs.insert((giver, receiver));
        }
    }

    /// `receiver` no longer sees what `giver`'s members see (it keeps what it explored).
    pub fn stop(&mut self, giver: Team, receiver: Team) {
        self.pairs.remove(&(giver, receiver));
    }

    /// Whether `giver` shares its sight with `receiver`.
    pub fn shares(&self, giver: Team, receiver: Team) -> bool {
        self.pairs.contains(&(giver, receiver))
    }

    /// Every pair `(giver, receiver)`, in order.
    pub fn pairs(&self) -> impl Iterator<Item = (Team, Team)> + '_ {
        self.pairs.iter().copied()
    }

    /// Adds to each receiver's view and detection on `fog` what its givers' members see and
    /// detect there (their own, as just gathered: sharing is not passed on).
    pub(super) fn apply(&self, fog: &mut FogOfWar) {
        let own = |fog: &FogOfWar, team| {
            let fog = fog.team(team)?;
            Some((fog.visible_rows().clone(), fog.detected_rows().clone()))
        };
        let given: Vec<(Team, (BitRows, BitRows))> = self
            .pairs
            .iter()
            .filter_map(|&(giver, receiver)| Some((receiver, own(fog, giver)?)))
            .collect();
        for (receiver, (seen, detected)) in given {
            let receiver = fog.team_mut(receiver);
            or_into(&mut receiver.visible, &seen);
            or_into(&mut receiver.detected, &detected);
        }
    }
}

/// Adds to the spectator's view and detection on `fog`, if the map keeps one, every other
/// team's (its own members', as gathered, stay in it: adding again what is there changes
/// nothing).
pub(super) fn spectate_visible(fog: &mut FogOfWar) {
    spectate(fog, |team| &mut team.visible);
    spectate(fog, |team| &mut team.detected);
}

/// Adds to the spectator's memory on `fog`, if the map keeps one, what every other team
/// remembers.
pub(super) fn spectate_explored(fog: &mut FogOfWar) {
    spectate(fog, |team| &mut team.explored);
}

/// ORs into the spectator's `rows` every other team's.
fn spectate(fog: &mut FogOfWar, rows: impl for<'a> Fn(&'a mut TeamFog) -> &'a mut BitRows) {
    let Some(mut spectator) = fog.teams.remove(&Team::SPECTATOR) else {
        return;
    };
    for team in fog.teams.values_mut() {
        let theirs: &BitRows = rows(team);
        or_into(rows(&mut spectator), theirs);
    }
    fog.teams.insert(Team::SPECTATOR, spectator);
}

/// `into |= from`, word by word (the two of one size).
pub(super) fn or_into(into: &mut BitRows, from: &BitRows) {
    for (word, &bits) in into.words_mut().iter_mut().zip(from.words()) {
        *word |= bits;
    }
}
