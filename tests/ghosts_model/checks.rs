//! The checks after every update, in a second `impl Harness` block: the app's `LastSeen` of
//! every map against the model's ghosts, and the fog's team views against the viewsheds.

use std::collections::{BTreeMap, BTreeSet};

use bevy::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::harness::{ChangedLastSeen, Harness};
use crate::ops::TEAMS;
use crate::rules::{Knowledge, Known, Tile, ghosts_of, judge};

impl Harness {
    /// Where each remembered entity stands now: its tile on its map, when it is alive, enabled,
    /// `LeavesGhost`, on a live map and inside it.
    fn standing(&self) -> BTreeMap<Entity, BTreeMap<Entity, Tile>> {
        let targets = self.targets.iter().map(|t| {
            let remembered = t.alive && !t.disabled && t.remembered;
            (t.entity, remembered, t.map, t.tile)
        });
        let viewers = self.viewers.iter().map(|v| {
            let remembered = v.alive && !v.disabled && v.remembered;
            (v.entity, remembered, v.map, v.tile)
        });
        let mut at: BTreeMap<Entity, BTreeMap<Entity, Tile>> = BTreeMap::new();
        for (entity, remembered, map, tile) in targets.chain(viewers) {
            let Some(slot) = self.slot(map).filter(|_| remembered) else {
                continue;
            };
            if tile.0 < slot.size.0 && tile.1 < slot.size.1 {
                at.entry(map).or_default().insert(entity, tile);
            }
        }
        at
    }

    /// What each team sees on each map: the union of the views of its enabled `RevealsFog`
    /// members (team 0 without a `Team`) on that map, read from their `Viewshed`s.
    fn visible(&self) -> BTreeMap<Entity, BTreeMap<u32, BTreeSet<Tile>>> {
        let mut visible: BTreeMap<Entity, BTreeMap<u32, BTreeSet<Tile>>> = BTreeMap::new();
        for viewer in &self.viewers {
            if !viewer.alive || viewer.disabled || !viewer.reveals {
                continue;
            }
            let viewshed = self.app.world().get::<Viewshed>(viewer.entity).unwrap();
            let Some((map, _)) = viewshed.origin() else {
                continue;
            };
            let team = viewer.team.unwrap_or(0);
            visible
                .entry(map)
                .or_default()
                .entry(team)
                .or_default()
                .extend(viewshed.iter().map(|tile| (tile.x, tile.y)));
        }
        visible
    }

    /// One update, then the model's, and every map checked.
    pub(crate) fn update(&mut self) -> Result<(), TestCaseError> {
        self.app.update();
        self.frame += 1;
        let now = self.app.world().resource::<Time>().elapsed();
        let visible = self.visible();
        let standing = self.standing();
        let changed = self.app.world().resource::<ChangedLastSeen>().0.clone();
        let nobody = BTreeMap::new();
        let nothing = BTreeMap::new();
        let mut shown = BTreeMap::new();
        for slot in &self.maps {
            let map = slot.entity;
            let sees = visible.get(&map).unwrap_or(&nobody);
            // The fog's team views are the union of the viewsheds (checked elsewhere; here so
            // that a failure below is known to be the ghosts').
            let fog = self.app.world().get::<FogOfWar>(map);
            prop_assert!(fog.is_some(), "map {map} has no FogOfWar");
            let fog = fog.unwrap();
            for team in 0..=TEAMS {
                let fog_sees: BTreeSet<Tile> = fog
                    .team(Team(team))
                    .into_iter()
                    .flat_map(|fog| fog.visible_tiles().map(|t| (t.x, t.y)))
                    .collect();
                let members_see = sees.get(&team).cloned().unwrap_or_default();
                prop_assert_eq!(
                    &fog_sees,
                    &members_see,
                    "frame {}: the fog of team {} on map {} is not the union of its viewsheds",
                    self.frame,
                    team,
                    map
                );
            }
            let knowledge = self.knowledge.get_mut(&map).unwrap();
            let seen = self.seen.get_mut(&map).unwrap();
            judge(
                (knowledge, seen),
                sees,
                standing.get(&map).unwrap_or(&nothing),
                now,
                slot.hex,
            );
            let expected = ghosts_of(knowledge);
            let last_seen = self.app.world().get::<LastSeen>(map);
            prop_assert!(last_seen.is_some(), "map {map} has no LastSeen");
            let last_seen = last_seen.unwrap();
            let mut actual = Knowledge::new();
            let teams: BTreeSet<u32> = expected.keys().copied().chain(0..=TEAMS).collect();
            for &team in &teams {
                let ghosts: BTreeMap<Entity, Known> = last_seen
                    .ghosts(Team(team))
                    .map(|ghost| {
                        let tile = (ghost.tile.x, ghost.tile.y);
                        let known = Known::Ghost {
                            tile,
                            seen_at: ghost.seen_at,
                        };
                        (ghost.entity, known)
                    })
                    .collect();
                for (&entity, &known) in &ghosts {
                    let one = last_seen.ghost(Team(team), entity).map(|g| Known::Ghost {
                        tile: (g.tile.x, g.tile.y),
                        seen_at: g.seen_at,
                    });
                    prop_assert_eq!(one, Some(known), "ghost() disagrees with ghosts()");
                }
                let wanted = expected.get(&team).cloned().unwrap_or_default();
                prop_assert_eq!(
                    &ghosts,
                    &wanted,
                    "frame {} (time {:?}): the ghosts of team {} on map {}",
                    self.frame,
                    now,
                    team,
                    map
                );
                // Seen now: no ghost.
                for &entity in seen.get(&team).into_iter().flatten().map(|(e, _)| e) {
                    prop_assert_eq!(last_seen.ghost(Team(team), entity), None);
                }
                if !ghosts.is_empty() {
                    actual.insert(team, ghosts);
                }
            }
            // `LastSeen` changes (for `Changed<LastSeen>`) exactly in the updates where a ghost
            // appears, moves or goes; a map the game changed or spawned is not judged here.
            if !self.touched.contains(&map) {
                let before = self.shown.get(&map).cloned().unwrap_or_default();
                prop_assert_eq!(
                    changed.contains(&map),
                    before != actual,
                    "frame {}: Changed<LastSeen> on map {} (ghosts before {:?}, now {:?})",
                    self.frame,
                    map,
                    before,
                    actual
                );
            }
            shown.insert(map, actual);
        }
        self.shown = shown;
        self.touched.clear();
        Ok(())
    }
}
