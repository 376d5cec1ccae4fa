//! [`HideOutsideView`]: entities shown only on tiles the team drawn sees now.

use bevy::camera::visibility::Visibility;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::FogOfWar;
use crate::placement::Placement;

/// An entity on the map (a monster, an item) that is shown only while its tile is in the
/// revealed view: its `Visibility` is set to `Hidden` outside it and `Inherited` inside. It
/// stands on its `TilePos` + `TilemapId`, or under its `Transform` on its `TilemapId`, as
/// viewers do; an entity that stands on no tile of a map is hidden.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Visibility)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HideOutsideView;

/// Shows [`HideOutsideView`] entities on revealed tiles and hides the others.
pub(crate) fn hide_outside_view(
    mut entities: Query<
        (
            Option<&TilePos>,
            Option<&TilemapId>,
            Option<&GlobalTransform>,
            &mut Visibility,
        ),
        With<HideOutsideView>,
    >,
    placement: Placement,
    fogs: Query<&FogOfWar>,
) {
    for (tile, tilemap, transform, mut visibility) in &mut entities {
        let seen = placement
            .locate(tile, tilemap, transform)
            .is_ok_and(|(map, tile)| fogs.get(map).is_ok_and(|fog| fog.is_visible(tile)));
        visibility.set_if_neq(if seen {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}
