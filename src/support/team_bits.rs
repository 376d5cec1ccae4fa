//! Entities kept densely in slots, each with a value and one bit per team (any key `K`): what
//! a team sees of each entity, read and written by slot. The team sight and replication's
//! client sight keep their verdicts in one.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

use viewshed_core::bits::{WORD_BITS, words_for};

/// Entities in slots (a slot freed is taken by the last one), with a `T` each, and per team
/// one bit per slot.
#[derive(Debug)]
pub(crate) struct TeamBits<K, T> {
    /// The teams met so far, in the order they came: a team's index.
    teams: Vec<K>,
    slots: Vec<(Entity, T)>,
    slot_of: EntityHashMap<u32>,
    /// Per team index, one bit per slot.
    bits: Vec<Vec<u64>>,
}

impl<K, T> Default for TeamBits<K, T> {
    fn default() -> Self {
        Self {
            teams: Vec::new(),
            slots: Vec::new(),
            slot_of: EntityHashMap::default(),
            bits: Vec::new(),
        }
    }
}

impl<K: Copy + Eq, T> TeamBits<K, T> {
    /// The teams known, by index.
    pub(crate) fn teams(&self) -> &[K] {
        &self.teams
    }

    /// The index of `team`, if known.
    pub(crate) fn team_index(&self, team: K) -> Option<usize> {
        self.teams.iter().position(|&t| t == team)
    }

    /// The index of `team`, known from now on (its bits clear).
    pub(crate) fn know(&mut self, team: K) -> usize {
        self.team_index(team).unwrap_or_else(|| {
            self.teams.push(team);
            self.bits.push(vec![0; words_for(self.slots.len() as u32)]);
            self.teams.len() - 1
        })
    }

    /// The slot of `entity`, if it has one.
    pub(crate) fn slot(&self, entity: Entity) -> Option<u32> {
        self.slot_of.get(&entity).copied()
    }

    /// The entity of `slot` and its value.
    pub(crate) fn at(&self, slot: u32) -> &(Entity, T) {
        &self.slots[slot as usize]
    }

    /// The value of `slot`, to change.
    pub(crate) fn value_mut(&mut self, slot: u32) -> &mut T {
        &mut self.slots[slot as usize].1
    }

    /// How many entities.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Every entity, with its value.
    #[cfg_attr(
        not(feature = "replicon"),
        allow(dead_code, reason = "read by replication")
    )]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &(Entity, T)> + '_ {
        self.slots.iter()
    }

    /// A slot for `entity` (which has none), every team's bit clear.
    pub(crate) fn add(&mut self, entity: Entity, value: T) -> u32 {
        let slot = self.slots.len() as u32;
        self.slots.push((entity, value));
        self.slot_of.insert(entity, slot);
        let words = words_for(self.slots.len() as u32);
        for bits in &mut self.bits {
            bits.resize(words, 0);
        }
        slot
    }

    /// Takes `entity` out, with its value and the teams (by index) whose bit was set; the
    /// last slot takes its place.
    pub(crate) fn remove(&mut self, entity: Entity) -> Option<(T, Vec<usize>)> {
        let slot = self.slot_of.remove(&entity)?;
        let last = self.slots.len() as u32 - 1;
        let mut set = Vec::new();
        for (index, bits) in self.bits.iter_mut().enumerate() {
            if get(bits, slot) {
                set.push(index);
            }
            let last_bit = get(bits, last);
            put(bits, slot, last_bit);
            put(bits, last, false);
        }
        let (_, value) = self.slots.swap_remove(slot as usize);
        if let Some(&(moved, _)) = self.slots.get(slot as usize) {
            self.slot_of.insert(moved, slot);
        }
        Some((value, set))
    }

    /// The bit of team `index` for `slot`.
    pub(crate) fn get(&self, index: usize, slot: u32) -> bool {
        get(&self.bits[index], slot)
    }

    /// Sets the bit of team `index` for `slot` to `on`; returns what it was.
    pub(crate) fn set(&mut self, index: usize, slot: u32, on: bool) -> bool {
        let was = get(&self.bits[index], slot);
        put(&mut self.bits[index], slot, on);
        was
    }

    /// Whether `team`'s bit is set for `entity` (false for an unknown team or entity).
    pub(crate) fn holds(&self, team: K, entity: Entity) -> bool {
        let (Some(index), Some(slot)) = (self.team_index(team), self.slot(entity)) else {
            return false;
        };
        self.get(index, slot)
    }

    /// Whether some team's bit is set for `entity`.
    #[cfg_attr(
        not(any(feature = "render", feature = "replicon")),
        allow(
            dead_code,
            reason = "read by the sprites under the fog and replication"
        )
    )]
    pub(crate) fn any(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|slot| self.bits.iter().any(|bits| get(bits, slot)))
    }
}

#[inline(always)]
fn get(words: &[u64], index: u32) -> bool {
    let index = index as usize;
    words[index / WORD_BITS] >> (index % WORD_BITS) & 1 == 1
}

#[inline(always)]
fn put(words: &mut [u64], index: u32, on: bool) {
    let index = index as usize;
    let mask = 1 << (index % WORD_BITS);
    if on {
        words[index / WORD_BITS] |= mask;
    } else {
        words[index / WORD_BITS] &= !mask;
    }
}
