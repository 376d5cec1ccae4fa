//! The systems of the fog of war: a [`FogOfWar`] on every map, team views rebuilt from their
//! members' viewsheds, and the tiles of every fog layer written for the team drawn.

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize, TilemapType};
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage};

use crate::bits::BitRows;
use crate::fog::edge::Neighbourhood;
use crate::fog::fade::{FadeStart, FadingTiles};
use crate::fog::style::TileWriter;
use crate::fog::{FogDirty, FogOfWar, FogStyle, FogTeam, RevealsFog, Team};
use crate::layers::{LayerEpoch, LayerOf, Layers, map_tilemaps};
use crate::placement::Placement;
use crate::viewshed::Viewshed;

/// Gives every root tilemap a [`FogOfWar`] and keeps it sized like the tilemap (also one the
/// game inserted at another size); takes it from tilemaps that became layers or stopped being
/// tilemaps.
pub(crate) fn track_fog(
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
        dirty.0.insert(map);
    }
    for (map, size, mut fog) in &mut sized {
        if fog.size() == *size {
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
        dirty.0.insert(map);
    }
    for map in &stale {
        commands.entity(map).remove::<FogOfWar>();
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
pub(crate) fn update_fog(
    mut fogs: Query<(Entity, &mut FogOfWar, Option<&TilemapType>)>,
    children: Query<&Layers>,
    members: Query<(&Viewshed, Option<&Team>), With<RevealsFog>>,
    mut styles: Query<(Ref<TileStorage>, Ref<FogStyle>, &mut FadingTiles)>,
    (shown_team, time): (Res<FogTeam>, Option<Res<Time>>),
    mut tiles: TileWriter,
    (mut dirty, epoch, mut seen_epoch): (ResMut<FogDirty>, Res<LayerEpoch>, Local<u64>),
    mut shares: Local<Parallel<TeamShares>>,
) {
    let layers_changed = epoch.changed_since(&mut seen_epoch);
    let now = time.map(|time| time.elapsed());
    for (map, mut fog, map_type) in &mut fogs {
        let rebuild = dirty.0.remove(&map);
        let (mut restyled, mut soft) = (false, false);
        map_tilemaps(map, &children, |layer| {
            if let Ok((storage, style, _)) = styles.get(layer) {
                restyled |= layers_changed || style.is_changed() || storage.is_added();
                soft |= style.soft_edge.is_some();
            }
        });
        let switched = fog.shown_team != shown_team.0;
        if !rebuild && !fog.is_changed() && !restyled && !switched {
            continue;
        }
        let fog = fog.bypass_change_detection();
        fog.show_team(shown_team.0);
        if rebuild {
            rebuild_team_views(fog, map, &members, &mut shares);
        }
        for team in fog.teams.values_mut() {
            team.explore_visible();
        }
        if soft {
            fog.update_edges(restyled, &Neighbourhood::of(map_type, fog.size()));
        }
        map_tilemaps(map, &children, |layer| {
            if let Ok(layer) = styles.get_mut(layer) {
                write_layer(fog, layer, layers_changed, now, &mut tiles);
            }
        });
        fog.mark_shown();
    }
    // Maps that no longer exist.
    dirty.0.clear();
}

/// Writes the tiles of one fog layer whose look changed: at once when the layer is new to its
/// map (its style changed, its tile storage was put back, it became a layer of this map, the
/// map is new or resized: every tile is written then) or its style does not fade, else as the
/// start of a fade.
fn write_layer(
    fog: &FogOfWar,
    (storage, style, mut fades): FogLayer,
    layers_changed: bool,
    now: Option<Duration>,
    tiles: &mut TileWriter,
) {
    let rewrite = layers_changed || style.is_changed() || storage.is_added();
    if rewrite || fog.refresh_all {
        fades.clear();
    }
    let fade = now.zip(style.fade).filter(|_| !rewrite && !fog.refresh_all);
    fog.for_each_tile_to_write(rewrite, |tile| {
        let state = fog.state(tile);
        let look = style.look_at(state, fog.is_edge(tile));
        match fade {
            Some((now, fade)) => {
                let length = fade.length_to(state);
                tiles.fade(&storage, tile, look, &mut fades, FadeStart { now, length });
            }
            None => tiles.write(&storage, tile, look),
        }
    });
}

/// Each team's view on `map`: the union of its members' views there, one task per team on
/// the compute pool (each reads every member and adds those of its team).
fn rebuild_team_views(
    fog: &mut FogOfWar,
    map: Entity,
    members: &Query<(&Viewshed, Option<&Team>), With<RevealsFog>>,
    shares: &mut Parallel<TeamShares>,
) {
    let size = fog.size();
    // Each thread adds its share of the members' views to its own copy of their teams' views
    // (all cores take part however many teams there are), then the copies are merged.
    members.par_iter().for_each_init(
        || shares.borrow_local_mut(),
        |share, member| {
            if let Some((viewshed, team)) = member_on(map, member) {
                viewshed.visible.or_into(share.of(team, size));
            }
        },
    );
    for team in fog.teams.values_mut() {
        team.visible.clear_all();
    }
    for share in shares.iter_mut() {
        for (&team, rows) in &mut share.0 {
            if std::mem::take(&mut rows.used) {
                let visible = &mut fog.team_mut(team).visible;
                for (word, &seen) in visible.words_mut().iter_mut().zip(rows.rows.words()) {
                    *word |= seen;
                }
                rows.rows.clear_all();
            }
        }
    }
}

/// One thread's copy of the views of the teams it met while the teams' views are rebuilt.
#[derive(Default)]
pub(crate) struct TeamShares(BTreeMap<Team, TeamShare>);

/// A team's view as one thread saw it: map-sized, clear when not `used`.
#[derive(Default)]
pub(crate) struct TeamShare {
    rows: BitRows,
    used: bool,
}

impl TeamShares {
    /// The view of `team` on a map of `size`, to add to (sized anew, clear, for another map).
    fn of(&mut self, team: Team, size: TilemapSize) -> &mut BitRows {
        let share = self.0.entry(team).or_default();
        if share.rows.rows() != size.y || share.rows.bits_per_row() != size.x {
            share.rows.reset(size.y, size.x);
        }
        share.used = true;
        &mut share.rows
    }
}

/// A member's view and team, if its view is on `map`.
fn member_on<'a>(
    map: Entity,
    (viewshed, team): (&'a Viewshed, Option<&Team>),
) -> Option<(&'a Viewshed, Team)> {
    (viewshed.map() == Some(map)).then(|| (viewshed, team.copied().unwrap_or_default()))
}

/// Gives tiles spawned (or moved) into a fog layer the look of their state. A tile counts once
/// it is in its layer's `TileStorage`, so the tiles are only looked at in frames where the
/// storage of a fog layer changed.
pub(crate) fn style_new_tiles(
    new_tiles: Query<
        (Entity, &TilePos, &TilemapId),
        Or<(Added<TilePos>, Changed<TilePos>, Changed<TilemapId>)>,
    >,
    mut styles: Query<(Ref<TileStorage>, &FogStyle, &mut FadingTiles)>,
    placement: Placement,
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
        let Some(fog) = placement
            .root(tilemap)
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
