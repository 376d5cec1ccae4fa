//! What each [`Team`]'s clients may hold of the [`ReplicatesWhenSeen`](super::ReplicatesWhenSeen)
//! entities: what the team sees (the fog's [`TeamSight`], judged once per team whatever the
//! number of its clients), and always its own. Kept from what changed: the team sight's
//! changes, and the marked entities whose mark or owner changed. No Bevy system here:
//! [`ClientSight`] is the model, fed by [`clients`](super::clients).

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use bevy_replicon::server::visibility::filters_mask::FilterBit;

use crate::fog::Team;
use crate::fog::sight::TeamSight;
use crate::support::team_bits::TeamBits;

/// The visibility bit this plugin owns in replicon's filter registry (an entity scope: a
/// hidden entity is despawned on the client).
#[derive(Resource, Clone, Copy, Debug)]
pub(super) struct SightBit(pub(super) FilterBit);

/// The team a marked entity belongs to, if any.
pub(super) type Owner = Option<Team>;

/// What every team's clients may hold of the marked entities (each with its owner), and what
/// changed for each team in the last update.
#[derive(Resource, Default)]
pub(super) struct ClientSight {
    held: TeamBits<Team, Owner>,
    /// Per team index, what changed for it in the last update: (entity, held now).
    changes: Vec<Vec<(Entity, bool)>>,
    /// Marked entities whose owner changed or that were disabled or enabled: judged again at
    /// the next update.
    pub(crate) recheck: EntityHashSet,
    /// The team sight's update this last followed.
    followed: u64,
}

impl ClientSight {
    /// Whether `team`'s clients may hold `entity` (as of the last update).
    pub(crate) fn sees(&self, team: Team, entity: Entity) -> bool {
        self.held.holds(team, entity)
    }

    /// Every marked entity.
    pub(crate) fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.held.iter().map(|&(entity, _)| entity)
    }

    /// What changed for `team` in the last update: (entity, held now).
    pub(crate) fn changes_of(&self, team: Team) -> &[(Entity, bool)] {
        self.held
            .team_index(team)
            .map_or(&[], |index| self.changes[index].as_slice())
    }

    /// Whether the last update changed what any team's clients may hold.
    pub(crate) fn changed(&self) -> bool {
        self.changes.iter().any(|changes| !changes.is_empty())
    }

    fn know(&mut self, team: Team) -> usize {
        let index = self.held.know(team);
        self.changes.resize_with(self.held.teams().len(), Vec::new);
        index
    }

    /// A new marked entity: no team's clients hold it until the next update judges it.
    pub(crate) fn add(&mut self, entity: Entity) {
        self.forget(entity);
        self.held.add(entity, None);
        self.recheck.insert(entity);
    }

    /// An entity that is no longer marked (or despawned): forgotten everywhere.
    pub(crate) fn forget(&mut self, entity: Entity) {
        self.recheck.remove(&entity);
        self.held.remove(entity);
    }

    /// Brings what each team's clients may hold up to date with the team sight (`sight`) and
    /// the owners (`owner_of`: `None` for an entity that is disabled or gone): judges the
    /// marked entities whose sight changed in the team sight's last update, and those to
    /// recheck; every marked entity when the team sight updated more than once since the last
    /// time (a fixed-timestep plugin) or never did.
    pub(super) fn update(&mut self, sight: &TeamSight, owner_of: impl Fn(Entity) -> Owner) {
        for changes in &mut self.changes {
            changes.clear();
        }
        for &team in sight.teams() {
            self.know(team);
        }
        let updates = sight.updates();
        let mut judged: Vec<Entity> = self.recheck.drain().collect();
        match updates.wrapping_sub(self.followed) {
            0 => {}
            1 => judged.extend(sight.changes().map(|(_, change)| change.entity)),
            _ => judged.extend(self.entities()),
        }
        self.followed = updates;
        for entity in judged {
            self.judge(entity, sight, owner_of(entity));
        }
    }

    /// Judges `entity` for every team: its clients may hold it when the team sees it or owns
    /// it.
    fn judge(&mut self, entity: Entity, sight: &TeamSight, owner: Owner) {
        let Some(slot) = self.held.slot(entity) else {
            return;
        };
        if let Some(owner) = owner {
            self.know(owner);
        }
        *self.held.value_mut(slot) = owner;
        for index in 0..self.held.teams().len() {
            let team = self.held.teams()[index];
            let held = owner == Some(team) || sight.sees(team, entity);
            if self.held.set(index, slot, held) != held {
                self.changes[index].push((entity, held));
            }
        }
    }
}
