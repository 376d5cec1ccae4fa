//! Which entities are maps: every root tilemap (neither a layer nor a chunk of a world) and
//! every world gets a [`MapOpacity`], kept laid out like it (a tilemap's size and type, a
//! world's layout). This is where the plugin decides which entities are maps: the later
//! domains follow `MapOpacity`.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::TileStorage;

use super::log::OpacityLog;
use super::map_opacity::{MapOpacity, whole};
use super::opaque::Opaque;
use super::sources::{CellSource, RemadeMaps, Tallies};
use crate::layers::layer_of::LayerOf;
use crate::worlds::chunks::{ChunkOf, WorldMap};
use crate::worlds::layout::WorldLayout;
use viewshed_core::visible::Window;

/// The maps `track_maps` is giving their `MapOpacity`, and those given one by someone else (a
/// game's copy of another map's), to fill again from their own tallies.
#[derive(Resource, Debug, Default)]
pub(super) struct MapsGiven {
    own: EntityHashSet,
    replaced: Vec<Entity>,
}

impl MapsGiven {
    /// Whether some map was given a `MapOpacity` by someone else.
    pub(super) fn any_replaced(given: Res<Self>) -> bool {
        !given.replaced.is_empty()
    }
}

/// A `MapOpacity` was inserted on `map`: the one `track_maps` gives a new map, or another value
/// (a game's clone of another map's, a reflected copy, a scene's), filled again from the map's
/// own tallies before anything reads it.
pub(super) fn on_opacity_inserted(event: On<Insert, MapOpacity>, mut given: ResMut<MapsGiven>) {
    if !given.own.remove(&event.entity) {
        given.replaced.push(event.entity);
    }
}

/// Root tilemaps that are not maps yet.
type NewTilemaps = (
    Without<MapOpacity>,
    Without<LayerOf>,
    Without<ChunkOf>,
    With<TileStorage>,
);

/// Worlds laid out that are not maps yet.
type NewWorlds = (With<WorldMap>, Without<MapOpacity>);

/// Entities that are maps no more: root tilemaps that became layers or chunks or stopped being
/// tilemaps.
type NoMore = (
    With<MapOpacity>,
    Without<WorldMap>,
    Or<(
        With<LayerOf>,
        With<ChunkOf>,
        Without<TilemapSize>,
        Without<TileStorage>,
    )>,
);

/// Gives every root tilemap and every laid-out world a [`MapOpacity`]; takes it (and its
/// tallies) from entities that are no map any more. Every kind places its sources again when a
/// map was made or unmade.
pub(super) fn track_maps(
    mut commands: Commands,
    new_tilemaps: Query<(Entity, &TilemapSize, Option<&TilemapType>), NewTilemaps>,
    new_worlds: Query<(Entity, &WorldLayout), NewWorlds>,
    stale: Query<Entity, NoMore>,
    (mut given, mut remade): (ResMut<MapsGiven>, ResMut<RemadeMaps>),
) {
    remade.0.clear();
    for (map, size, map_type) in &new_tilemaps {
        let map_type = map_type.copied().unwrap_or_default();
        given.own.insert(map);
        commands
            .entity(map)
            .insert(MapOpacity::tilemap(*size, map_type));
        remade.0.push(map);
    }
    for (world, layout) in &new_worlds {
        given.own.insert(world);
        commands
            .entity(world)
            .insert(MapOpacity::world(layout.map_type()));
        remade.0.push(world);
    }
    for map in &stale {
        // A root tilemap became a layer or a chunk (its opacity now belongs to its root) or
        // is no longer a tilemap.
        commands.entity(map).remove::<(MapOpacity, OpacityLog)>();
        remade.0.push(map);
    }
}

/// A map as its layout is kept: its grids and its change log.
type MapGrids<'a> = (Mut<'a, MapOpacity>, Mut<'a, OpacityLog>);

/// A tilemap's size and type.
type TilemapShape = (&'static TilemapSize, Option<&'static TilemapType>);

