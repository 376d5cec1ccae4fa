//! Which maps have a fog of war: every map the opacity step made (every entity with a
//! [`MapOpacity`]), laid out over its area, a world's chunks that come and go remembered in
//! its [`WorldMemory`].

use bevy::ecs::query::QueryData;
use bevy::prelude::*;

use crate::fog::past::FogPast;
use crate::fog::world_memory::{WorldMemory, forget_area};
use crate::fog::{FogDirty, FogOfWar};
use crate::opacity::map_opacity::MapOpacity;
use viewshed_core::visible::Window;

/// The chunks of a world its fog was last laid out for: the fog's bookkeeping beside
/// [`FogOfWar`], to tell which chunks came and which went.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogChunks(Vec<Window>);

/// A map's fog as its tracking reads it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct TrackedFog {
    entity: Entity,
    opacity: &'static MapOpacity,
    fog: &'static mut FogOfWar,
    chunks: &'static mut FogChunks,
    memory: Option<&'static mut WorldMemory>,
}

/// Gives every map a [`FogOfWar`] and keeps it laid out over the map's area (also one the
/// game inserted at another size); takes it from entities that are no map any more.
pub(super) fn track_fog(
    mut commands: Commands,
    mut new_maps: Query<(Entity, &MapOpacity, Option<&mut WorldMemory>), Without<FogOfWar>>,
    mut maps: Query<TrackedFog>,
    stale: Query<Entity, (With<FogOfWar>, Without<MapOpacity>)>,
    mut dirty: ResMut<FogDirty>,
) {
    for (map, opacity, memory) in &mut new_maps {
        let mut fog = FogOfWar::new(opacity.area());
        // A world whose memory was put back (a save) remembers its chunks at once.
        if let Some(mut memory) = memory {
            for &chunk in opacity.chunks() {
                memory.give_back(&mut fog, chunk);
            }
        }
        let chunks = FogChunks(opacity.chunks().to_vec());
        commands.entity(map).insert((fog, chunks));
        dirty.mark(map);
    }
    for mut map in &mut maps {
        // A fog the game inserted or wrote (a loaded save, a memory changed): its team views
        // are gathered again (the plugin's own writes do not mark it changed).
        if map.fog.is_changed() {
            dirty.mark(map.entity);
        }
        if map.fog.area() != map.opacity.area() || map.chunks.0 != map.opacity.chunks() {
            follow_map(&mut map, &mut dirty);
        }
    }
    for map in &stale {
        // What the layers show and the chunks go with the fog: a map made again later is
        // drawn whole, not as the tiles showed before.
        commands
            .entity(map)
            .remove::<(FogOfWar, FogPast, FogChunks)>();
    }
}

/// Lays a map's fog out over its area again, a world's chunks that went kept in its memory
/// (if it has one) and forgotten, those that came given back what it kept of them.
fn follow_map(map: &mut TrackedFogItem, dirty: &mut FogDirty) {
    let now = map.opacity.chunks();
    let (came, went) = (only_in(now, &map.chunks.0), only_in(&map.chunks.0, now));
    let area = map.opacity.area();
    if map.fog.is_changed() && map.fog.area() != area && now.is_empty() {
        warn_resized(map.entity, &map.fog, area);
    }
    let fog = map.fog.bypass_change_detection();
    for &gone in &went {
        if let Some(memory) = map.memory.as_mut() {
            memory.keep(fog, gone);
        }
        forget_area(fog, gone);
    }
    if fog.area() != area {
        fog.resize(area);
    }
    for &new in &came {
        if let Some(memory) = map.memory.as_mut() {
            memory.give_back(fog, new);
        }
    }
    map.chunks.0 = now.to_vec();
    dirty.mark(map.entity);
}

/// The windows of `a` that are not in `b`.
fn only_in(a: &[Window], b: &[Window]) -> Vec<Window> {
    a.iter().filter(|w| !b.contains(w)).copied().collect()
}

/// Warns that a `FogOfWar` the game put on `map` is of another size than the map's `area`.
fn warn_resized(map: Entity, fog: &FogOfWar, area: Window) {
    warn!(
        "bevy_viewshed: the FogOfWar inserted on map {map} is {}x{} but the map is {}x{}; it \
         is resized to the map, keeping the memory where it fits (restore a save on a map of \
         its own size to keep all of it)",
        fog.size().x,
        fog.size().y,
        area.width,
        area.height
    );
}
