//! The team views of the maps (the union of each team's members' views), gathered per thread:
//! each thread adds the views of the revealing viewers it visits to its own copy of their
//! teams' views on their map, and a map's fog merges the copies.
//!
//! The fog gathers them for each map whose team views must be rebuilt, in one parallel pass
//! over the members ([`gather_members`]).

use std::ops::DerefMut;

use bevy::prelude::*;
use bevy::utils::Parallel;

use crate::fog::detection::Detector;
use crate::fog::reveal::Reveal;
use crate::fog::shared::or_into;
use crate::fog::{FogOfWar, RevealsFog, Team};
use crate::viewshed::Viewshed;
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// Every thread's copies of the team views it gathered; emptied before each gathering.
#[derive(Resource, Default)]
pub(super) struct TeamUnion(Parallel<TeamShares>);

/// One thread's copies of the views of the teams it met, per map: a few, looked up for
/// every view added, so a list searched in order (a `BTreeMap` cost 84 instructions a view, this about 47 with four teams).
#[derive(Default)]
struct TeamShares(Vec<((Entity, Team, Sense), TeamShare)>);

/// What a share gathers: what the team sees, or where it detects cloaked entities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sense {
    Sight,
    Detection,
}

/// A team's view on a map as one thread gathered it: map-sized, clear when not `used`.
#[derive(Default)]
struct TeamShare {
    rows: BitRows,
    used: bool,
}

impl TeamUnion {
    /// This thread's copies, to add views to.
    fn local(&self) -> impl DerefMut<Target = TeamShares> + '_ {
        self.0.borrow_local_mut()
    }

    /// Makes the team views of `map` in `fog` the union of the copies gathered for it (a
    /// team without any is left with an empty view), and empties those copies. The copies
    /// must fit the fog.
    pub(super) fn merge_into(&mut self, map: Entity, fog: &mut FogOfWar) {
        for team_fog in fog.teams.values_mut() {
            team_fog.visible.clear_all();
            team_fog.detected.clear_all();
        }
        for shares in self.0.iter_mut() {
            for ((team, sense), share) in shares.on_map(map) {
                if std::mem::take(&mut share.used) {
                    let team_fog = fog.team_mut(team);
                    let rows = match sense {
                        Sense::Sight => &mut team_fog.visible,
                        Sense::Detection => &mut team_fog.detected,
                    };
                    or_into(rows, &share.rows);
                    share.rows.clear_all();
                }
            }
        }
    }
}

impl TeamShares {
    /// Adds what `paint` paints, on `map` whose tiles are `area`, to this thread's copy of
    /// what `team` senses there.
    fn add(&mut self, key: (Entity, Team, Sense), area: Window, paint: impl FnOnce(&mut BitRows)) {
        let share = match self.0.iter().position(|(k, _)| *k == key) {
            Some(i) => &mut self.0[i].1,
            None => {
                self.0.push((key, TeamShare::default()));
                &mut self.0.last_mut().expect("just pushed").1
            }
        };
        if !is_sized(&share.rows, area) {
            share.rows.reset(area.height, area.width);
        }
        share.used = true;
        paint(&mut share.rows);
    }

    /// The copies of the teams' views and detections on `map`.
    fn on_map(&mut self, map: Entity) -> impl Iterator<Item = ((Team, Sense), &mut TeamShare)> {
        self.0
            .iter_mut()
            .filter(move |((on, ..), _)| *on == map)
            .map(|((_, team, sense), share)| ((*team, *sense), share))
    }
}

/// The members whose views make each team's view: the [`RevealsFog`] viewers, a
/// [`Reveal`] through walls adding its area in place of its view; a [`Detector`]'s view is
/// also where its team detects cloaked entities.
pub(super) type Members<'w, 's> = Query<
    'w,
    's,
    (
        &'static Viewshed,
        Option<&'static Team>,
        Option<&'static Reveal>,
        Has<Detector>,
    ),
    With<RevealsFog>,
>;

/// Gathers the team views of `map` from its members, one parallel pass over them (each
/// thread into its own copies).
pub(super) fn gather_members(map: Entity, area: Window, members: &Members, union: &TeamUnion) {
    members.par_iter().for_each_init(
        || union.local(),
        |shares, (viewshed, team, reveal, detector)| {
            let team = team.copied().unwrap_or_default();
            let Some((on, tile)) = viewshed.origin() else {
                return;
            };
            if on != map {
                return;
            }
            let paint = |rows: &mut BitRows| match reveal {
                Some(reveal) if reveal.through_walls => {
                    reveal.or_disc_into(rows, area, (tile.x, tile.y));
                }
                _ => viewshed.visible_set().or_into_at(rows, (area.x, area.y)),
            };
            shares.add((map, team, Sense::Sight), area, paint);
            if detector {
                shares.add((map, team, Sense::Detection), area, paint);
            }
        },
    );
}

/// Whether `rows` holds a map whose tiles are `area`.
fn is_sized(rows: &BitRows, area: Window) -> bool {
    (rows.rows(), rows.bits_per_row()) == (area.height, area.width)
}
