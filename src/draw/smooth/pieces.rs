//! The tilemaps a [`SmoothFog`] map's fog is drawn over, its pieces: the map itself, or each
//! chunk of a world. Each piece has a texture of its own tiles and a margin around them (the
//! blur reads two tiles around each pixel, so the fog flows on across a chunk's border without
//! a seam), and a quad over its own tiles; a chunk streamed in makes its own texture only.
//!
//! The game puts the `SmoothFog` on the map: its root tilemap, its world, or the
//! [`LayerGroup`](crate::LayerGroup) entity of an imported level (resolved to its root).

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::TilePos;

use super::settings::SmoothFog;
use crate::fog::FogOfWar;
use crate::layers::LayerGroup;
use crate::worlds::{ChunkPlacement, WorldChunks};
use viewshed_core::visible::Window;

/// The tiles around a chunk's own that its texture holds: what the blur reads across its
/// border.
const CHUNK_MARGIN: u32 = 2;

/// One tilemap a map's smooth fog is drawn over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    /// The tilemap (the map's root, or a chunk's).
    pub(super) tilemap: Entity,
    /// Its tiles, in the map's.
    pub(super) area: Window,
    /// The map's tiles its texture holds: its own and a margin around them.
    pub(super) window: Window,
    /// The tiles of its window on the map: the blur reads these, and none beyond (as on one
    /// map, whose edge it does not read past). On a world, the window within the loaded
    /// chunks' bounds.
    pub(super) on_map: Window,
}

impl Piece {
    fn new(
        tilemap: Entity,
        first: TilePos,
        size: TilemapSize,
        (margin, bounds): (u32, Window),
    ) -> Self {
        let area = Window {
            x: first.x,
            y: first.y,
            width: size.x,
            height: size.y,
        };
        let (x, y) = (
            first.x.saturating_sub(margin),
            first.y.saturating_sub(margin),
        );
        let window = Window {
            x,
            y,
            width: (first.x + size.x).saturating_add(margin) - x,
            height: (first.y + size.y).saturating_add(margin) - y,
        };
        Self {
            tilemap,
            area,
            window,
            on_map: window.intersection(&bounds).unwrap_or(area),
        }
    }

    /// The texel of the piece's own tile `(0, 0)`.
    pub(super) fn margin(&self) -> UVec2 {
        UVec2::new(self.area.x - self.window.x, self.area.y - self.window.y)
    }

    /// The first tile the blur reads and the one past its last, in the piece's own tiles.
    pub(super) fn on_map_tiles(&self) -> (IVec2, IVec2) {
        let (on, own) = (self.on_map, self.area);
        let first = IVec2::new(on.x as i32 - own.x as i32, on.y as i32 - own.y as i32);
        (first, first + IVec2::new(on.width as i32, on.height as i32))
    }
}

/// The smooth fog maps and their pieces.
#[derive(SystemParam)]
pub(super) struct SmoothMaps<'w, 's> {
    smooth: Query<'w, 's, (Entity, Ref<'static, SmoothFog>, Option<&'static LayerGroup>)>,
    fogs: Query<'w, 's, &'static FogOfWar>,
    chunks: Query<'w, 's, &'static WorldChunks>,
    placements: Query<'w, 's, &'static ChunkPlacement>,
    sizes: Query<'w, 's, &'static TilemapSize>,
}

impl SmoothMaps<'_, '_> {
    /// Each map with a `SmoothFog` (its own or its group's), the `SmoothFog`, its fog and its
    /// pieces.
    pub(super) fn each(&self) -> Vec<(Entity, Ref<'_, SmoothFog>, &FogOfWar, Vec<Piece>)> {
        let mut maps = Vec::new();
        for (entity, smooth, group) in &self.smooth {
            let map = group.and_then(LayerGroup::root).unwrap_or(entity);
            if let Ok(fog) = self.fogs.get(map) {
                maps.push((map, smooth, fog, self.pieces(map)));
            }
        }
        maps
    }

    /// The tilemaps `map`'s fog is drawn over.
    fn pieces(&self, map: Entity) -> Vec<Piece> {
        let Ok(chunks) = self.chunks.get(map) else {
            let size = self.sizes.get(map).copied().unwrap_or_default();
            let area = Window {
                x: 0,
                y: 0,
                width: size.x,
                height: size.y,
            };
            return vec![Piece::new(map, TilePos::new(0, 0), size, (0, area))];
        };
        let placed: Vec<(Entity, Window)> = chunks
            .iter()
            .filter_map(|chunk| Some((chunk, self.placements.get(chunk).ok()?.area())))
            .collect();
        let bounds = placed
            .iter()
            .fold(Window::default(), |bounds, (_, area)| area.union(&bounds));
        placed
            .into_iter()
            .map(|(chunk, area)| {
                let size = TilemapSize::new(area.width, area.height);
                let first = TilePos::new(area.x, area.y);
                Piece::new(chunk, first, size, (CHUNK_MARGIN, bounds))
            })
            .collect()
    }
}
