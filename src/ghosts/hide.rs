//! [`HidesOutsideView`]: entities shown only on tiles the team drawn sees now.

use bevy::camera::visibility::Visibility;
use bevy::prelude::*;

use crate::fog::FogOfWar;
use crate::fog::change_list::{ChangedTiles, FogChanges};
use crate::placement::placed::{Moved, Placed, PlacedIndex};

/// An entity on the map (a monster, an item) that is shown only while its tile is in the
/// revealed view: its `Visibility` is set to `Hidden` outside it and `Inherited` inside. It
/// stands on its `TilePos` + `TilemapId`, or under its `Transform` on its `TilemapId`, as
/// viewers do; an entity that stands on no tile of a map is hidden.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # fn spawn(mut commands: Commands, map: Entity) {
/// // A goblin drawn only while the player's team sees its tile.
/// commands.spawn((Sprite::default(), HidesOutsideView, TilePos { x: 4, y: 2 }, TilemapId(map)));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Visibility, crate::placement::placed::Findable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct HidesOutsideView;

/// Shows [`HidesOutsideView`] entities on revealed tiles and hides the others. Only the
/// entities that moved, stand near a tile whose look the fog just changed, or stood on a map
/// whose fog went are looked at.
pub(crate) fn hide_outside_view(
    mut entities: Query<(&Placed, &mut Visibility), With<HidesOutsideView>>,
    moved: Query<Entity, Moved<HidesOutsideView>>,
    fogs: Query<&FogOfWar>,
    (changes, index): (Res<FogChanges>, Res<PlacedIndex>),
    mut gone: RemovedComponents<FogOfWar>,
) {
    let mut look_at: Vec<Entity> = moved.iter().collect();
    for (map, changed) in changes.maps() {
        match changed.drawn() {
            ChangedTiles::All(_) => look_at.extend(index.on_map(map)),
            ChangedTiles::Changed { area, bits } => {
                look_at.extend(index.touched_by(map, bits, (area.x, area.y)));
            }
        }
    }
    for map in gone.read() {
        look_at.extend(index.on_map(map));
    }
    let mut found = entities.iter_many_mut(&look_at);
    while let Some((placed, mut visibility)) = found.fetch_next() {
        let seen = placed
            .get()
            .is_some_and(|(map, tile)| fogs.get(map).is_ok_and(|fog| fog.is_visible(tile)));
        visibility.set_if_neq(if seen {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}
