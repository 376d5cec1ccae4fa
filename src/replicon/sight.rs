//! Which [`ReplicatesWhenSeen`](super::ReplicatesWhenSeen) entities each [`Team`] sees, kept
//! up to date from what changed: the entities that moved (placed again) and the maps where a
//! team's view changed. Each is judged once per team, whatever the number of the team's
//! clients; the judging reads only, and runs on all threads. No Bevy system here:
//! [`TeamSight`] is the model, fed by [`clients`](super::clients).

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_replicon::server::visibility::filters_mask::FilterBit;

use crate::fog::{FogOfWar, Team};
use crate::support::parallel::collect_in_parts;
use viewshed_core::bits::{BitRows, WORD_BITS, words_for};
use viewshed_core::visible::Window;

/// The visibility bit this plugin owns in replicon's filter registry (an entity scope: a
/// hidden entity is despawned on the client).
#[derive(Resource, Clone, Copy, Debug)]
pub(super) struct SightBit(pub(crate) FilterBit);

/// Where a marked entity stands (its root map and tile, if any) and the team it belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Standing {
    pub(crate) at: Option<(Entity, TilePos)>,
    pub(crate) owner: Option<Team>,
}

/// The fog of a root map, if it has one.
pub(super) trait FogLookup {
    fn fog(&self, map: Entity) -> Option<&FogOfWar>;
}

/// A marked entity, where it stands, and whether it was placed this update.
#[derive(Clone, Copy, Debug)]
struct Slot {
    entity: Entity,
    standing: Standing,
    placed: bool,
}

/// Fewer entities to judge than this are judged on one thread (a task costs more).
const PARALLEL_AT_LEAST: usize = 256;

/// What every team sees of the marked entities, with what is needed to update it from changes.
#[derive(Resource, Default)]
pub(super) struct TeamSight {
    /// The teams known (from a fog or an owner), in the order they came: a team's index.
    teams: Vec<Team>,
    /// Every marked entity, placed or not (a new one stands nowhere until the next update),
    /// densely, so that a team's verdicts are one bit per slot.
    slots: Vec<Slot>,
    slot_of: EntityHashMap<u32>,
    /// Per team index, one bit per slot: the team sees the slot's entity.
    seen: Vec<Vec<u64>>,
    /// Per root map with a fog, its area and, per team index, the team's view when last
    /// compared (empty: no view).
    views: EntityHashMap<(Window, Vec<BitRows>)>,
    /// Entities to place again at the next update (a component removed, disabled, enabled).
    pub(crate) recheck: EntityHashSet,
    /// The slots placed since the last update.
    placed: Vec<u32>,
    /// The maps whose views changed in this update.
    changed_maps: EntityHashSet,
    /// Per team index, what changed for it in the last update: (entity, seen now).
    changes: Vec<Vec<(Entity, bool)>>,
}

impl TeamSight {
    fn team_index(&self, team: Team) -> Option<usize> {
        self.teams.iter().position(|&t| t == team)
    }

    /// The index of `team`, known from now on (it sees nothing yet).
    fn know(&mut self, team: Team) -> usize {
        self.team_index(team).unwrap_or_else(|| {
            self.teams.push(team);
            self.seen.push(vec![0; words_for(self.slots.len() as u32)]);
            self.changes.push(Vec::new());
            self.teams.len() - 1
        })
    }

    /// Whether `team` sees `entity` (as of the last update).
    pub(crate) fn sees(&self, team: Team, entity: Entity) -> bool {
        let (Some(index), Some(&slot)) = (self.team_index(team), self.slot_of.get(&entity)) else {
            return false;
        };
        bit(&self.seen[index], slot)
    }

