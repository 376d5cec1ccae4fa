//! Which maps have a fog of war: every map the maps step made (every entity with a
//! [`MapOpacity`]), sized like it.

use bevy::prelude::*;

use crate::fog::{FogDirty, FogOfWar};
use crate::maps::map_opacity::MapOpacity;

/// Gives every map a [`FogOfWar`] and keeps it sized like the map (also one the game inserted
/// at another size); takes it from entities that are no map any more.
pub(super) fn track_fog(
    mut commands: Commands,
    new_maps: Query<(Entity, &MapOpacity), Without<FogOfWar>>,
    mut sized: Query<(Entity, &MapOpacity, &mut FogOfWar)>,
    stale: Query<Entity, (With<FogOfWar>, Without<MapOpacity>)>,
    mut dirty: ResMut<FogDirty>,
) {
    for (map, opacity) in &new_maps {
        commands.entity(map).insert(FogOfWar::new(opacity.area()));
        dirty.mark(map);
    }
    for (map, opacity, mut fog) in &mut sized {
        // A fog the game inserted or wrote (a loaded save, a memory changed): its team views
        // are gathered again (the plugin's own writes do not mark it changed).
        if fog.is_changed() {
            dirty.mark(map);
        }
        let (area, size) = (opacity.area(), opacity.size());
        if fog.area() == area {
            continue;
        }
        if fog.is_changed() {
            warn!(
                "bevy_viewshed: the FogOfWar inserted on map {map} is {}x{} but the map is \
                 {}x{}; it is resized to the map, keeping the memory where it fits (restore a \
                 save on a map of its own size to keep all of it)",
                fog.size().x,
                fog.size().y,
                size.x,
                size.y
            );
        }
        fog.bypass_change_detection().resize(area);
        dirty.mark(map);
    }
    for map in &stale {
        commands.entity(map).remove::<FogOfWar>();
    }
}
