//! What each team on each map saw and remembered at the last update: [`FogPast`], the fog's
//! bookkeeping beside the public [`FogOfWar`], so that the update lists exactly the tiles
//! whose state changed since, for each team and for the team drawn, whoever changed it: the
//! viewers, the game (a `forget_all`, a save put back, a `&mut FogOfWar` that changed
//! nothing lists nothing), a switch of the team drawn.

use std::collections::BTreeMap;

use bevy::prelude::*;

use crate::fog::change_list::{ChangedTiles, MapChanges};
use crate::fog::{FogOfWar, Team, TeamFog};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// Each team's state of every tile as of the last update of a map's fog. Crate bookkeeping on
/// the map, in a component no game names, so a clone, a reflected copy or a save of the
/// `FogOfWar` carries none of it.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogPast {
    /// Whether it holds an update of this map's fog at all.
    known: bool,
    /// The map's tiles the bits below stand for (see `FogOfWar::area`).
    area: Window,
    /// The team drawn then.
    drawn: Team,
    teams: BTreeMap<Team, PastTeam>,
}

/// One team's tiles at the last update.
#[derive(Debug, Default)]
struct PastTeam {
    visible: BitRows,
    explored: BitRows,
    detected: BitRows,
}

impl PastTeam {
    /// The tiles whose state differs between this and `now` (a team with no fog now sees and
    /// remembers nothing), as bits over `area`.
    fn changes_to(&self, now: Option<&TeamFog>, area: Window) -> BitRows {
        let mut bits = BitRows::new(area.height, area.width);
        let words = bits.words_mut();
        match now {
            Some(now) => {
                let visible = now.visible_rows().words().iter().zip(self.visible.words());
                let explored = now
                    .explored_rows()
                    .words()
                    .iter()
                    .zip(self.explored.words());
                let detected = now
                    .detected_rows()
                    .words()
                    .iter()
                    .zip(self.detected.words());
                let all = visible.zip(explored).zip(detected);
                for (word, (((v, pv), (e, pe)), (d, pd))) in words.iter_mut().zip(all) {
                    *word = (v ^ pv) | (e ^ pe) | (d ^ pd);
                }
            }
            None => {
                let before = self.visible.words().iter().zip(self.explored.words());
                for (word, ((v, e), d)) in words.iter_mut().zip(before.zip(self.detected.words())) {
                    *word = v | e | d;
                }
            }
        }
        bits
    }

    /// A team the last update did not know: nothing seen, nothing remembered.
    fn blank(area: Window) -> Self {
        Self {
            visible: BitRows::new(area.height, area.width),
            explored: BitRows::new(area.height, area.width),
            detected: BitRows::new(area.height, area.width),
        }
    }
}

impl FogPast {
    /// Whether `fog` is laid out over the tiles of the last update.
    pub(super) fn fits(&self, fog: &FogOfWar) -> bool {
        self.known && self.area == fog.area()
    }

    /// What `team` saw and remembered at the last update, if `fog` is laid out as then and
    /// the team had a fog.
    pub(super) fn of(&self, team: Team, fog: &FogOfWar) -> Option<(&BitRows, &BitRows)> {
        let past = self.teams.get(&team).filter(|_| self.fits(fog))?;
        Some((&past.visible, &past.explored))
    }

    /// What changed between the last update and `fog` now: per team, the tiles whose state
    /// changed and those `forgotten` since (which may be explored again); for the team drawn
    /// now, the tiles whose state differs from what was drawn (every tile of every team when
    /// `fog` does not [`fit`](Self::fits) the last update). Remembers `fog` for the next one.
    pub(super) fn changes_to(
        &mut self,
        fog: &FogOfWar,
        forgotten: Vec<(Team, BitRows)>,
    ) -> MapChanges {
        let area = fog.area();
        let changes = if self.fits(fog) {
            self.diff(fog, forgotten)
        } else {
            let teams = fog.teams().map(|(team, _)| (team, ChangedTiles::All(area)));
            MapChanges::new((ChangedTiles::All(area), true), teams.collect(), forgotten)
        };
        self.remember(fog);
        changes
    }

    /// The changes of a fog laid out as at the last update, the tiles the game made each team
    /// forget (`forgotten`) among them.
    fn diff(&self, fog: &FogOfWar, forgotten: Vec<(Team, BitRows)>) -> MapChanges {
        let area = fog.area();
        let blank = PastTeam::blank(area);
        let before = |team: Team| self.teams.get(&team).unwrap_or(&blank);
        let known = self.teams.keys().copied();
        let mut teams: Vec<Team> = known.chain(fog.teams().map(|(team, _)| team)).collect();
        teams.sort_unstable();
        teams.dedup();
        let mut changed = Vec::new();
        for team in teams {
            let mut bits = before(team).changes_to(fog.team(team), area);
            if let Some((_, forgot)) = forgotten.iter().find(|(t, _)| *t == team) {
                for (word, &forgot) in bits.words_mut().iter_mut().zip(forgot.words()) {
                    *word |= forgot;
                }
            }
            if bits.words().iter().any(|&word| word != 0) {
                changed.push((team, ChangedTiles::Changed { area, bits }));
            }
        }
        let drawn_now = fog.drawn_team();
        let drawn = match changed.iter().find(|(team, _)| *team == drawn_now) {
            _ if self.drawn != drawn_now => ChangedTiles::Changed {
                area,
                bits: before(self.drawn).changes_to(fog.team(drawn_now), area),
            },
            Some((_, tiles)) => tiles.clone(),
            None => ChangedTiles::Changed {
                area,
                bits: BitRows::new(area.height, area.width),
            },
        };
        MapChanges::new((drawn, self.drawn != drawn_now), changed, forgotten)
    }

    /// Keeps `fog`'s state for every team.
    fn remember(&mut self, fog: &FogOfWar) {
        self.known = true;
        self.area = fog.area();
        self.drawn = fog.drawn_team();
        self.teams.retain(|&team, _| fog.team(team).is_some());
        for (team, now) in fog.teams() {
            let past = self.teams.entry(team).or_default();
            past.visible.clone_from(now.visible_rows());
            past.explored.clone_from(now.explored_rows());
            past.detected.clone_from(now.detected_rows());
        }
    }
}
