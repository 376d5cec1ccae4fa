//! LDtk tiles that block sight or stand on high ground: `Opaque` and `Elevation` on the tiles
//! whose IntGrid value or enum tags [`LdtkOpacity`] lists, kept in step when a value, a tag or
//! the configuration changes.
//!
//! A tile's IntGrid value is its `IntGridCell` when it has one. bevy_ecs_ldtk inserts that only
//! on cells of no registered `LdtkIntCell` bundle (or of one that asks for it), so the values
//! of the other cells are read from the level's own IntGrid data when the layer spawns, and
//! kept on the tile as [`IntGridValue`].

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::Type;
use bevy_ecs_ldtk::{IntGridCell, LayerMetadata, TileEnumTags};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::editors::ldtk::LdtkWarnings;
use crate::editors::ldtk::config::LdtkOpacity;
use crate::editors::ldtk::project::ProjectData;
use crate::editors::put::put;
use crate::opacity::elevation::Elevation;
use crate::opacity::opaque::Opaque;

/// On a tile whose `Opaque` this integration put (and may take away again).
#[derive(Component, Clone, Copy, Debug, Default)]
pub(super) struct OpaqueFromLdtk;

/// On a tile whose `Elevation` this integration put (and may change or take away).
#[derive(Component, Clone, Copy, Debug, Default)]
pub(super) struct ElevationFromLdtk;

/// The IntGrid value the level's data gives a tile that has no `IntGridCell` (an `IntGridCell`
/// the game inserts later takes precedence).
#[derive(Component, Clone, Copy, Debug)]
pub(super) struct IntGridValue(i32);

/// What a tile's opacity and level are decided from, and what it has of them.
#[derive(QueryData)]
pub(super) struct LdtkTile {
    entity: Entity,
    cell: Option<&'static IntGridCell>,
    data: Option<&'static IntGridValue>,
    tags: Option<&'static TileEnumTags>,
    layer: &'static TilemapId,
    opaque: Option<&'static Opaque>,
    opaque_ours: Has<OpaqueFromLdtk>,
    elevation: Option<&'static Elevation>,
    elevation_ours: Has<ElevationFromLdtk>,
}

/// Tiles that carry LDtk data.
type WithLdtkData = Or<(With<IntGridCell>, With<IntGridValue>, With<TileEnumTags>)>;

/// Tiles whose LDtk data changed.
type ChangedTile = Or<(
    Changed<IntGridCell>,
    Added<IntGridValue>,
    Changed<TileEnumTags>,
)>;

/// Puts `Opaque` and `Elevation` on the LDtk tiles [`LdtkOpacity`] lists and takes them from
/// those it no longer lists: the tiles whose value or tags changed, or all of them when the
/// configuration did.
pub(super) fn sync_int_grid_opacity(
    config: Res<LdtkOpacity>,
    changed: Query<LdtkTile, (WithLdtkData, ChangedTile)>,
    all: Query<LdtkTile, WithLdtkData>,
    layers: Query<&LayerMetadata>,
    mut commands: Commands,
) {
    let mut sync = |tile: LdtkTileItem| {
        let layer = layers
            .get(tile.layer.0)
            .map_or("", |meta| meta.identifier.as_str());
        let value = tile
            .cell
            .map(|cell| cell.value)
            .or(tile.data.map(|data| data.0));
        let tags = tile.tags.map_or(&[][..], |tags| &tags.tags[..]);
        let opaque = config.blocks(layer, value, tags).then_some(Opaque);
        let has = (tile.opaque, tile.opaque_ours);
        put::<Opaque, OpaqueFromLdtk>(&mut commands, tile.entity, opaque, has);
        let level = config.level(layer, value, tags).map(Elevation);
        let has = (tile.elevation, tile.elevation_ours);
        put::<Elevation, ElevationFromLdtk>(&mut commands, tile.entity, level, has);
    };
    if config.is_changed() {
        all.iter().for_each(&mut sync);
    } else {
        changed.iter().for_each(&mut sync);
    }
}

/// IntGrid layers spawned since the last update.
type NewIntGridLayer = (Entity, &'static LayerMetadata, &'static TileStorage);

/// Gives the cells of the IntGrid layers spawned since the last update their value from the
/// level's data, where bevy_ecs_ldtk put no `IntGridCell`. An IntGrid layer drawn with several
/// tilemaps (overlapping auto-layer tiles) gets each value once, on the first tilemap with a
/// tile there, and none where one of them has an `IntGridCell`.
pub(super) fn read_int_grid_values(
    layers: Query<NewIntGridLayer, Added<LayerMetadata>>,
    cells: Query<(), With<IntGridCell>>,
    project: ProjectData,
    mut warnings: ResMut<LdtkWarnings>,
    mut commands: Commands,
) {
    let mut seen: Vec<(Option<Entity>, &str)> = Vec::new();
    for (layer, meta, _) in &layers {
        let key = (project.level_of(layer), meta.iid.as_str());
        if meta.layer_instance_type != Type::IntGrid || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let Some(data) = project.layer(layer, &meta.iid) else {
            warnings.once(format!(
                "the IntGrid layer {} of a level has no data in its LDtk project (external \
                 levels?); only its cells that carry an IntGridCell can block sight: add \
                 #[from_int_grid_cell] to the bundles you register for it",
                meta.identifier
            ));
            continue;
        };
        // The tilemaps of this layer: the same layer iid under the same level.
        let storages: Vec<&TileStorage> = layers
            .iter()
            .filter(|(other, other_meta, _)| {
                other_meta.iid == meta.iid && project.level_of(*other) == key.0
            })
            .map(|(_, _, storage)| storage)
            .collect();
        let width = u32::try_from(data.c_wid).unwrap_or(0);
        let height = u32::try_from(data.c_hei).unwrap_or(0);
        for (index, &value) in data.int_grid_csv.iter().enumerate() {
            let Some(pos) = cell_pos(index, width, height).filter(|_| value != 0) else {
                continue;
            };
            let tiles: Vec<Entity> = storages.iter().filter_map(|s| s.get(&pos)).collect();
            if let Some(&tile) = tiles.first()
                && !tiles.iter().any(|&tile| cells.contains(tile))
            {
                commands.entity(tile).try_insert(IntGridValue(value));
            }
        }
    }
}

/// The tile of the `index`-th value of an IntGrid CSV (rows from the top, as LDtk writes
/// them; tiles count rows from the bottom).
fn cell_pos(index: usize, width: u32, height: u32) -> Option<TilePos> {
    let index = u32::try_from(index).ok()?;
    let (x, row) = (index.checked_rem(width)?, index.checked_div(width)?);
    (row < height).then(|| TilePos::new(x, height - 1 - row))
}
