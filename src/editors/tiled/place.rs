//! Where Tiled objects stand: an object the field of view needs (a viewer, a light, a wall, a
//! target, a hider, a ghost) gets the `TilemapId` of its map's root tilemap and the `TilePos`
//! under its centre, kept in step with its `GlobalTransform` when the game moves it. On a map
//! of a world, an object beyond its own map stands on the world's tile there.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMapAsset, TiledMapReference, TiledObject, TiledObjectId};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::editors::tiled::TiledWarnings;
use crate::editors::tiled::data::{TiledData, map_name};
use crate::editors::tiled::grid::{MapGrid, NOWHERE};
use crate::ghosts::{HidesOutsideView, LeavesGhost};
use crate::light::LightSource;
use crate::opacity::elevation::Elevation;
use crate::opacity::opaque::Opaque;
use crate::sightings::CanBeSpotted;
use crate::viewshed::Viewshed;

/// On a Tiled object this integration placed (or found it could not place).
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct PlacedByTiled;

/// What an object's place is worked out from.
#[derive(QueryData)]
pub(super) struct ObjectShape {
    pub(super) entity: Entity,
    pub(super) object: &'static TiledObject,
    id: &'static TiledObjectId,
    pub(super) map: &'static TiledMapReference,
    pub(super) transform: &'static GlobalTransform,
}

impl ObjectShapeItem<'_, '_> {
    /// The object's centre in the world (its position for a point).
    pub(super) fn centre(&self, asset: &TiledMapAsset) -> Vec2 {
        asset
            .object_center(self.object, self.transform)
            .map_or(self.transform.translation().truncate(), |c| {
                Vec2::new(c.x, c.y)
            })
    }

    /// The object, for warnings.
    fn describe(&self, asset: &TiledMapAsset, data: &TiledData) -> String {
        let name = data
            .object(self.map.0, self.id.0)
            .map_or_else(String::new, |(_, object)| object.name.clone());
        format!(
            "object {name} (id {}) of map {}",
            self.id.0,
            map_name(asset)
        )
    }
}

/// The objects the field of view needs on a tile.
type FovNeeds = Or<(
    With<Elevation>,
    With<Viewshed>,
    With<LightSource>,
    With<Opaque>,
    With<CanBeSpotted>,
    With<HidesOutsideView>,
    With<LeavesGhost>,
)>;

/// The objects that need a tile: those of the field of view, and the sprites under the fog.
#[cfg(feature = "render")]
type NeedsPlace = Or<(FovNeeds, With<crate::draw::FogSprite>)>;
/// The objects that need a tile: those of the field of view.
#[cfg(not(feature = "render"))]
type NeedsPlace = FovNeeds;

/// The objects the integration put under the fog itself (not the game).
#[cfg(feature = "render")]
type Imported = With<crate::draw::sprites::ImportedFog>;
/// Without the `render` feature no object is put under the fog.
#[cfg(not(feature = "render"))]
type Imported = ();

/// Places the objects that need a tile and have none (the game may place one itself with a
/// `TilemapId`): on their map's root tilemap, at the tile under their centre. An object off
/// every tile of its map, or on a map with no tile layer, is warned about once, unless it
/// needs a tile only for the fog the integration gave it (a decoration beside the map, left
/// as the file draws it).
pub(super) fn place_objects(
    new: Query<ObjectShape, (NeedsPlace, Without<PlacedByTiled>, Without<TilemapId>)>,
    (fov, imported): (Query<(), FovNeeds>, Query<(), Imported>),
    data: TiledData,
    grids: Query<MapGrid>,
    mut warnings: ResMut<TiledWarnings>,
    mut commands: Commands,
) {
    for object in &new {
        // A tile object the integration put under the fog, and nothing more: off the map it is
        // a decoration beside it, left as the file draws it.
        let decoration = !fov.contains(object.entity) && imported.contains(object.entity);
        let Some(asset) = data.asset(object.map.0) else {
            continue;
        };
        let Some(grid) = data
            .root(object.map.0)
            .and_then(|root| grids.get(root).ok())
        else {
            if !has_tile_layer(asset) {
                if !decoration {
                    warnings.once(format!(
                        "{} needs a tile (it sees, lights, blocks sight or is looked for) but its \
                     map has no tile layer; it stands nowhere",
                        object.describe(asset, &data)
                    ));
                }
                commands.entity(object.entity).try_insert(PlacedByTiled);
            }
            continue;
        };
        let (tilemap, tile) = grid.stand(asset, object.centre(asset));
        if tile == NOWHERE && !decoration {
            warnings.once(format!(
                "{} stands outside every tile layer of its map; it stands nowhere until it is \
                 moved onto the map",
                object.describe(asset, &data)
            ));
        }
        let place = (PlacedByTiled, TilemapId(tilemap), tile);
        commands.entity(object.entity).try_insert(place);
    }
}

/// Objects placed by the plugin that moved.
type MovedObjects = (With<PlacedByTiled>, Changed<GlobalTransform>);

/// Keeps the tile of the placed objects whose `GlobalTransform` changed under their centre.
pub(super) fn follow_objects(
    moved: Query<(ObjectShape, &TilemapId, &TilePos), MovedObjects>,
    data: TiledData,
    grids: Query<MapGrid>,
    mut commands: Commands,
) {
    for (object, &TilemapId(tilemap), &tile) in &moved {
        let Some(asset) = data.asset(object.map.0) else {
            continue;
        };
        let Some(grid) = data
            .root(object.map.0)
            .and_then(|root| grids.get(root).ok())
        else {
            continue;
        };
        let (now_on, now_at) = grid.stand(asset, object.centre(asset));
        if (now_on, now_at) != (tilemap, tile) {
            commands
                .entity(object.entity)
                .try_insert((TilemapId(now_on), now_at));
        }
    }
}

/// Whether the map has a tile layer (in a group layer or not).
fn has_tile_layer(asset: &TiledMapAsset) -> bool {
    fn any_tiles<'a>(
        mut layers: impl Iterator<Item = bevy_ecs_tiled::prelude::tiled::Layer<'a>>,
    ) -> bool {
        use bevy_ecs_tiled::prelude::tiled::LayerType;
        layers.any(|layer| match layer.layer_type() {
            LayerType::Tiles(_) => true,
            LayerType::Group(group) => any_tiles(group.layers()),
            _ => false,
        })
    }
    any_tiles(asset.map.layers())
}
