//! Which [`ReplicateWhenSeen`](super::ReplicateWhenSeen) entities each [`Team`] sees, kept
//! up to date from what changed: the entities that moved (placed again, judged for every team)
//! and the tiles whose visibility changed in a team's view (only the entities standing on
//! them are judged again). No Bevy system here: [`TeamSight`] is the model, fed by
//! [`clients`](super::clients).

use std::collections::BTreeMap;

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_replicon::server::visibility::filters_mask::FilterBit;

use crate::fog::{FogOfWar, Team};
use viewshed_core::bits::{BitRows, WORD_BITS, for_each_one};

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

/// A change of what a team sees: (team, entity, seen now).
pub(super) type SightChange = (Team, Entity, bool);

/// The fog of a root map, if it has one.
pub(super) trait FogLookup {
    fn fog(&self, map: Entity) -> Option<&FogOfWar>;
}

/// What every team sees of the marked entities, with what is needed to update it from changes.
#[derive(Resource, Default)]
pub(super) struct TeamSight {
    /// Every marked entity, placed or not (a new one stands nowhere until the next update).
    standing: EntityHashMap<Standing>,
    /// The marked entities on each (root map, x, y).
    by_tile: HashMap<(Entity, u32, u32), Vec<Entity>>,
    /// Per root map, the tiles with at least one marked entity, sized like its fog.
    occupied: EntityHashMap<BitRows>,
    /// Per team, the marked entities it sees.
    seen: BTreeMap<Team, EntityHashSet>,
    /// Per (root map, team), the team's view when last compared.
    views: HashMap<(Entity, Team), BitRows>,
    /// Entities to place again at the next update (a component removed, disabled, enabled).
    pub(crate) recheck: EntityHashSet,
    /// Scratch: the tiles to judge again.
    tiles: Vec<(u32, u32)>,
}

impl TeamSight {
    /// Whether `team` sees `entity` (as of the last update).
    pub(crate) fn sees(&self, team: Team, entity: Entity) -> bool {
        self.seen
            .get(&team)
            .is_some_and(|seen| seen.contains(&entity))
    }

    /// Whether `entity` is marked (known to the model).
    pub(crate) fn contains(&self, entity: Entity) -> bool {
        self.standing.contains_key(&entity)
    }

