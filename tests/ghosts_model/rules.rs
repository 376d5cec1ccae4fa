//! The model of the ghost rules: what each team knows of each remembered entity on one map
//! ([`Knowledge`], [`SeenNow`]) and one update of the rules ([`judge`]), without the plugin's
//! code.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::prelude::*;

pub(crate) type Tile = (u32, u32);

/// A ghost a team has of a remembered entity on one map, in the model: where and when the
/// team last saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Known {
    Ghost { tile: Tile, seen_at: Duration },
}

/// The ghosts the teams have on one map: team, entity, its ghost.
pub(crate) type Knowledge = BTreeMap<u32, BTreeMap<Entity, Known>>;

/// What the teams see now on one map: team, entity, its tile and this update's time. It is the
/// plugin's own: the game's changes to `LastSeen` (remember, forget, clear, a clone or a save
/// put on the map) change the ghosts only.
pub(crate) type SeenNow = BTreeMap<u32, BTreeMap<Entity, (Tile, Duration)>>;

/// The ghosts alone (what a save keeps, what `LastSeen::ghosts` shows).
pub(crate) fn ghosts_of(knowledge: &Knowledge) -> Knowledge {
    knowledge.clone()
}

/// Whether `a` and `b` are neighbours: 8 neighbours on a square map, 6 on a hexagonal one (row
/// axial coordinates: `(x + 1, y - 1)` and `(x - 1, y + 1)` are neighbours, the other
/// diagonals not).
fn neighbours(hex: bool, a: Tile, b: Tile) -> bool {
    let (dx, dy) = (
        i64::from(b.0) - i64::from(a.0),
        i64::from(b.1) - i64::from(a.1),
    );
    let square = dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0);
    square && !(hex && dx == dy)
}

/// One update of the rules on one map. `visible`: what each team sees now (the union of its
/// members' views); `at`: the tile of each remembered entity that stands on this map now;
/// `now`: this update's time.
///
/// The rules, per team and entity:
/// 1. While the team sees the entity's tile, it sees the entity: no ghost (a ghost it had is
///    cleared, wherever it was).
/// 2. When it stops seeing it, a ghost goes where it last saw it, with the time of the last
///    update it saw it; if it still sees that tile (the entity stepped out of view), on the
///    tile the entity stepped to, when that tile is a neighbour of the one it was seen on.
///    Otherwise (it vanished from a tile in view: moved further, moved to another map or off
///    the map, despawned, disabled, no longer `LeavesGhost`) no ghost.
/// 3. A ghost stays until the team sees its tile (without the entity: else rule 1), whatever
///    became of the entity: a despawned, disabled or unremembered entity keeps its ghosts
///    until their tiles are seen (the team does not know). A ghost off the map (a map that
///    shrank, a ghost put there by the game) is never seen, so it stays.
/// 4. A team with no member on the map sees nothing there (its ghosts stay, what it saw
///    becomes ghosts by rule 2), whether or not the fog has a view for it.
pub(crate) fn judge(
    (knowledge, seen): (&mut Knowledge, &mut SeenNow),
    visible: &BTreeMap<u32, BTreeSet<Tile>>,
    at: &BTreeMap<Entity, Tile>,
    now: Duration,
    hex: bool,
) {
    let teams: BTreeSet<u32> = knowledge
        .keys()
        .chain(seen.keys())
        .chain(visible.keys())
        .copied()
        .collect();
    let nothing = BTreeSet::new();
    for team in teams {
        let sees = visible.get(&team).unwrap_or(&nothing);
        let ghosts = knowledge.entry(team).or_default();
        let mut next = BTreeMap::new();
        for (&entity, &tile) in at {
            if sees.contains(&tile) {
                next.insert(entity, (tile, now));
                ghosts.remove(&entity);
            }
        }
        for (&entity, &(tile, seen_at)) in seen.entry(team).or_default().iter() {
            if next.contains_key(&entity) {
                continue;
            }
            if !sees.contains(&tile) {
                ghosts.insert(entity, Known::Ghost { tile, seen_at });
            } else if let Some(&to) = at.get(&entity)
                && neighbours(hex, tile, to)
            {
                ghosts.insert(entity, Known::Ghost { tile: to, seen_at });
            }
        }
        ghosts.retain(|_, Known::Ghost { tile, .. }| !sees.contains(tile));
        seen.insert(team, next);
    }
}
