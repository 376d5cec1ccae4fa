//! [`HidesOutsideView`]: entities shown only on tiles the team drawn sees now.

use bevy::camera::visibility::Visibility;
use bevy::prelude::*;

use crate::fog::FogOfWar;
use crate::fog::change_list::FogChanges;
use crate::fog::sight::TeamSight;
use crate::placement::placed::{Moved, Placed};

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

/// Shows [`HidesOutsideView`] entities that the team drawn on their map sees and hides the
/// others. Only the entities that moved, those whose sight changed for a team, and those of a
/// map that draws another team or whose fog went are looked at.
pub(crate) fn hide_outside_view(
    mut entities: Query<(Entity, &Placed, &mut Visibility), With<HidesOutsideView>>,
    moved: Query<Entity, Moved<HidesOutsideView>>,
    fogs: Query<&FogOfWar>,
    (changes, sight): (Res<FogChanges>, Res<TeamSight>),
    mut gone: RemovedComponents<FogOfWar>,
) {
    let mut look_at: Vec<Entity> = moved.iter().collect();
    look_at.extend(sight.changes().map(|(_, change)| change.entity));
    let redrawn = changes.maps().filter(|(_, changed)| changed.redrawn());
    let maps: Vec<Entity> = redrawn.map(|(map, _)| map).chain(gone.read()).collect();
    for map in maps {
        look_at.extend(sight.on_map(map));
    }
    let mut found = entities.iter_many_mut(&look_at);
    while let Some((entity, placed, mut visibility)) = found.fetch_next() {
        let drawn = |map| fogs.get(map).ok().map(FogOfWar::drawn_team);
        let seen = (placed.map().and_then(drawn)).is_some_and(|team| sight.sees(team, entity));
        visibility.set_if_neq(if seen {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}
