//! The systems of the fog of war: a [`FogOfWar`] on every map, team views rebuilt from their
//! members' viewsheds, and the tiles of every fog layer written for the team drawn.

use std::time::Duration;

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::fog::fade::{FadeStart, FadingTiles};
use crate::fog::model::TilesToWrite;
use crate::fog::neighbours::Neighbourhood;
use crate::fog::tiles::TileWriter;
use crate::fog::union::{TeamUnion, gather_members};
use crate::fog::{DrawnTeam, FogDirty, FogOfWar, FogStyle, FogTeam, RevealsFog, Team};
use crate::maps::layers::{LayerEpoch, LayerOf, Layers, map_tilemaps, root_of};
use crate::viewshed::Viewshed;
use crate::viewshed::recompute::ViewshedUpdated;

/// Gives every root tilemap a [`FogOfWar`] and keeps it sized like the tilemap (also one the
/// game inserted at another size); takes it from tilemaps that became layers or stopped being
/// tilemaps.
pub(super) fn track_fog(
    mut commands: Commands,
    new_maps: Query<
        (Entity, &TilemapSize),
        (Without<FogOfWar>, Without<LayerOf>, With<TileStorage>),
    >,
    mut sized: Query<
        (Entity, Ref<TilemapSize>, &mut FogOfWar),
        Or<(Changed<TilemapSize>, Changed<FogOfWar>)>,
    >,
    stale: Query<
        Entity,
        (
            With<FogOfWar>,
            Or<(With<LayerOf>, Without<TilemapSize>, Without<TileStorage>)>,
        ),
    >,
    mut dirty: ResMut<FogDirty>,
) {
    for (map, size) in &new_maps {
        commands.entity(map).insert(FogOfWar::new(*size));
        dirty.mark(map);
    }
    for (map, size, mut fog) in &mut sized {
        if fog.size() == *size {
            // A fog the game inserted or wrote (a loaded save, a memory changed): its team
            // views are gathered again (the plugin's own writes do not mark it changed).
            if fog.is_changed() {
                dirty.mark(map);
            }
            continue;
        }
        if !size.is_changed() {
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
        fog.resize(*size);
        dirty.mark(map);
    }
    for map in &stale {
        commands.entity(map).remove::<FogOfWar>();
    }
}

/// The maps whose fog the last update changed, and for each the tiles whose look (state or
/// edge, for the team drawn) changed: written by [`update_fog`] every frame, read by the later
/// systems of the fog (hiding entities).
#[derive(Resource, Default)]
pub(crate) struct FogChanges(EntityHashMap<TilesToWrite>);

impl FogChanges {
    /// Each changed map and its changed tiles.
    pub(crate) fn maps(&self) -> impl Iterator<Item = (&Entity, &TilesToWrite)> {
        self.0.iter()
    }
}

/// A fog layer: its tiles, its style and its tiles in transition.
type FogLayer<'a> = (
    Ref<'a, TileStorage>,
    Ref<'a, FogStyle>,
    Mut<'a, FadingTiles>,
);

/// Rebuilds the team views of the maps that need it and writes what changed into the fog
/// layers, for the team drawn.
pub(super) fn update_fog(
    mut fogs: Query<(
        Entity,
        &mut FogOfWar,
        Option<Ref<TilemapType>>,
        Option<&DrawnTeam>,
    )>,
    children: Query<&Layers>,
    members: Query<(&Viewshed, Option<&Team>), With<RevealsFog>>,
    mut styles: Query<(Ref<TileStorage>, Ref<FogStyle>, &mut FadingTiles)>,
    (shown_team, time): (Res<FogTeam>, Option<Res<Time>>),
    mut tiles: TileWriter,
    (mut dirty, epoch, mut seen_epoch): (ResMut<FogDirty>, Res<LayerEpoch>, Local<u64>),
    (mut union, mut updated): (ResMut<TeamUnion>, MessageReader<ViewshedUpdated>),
    mut changes: ResMut<FogChanges>,
    retinted: Query<&Viewshed, (With<RevealsFog>, Changed<Team>)>,
) {
    changes.0.clear();
    mark_changed_views(&mut dirty, updated.read(), &members);
    // A member whose `Team` the game changed in place (an inserted one is marked by its
    // observer): the teams of its map are gathered again.
    for map in retinted.iter().filter_map(Viewshed::map) {
        dirty.mark(map);
    }
    let layers_changed = epoch.changed_since(&mut seen_epoch);
    let now = time.map(|time| time.elapsed());
    for (map, mut fog, map_type, drawn) in &mut fogs {
        let rebuild = dirty.take(map);
        // A new grid is a new neighbourhood: every edge is worked out again.
        let retyped = map_type.as_ref().is_some_and(DetectChanges::is_changed);
        let (mut restyled, mut soft) = (retyped, false);
        map_tilemaps(map, &children, |layer| {
            if let Ok((storage, style, _)) = styles.get(layer) {
                restyled |= layers_changed || style.is_changed() || storage.is_added();
                soft |= style.soft_edge.is_some();
            }
        });
        let team = drawn.map_or(shown_team.0, |drawn| drawn.0);
        let switched = fog.shown_team != team;
        if !rebuild && !fog.is_changed() && !restyled && !switched {
            continue;
        }
        let fog = fog.bypass_change_detection();
        fog.show_team(team);
        if rebuild {
            gather_members(map, fog.size(), &members, &union);
            union.merge_into(map, fog);
        }
        for team in fog.teams.values_mut() {
            team.explore_visible();
        }
        if soft {
            fog.update_edges(
                restyled,
                &Neighbourhood::of(map_type.as_deref(), fog.size()),
            );
        }
        // The same for every layer of the map that is not written as a whole.
        let changed = fog.tiles_to_write(false);
        map_tilemaps(map, &children, |layer| {
            if let Ok(layer) = styles.get_mut(layer) {
                write_layer(fog, &changed, layer, (layers_changed, now), &mut tiles);
            }
        });
        fog.mark_shown();
        changes.0.insert(map, changed);
    }
    // Maps that no longer exist.
    dirty.clear();
}

