//! Tiled tiles that block sight or stand on high ground: `Opaque` on the tiles whose tileset
//! tile [`TiledOpacity`] makes opaque (its bool property, its class), `Elevation` on those
//! its int property raises, read when the tiles are spawned and again for every tile when the
//! configuration changes. (A tileset tile with our reflected `Opaque` as a custom type gets
//! it from bevy_ecs_tiled itself.)

use bevy::ecs::query::QueryData;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMapAsset, TiledTileId, TiledTilesetId};
use bevy_ecs_tilemap::map::TilemapId;

use crate::editors::put::put;
use crate::editors::tiled::TiledWarnings;
use crate::editors::tiled::config::TiledOpacity;
use crate::editors::tiled::data::TiledData;
use crate::editors::tiled::properties::{PropertySource, blocks, level};
use crate::opacity::elevation::Elevation;
use crate::opacity::opaque::Opaque;

/// On a tile or object whose `Opaque` this integration put (and may take away again).
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct OpaqueFromTiled;

/// On a tile or object whose `Elevation` this integration put (and may change or take away).
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct ElevationFromTiled;

/// What a tile or object has of the components the Tiled data gives it.
#[derive(QueryData)]
pub(super) struct TiledTerrain {
    opaque: Option<&'static Opaque>,
    opaque_ours: Has<OpaqueFromTiled>,
    elevation: Option<&'static Elevation>,
    elevation_ours: Has<ElevationFromTiled>,
}

impl TiledTerrainItem<'_, '_> {
    /// Gives `entity` the `Opaque` and `Elevation` it should have by the Tiled data
    /// (`wanted`), changing or taking away only those this integration put.
    pub(super) fn set(
        &self,
        commands: &mut Commands,
        entity: Entity,
        (opaque, level): (bool, Option<Elevation>),
    ) {
        let opaque = opaque.then_some(Opaque);
        let has = (self.opaque, self.opaque_ours);
        put::<Opaque, OpaqueFromTiled>(commands, entity, opaque, has);
        let has = (self.elevation, self.elevation_ours);
        put::<Elevation, ElevationFromTiled>(commands, entity, level, has);
    }
}

/// What a tile's opacity is decided from.
#[derive(QueryData)]
pub(super) struct TileOpacity {
    entity: Entity,
    tileset: &'static TiledTilesetId,
    tile: &'static TiledTileId,
    tilemap: &'static TilemapId,
    terrain: TiledTerrain,
}

/// Puts `Opaque` on the tiles [`TiledOpacity`] makes opaque and takes it from those it no
/// longer does: the tiles spawned since the last update, or all of them when the
/// configuration changed. Each kind of tile of a map is decided once.
pub(super) fn sync_tile_opacity(
    config: Res<TiledOpacity>,
    new: Query<TileOpacity, Added<TiledTileId>>,
    all: Query<TileOpacity>,
    data: TiledData,
    mut warnings: ResMut<TiledWarnings>,
    mut commands: Commands,
) {
    let mut decided: HashMap<(Entity, u32, u32), (bool, Option<Elevation>)> = HashMap::default();
    let mut sync = |tile: TileOpacityItem| {
        let Some(map) = data.map_of(tile.tilemap.0) else {
            return;
        };
        let key = (map, tile.tileset.0, tile.tile.0);
        let wanted = *decided.entry(key).or_insert_with(|| {
            data.asset(map).map_or((false, None), |asset| {
                tile_terrain(asset, key.1, key.2, &config, &mut warnings)
            })
        });
        tile.terrain.set(&mut commands, tile.entity, wanted);
    };
    if config.is_changed() {
        all.iter().for_each(&mut sync);
    } else {
        new.iter().for_each(&mut sync);
    }
}

/// Whether tile `tile_id` of the map's tileset `tileset` blocks sight, and its level.
fn tile_terrain(
    asset: &TiledMapAsset,
    tileset: u32,
    tile_id: u32,
    config: &TiledOpacity,
    warnings: &mut TiledWarnings,
) -> (bool, Option<Elevation>) {
    let Some(tileset) = asset.map.tilesets().get(tileset as usize) else {
        return (false, None);
    };
    let Some(tile) = tileset.get_tile(tile_id) else {
        return (false, None);
    };
    let what = format!("tile {tile_id} of tileset {}", tileset.name);
    let source = PropertySource {
        own: &tile.properties,
        inherited: None,
        class: &tile.user_type,
        what: &what,
    };
    let opaque = blocks(config, &source, warnings);
    (opaque, level(config, &source, warnings))
}