/// Tilemap maps whose size or type changed, or that are maps anew.
type TilemapChanged = (
    Without<WorldMap>,
    Or<(
        Changed<TilemapSize>,
        Changed<TilemapType>,
        Added<MapOpacity>,
    )>,
);

/// Keeps each tilemap map laid out like its tilemap (its size and its `TilemapType`: square,
/// hexagonal or staggered isometric), from when it becomes a map.
pub(super) fn follow_tilemaps(
    mut maps: Query<(TilemapShape, &mut MapOpacity, &mut OpacityLog), TilemapChanged>,
) {
    for ((size, map_type), opacity, log) in &mut maps {
        let map_type = map_type.copied().unwrap_or_default();
        follow_tilemap((opacity, log), *size, map_type);
    }
}

/// Lays a tilemap's map out anew if its size or kind of grid changed.
fn follow_tilemap((mut opacity, mut log): MapGrids, size: TilemapSize, map_type: TilemapType) {
    let retyped = opacity.set_type(map_type);
    if retyped || whole(size) != opacity.area() || opacity.is_added() {
        opacity.lay_out(whole(size));
        let version = log.reset();
        opacity.set_version(version);
    }
}

/// A world as its layout is followed.
type WorldGrids<'a> = (
    &'a WorldLayout,
    Mut<'a, MapOpacity>,
    Mut<'a, OpacityLog>,
    Option<&'a Tallies<Opaque>>,
);

/// Worlds whose layout changed, or that are maps anew.
type WorldChanged = (
    With<WorldMap>,
    Or<(Changed<WorldLayout>, Added<MapOpacity>)>,
);

/// Keeps each world's map laid out like its layout: its grid, its area and its chunks. A chunk
/// that comes or goes costs its own tiles (logged as one changed area: only the views that
/// reach it are computed again); a new area or grid lays the map out anew.
pub(super) fn follow_worlds(mut worlds: Query<WorldGrids, WorldChanged>) {
    for (layout, mut opacity, mut log, opaque) in &mut worlds {
        let retyped = opacity.set_type(layout.map_type());
        let was = opacity.chunks().to_vec();
        opacity.set_chunks(layout.chunks(), layout.coverage());
        if retyped || layout.area() != opacity.area() || opacity.is_added() {
            opacity.lay_out(layout.area());
            let version = log.reset();
            opacity.set_version(version);
            continue;
        }
        let came = only_in(layout.chunks(), &was);
        let went = only_in(&was, layout.chunks());
        for chunk in came.into_iter().chain(went) {
            let area = opacity.area();
            for tile in chunk.intersection(&area).iter().flat_map(Window::cells) {
                Opaque::write(&mut opacity, tile, opaque.and_then(|t| t.on(tile)));
            }
            let version = log.note_area(chunk);
            opacity.set_version(version);
        }
    }
}

/// The windows of `a` that are not in `b`.
fn only_in(a: &[Window], b: &[Window]) -> Vec<Window> {
    a.iter().filter(|w| !b.contains(w)).copied().collect()
}

/// Lays out again the `MapOpacity` of each map that was given one by someone else: each kind
/// fills it from its own tallies, so a map's grids are always its own walls.
pub(super) fn refill_replaced(
    mut maps: Query<(
        Option<TilemapShape>,
        Option<&WorldLayout>,
        &mut MapOpacity,
        &mut OpacityLog,
    )>,
    mut given: ResMut<MapsGiven>,
) {
    for map in std::mem::take(&mut given.replaced) {
        let Ok((shape, layout, mut opacity, mut log)) = maps.get_mut(map) else {
            continue;
        };
        match (layout, shape) {
            (Some(layout), _) => {
                *opacity = MapOpacity::world(layout.map_type());
                opacity.set_chunks(layout.chunks(), layout.coverage());
                opacity.lay_out(layout.area());
            }
            (None, Some((size, map_type))) => {
                *opacity = MapOpacity::tilemap(*size, map_type.copied().unwrap_or_default());
            }
            (None, None) => continue,
        }
        let version = log.reset();
        opacity.set_version(version);
    }
}
