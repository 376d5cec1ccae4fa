//! Tiled maps on a headless server: without its `render` feature, bevy_ecs_tiled spawns each
//! tilemap of a map with its tiles but without the tilemap's size, grid and `TileStorage` (it
//! gives those only with the texture it draws), so nothing would be a map. They are given
//! here, as bevy_ecs_tiled gives them to the tilemaps it draws.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{
    TiledMap, TiledMapAsset, TiledMapReference, TiledTilemap, TiledTilesetId, grid_size_from_map,
    tiled, tilemap_type_from_map,
};
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{TilemapId, TilemapTileSize};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::editors::tiled::data::TiledData;

/// A tilemap bevy_ecs_tiled spawned, with its tiles.
#[derive(QueryData)]
pub(super) struct NewTilemap {
    entity: Entity,
    map: &'static TiledMapReference,
    tileset: &'static TiledTilesetId,
    children: Option<&'static Children>,
}

/// Gives the tilemaps bevy_ecs_tiled spawned without a `TileStorage` since the last update
/// their size, grid, map type, anchor, tileset offset and storage of the tiles below them.
pub(super) fn complete_tilemaps(
    new: Query<NewTilemap, (Added<TiledTilemap>, Without<TileStorage>)>,
    tiles: Query<&TilePos, With<TilemapId>>,
    anchors: Query<&TilemapAnchor, With<TiledMap>>,
    data: TiledData,
    mut commands: Commands,
) {
    for NewTilemapItem {
        entity: tilemap,
        map,
        tileset,
        children,
    } in &new
    {
        let Some(asset) = data.asset(map.0).filter(|asset| drawable(asset)) else {
            continue;
        };
        let Some(tileset) = asset.map.tilesets().get(tileset.0 as usize) else {
            continue;
        };
        let mut storage = TileStorage::empty(asset.tilemap_size);
        for tile in children.into_iter().flatten() {
            if let Ok(pos) = tiles.get(*tile) {
                storage.set(pos, *tile);
            }
        }
        let anchor = anchors.get(map.0).copied().unwrap_or_default();
        let offset = Vec3::new(tileset.offset_x as f32, -tileset.offset_y as f32, 0.0);
        commands.entity(tilemap).try_insert((
            asset.tilemap_size,
            storage,
            grid_size_from_map(&asset.map),
            TilemapTileSize::new(tileset.tile_width as f32, tileset.tile_height as f32),
            tilemap_type_from_map(&asset.map),
            anchor,
            Transform::from_translation(offset),
        ));
    }
}

/// Whether bevy_ecs_tiled gives the map a tilemap type (it refuses staggered and oblique maps).
fn drawable(asset: &TiledMapAsset) -> bool {
    matches!(
        asset.map.orientation,
        tiled::Orientation::Orthogonal
            | tiled::Orientation::Isometric
            | tiled::Orientation::Hexagonal
    )
}
