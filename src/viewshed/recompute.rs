//! Recomputes the [`Viewshed`]s that need it, in parallel, and announces each with a
//! [`ViewshedUpdated`] message.
//!
//! A view is recomputed when the viewer is new, when its map, tile or options changed, or
//! when opacity changed inside its reach since its view was computed (the map's change log
//! says which cells changed after the view's version, so a viewer that was disabled meanwhile
//! catches up too); every other viewer is left alone, most of them without even locating them
//! again. A viewer that cannot see (no tilemap, tile off the map) gets an empty view and one
//! warning.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::FovError;
use crate::fog::{FogDirty, RevealsFog};
use crate::hex::HexFov;
use crate::layers::LayerEpoch;
use crate::opacity::MapOpacity;
use crate::placement::{Grid, PlaceProblem, Placement};
use crate::shadowcast::Fov;
use crate::staggered;
use crate::viewshed::{ViewKey, Viewshed};
use crate::visible::VisibleSet;

/// Written after a viewer's view was recomputed or cleared (a buffered message: read it with
/// `MessageReader<ViewshedUpdated>` in a system ordered after
/// [`ViewshedSystems::Recompute`](crate::ViewshedSystems::Recompute)).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewshedUpdated {
    /// The viewer entity.
    pub viewer: Entity,
}

type ViewerItem = (
    Entity,
    &'static mut Viewshed,
    Option<Ref<'static, TilePos>>,
    Option<Ref<'static, TilemapId>>,
    Option<&'static GlobalTransform>,
    Has<RevealsFog>,
);

/// Viewers that may need a new view even when no map changed: new ones, moved ones, those
/// whose options changed or that were enabled again, and those placed by `Transform` (their
/// tile follows their map's transform too).
type MaybeMoved = (
    With<Viewshed>,
    Or<(
        Changed<Viewshed>,
        Changed<TilePos>,
        Changed<TilemapId>,
        Without<TilePos>,
    )>,
);

/// Above this many viewers that may have moved, all are visited in parallel.
const FEW: usize = 64;

/// One recomputed view: the viewer, whether it reveals fog, and its map before and after.
type Update = (Entity, bool, Option<Entity>, Option<Entity>);

/// Whether this frame must visit every viewer (a map's opacity, size or existence changed,
/// or layers did) or only those that may have moved.
#[derive(SystemParam)]
pub(crate) struct MapChanges<'w, 's> {
    epoch: Res<'w, LayerEpoch>,
    seen_epoch: Local<'s, u64>,
    changed: Query<'w, 's, (), Changed<MapOpacity>>,
    removed: RemovedComponents<'w, 's, MapOpacity>,
}

impl MapChanges<'_, '_> {
    /// (layers changed, every viewer must be visited).
    fn read(&mut self) -> (bool, bool) {
        let layers = self.epoch.changed_since(&mut self.seen_epoch);
        let removed = self.removed.read().count() > 0;
        (layers, layers || removed || !self.changed.is_empty())
    }
}

pub(crate) fn recompute_viewsheds(
    mut viewers: ParamSet<(Query<ViewerItem>, Query<Entity, MaybeMoved>)>,
    maps: Query<&MapOpacity>,
    placement: Placement,
    mut map_changes: MapChanges,
    (mut updates, mut fov): (Local<Parallel<Vec<Update>>>, Local<Scratch>),
    mut messages: MessageWriter<ViewshedUpdated>,
    mut fog_dirty: ResMut<FogDirty>,
) {
    let (layers_changed, visit_all) = map_changes.read();
    let moved: Vec<Entity> = if visit_all {
        Vec::new()
    } else {
        viewers.p1().iter().collect()
    };
    let updates_ref = &*updates;
    let visit = |fov: &mut Scratch, item: ViewerItemMut| {
        let (entity, mut viewshed, tile, tilemap, transform, reveals) = item;
        if !layers_changed
            && still_placed(&viewshed, tile.as_ref(), tilemap.as_ref())
            && catch_up(&mut viewshed, &maps)
        {
            return;
        }
        let before = viewshed.map();
        let key = locate(
            &viewshed,
            tile.as_deref(),
            tilemap.as_deref(),
            transform,
            &placement,
            &maps,
        );
        if refresh(fov, entity, &mut viewshed, key) {
            let after = viewshed.map();
            updates_ref
                .borrow_local_mut()
                .push((entity, reveals, before, after));
        }
    };
    let mut all = viewers.p0();
    if visit_all || moved.len() > FEW {
        all.par_iter_mut().for_each_init(Scratch::default, visit);
    } else {
        let mut few = all.iter_many_mut(&moved);
        while let Some(item) = few.fetch_next() {
            visit(&mut fov, item);
        }
    }
    for (viewer, reveals, before, after) in updates.drain() {
        messages.write(ViewshedUpdated { viewer });
        if reveals {
            fog_dirty.0.extend(before);
            fog_dirty.0.extend(after);
        }
    }
}

