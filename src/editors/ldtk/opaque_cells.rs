//! LDtk tiles that block sight: `Opaque` on the tiles whose IntGrid value or enum tags
//! [`LdtkOpacity`] lists, kept in step when a value, a tag or the configuration changes.
//!
//! A tile's IntGrid value is its `IntGridCell` when it has one. bevy_ecs_ldtk inserts that only
//! on cells of no registered `LdtkIntCell` bundle (or of one that asks for it), so the values
//! of the other cells are read from the level's own IntGrid data when the layer spawns, and
//! kept on the tile as [`IntGridValue`].

use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::Type;
use bevy_ecs_ldtk::{IntGridCell, LayerMetadata, TileEnumTags};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::editors::ldtk::LdtkWarnings;
use crate::editors::ldtk::config::LdtkOpacity;
use crate::editors::ldtk::project::ProjectData;
use crate::opacity::opaque::Opaque;

/// On a tile whose `Opaque` this integration put (and may take away again).
#[derive(Component, Clone, Copy, Debug, Default)]
pub(super) struct OpaqueFromLdtk;

/// The IntGrid value the level's data gives a tile that has no `IntGridCell` (an `IntGridCell`
/// the game inserts later takes precedence).
#[derive(Component, Clone, Copy, Debug)]
pub(super) struct IntGridValue(i32);

/// What a tile's opacity is decided from.
type TileItem = (
    Entity,
    Option<&'static IntGridCell>,
    Option<&'static IntGridValue>,
    Option<&'static TileEnumTags>,
    &'static TilemapId,
    Has<Opaque>,
    Has<OpaqueFromLdtk>,
);

/// Tiles that carry LDtk data.
type LdtkTile = Or<(With<IntGridCell>, With<IntGridValue>, With<TileEnumTags>)>;

/// Tiles whose LDtk data changed.
type ChangedTile = Or<(
    Changed<IntGridCell>,
    Added<IntGridValue>,
    Changed<TileEnumTags>,
)>;

/// Puts `Opaque` on the LDtk tiles [`LdtkOpacity`] lists and takes it from those it no longer
/// lists: the tiles whose value or tags changed, or all of them when the configuration did.
pub(super) fn sync_int_grid_opacity(
    config: Res<LdtkOpacity>,
    changed: Query<TileItem, (LdtkTile, ChangedTile)>,
    all: Query<TileItem, LdtkTile>,
    layers: Query<&LayerMetadata>,
    mut commands: Commands,
) {
    let mut sync = |(tile, cell, data, tags, &TilemapId(layer), opaque, ours): (
        Entity,
        Option<&IntGridCell>,
        Option<&IntGridValue>,
        Option<&TileEnumTags>,
        &TilemapId,
        bool,
        bool,
    )| {
        let layer = layers
            .get(layer)
            .map_or("", |meta| meta.identifier.as_str());
        let value = cell.map(|cell| cell.value).or(data.map(|data| data.0));
        let tags = tags.map_or(&[][..], |tags| &tags.tags[..]);
        match (config.blocks(layer, value, tags), opaque, ours) {
            (true, false, _) => {
                commands.entity(tile).try_insert((Opaque, OpaqueFromLdtk));
            }
            (false, _, true) => {
                commands
                    .entity(tile)
                    .try_remove::<(Opaque, OpaqueFromLdtk)>();
            }
            _ => {}
        }
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
