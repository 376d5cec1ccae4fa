//! The Tiled data behind what bevy_ecs_tiled spawned: the map entity and loaded map above a
//! tilemap, tile or object, and the tileset tile or object it was made from, so that the
//! integration reads properties and classes from the map bevy_ecs_tiled loaded.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{
    TiledMap, TiledMapAsset, TiledMapReference, get_object_from_map, tiled,
};

use crate::layers::groups::LayerGroup;

/// Finds the Tiled data of spawned entities.
#[derive(SystemParam)]
pub(super) struct TiledData<'w, 's> {
    maps: Query<'w, 's, (&'static TiledMap, Option<&'static LayerGroup>)>,
    references: Query<'w, 's, &'static TiledMapReference>,
    assets: Option<Res<'w, Assets<TiledMapAsset>>>,
}

impl TiledData<'_, '_> {
    /// The map entity `entity` (a tilemap, layer or object) belongs to.
    pub(super) fn map_of(&self, entity: Entity) -> Option<Entity> {
        self.references
            .get(entity)
            .ok()
            .map(|reference| reference.0)
    }

    /// The loaded map of the map entity `map`.
    pub(super) fn asset(&self, map: Entity) -> Option<&TiledMapAsset> {
        let (handle, _) = self.maps.get(map).ok()?;
        self.assets.as_ref()?.get(&handle.0)
    }

    /// The root tilemap of the map entity `map` (where its opacity and fog live), once the
    /// plugin has seen its layers.
    pub(super) fn root(&self, map: Entity) -> Option<Entity> {
        self.maps.get(map).ok()?.1.and_then(LayerGroup::root)
    }

    /// The object `id` of the map entity `map`, with the map it is on.
    pub(super) fn object(
        &self,
        map: Entity,
        id: u32,
    ) -> Option<(&TiledMapAsset, tiled::Object<'_>)> {
        let asset = self.asset(map)?;
        Some((asset, get_object_from_map(&asset.map, id)?))
    }
}

/// A map's file name, for warnings.
pub(super) fn map_name(asset: &TiledMapAsset) -> String {
    asset.map.source.file_name().map_or_else(
        || asset.map.source.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}