    /// Every marked entity.
    pub(crate) fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.standing.keys().copied()
    }

    /// A new marked entity: it stands nowhere and no team sees it until it is placed.
    pub(crate) fn add(&mut self, entity: Entity) {
        self.forget(entity);
        self.standing.insert(entity, Standing::default());
    }

    /// An entity that is no longer marked (or despawned): forgotten everywhere.
    pub(crate) fn forget(&mut self, entity: Entity) {
        if let Some(old) = self.standing.remove(&entity) {
            self.leave(entity, old.at);
        }
        for seen in self.seen.values_mut() {
            seen.remove(&entity);
        }
        self.recheck.remove(&entity);
    }

    /// Places a marked entity where it now stands and judges it for every team.
    pub(crate) fn place(
        &mut self,
        entity: Entity,
        now: Standing,
        fogs: &impl FogLookup,
        changes: &mut Vec<SightChange>,
    ) {
        let old = self.standing.insert(entity, now).unwrap_or_default();
        if old.at != now.at {
            self.leave(entity, old.at);
            self.enter(entity, now.at);
        }
        if let Some(owner) = now.owner {
            self.seen.entry(owner).or_default();
        }
        for (&team, seen) in &mut self.seen {
            update_seen(seen, team, entity, judge(team, now, fogs), changes);
        }
    }

    fn enter(&mut self, entity: Entity, at: Option<(Entity, TilePos)>) {
        let Some((map, tile)) = at else { return };
        self.by_tile
            .entry((map, tile.x, tile.y))
            .or_default()
            .push(entity);
        if let Some(occupied) = self.occupied.get_mut(&map) {
            occupied.set(tile.y, tile.x);
        }
    }

    fn leave(&mut self, entity: Entity, at: Option<(Entity, TilePos)>) {
        let Some((map, tile)) = at else { return };
        let key = (map, tile.x, tile.y);
        let Some(here) = self.by_tile.get_mut(&key) else {
            return;
        };
        here.retain(|&e| e != entity);
        if here.is_empty() {
            self.by_tile.remove(&key);
            if let Some(occupied) = self.occupied.get_mut(&map) {
                occupied.set_to(tile.y, tile.x, false);
            }
        }
    }

    fn set_seen(
        &mut self,
        team: Team,
        entity: Entity,
        visible: bool,
        changes: &mut Vec<SightChange>,
    ) {
        let seen = self.seen.entry(team).or_default();
        update_seen(seen, team, entity, visible, changes);
    }

    /// Compares every team's view on every map with the view last compared, and judges again
    /// the entities on the tiles that changed (only tiles with a marked entity are looked at).
    pub(super) fn compare_views(
        &mut self,
        maps: impl Iterator<Item = Entity>,
        fogs: &impl FogLookup,
        changes: &mut Vec<SightChange>,
    ) {
        for map in maps {
            let Some(fog) = fogs.fog(map) else { continue };
            self.size_occupied(map, fog);
            for (team, team_fog) in fog.teams() {
                self.seen.entry(team).or_default();
                self.compare_view(map, team, Some(&team_fog.visible), fogs, changes);
            }
        }
        // Views that are gone: their map lost its fog or was despawned.
        let gone: Vec<(Entity, Team)> = self
            .views
            .keys()
            .filter(|&&(map, team)| fogs.fog(map).and_then(|fog| fog.team(team)).is_none())
            .copied()
            .collect();
        for (map, team) in gone {
            self.compare_view(map, team, None, fogs, changes);
            self.views.remove(&(map, team));
        }
    }

    /// The occupied tiles of `map`, rebuilt when the map is new or resized.
    fn size_occupied(&mut self, map: Entity, fog: &FogOfWar) {
        let size = fog.size();
        let occupied = self.occupied.entry(map).or_default();
        if occupied.rows() == size.y && occupied.bits_per_row() == size.x {
            return;
        }
        occupied.reset(size.y, size.x);
        for &(tile_map, x, y) in self.by_tile.keys() {
            if tile_map == map {
                occupied.set(y, x);
            }
        }
    }

    /// One team's view on one map (`None`: gone) against the view last compared.
    fn compare_view(
        &mut self,
        map: Entity,
        team: Team,
        now: Option<&BitRows>,
        fogs: &impl FogLookup,
        changes: &mut Vec<SightChange>,
    ) {
        let empty = BitRows::default();
        let now = now.unwrap_or(&empty);
        let old = self.views.entry((map, team)).or_default();
        if *old == *now {
            return;
        }
        let mut tiles = std::mem::take(&mut self.tiles);
        tiles.clear();
        let occupied = self.occupied.get(&map).unwrap_or(&empty);
        changed_tiles(old, now, occupied, &mut tiles);
        old.clone_from(now);
        for &(x, y) in &tiles {
            self.judge_tile(map, team, TilePos { x, y }, fogs, changes);
        }
        self.tiles = tiles;
    }

    /// Judges again, for `team`, the entities on one tile.
    fn judge_tile(
        &mut self,
        map: Entity,
        team: Team,
        tile: TilePos,
        fogs: &impl FogLookup,
        changes: &mut Vec<SightChange>,
    ) {
        let Some(here) = self.by_tile.get(&(map, tile.x, tile.y)) else {
            return;
        };
        let judged: Vec<(Entity, bool)> = here
            .iter()
            .filter_map(|&entity| {
                let standing = *self.standing.get(&entity)?;
                Some((entity, judge(team, standing, fogs)))
            })
            .collect();
        for (entity, visible) in judged {
            self.set_seen(team, entity, visible, changes);
        }
    }
}

/// Records whether `team` sees `entity`, and the change if there is one.
fn update_seen(
    seen: &mut EntityHashSet,
    team: Team,
    entity: Entity,
    visible: bool,
    changes: &mut Vec<SightChange>,
) {
    let changed = if visible {
        seen.insert(entity)
    } else {
        seen.remove(&entity)
    };
    if changed {
        changes.push((team, entity, visible));
    }
}

/// The rule: a team sees an entity that belongs to it, and any entity standing on a tile of
/// its view on that entity's map.
fn judge(team: Team, standing: Standing, fogs: &impl FogLookup) -> bool {
    standing.owner == Some(team)
        || standing.at.is_some_and(|(map, tile)| {
            fogs.fog(map)
                .and_then(|fog| fog.team(team))
                .is_some_and(|view| view.is_visible(tile))
        })
}

/// The occupied tiles whose bit differs between `old` and `now` (all occupied tiles set in
/// either when their sizes differ).
fn changed_tiles(old: &BitRows, now: &BitRows, occupied: &BitRows, tiles: &mut Vec<(u32, u32)>) {
    let same_shape = old.rows() == now.rows() && old.stride() == now.stride();
    let stride = occupied.stride().max(1);
    let mut push = |index: usize, word: u64| {
        let (y, x0) = (
            (index / stride) as u32,
            ((index % stride) * WORD_BITS) as u32,
        );
        for_each_one(word, |bit| tiles.push((x0 + bit, y)));
    };
    if same_shape && now.stride() == occupied.stride() && now.rows() == occupied.rows() {
        let words = old.words().iter().zip(now.words()).zip(occupied.words());
        for (index, ((o, n), occ)) in words.enumerate() {
            let diff = (o ^ n) & occ;
            if diff != 0 {
                push(index, diff);
            }
        }
    } else {
        // Sizes differ (a resize): every occupied tile is judged again.
        for (index, &occ) in occupied.words().iter().enumerate() {
            if occ != 0 {
                push(index, occ);
            }
        }
    }
}
