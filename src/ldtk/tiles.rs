//! LDtk tiles that block sight: `Opaque` on the tiles whose IntGrid value or enum tags
//! [`LdtkOpacity`] lists, kept in step when a value, a tag or the configuration changes.

use bevy::prelude::*;
use bevy_ecs_ldtk::{IntGridCell, LayerMetadata, TileEnumTags};
use bevy_ecs_tilemap::map::TilemapId;

use crate::ldtk::config::LdtkOpacity;
use crate::opacity::Opaque;

/// On a tile whose `Opaque` this integration put (and may take away again).
#[derive(Component, Clone, Copy, Debug, Default)]
pub(crate) struct OpaqueFromLdtk;

/// What a tile's opacity is decided from.
type TileItem = (
    Entity,
    Option<&'static IntGridCell>,
    Option<&'static TileEnumTags>,
    &'static TilemapId,
    Has<Opaque>,
    Has<OpaqueFromLdtk>,
);

/// Tiles that carry LDtk data.
type LdtkTile = Or<(With<IntGridCell>, With<TileEnumTags>)>;

/// Puts `Opaque` on the LDtk tiles [`LdtkOpacity`] lists and takes it from those it no longer
/// lists: the tiles whose value or tags changed, or all of them when the configuration did.
pub(crate) fn sync_tile_opacity(
    config: Res<LdtkOpacity>,
    changed: Query<TileItem, (LdtkTile, Or<(Changed<IntGridCell>, Changed<TileEnumTags>)>)>,
    all: Query<TileItem, LdtkTile>,
    layers: Query<&LayerMetadata>,
    mut commands: Commands,
) {
    let mut sync = |(tile, cell, tags, &TilemapId(layer), opaque, ours): (
        Entity,
        Option<&IntGridCell>,
        Option<&TileEnumTags>,
        &TilemapId,
        bool,
        bool,
    )| {
        let layer = layers
            .get(layer)
            .map_or("", |meta| meta.identifier.as_str());
        match (config.blocks_tile(layer, cell, tags), opaque, ours) {
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
