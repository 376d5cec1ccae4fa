//! Which placed entities stand on each world, by 16x16-tile bucket, and which stand off its
//! chunks: when chunks come, go or move, `place_entities` places again the entities there and
//! no other, so streaming a chunk costs that chunk, not the world.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use viewshed_core::visible::Window;

use bevy_ecs_tilemap::tiles::TilePos;

use crate::placement::locate::PlaceProblem;

/// The side of a bucket, in tiles.
const SIDE: u32 = 16;

/// Where a placed entity is filed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Home {
    /// On a tile of a world, in this bucket.
    On(Entity, u32, u32),
    /// Off the chunks of a world (on a tile no chunk covers).
    Off(Entity),
}

/// Where an entity stands, or why it stands nowhere (a `Placed`'s answer).
pub(super) type Located = Result<(Entity, TilePos), PlaceProblem>;

impl Home {
    fn of(located: Located) -> Option<Self> {
        match located {
            Ok((map, tile)) => Some(Home::On(map, tile.x / SIDE, tile.y / SIDE)),
            Err(PlaceProblem::OffMap(map)) => Some(Home::Off(map)),
            Err(_) => None,
        }
    }

    fn map(self) -> Entity {
        match self {
            Home::On(map, ..) | Home::Off(map) => map,
        }
    }
}

/// The entities standing on (or off the chunks of) each world, kept by `place_entities` and
/// the observer of a discarded `Placed`.
#[derive(Resource, Default)]
pub(super) struct Residents {
    on: HashMap<(Entity, u32, u32), EntityHashSet>,
    off: EntityHashMap<EntityHashSet>,
}

impl Residents {
    /// `entity`'s `Placed` went from `was` to `now`; `is_world` says which maps are worlds
    /// (only their residents are filed).
    pub(super) fn moved(
        &mut self,
        entity: Entity,
        was: Located,
        now: Located,
        is_world: impl Fn(Entity) -> bool,
    ) {
        let (from, to) = (Home::of(was), Home::of(now));
        if from == to {
            return;
        }
        if let Some(from) = from {
            self.leave(entity, from);
        }
        if let Some(to) = to.filter(|home| is_world(home.map())) {
            match to {
                Home::On(map, x, y) => self.on.entry((map, x, y)).or_default(),
                Home::Off(map) => self.off.entry(map).or_default(),
            }
            .insert(entity);
        }
    }

    /// `entity`'s `Placed` is discarded (it may be despawned).
    pub(super) fn left(&mut self, entity: Entity, was: Located) {
        if let Some(from) = Home::of(was) {
            self.leave(entity, from);
        }
    }

    fn leave(&mut self, entity: Entity, home: Home) {
        if self.on.is_empty() && self.off.is_empty() {
            return;
        }
        let filed = match home {
            Home::On(map, x, y) => self.on.get_mut(&(map, x, y)),
            Home::Off(map) => self.off.get_mut(&map),
        };
        let Some(filed) = filed else { return };
        filed.remove(&entity);
        if filed.is_empty() {
            match home {
                Home::On(map, x, y) => self.on.remove(&(map, x, y)),
                Home::Off(map) => self.off.remove(&map),
            };
        }
    }

    /// Adds to `out` the entities filed on `world` in the buckets that overlap `area` (map
    /// coordinates), and those off its chunks.
    pub(super) fn near(&self, world: Entity, area: Window, out: &mut Vec<Entity>) {
        if let Some(off) = self.off.get(&world) {
            out.extend(off.iter().copied());
        }
        if area.is_empty() {
            return;
        }
        let (x1, y1) = (area.x + (area.width - 1), area.y + (area.height - 1));
        for y in area.y / SIDE..=y1 / SIDE {
            for x in area.x / SIDE..=x1 / SIDE {
                if let Some(filed) = self.on.get(&(world, x, y)) {
                    out.extend(filed.iter().copied());
                }
            }
        }
    }
}