/// Marks the maps that a changed view of a `RevealsFog` viewer left or reached: their team
/// views are gathered again. Most views stay on the map of the one before, so that one is not
/// marked again.
fn mark_changed_views<'a>(
    dirty: &mut FogDirty,
    updated: impl Iterator<Item = &'a ViewshedUpdated>,
    members: &Query<(&Viewshed, Option<&Team>), With<RevealsFog>>,
) {
    let mut last = None;
    for update in updated.filter(|update| members.contains(update.viewer)) {
        for map in [update.previous_map, update.map].into_iter().flatten() {
            if last != Some(map) {
                dirty.mark(map);
                last = Some(map);
            }
        }
    }
}

/// Writes the tiles of one fog layer whose look changed: at once when the layer is new to its
/// map (its style changed, its tile storage was put back, it became a layer of this map, the
/// map is new or resized: every tile is written then) or its style does not fade, else as the
/// start of a fade. `changed` are the map's tiles to write when the layer is not new.
fn write_layer(
    fog: &FogOfWar,
    changed: &TilesToWrite,
    (storage, style, mut fades): FogLayer,
    (layers_changed, now): (bool, Option<Duration>),
    tiles: &mut TileWriter,
) {
    let rewrite = layers_changed || style.is_changed() || storage.is_added();
    if rewrite || fog.refresh_all {
        fades.clear();
    }
    let every;
    let to_write = if rewrite {
        every = fog.tiles_to_write(true);
        &every
    } else {
        changed
    };
    let look = |tile| style.look_at(fog.state(tile), fog.is_edge(tile));
    let fade = now.zip(style.fade).filter(|_| !rewrite && !fog.refresh_all);
    let Some((now, fade)) = fade else {
        return tiles.write_many(&storage, to_write, look);
    };
    to_write.for_each(|tile| {
        let length = fade.length_to(fog.state(tile));
        tiles.fade(
            &storage,
            tile,
            look(tile),
            &mut fades,
            FadeStart { now, length },
        );
    });
}

/// Gives tiles spawned (or moved) into a fog layer the look of their state. A tile counts once
/// it is in its layer's `TileStorage`, so the tiles are only looked at in frames where the
/// storage of a fog layer changed.
pub(super) fn style_new_tiles(
    new_tiles: Query<
        (Entity, &TilePos, &TilemapId),
        Or<(Added<TilePos>, Changed<TilePos>, Changed<TilemapId>)>,
    >,
    mut styles: Query<(Ref<TileStorage>, &FogStyle, &mut FadingTiles)>,
    layers: Query<&LayerOf>,
    fogs: Query<&FogOfWar>,
    mut tiles: TileWriter,
) {
    if !styles.iter().any(|(storage, ..)| storage.is_changed()) {
        return;
    }
    for (entity, &tile, &TilemapId(tilemap)) in &new_tiles {
        let Ok((storage, style, mut fades)) = styles.get_mut(tilemap) else {
            continue;
        };
        if storage.checked_get(&tile) != Some(entity) {
            continue;
        }
        let Some(fog) = root_of(tilemap, &layers)
            .ok()
            .and_then(|map| fogs.get(map).ok())
        else {
            continue;
        };
        fades.stop(tile);
        tiles.write(
            &storage,
            tile,
            style.look_at(fog.state(tile), fog.is_edge(tile)),
        );
    }
}