    /// Every marked entity.
    pub(crate) fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.slots.iter().map(|slot| slot.entity)
    }

    /// What changed for `team` in the last update: (entity, seen now).
    pub(crate) fn changes_of(&self, team: Team) -> &[(Entity, bool)] {
        self.team_index(team)
            .map_or(&[], |index| self.changes[index].as_slice())
    }

    /// Whether the last update changed what any team sees.
    pub(crate) fn changed(&self) -> bool {
        self.changes.iter().any(|changes| !changes.is_empty())
    }

    /// A new marked entity: it stands nowhere and no team sees it until it is placed.
    pub(crate) fn add(&mut self, entity: Entity) {
        self.forget(entity);
        let slot = self.slots.len() as u32;
        self.slots.push(Slot {
            entity,
            standing: Standing::default(),
            placed: false,
        });
        self.slot_of.insert(entity, slot);
        let words = words_for(self.slots.len() as u32);
        for seen in &mut self.seen {
            seen.resize(words, 0);
        }
    }

    /// An entity that is no longer marked (or despawned): forgotten everywhere. The last slot
    /// takes its place.
    pub(crate) fn forget(&mut self, entity: Entity) {
        self.recheck.remove(&entity);
        let Some(slot) = self.slot_of.remove(&entity) else {
            return;
        };
        let last = self.slots.len() as u32 - 1;
        for seen in &mut self.seen {
            let last_seen = bit(seen, last);
            set_bit(seen, slot, last_seen);
            set_bit(seen, last, false);
        }
        self.placed.retain(|&p| p != slot);
        for placed in &mut self.placed {
            if *placed == last {
                *placed = slot;
            }
        }
        self.slots.swap_remove(slot as usize);
        if let Some(moved) = self.slots.get(slot as usize) {
            self.slot_of.insert(moved.entity, slot);
        }
    }

    /// Places a marked entity where it now stands: it is judged for every team at the next
    /// [`update`](Self::update).
    pub(crate) fn place(&mut self, entity: Entity, now: Standing) {
        let Some(&slot) = self.slot_of.get(&entity) else {
            return;
        };
        if let Some(owner) = now.owner {
            self.know(owner);
        }
        let slot_data = &mut self.slots[slot as usize];
        slot_data.standing = now;
        if !slot_data.placed {
            slot_data.placed = true;
            self.placed.push(slot);
        }
    }

    /// Brings what each team sees up to date: compares every team's view on every map with
    /// the view last compared, then judges for every team the entities placed since the last
    /// update and those standing on a map whose views changed. What changed for each team is
    /// then in [`changes_of`](Self::changes_of).
    pub(super) fn update(&mut self, maps: impl Iterator<Item = Entity>, fogs: &impl FogLookup) {
        self.compare_views(maps, fogs);
        let everything: Vec<u32>;
        let candidates = if self.changed_maps.is_empty() {
            self.placed.as_slice()
        } else {
            everything = (0..self.slots.len() as u32).collect();
            everything.as_slice()
        };
        let this = &*self;
        let verdicts = collect_in_parts(candidates, PARALLEL_AT_LEAST, |&slot, found| {
            this.judge_slot(slot, found)
        });
        for changes in &mut self.changes {
            changes.clear();
        }
        for (team, slot, visible) in verdicts {
            set_bit(&mut self.seen[team as usize], slot, visible);
            let entity = self.slots[slot as usize].entity;
            self.changes[team as usize].push((entity, visible));
        }
        for slot in self.placed.drain(..) {
            self.slots[slot as usize].placed = false;
        }
        self.changed_maps.clear();
    }

    /// Judges one entity, if it was placed or its map's views changed, for every team: pushes
    /// (team index, slot, seen now) where the verdict differs from the last one.
    fn judge_slot(&self, slot: u32, found: &mut Vec<(u32, u32, bool)>) {
        let Slot {
            standing, placed, ..
        } = self.slots[slot as usize];
        let map = standing.at.map(|(map, _)| map);
        if !placed && !map.is_some_and(|map| self.changed_maps.contains(&map)) {
            return;
        }
        let views = map.and_then(|map| self.views.get(&map));
        for (index, &team) in self.teams.iter().enumerate() {
            let view = views.and_then(|(area, views)| Some((*area, views.get(index)?)));
            let visible = judge(team, standing, view);
            if visible != bit(&self.seen[index], slot) {
                found.push((index as u32, slot, visible));
            }
        }
    }

    /// Copies every team's view on every map where it differs from the view last compared,
    /// noting the map; views that are gone (the map lost its fog, or was despawned, or the
    /// team's view on it) are emptied the same way.
    fn compare_views(&mut self, maps: impl Iterator<Item = Entity>, fogs: &impl FogLookup) {
        for map in maps {
            let Some(fog) = fogs.fog(map) else { continue };
            for (team, _) in fog.teams() {
                self.know(team);
            }
            let (area, views) = self.views.entry(map).or_default();
            let mut changed = *area != fog.area();
            *area = fog.area();
            views.resize(self.teams.len(), BitRows::default());
            let empty = BitRows::default();
            for (index, view) in views.iter_mut().enumerate() {
                let now = fog
                    .team(self.teams[index])
                    .map_or(&empty, |team_fog| team_fog.visible_rows());
                if view != now {
                    view.clone_from(now);
                    changed = true;
                }
            }
            if changed {
                self.changed_maps.insert(map);
            }
        }
        // Maps that lost their fog or were despawned: their views are gone.
        let gone: Vec<Entity> = self
            .views
            .keys()
            .filter(|&&map| fogs.fog(map).is_none())
            .copied()
            .collect();
        for map in gone {
            self.views.remove(&map);
            self.changed_maps.insert(map);
        }
    }
}

/// The rule: a team sees an entity that belongs to it, and any entity standing on a tile of
/// its view (`view`: the map's area and the team's view on the entity's map, if any).
fn judge(team: Team, standing: Standing, view: Option<(Window, &BitRows)>) -> bool {
    standing.owner == Some(team)
        || standing.at.is_some_and(|(_, tile)| {
            view.is_some_and(|(area, view)| {
                area.contains(tile.x, tile.y) && view.get(tile.y - area.y, tile.x - area.x)
            })
        })
}

#[inline(always)]
fn bit(words: &[u64], index: u32) -> bool {
    let index = index as usize;
    words[index / WORD_BITS] >> (index % WORD_BITS) & 1 != 0
}

#[inline(always)]
fn set_bit(words: &mut [u64], index: u32, on: bool) {
    let index = index as usize;
    let mask = 1 << (index % WORD_BITS);
    if on {
        words[index / WORD_BITS] |= mask;
    } else {
        words[index / WORD_BITS] &= !mask;
    }
}
