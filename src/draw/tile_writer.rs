//! The writing of looks into the tiles of fog layers, changing a component only when its
//! value differs (so unchanged tiles are not extracted for rendering again): a tile at a time,
//! or many tiles on all threads.

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy_ecs_tilemap::tiles::{TileColor, TilePos, TileStorage, TileVisible};
use viewshed_core::visible::Window;

use crate::draw::fade::{FadeStart, FadingTiles};
use crate::draw::style::TileLook;
use crate::fog::change_list::ChangedTiles;

/// From this many tiles to write on, the tiles are written on all threads: below it, the
/// tasks cost more than they save.
const TILES_TO_WRITE_IN_PARALLEL: usize = 256;

/// The parts of a tile's look, to change in place.
type LookParts = (
    Option<&'static mut TileVisible>,
    Option<&'static mut TileColor>,
);

/// A tilemap whose tiles are written: its tiles, and the map tile of its tile `(0, 0)` (`(0,
/// 0)` but on a chunk of a world).
#[derive(Clone, Copy)]
pub(super) struct LayerTiles<'a> {
    pub(crate) storage: &'a TileStorage,
    pub(crate) first: TilePos,
}

impl LayerTiles<'_> {
    /// The layer's tiles, in map coordinates.
    pub(crate) fn window(&self) -> Window {
        Window {
            x: self.first.x,
            y: self.first.y,
            width: self.storage.size.x,
            height: self.storage.size.y,
        }
    }

    /// The layer's own tile at map tile `tile`, if it has one there.
    pub(crate) fn local(&self, tile: TilePos) -> Option<TilePos> {
        self.window()
            .contains(tile.x, tile.y)
            .then(|| TilePos::new(tile.x - self.first.x, tile.y - self.first.y))
    }

    /// The tile entity at map tile `tile` (a tile left of or below the layer wraps around to
    /// far beyond it, which the storage's own bounds check turns away).
    #[inline]
    fn entity(&self, tile: TilePos) -> Option<Entity> {
        let local = TilePos::new(
            tile.x.wrapping_sub(self.first.x),
            tile.y.wrapping_sub(self.first.y),
        );
        self.storage.checked_get(&local)
    }
}

/// Writes looks into tiles, changing a component only when its value differs.
#[derive(SystemParam)]
pub(super) struct TileWriter<'w, 's> {
    commands: Commands<'w, 's>,
    /// Disabled tiles too: they look right when enabled again.
    tiles: Query<'w, 's, LookParts, Allow<Disabled>>,
}

/// The parts of a look a tile lacks the component for, to insert.
#[derive(Clone, Copy, Debug, Default)]
struct MissingParts {
    visible: Option<TileVisible>,
    color: Option<TileColor>,
}

impl TileWriter<'_, '_> {
    /// Gives the tile of `layer` at map tile `tile` the look `look` at once.
    pub(crate) fn write(&mut self, layer: LayerTiles, tile: TilePos, look: TileLook) {
        let Some(entity) = layer.entity(tile) else {
            return;
        };
        let Ok((visible, color)) = self.tiles.get_mut(entity) else {
            return;
        };
        let missing = set_look(look, visible, color);
        insert_missing(&mut self.commands, entity, missing);
    }

    /// Gives the tiles `to_write` of `layer` their looks, `look(tile)` (map tiles), at once:
    /// on all threads when there are many.
    ///
    /// Each tile written is a few cache misses (its entity, its components, their change
    /// ticks), which the threads overlap. The entities are sorted and deduplicated, so that
    /// each thread writes tiles no other writes (what `par_iter_many_unique_mut` needs too,
    /// given as an `EntitySet`; checking it ourselves costs the same sort).
    pub(super) fn write_many(
        &mut self,
        layer: LayerTiles,
        to_write: &ChangedTiles,
        look: impl Fn(TilePos) -> TileLook + Sync,
    ) {
        let pool = ComputeTaskPool::try_get().filter(|pool| pool.thread_num() > 1);
        let (Some(pool), true) = (pool, to_write.count() >= TILES_TO_WRITE_IN_PARALLEL) else {
            let window = layer.window();
            return to_write.for_each_in(window, |tile| self.write(layer, tile, look(tile)));
        };
        let mut looks = looks_of(pool, layer, to_write, &look);
        // Each entity once, with its last look (as when written one at a time), so that no
        // two threads are given the same tile.
        looks.reverse();
        looks.sort_by_key(|&(entity, _)| entity);
        looks.dedup_by_key(|&mut (entity, _)| entity);
        let tiles = &self.tiles;
        let missing = pool.scope(|scope| {
            for part in looks.chunks(looks.len().div_ceil(parts(pool)).max(1)) {
                // SAFETY: the entities of `looks` are unique and the parts are disjoint.
                scope.spawn(async move { unsafe { write_part(tiles, part) } });
            }
        });
        for (entity, parts) in missing.into_iter().flatten() {
            insert_missing(&mut self.commands, entity, parts);
        }
    }

