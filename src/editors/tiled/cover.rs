//! Opaque Tiled objects larger than a tile (a boulder, a wide gate): every tile of the map whose
//! centre lies inside the object's shape blocks sight while the object is `Opaque`. The object
//! stands on the tile under its centre (`place.rs`); each other tile it covers gets an entity
//! of its own, a child of the object, `Opaque` exactly while the object is. A point or a
//! polyline covers no more than its own tile.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::{TiledMapAsset, TiledObject};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::editors::tiled::data::TiledData;
use crate::editors::tiled::grid::{MapGrid, MapGridItem};
use crate::editors::tiled::place::{ObjectShape, ObjectShapeItem, PlacedByTiled};
use crate::opacity::opaque::Opaque;

/// On an opaque Tiled object: the other tiles of its map it covers, and their entities.
#[derive(Component, Clone, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct Cover {
    /// The root tilemap the tiles are on.
    root: Option<Entity>,
    tiles: Vec<TilePos>,
    entities: Vec<Entity>,
    /// Whether its entities are `Opaque` now.
    opaque: bool,
}

/// One tile an opaque object covers besides its own.
#[derive(Component, Clone, Copy, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct CoverTile;

/// Objects whose covered tiles may have changed.
type CoverChanged = Or<(
    Changed<GlobalTransform>,
    Added<PlacedByTiled>,
    Added<Opaque>,
)>;

/// An opaque object (or one that was) and what it covers now.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct CoveringObject {
    shape: ObjectShape,
    opaque: Has<Opaque>,
    cover: Option<&'static mut Cover>,
    /// The tile it stands on itself.
    tile: &'static TilePos,
}

/// Opaque (or covering) objects placed by the plugin whose cover may have changed.
type CoveringChanged = (
    With<PlacedByTiled>,
    Or<(With<Opaque>, With<Cover>)>,
    CoverChanged,
);

/// Works out the tiles the opaque objects that were placed, moved or made opaque cover, and
/// spawns (or respawns) the entities that block them.
pub(super) fn cover_tiles(
    mut objects: Query<CoveringObject, CoveringChanged>,
    data: TiledData,
    grids: Query<MapGrid>,
    mut commands: Commands,
) {
    for mut object in &mut objects {
        let Some(asset) = data.asset(object.shape.map.0) else {
            continue;
        };
        let root = data.root(object.shape.map.0);
        let Some(grid) = root.and_then(|root| grids.get(root).ok()) else {
            continue;
        };
        let mut tiles = covered(&grid, &outline(&object.shape, asset, &grid));
        tiles.retain(|tile| tile != object.tile);
        let unchanged = object
            .cover
            .as_ref()
            .is_some_and(|cover| (cover.root, &cover.tiles) == (root, &tiles));
        if unchanged {
            continue;
        }
        let old = object
            .cover
            .as_mut()
            .map(|cover| std::mem::take(&mut cover.entities));
        for entity in old.into_iter().flatten() {
            commands.entity(entity).try_despawn();
        }
        let cover = spawn_cover(
            &mut commands,
            object.shape.entity,
            grid.entity,
            tiles,
            object.opaque,
        );
        commands.entity(object.shape.entity).try_insert(cover);
    }
}

/// The outline of an object in its map's root tilemap's frame (none for a point or a
/// polyline, which cover no area).
fn outline(object: &ObjectShapeItem, asset: &TiledMapAsset, grid: &MapGridItem) -> Vec<Vec2> {
    match object.object {
        TiledObject::Point | TiledObject::Polyline { .. } => Vec::new(),
        shape => asset
            .object_vertices(shape, object.transform)
            .into_iter()
            .filter_map(|c| grid.local(asset, Vec2::new(c.x, c.y)))
            .collect(),
    }
}

/// Spawns the entities of the `tiles` of `root` an object covers, opaque if it is.
fn spawn_cover(
    commands: &mut Commands,
    object: Entity,
    root: Entity,
    tiles: Vec<TilePos>,
    opaque: bool,
) -> Cover {
    let entities = tiles
        .iter()
        .map(|&tile| {
            let mut cover = commands.spawn((CoverTile, ChildOf(object), TilemapId(root), tile));
            if opaque {
                cover.insert(Opaque);
            }
            cover.id()
        })
        .collect();
    Cover {
        root: Some(root),
        tiles,
        entities,
        opaque,
    }
}

/// Makes the covered tiles of each object `Opaque` while the object is (a door opened by
/// removing its `Opaque`, closed by inserting it).
pub(super) fn follow_door_state(
    mut objects: Query<(&mut Cover, Has<Opaque>)>,
    mut commands: Commands,
) {
    for (mut cover, opaque) in &mut objects {
        if cover.opaque == opaque {
            continue;
        }
        cover.opaque = opaque;
        for &entity in &cover.entities {
            if opaque {
                commands.entity(entity).try_insert(Opaque);
            } else {
                commands.entity(entity).try_remove::<Opaque>();
            }
        }
    }
}

/// The tiles of the map whose centre lies inside the polygon `vertices` (in the tilemap's
/// frame).
fn covered(grid: &MapGridItem, vertices: &[Vec2]) -> Vec<TilePos> {
    if vertices.len() < 3 {
        return Vec::new();
    }
    let corners: Vec<IVec2> = vertices.iter().map(|&v| grid.tile_at(v)).collect();
    let low = corners
        .iter()
        .copied()
        .reduce(IVec2::min)
        .unwrap_or_default()
        - IVec2::ONE;
    let high = corners
        .iter()
        .copied()
        .reduce(IVec2::max)
        .unwrap_or_default()
        + IVec2::ONE;
    let mut tiles = Vec::new();
    for y in low.y..=high.y {
        for x in low.x..=high.x {
            let Some(tile) = grid.on_map(IVec2::new(x, y)) else {
                continue;
            };
            if inside(grid.centre(tile), vertices) {
                tiles.push(tile);
            }
        }
    }
    tiles
}

/// Whether `point` lies inside the polygon `vertices` (the even-odd rule).
fn inside(point: Vec2, vertices: &[Vec2]) -> bool {
    let mut inside = false;
    let mut previous = vertices[vertices.len() - 1];
    for &vertex in vertices {
        let crosses = (vertex.y > point.y) != (previous.y > point.y);
        if crosses {
            let x =
                (previous.x - vertex.x) * (point.y - vertex.y) / (previous.y - vertex.y) + vertex.x;
            if point.x < x {
                inside = !inside;
            }
        }
        previous = vertex;
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_even_odd_rule_finds_points_inside_a_polygon() {
        let square = [
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(0.0, 2.0),
        ];
        assert!(inside(Vec2::new(1.0, 1.0), &square));
        assert!(!inside(Vec2::new(3.0, 1.0), &square));
        let diamond = [
            Vec2::new(0.0, -1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(-1.0, 0.0),
        ];
        assert!(inside(Vec2::ZERO, &diamond));
        assert!(!inside(Vec2::new(0.8, 0.8), &diamond));
    }
}