/// The scratch space of one thread's field-of-view computations, for every kind of grid.
#[derive(Default)]
pub(crate) struct Scratch {
    square: Fov,
    hex: HexFov,
    /// A staggered map's view on its diamond grid, before it is brought back to tiles.
    diamond: VisibleSet,
}

impl Scratch {
    /// Computes the view `key` describes on the map of `opacity`.
    fn compute(
        &mut self,
        key: &ViewKey,
        opacity: &MapOpacity,
        visible: &mut VisibleSet,
    ) -> Result<(), FovError> {
        let grid = opacity.grid();
        match key.grid {
            Grid::Square => self.square.compute(grid, key.origin, key.options, visible),
            Grid::Hex(coords) => self
                .hex
                .compute(grid, coords, key.origin, key.options, visible),
            Grid::Staggered => {
                let origin = staggered::to_diamond(key.origin);
                let computed = self
                    .square
                    .compute(grid, origin, key.options, &mut self.diamond);
                staggered::view_to_tiles(&self.diamond, opacity.size().y, visible);
                computed
            }
        }
    }
}

/// A viewer as the recompute visits it.
type ViewerItemMut<'w, 's> = bevy::ecs::query::QueryItem<'w, 's, ViewerItem>;

/// Whether a viewer placed by `TilePos` has a view and kept its settings, tile and tilemap
/// since the last run.
fn still_placed(
    viewshed: &Mut<Viewshed>,
    tile: Option<&Ref<TilePos>>,
    tilemap: Option<&Ref<TilemapId>>,
) -> bool {
    viewshed.computed.is_some()
        && !viewshed.is_changed()
        && tile.is_some_and(|tile| !tile.is_changed())
        && tilemap.is_some_and(|tilemap| !tilemap.is_changed())
}

/// For a viewer that did not move: whether its view is still right, given the opacity
/// changes since it was computed (it then records that it has seen them).
fn catch_up(viewshed: &mut Mut<Viewshed>, maps: &Query<&MapOpacity>) -> bool {
    let Some(key) = viewshed.computed.as_ref() else {
        return false;
    };
    let Ok(opacity) = maps.get(key.map) else {
        return false;
    };
    if key.grid != opacity.kind() || opacity.changed_within(key.version, |cell| key.reaches(cell)) {
        return false;
    }
    if key.version != opacity.version()
        && let Some(key) = viewshed.bypass_change_detection().computed.as_mut()
    {
        // Only the version moves: the key is not copied.
        key.version = opacity.version();
    }
    true
}

/// Brings one view up to date with where the viewer stands; returns whether it changed.
fn refresh(
    fov: &mut Scratch,
    viewer: Entity,
    viewshed: &mut Mut<Viewshed>,
    located: Result<(ViewKey, &MapOpacity), PlaceProblem>,
) -> bool {
    match located {
        Ok((key, opacity)) => {
            let up_to_date = viewshed.computed.is_some_and(|old| {
                ViewKey {
                    version: key.version,
                    ..old
                } == key
                    && !opacity.changed_within(old.version, |cell| key.reaches(cell))
            });
            if up_to_date {
                viewshed.bypass_change_detection().computed = Some(key);
                return false;
            }
            let viewshed = &mut **viewshed;
            viewshed.replace_view(Some(key));
            viewshed.warned = None;
            // The origin was checked to be on the map, so this cannot fail.
            fov.compute(&key, opacity, &mut viewshed.visible).is_ok()
        }
        Err(problem) => {
            if viewshed.warned != Some(problem) {
                warn!(
                    "bevy_viewshed: viewer {viewer} {}; it sees nothing",
                    problem.describe()
                );
                viewshed.bypass_change_detection().warned = Some(problem);
            }
            // Something to lose: a view, or targets (a replaced Viewshed keeps those its
            // predecessor saw).
            let had_view = viewshed.computed.is_some()
                || !viewshed.visible.is_empty()
                || !viewshed.spotted.is_empty();
            if had_view {
                viewshed.replace_view(None);
            }
            had_view
        }
    }
}

/// The map, tile and settings a viewer's view depends on, or why it sees nothing.
fn locate<'a>(
    viewshed: &Viewshed,
    tile: Option<&TilePos>,
    tilemap: Option<&TilemapId>,
    transform: Option<&GlobalTransform>,
    placement: &Placement,
    maps: &'a Query<&MapOpacity>,
) -> Result<(ViewKey, &'a MapOpacity), PlaceProblem> {
    let (map, tile) = placement.locate(tile, tilemap, transform)?;
    let Ok(opacity) = maps.get(map) else {
        return Err(PlaceProblem::NotATilemap(map));
    };
    if !opacity.grid().contains(tile.x, tile.y) {
        return Err(PlaceProblem::OffMap(map));
    }
    let key = ViewKey {
        map,
        origin: (tile.x, tile.y),
        options: viewshed.options,
        version: opacity.version(),
        grid: opacity.kind(),
    };
    Ok((key, opacity))
}
