//! What would otherwise fail silently with a Tiled map, warned about once: a tile layer drawn
//! away from the map's grid (an offset, parallax), tilemaps of one map that differ in size or
//! grid, and a map bevy_ecs_tiled cannot load (a staggered isometric map).

use bevy::asset::{AssetEvent, AssetLoadFailedEvent};
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMap, TiledMapAsset, TiledName, tiled};
use bevy_ecs_tilemap::map::{TilemapGridSize, TilemapSize, TilemapType};

use crate::editors::tiled::TiledWarnings;
use crate::editors::tiled::data::map_name;
use crate::layers::groups::LayerGroup;
use crate::layers::layer_of::Layers;

/// Checks each map loaded or modified (its layers' offsets and parallax), and says why a map
/// failed to load when it is a kind bevy_ecs_tiled cannot load.
pub(super) fn check_maps(
    mut loaded: MessageReader<AssetEvent<TiledMapAsset>>,
    mut failed: MessageReader<AssetLoadFailedEvent<TiledMapAsset>>,
    assets: Option<Res<Assets<TiledMapAsset>>>,
    mut warnings: ResMut<TiledWarnings>,
) {
    for event in loaded.read() {
        let (AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id }) = event
        else {
            continue;
        };
        if let Some(asset) = assets.as_ref().and_then(|assets| assets.get(*id)) {
            let name = map_name(asset);
            check_layers(&name, asset.map.layers(), Vec2::ZERO, false, &mut warnings);
        }
    }
    for event in failed.read() {
        warnings.once(format!(
            "the Tiled map {} could not be loaded ({}): it has no field of view; \
             bevy_ecs_tiled 0.13 loads orthogonal, isometric (diamond) and hexagonal maps, \
             not staggered isometric ones",
            event.path, event.error
        ));
    }
}

/// Warns about the tile layers among `layers` (below groups offset by `offset`, with parallax
/// when `parallax`) whose tiles are drawn away from the cells they count for.
fn check_layers<'a>(
    map: &str,
    layers: impl Iterator<Item = tiled::Layer<'a>>,
    offset: Vec2,
    parallax: bool,
    warnings: &mut TiledWarnings,
) {
    for layer in layers {
        let offset = offset + Vec2::new(layer.offset_x, layer.offset_y);
        let parallax = parallax || layer.parallax_x != 1.0 || layer.parallax_y != 1.0;
        match layer.layer_type() {
            tiled::LayerType::Group(group) => {
                check_layers(map, group.layers(), offset, parallax, warnings);
            }
            tiled::LayerType::Tiles(_) if offset != Vec2::ZERO || parallax => {
                warnings.once(format!(
                    "the tile layer {} of Tiled map {map} is drawn {}: its tiles block sight and \
                     get fog at the cells of the map's grid, not where they are drawn; remove \
                     the layer's offset and parallax in Tiled",
                    layer.name,
                    if parallax {
                        "with parallax".to_string()
                    } else {
                        format!("offset by ({}, {}) pixels", offset.x, offset.y)
                    }
                ));
            }
            _ => {}
        }
    }
}

/// Checks the tilemaps of each map whose layers changed against its root: the same size,
/// grid size and map type.
pub(super) fn check_grids(
    maps: Query<&LayerGroup, (With<TiledMap>, Changed<LayerGroup>)>,
    layers: Query<&Layers>,
    grids: Query<TilemapGrid>,
    mut warnings: ResMut<TiledWarnings>,
) {
    for group in &maps {
        let Some(root) = group.root() else {
            continue;
        };
        let Ok(root_grid) = grids.get(root) else {
            continue;
        };
        for layer in layers.get(root).into_iter().flat_map(Layers::iter) {
            let Ok(grid) = grids.get(layer) else {
                continue;
            };
            let same = (grid.size, grid.grid, grid.map_type)
                == (root_grid.size, root_grid.grid, root_grid.map_type);
            if !same {
                let name = grid.name.map_or("", |name| name.0.as_str());
                warnings.once(format!(
                    "tilemap {layer} ({name}) of a Tiled map has another size or grid than the \
                     map's first tilemap {root} ({:?} {:?} {:?}, not {:?} {:?} {:?}); its tiles \
                     are counted on the first tilemap's grid",
                    grid.size,
                    grid.grid,
                    grid.map_type,
                    root_grid.size,
                    root_grid.grid,
                    root_grid.map_type
                ));
            }
        }
    }
}

/// What tilemaps of one map must share.
#[derive(QueryData)]
pub(super) struct TilemapGrid {
    size: &'static TilemapSize,
    grid: &'static TilemapGridSize,
    map_type: &'static TilemapType,
    name: Option<&'static TiledName>,
}
