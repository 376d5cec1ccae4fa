//! Where an entity stands: the root map and tile of a viewer, a light, a wall, a spottable
//! target or a hidden monster, from its `TilePos` or, failing that, its `GlobalTransform` and
//! its tilemap's geometry. One rule for every kind of entity the plugin places, used by
//! `placed.rs` alone.

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    HexCoordSystem, IsoCoordSystem, TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize,
    TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::maps::layers::{LayerOf, LayerProblem, root_of};
use viewshed_core::hex::HexCoords;

/// What a tilemap needs to turn a world position into a tile.
#[derive(QueryData)]
struct Geometry {
    transform: &'static GlobalTransform,
    size: &'static TilemapSize,
    grid: &'static TilemapGridSize,
    tile_size: &'static TilemapTileSize,
    map_type: &'static TilemapType,
    anchor: Option<&'static TilemapAnchor>,
}

/// Why an entity stands on no tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlaceProblem {
    /// It has no `TilemapId`, or neither a `TilePos` nor a `GlobalTransform`.
    NotPlaced,
    /// Its `TilemapId` names an entity that is not (or no longer) a tilemap.
    NotATilemap(Entity),
    /// Its tilemap's `LayerOf` chain has no root.
    Layers(Entity, LayerProblem),
    /// It is placed by `Transform`, and its tilemap has no `GlobalTransform`.
    NoMapTransform(Entity),
    /// It is placed by `Transform`, and its tilemap's `GlobalTransform` cannot be inverted.
    SingularMapTransform(Entity),
    /// Its tile lies outside its map.
    OffMap(Entity),
}

impl PlaceProblem {
    /// What is wrong and what to do, for a warning about `entity`.
    pub(crate) fn describe(self) -> String {
        match self {
            PlaceProblem::NotPlaced => {
                "needs a TilemapId and a TilePos (or a Transform); insert them".into()
            }
            PlaceProblem::NotATilemap(tilemap) => format!(
                "is on {tilemap}, which is not a tilemap (no TilemapSize and TileStorage, or \
                 despawned); point its TilemapId at a tilemap"
            ),
            PlaceProblem::Layers(tilemap, LayerProblem::Cycle) => format!(
                "is on {tilemap}, whose LayerOf chain loops back on itself; make one tilemap of \
                 the chain the root"
            ),
            PlaceProblem::Layers(tilemap, LayerProblem::TooDeep) => format!(
                "is on {tilemap}, whose LayerOf chain is too long to have a root; shorten it"
            ),
            PlaceProblem::NoMapTransform(tilemap) => format!(
                "is placed by Transform on tilemap {tilemap}, which has no GlobalTransform; give \
                 the tilemap a Transform or the entity a TilePos"
            ),
            PlaceProblem::SingularMapTransform(tilemap) => format!(
                "is placed by Transform on tilemap {tilemap}, whose GlobalTransform cannot be \
                 inverted (a scale of 0?); fix the tilemap's scale or give the entity a TilePos"
            ),
            PlaceProblem::OffMap(map) => {
                format!("stands outside tilemap {map}; move it onto the map")
            }
        }
    }
}

/// A tilemap's root map and that map's size, or why it has none.
pub(super) type MapOf = Result<(Entity, Option<TilemapSize>), PlaceProblem>;

/// Finds the root map and tile of entities.
#[derive(SystemParam)]
pub(crate) struct Placement<'w, 's> {
    layers: Query<'w, 's, &'static LayerOf>,
    sizes: Query<'w, 's, &'static TilemapSize>,
    geometry: Query<'w, 's, Geometry>,
}

impl Placement<'_, '_> {
    /// Whether `entity` is a tilemap (it has a `TilemapSize`).
    pub(super) fn is_tilemap(&self, entity: Entity) -> bool {
        self.sizes.contains(entity)
    }
}

/// Which field of view a map's grid gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Grid {
    /// Square maps, and diamond isometric maps (a square grid drawn turned).
    #[default]
    Square,
    /// Hexagonal maps, in one of bevy_ecs_tilemap's six coordinate systems.
    Hex(HexCoords),
    /// Staggered isometric maps: a square grid in other coordinates (see
    /// [`staggered`](crate::staggered)).
    Staggered,
}