    /// Starts moving the tile of `layer` at map tile `tile` to the look `look` (see
    /// [`FogFade`](crate::draw::FogFade)); a tile that has nothing to fade (no `TileVisible` or
    /// `TileColor`, or hidden and staying hidden) takes it at once. The layer's fades are kept
    /// by its own tiles.
    pub(super) fn fade(
        &mut self,
        layer: LayerTiles,
        tile: TilePos,
        look: TileLook,
        fades: &mut FadingTiles,
        start: FadeStart,
    ) {
        let (Some(local), Some(entity)) = (layer.local(tile), layer.entity(tile)) else {
            return;
        };
        let Ok((Some(mut visible), Some(color))) = self.tiles.get_mut(entity) else {
            fades.stop(local);
            return self.write(layer, tile, look);
        };
        match fades.start(local, visible.0, color.0, look, start) {
            Some(show) => {
                if show {
                    visible.set_if_neq(TileVisible(true));
                }
            }
            None => self.write(layer, tile, look),
        }
    }
}

/// Into how many tasks the lookups and the writes are cut: a few per thread, so that a thread
/// done early (or running while another's core is taken by another process) takes over tasks
/// still waiting.
fn parts(pool: &ComputeTaskPool) -> usize {
    4 * pool.thread_num()
}

/// The entities of the tiles `to_write` of `layer` and their looks, in the tiles' order,
/// each task looking up a band of rows (each a cache miss in the tile storage).
fn looks_of(
    pool: &ComputeTaskPool,
    layer: LayerTiles,
    to_write: &ChangedTiles,
    look: &(impl Fn(TilePos) -> TileLook + Sync),
) -> Vec<(Entity, TileLook)> {
    let window = layer.window();
    let band = window.height.div_ceil(parts(pool) as u32).max(1);
    let bands = pool.scope(|scope| {
        for first in (0..window.height).step_by(band as usize) {
            let rows = Window {
                y: window.y + first,
                height: band.min(window.height - first),
                ..window
            };
            scope.spawn(async move {
                let mut looks = Vec::new();
                to_write.for_each_in(rows, |tile| {
                    looks.extend(layer.entity(tile).map(|entity| (entity, look(tile))));
                });
                looks
            });
        }
    });
    bands.concat()
}

/// Gives each tile of `looks` its look; returns the parts of the looks the tiles have no
/// component for.
///
/// # Safety
/// No other thread reads or changes the look of a tile of `looks` while it runs.
unsafe fn write_part(
    tiles: &Query<LookParts, Allow<Disabled>>,
    looks: &[(Entity, TileLook)],
) -> Vec<(Entity, MissingParts)> {
    let mut missing = Vec::new();
    for &(entity, look) in looks {
        // SAFETY: the caller gives this thread the tiles of `looks` alone.
        if let Ok((visible, color)) = unsafe { tiles.get_unchecked(entity) } {
            let parts = set_look(look, visible, color);
            if parts.visible.is_some() || parts.color.is_some() {
                missing.push((entity, parts));
            }
        }
    }
    missing
}

/// Changes the parts of a tile that differ from `look`; returns the parts it has no component
/// for.
fn set_look(
    look: TileLook,
    visible: Option<Mut<TileVisible>>,
    color: Option<Mut<TileColor>>,
) -> MissingParts {
    let mut missing = MissingParts::default();
    match (look.visible, visible) {
        (Some(on), Some(mut visible)) => {
            visible.set_if_neq(TileVisible(on));
        }
        (Some(on), None) => missing.visible = Some(TileVisible(on)),
        _ => {}
    }
    match (look.color, color) {
        // TileColor has no PartialEq: compare the colours so unchanged tiles stay unchanged.
        (Some(new), Some(mut color)) if color.0 != new => color.0 = new,
        (Some(new), None) => missing.color = Some(TileColor(new)),
        _ => {}
    }
    missing
}

/// Inserts the parts of a look `entity` had no component for.
fn insert_missing(commands: &mut Commands, entity: Entity, missing: MissingParts) {
    if let Some(visible) = missing.visible {
        commands.entity(entity).insert(visible);
    }
    if let Some(color) = missing.color {
        commands.entity(entity).insert(color);
    }
}
