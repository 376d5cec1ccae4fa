//! Recomputes the [`Viewshed`]s that need it, in parallel, and announces each with a
//! [`ViewshedUpdated`] message.
//!
//! A view is recomputed when the viewer is new, when its map, tile, radius or light-walls
//! option changed, or when opacity changed inside its radius; every other viewer is left
//! alone. A viewer that cannot see (no tilemap, tile off the map) gets an empty view and one
//! warning.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::components::{LayerOf, RevealsFog, ViewKey, ViewProblem, Viewshed};
use crate::opacity::{MapOpacity, root_of};
use crate::shadowcast::Fov;

/// Written after a viewer's view was recomputed or cleared (a buffered message: read it with
/// `MessageReader<ViewshedUpdated>` in a system ordered after
/// [`ViewshedSystems::Recompute`](crate::ViewshedSystems::Recompute)).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewshedUpdated {
    /// The viewer entity.
    pub viewer: Entity,
}

/// Maps whose team views (the unions of their [`RevealsFog`] viewers' views) must be rebuilt.
#[derive(Resource, Debug, Default)]
pub(crate) struct FogDirty(pub EntityHashSet);

/// What a tilemap needs to turn a world position into a tile.
type Geometry = (
    &'static GlobalTransform,
    &'static TilemapSize,
    &'static TilemapGridSize,
    &'static TilemapTileSize,
    &'static TilemapType,
    Option<&'static TilemapAnchor>,
);

type ViewerItem = (
    Entity,
    &'static mut Viewshed,
    Option<&'static TilePos>,
    Option<&'static TilemapId>,
    Option<&'static GlobalTransform>,
    Has<RevealsFog>,
);

/// One recomputed view: the viewer, whether it reveals fog, and its map before and after.
type Update = (Entity, bool, Option<Entity>, Option<Entity>);

pub(crate) fn recompute_viewsheds(
    mut viewers: Query<ViewerItem>,
    mut maps: Query<&mut MapOpacity>,
    layers: Query<&LayerOf>,
    geometry: Query<Geometry>,
    mut updates: Local<Parallel<Vec<Update>>>,
    mut messages: MessageWriter<ViewshedUpdated>,
    mut fog_dirty: ResMut<FogDirty>,
) {
    let maps_ref = &maps.as_readonly();
    let updates_ref = &*updates;
    viewers.par_iter_mut().for_each_init(Fov::new, |fov, item| {
        let (entity, mut viewshed, tile, tilemap, transform, reveals) = item;
        let key = locate(
            viewshed.as_ref(),
            tile,
            tilemap,
            transform,
            &layers,
            maps_ref,
            &geometry,
        );
        let before = viewshed.computed.map(|key| key.map);
        match key {
            Ok((key, opacity)) => {
                let up_to_date = viewshed.computed == Some(key)
                    && !opacity.changed_within(key.origin, key.options.radius, key.options.shape);
                if up_to_date {
                    return;
                }
                let viewshed = &mut *viewshed;
                // The last view becomes the previous one (for newly seen / unseen tiles).
                std::mem::swap(&mut viewshed.visible, &mut viewshed.previous);
                // The origin was checked to be on the map, so this cannot fail.
                if fov
                    .compute(
                        opacity.grid(),
                        key.origin,
                        key.options,
                        &mut viewshed.visible,
                    )
                    .is_ok()
                {
                    viewshed.computed = Some(key);
                    viewshed.generation += 1;
                    viewshed.warned = None;
                    updates_ref
                        .borrow_local_mut()
                        .push((entity, reveals, before, Some(key.map)));
                }
            }
            Err(problem) => {
                if viewshed.warned != Some(problem) {
                    warn_about(entity, problem);
                    viewshed.bypass_change_detection().warned = Some(problem);
                }
                if viewshed.computed.is_some() || !viewshed.visible.is_empty() {
                    let viewshed = &mut *viewshed;
                    std::mem::swap(&mut viewshed.visible, &mut viewshed.previous);
                    viewshed.visible.clear();
                    viewshed.computed = None;
                    viewshed.generation += 1;
                    updates_ref
                        .borrow_local_mut()
                        .push((entity, reveals, before, None));
                }
            }
        }
    });

    for (viewer, reveals, before, after) in updates.drain() {
        messages.write(ViewshedUpdated { viewer });
        if reveals {
            fog_dirty.0.extend(before);
            fog_dirty.0.extend(after);
        }
    }
    for mut opacity in &mut maps {
        if opacity.has_changes() {
            opacity.clear_changes();
        }
    }
}

/// The map and tile a viewer stands on, or why it sees nothing.
fn locate<'a>(
    viewshed: &Viewshed,
    tile: Option<&TilePos>,
    tilemap: Option<&TilemapId>,
    transform: Option<&GlobalTransform>,
    layers: &Query<&LayerOf>,
    maps: &'a Query<&MapOpacity>,
    geometry: &Query<Geometry>,
) -> Result<(ViewKey, &'a MapOpacity), ViewProblem> {
    let Some(&TilemapId(tilemap)) = tilemap else {
        return Err(ViewProblem::NotPlaced);
    };
    let map = root_of(tilemap, layers);
    let Ok(opacity) = maps.get(map) else {
        return Err(ViewProblem::NoTilemap(tilemap));
    };
    let origin = match (tile, transform) {
        (Some(tile), _) => (tile.x, tile.y),
        (None, Some(transform)) => {
            let Ok((map_transform, size, grid, tile_size, map_type, anchor)) =
                geometry.get(tilemap)
            else {
                return Err(ViewProblem::NoTilemap(tilemap));
            };
            let local = map_transform
                .affine()
                .inverse()
                .transform_point3(transform.translation())
                .truncate();
            let anchor = anchor.copied().unwrap_or_default();
            let Some(tile) =
                TilePos::from_world_pos(&local, size, grid, tile_size, map_type, &anchor)
            else {
                return Err(ViewProblem::OffMap(map));
            };
            (tile.x, tile.y)
        }
        (None, None) => return Err(ViewProblem::NotPlaced),
    };
    if !opacity.grid().contains(origin.0, origin.1) {
        return Err(ViewProblem::OffMap(map));
    }
    Ok((
        ViewKey {
            map,
            origin,
            options: viewshed.options(),
        },
        opacity,
    ))
}

fn warn_about(viewer: Entity, problem: ViewProblem) {
    match problem {
        ViewProblem::NotPlaced => warn!(
            "bevy_viewshed: viewer {viewer} needs a TilemapId and a TilePos (or a Transform); \
             it sees nothing"
        ),
        ViewProblem::NoTilemap(tilemap) => warn!(
            "bevy_viewshed: viewer {viewer} is on {tilemap}, which is not a tilemap (despawned?); \
             its view is cleared"
        ),
        ViewProblem::OffMap(map) => {
            warn!("bevy_viewshed: viewer {viewer} stands outside tilemap {map}; it sees nothing")
        }
    }
}