/// The field of view of a tilemap of this type.
pub(super) fn grid_of(map_type: &TilemapType) -> Grid {
    let hex = |system: &HexCoordSystem| match system {
        HexCoordSystem::Row => HexCoords::Row,
        HexCoordSystem::Column => HexCoords::Column,
        HexCoordSystem::RowEven => HexCoords::RowEven,
        HexCoordSystem::RowOdd => HexCoords::RowOdd,
        HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
        HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
    };
    match map_type {
        TilemapType::Square | TilemapType::Isometric(IsoCoordSystem::Diamond) => Grid::Square,
        TilemapType::Hexagon(system) => Grid::Hex(hex(system)),
        TilemapType::Isometric(IsoCoordSystem::Staggered) => Grid::Staggered,
    }
}

impl Placement<'_, '_> {
    /// The root map of `tilemap`.
    fn root(&self, tilemap: Entity) -> Result<Entity, PlaceProblem> {
        root_of(tilemap, &self.layers).map_err(|problem| PlaceProblem::Layers(tilemap, problem))
    }

    /// The root map of `tilemap` and that map's size (if it has one).
    pub(super) fn root_and_size(&self, tilemap: Entity) -> MapOf {
        let root = self.root(tilemap)?;
        Ok((root, self.sizes.get(root).ok().copied()))
    }

    /// The root map and tile of an entity with these components, if that tile lies on the
    /// root map, with the tilemap's root and its size found by `map_of` (which may remember
    /// its last answer, [`root_and_size`](Self::root_and_size)).
    pub(super) fn locate_in(
        &self,
        tile: Option<&TilePos>,
        tilemap: Option<&TilemapId>,
        transform: Option<&GlobalTransform>,
        map_of: impl FnOnce(Entity) -> MapOf,
    ) -> Result<(Entity, TilePos), PlaceProblem> {
        let mut size = None;
        let root = |tilemap| {
            let (root, map_size) = map_of(tilemap)?;
            size = map_size;
            Ok(root)
        };
        let (root, at) = self.locate_via(tile, tilemap, transform, root)?;
        // A tile beyond its root map (one that shrank, or a bad position) stands nowhere, and
        // so does one on a root that has no size: that is no tilemap.
        match size {
            Some(size) if at.x < size.x && at.y < size.y => Ok((root, at)),
            Some(_) => Err(PlaceProblem::OffMap(root)),
            None => Err(PlaceProblem::NotATilemap(root)),
        }
    }

    /// The root map and tile of an entity, the tile maybe beyond the map.
    fn locate_via(
        &self,
        tile: Option<&TilePos>,
        tilemap: Option<&TilemapId>,
        transform: Option<&GlobalTransform>,
        root: impl FnOnce(Entity) -> Result<Entity, PlaceProblem>,
    ) -> Result<(Entity, TilePos), PlaceProblem> {
        let Some(&TilemapId(tilemap)) = tilemap else {
            return Err(PlaceProblem::NotPlaced);
        };
        let root = root(tilemap)?;
        match (tile, transform) {
            (Some(&tile), _) => Ok((root, tile)),
            (None, Some(transform)) => Ok((root, self.tile_at(tilemap, root, transform)?)),
            (None, None) => Err(PlaceProblem::NotPlaced),
        }
    }

    /// The tile of `tilemap` under a world position.
    fn tile_at(
        &self,
        tilemap: Entity,
        root: Entity,
        transform: &GlobalTransform,
    ) -> Result<TilePos, PlaceProblem> {
        let Ok(geometry) = self.geometry.get(tilemap) else {
            return Err(if self.sizes.contains(tilemap) {
                PlaceProblem::NoMapTransform(tilemap)
            } else {
                PlaceProblem::NotATilemap(tilemap)
            });
        };
        let inverse = geometry.transform.affine().inverse();
        let local = inverse.transform_point3(transform.translation()).truncate();
        if !inverse.is_finite() || !local.is_finite() {
            return Err(PlaceProblem::SingularMapTransform(tilemap));
        }
        let anchor = geometry.anchor.copied().unwrap_or_default();
        let g = &geometry;
        TilePos::from_world_pos(&local, g.size, g.grid, g.tile_size, g.map_type, &anchor)
            .ok_or(PlaceProblem::OffMap(root))
    }
}
