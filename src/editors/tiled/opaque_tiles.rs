//! Tiled tiles that block sight: `Opaque` on the tiles whose tileset tile [`TiledOpacity`]
//! makes opaque (its bool property, its class), read when the tiles are spawned and again for
//! every tile when the configuration changes. (A tileset tile with our reflected `Opaque` as a
//! custom type gets it from bevy_ecs_tiled itself.)

use bevy::ecs::query::QueryData;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMapAsset, TiledTileId, TiledTilesetId};
use bevy_ecs_tilemap::map::TilemapId;

use crate::editors::tiled::TiledWarnings;
use crate::editors::tiled::config::TiledOpacity;
use crate::editors::tiled::data::TiledData;
use crate::editors::tiled::properties::{PropertySource, blocks};
use crate::opacity::opaque::Opaque;

/// On a tile or object whose `Opaque` this integration put (and may take away again).
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct OpaqueFromTiled;

/// What a tile's opacity is decided from.
#[derive(QueryData)]
pub(super) struct TileOpacity {
    entity: Entity,
    tileset: &'static TiledTilesetId,
    tile: &'static TiledTileId,
    tilemap: &'static TilemapId,
    opaque: Has<Opaque>,
    ours: Has<OpaqueFromTiled>,
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
    let mut decided: HashMap<(Entity, u32, u32), bool> = HashMap::default();
    let mut sync = |tile: TileOpacityItem| {
        let Some(map) = data.map_of(tile.tilemap.0) else {
            return;
        };
        let key = (map, tile.tileset.0, tile.tile.0);
        let wanted = *decided.entry(key).or_insert_with(|| {
            data.asset(map)
                .is_some_and(|asset| tile_blocks(asset, key.1, key.2, &config, &mut warnings))
        });
        set_opaque(&mut commands, tile.entity, wanted, tile.opaque, tile.ours);
    };
    if config.is_changed() {
        all.iter().for_each(&mut sync);
    } else {
        new.iter().for_each(&mut sync);
    }
}

/// Gives `entity` the `Opaque` it should have by the Tiled data, taking away only one this
/// integration put.
pub(super) fn set_opaque(
    commands: &mut Commands,
    entity: Entity,
    wanted: bool,
    opaque: bool,
    ours: bool,
) {
    match (wanted, opaque, ours) {
        (true, false, _) => {
            commands
                .entity(entity)
                .try_insert((Opaque, OpaqueFromTiled));
        }
        (false, _, true) => {
            commands
                .entity(entity)
                .try_remove::<(Opaque, OpaqueFromTiled)>();
        }
        _ => {}
    }
}

/// Whether tile `tile_id` of the map's tileset `tileset` blocks sight.
fn tile_blocks(
    asset: &TiledMapAsset,
    tileset: u32,
    tile_id: u32,
    config: &TiledOpacity,
    warnings: &mut TiledWarnings,
) -> bool {
    let Some(tileset) = asset.map.tilesets().get(tileset as usize) else {
        return false;
    };
    let Some(tile) = tileset.get_tile(tile_id) else {
        return false;
    };
    let what = format!("tile {tile_id} of tileset {}", tileset.name);
    let source = PropertySource {
        own: &tile.properties,
        inherited: None,
        class: &tile.user_type,
        what: &what,
    };
    blocks(config, &source, warnings)
}
