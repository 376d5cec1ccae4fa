//! Where each [`CanBeSpotted`](super::CanBeSpotted) target stood when the sightings last judged
//! it, and where it stands now: the targets in slots, filed under the 8x8-tile buckets of their
//! map with their tile, and the targets that left a bucket in this judging round filed under
//! the bucket they left. A view is judged against the targets filed near it, a moved target
//! from the tile it left and the tile it reached; no viewer's set of seen targets is asked.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::support::buckets::{BucketGrid, MapBuckets};

/// Where an entity stands: its map and tile.
pub(super) type At = Option<(Entity, TilePos)>;

/// The side of a bucket, in tiles.
const BUCKET: u32 = 8;

/// A target as the judging reads it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Target {
    pub(super) entity: Entity,
    /// Where it stood when last judged (meaningful for a target that moved in this round).
    pub(super) before: At,
    /// Where it stands now.
    pub(super) at: At,
}

/// A target filed under a bucket: its slot, its tile, and the round in which it last moved.
#[derive(Clone, Copy, Debug)]
pub(super) struct Filed {
    pub(super) slot: u32,
    pub(super) x: u32,
    pub(super) y: u32,
    moved_in: u64,
}

/// The targets, by slot, and by bucket of their map.
pub(super) struct TargetIndex {
    targets: Vec<Target>,
    slot_of: EntityHashMap<u32>,
    /// Slots of targets that went, taken again from the next round on (one judged in this
    /// round may still be listed as moved).
    free: Vec<u32>,
    freed: Vec<u32>,
    /// Each map's targets, by bucket of where they stand now.
    filed: MapBuckets<Vec<Filed>>,
    /// The targets that left a bucket in this round, by the bucket they left.
    left: MapBuckets<Vec<u32>>,
    /// The buckets `left` holds something in.
    left_in: Vec<(Entity, (u32, u32))>,
    /// The current judging round.
    round: u64,
}

impl Default for TargetIndex {
    fn default() -> Self {
        Self {
            targets: Vec::new(),
            slot_of: EntityHashMap::default(),
            free: Vec::new(),
            freed: Vec::new(),
            filed: MapBuckets::new(BUCKET),
            left: MapBuckets::new(BUCKET),
            left_in: Vec::new(),
            round: 0,
        }
    }
}

/// The bucket of `tile`.
fn bucket_of(tile: TilePos) -> (u32, u32) {
    (tile.x / BUCKET, tile.y / BUCKET)
}

impl TargetIndex {
    /// Forgets every target.
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    /// A new judging round begins: the targets that move from now on are this round's, and
    /// those that left a bucket in the last one are forgotten there.
    pub(super) fn next_round(&mut self) {
        self.round += 1;
        for (map, bucket) in self.left_in.drain(..) {
            if let Some(list) = self
                .left
                .get_mut(map)
                .and_then(|grid| grid.list_mut(bucket))
            {
                list.clear();
            }
        }
        self.free.append(&mut self.freed);
    }

    /// Whether `filed` moved in this round.
    #[inline]
    pub(super) fn moved(&self, filed: &Filed) -> bool {
        filed.moved_in == self.round
    }

    /// The target of `slot`.
    #[inline]
    pub(super) fn target(&self, slot: u32) -> &Target {
        &self.targets[slot as usize]
    }

    /// `entity` stands `at` now: a move in this round from where it was last judged (nowhere,
    /// if it is new).
    pub(super) fn place(&mut self, entity: Entity, at: At) -> Target {
        let slot = match self.slot_of.get(&entity) {
            Some(&slot) => slot,
            None => self.new_slot(entity),
        };
        let was = self.targets[slot as usize].at;
        self.unfile(slot, was);
        if let Some((map, tile)) = at {
            let grid = self.filed.grid_mut(map);
            let (x, y, moved_in) = (tile.x, tile.y, self.round);
            let filed = Filed {
                slot,
                x,
                y,
                moved_in,
            };
            grid.list_growing(bucket_of(tile)).push(filed);
        }
        let left = was.filter(|&(map, tile)| at != Some((map, tile)));
        let left = left.filter(|&(map, tile)| {
            at.is_none_or(|(to_map, to)| to_map != map || bucket_of(to) != bucket_of(tile))
        });
        if let Some((map, tile)) = left {
            let bucket = bucket_of(tile);
            self.left.grid_mut(map).list_growing(bucket).push(slot);
            self.left_in.push((map, bucket));
        }
        let target = &mut self.targets[slot as usize];
        (target.before, target.at) = (was, at);
        *target
    }

    fn new_slot(&mut self, entity: Entity) -> u32 {
        let blank = Target {
            entity,
            before: None,
            at: None,
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.targets[slot as usize] = blank;
                slot
            }
            None => {
                self.targets.push(blank);
                self.targets.len() as u32 - 1
            }
        };
        self.slot_of.insert(entity, slot);
        slot
    }

    /// `entity` is no longer a target (it went); returns where it stood.
    pub(super) fn remove(&mut self, entity: Entity) -> At {
        let slot = self.slot_of.remove(&entity)?;
        let target = &mut self.targets[slot as usize];
        let was = target.at;
        (target.entity, target.before, target.at) = (Entity::PLACEHOLDER, None, None);
        self.unfile(slot, was);
        self.freed.push(slot);
        was
    }

    /// Takes `slot` out of the bucket of `at`.
    fn unfile(&mut self, slot: u32, at: At) {
        let Some((map, tile)) = at else {
            return;
        };
        let Some(grid) = self.filed.get_mut(map) else {
            return;
        };
        let bucket = bucket_of(tile);
        let filed_here = |list: &Vec<Filed>| list.iter().position(|f| f.slot == slot);
        let found = match grid.list(bucket).and_then(filed_here) {
            Some(i) => grid.list_mut(bucket).map(|list| (list, i)),
            None => filed_here(grid.wide()).map(|i| (grid.wide_mut(), i)),
        };
        if let Some((list, i)) = found {
            list.swap_remove(i);
        }
    }

    /// The targets filed on `map`, by bucket of where they stand.
    #[inline]
    pub(super) fn filed_on(&self, map: Entity) -> Option<&BucketGrid<Vec<Filed>>> {
        self.filed.get(map)
    }

    /// The targets (by slot) that left a bucket of `map` in this round, by the bucket they
    /// left.
    #[inline]
    pub(super) fn left_on(&self, map: Entity) -> Option<&BucketGrid<Vec<u32>>> {
        self.left.get(map)
    }

    /// Where `entity` stands now, if it is a target.
    pub(super) fn at(&self, entity: Entity) -> At {
        let slot = self.slot_of.get(&entity)?;
        self.targets[*slot as usize].at
    }
}
