//! Recomputes the [`Viewshed`]s that need it, in parallel, and announces each with a
//! [`ViewshedUpdated`] message.
//!
//! A view is recomputed when the viewer is new, when its map, tile or options changed, or
//! when opacity changed inside its reach since its view was computed (the map's change log
//! says which cells changed after the view's version, so a viewer that was disabled meanwhile
//! catches up too); every other viewer is left alone. The viewers visited are those that may
//! have moved and those the reach index (`reach_index.rs`) files near the changed tiles;
//! every viewer only when a change cannot be told tile by tile (a map added, removed,
//! resized or retyped, layers changed). A viewer that cannot see (no tilemap, tile off the
//! map) gets an empty view and one warning.

use bevy::ecs::batching::BatchingStrategy;
use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::{SystemParam, SystemState};
use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::layers::layer_of::LayerEpoch;
use crate::opacity::log::{MapRead, OpacityLog};
use crate::opacity::map_opacity::MapOpacity;
use crate::placement::locate::PlaceProblem;
use crate::placement::placed::{Placed, PlacedMoves};
use crate::support::change_ticks::{ChangeScan, column, scan_then_run};
use crate::viewshed::kept::KeptView;
use crate::viewshed::map_lookup::{MapLookup, Maps};
use crate::viewshed::reach_index::{Filed, ReachIndex};
use crate::viewshed::scratch::Scratch;
use crate::viewshed::state::ViewState;
use crate::viewshed::{ViewKey, Viewshed};
use viewshed_core::elevation::ElevationOptions;
use viewshed_core::options::FovOptions;
use viewshed_core::visible::VisibleSet;

/// Written after a viewer's view was recomputed, cleared or filtered again by light (a
/// buffered message: read it with `MessageReader<ViewshedUpdated>` in a system ordered after
/// [`ViewshedStepSystems::Light`](crate::ViewshedStepSystems::Light)). It is how the later
/// steps (sightings, fog) learn which views changed and on which maps.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::{ViewshedUpdated};
/// // Runs in `PostUpdate`, `.after(ViewshedStepSystems::Light)`.
/// fn count_changed_views(mut updated: MessageReader<ViewshedUpdated>, viewers: Query<&Viewshed>) {
///     for update in updated.read() {
///         if let Ok(viewshed) = viewers.get(update.viewer) {
///             info!("{} now sees {} tiles", update.viewer, viewshed.count());
///         }
///     }
/// }
/// ```
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewshedUpdated {
    /// The viewer entity.
    pub viewer: Entity,
    /// The root map its view is on now (`None`: it sees nothing).
    pub map: Option<Entity>,
    /// The root map its view was on before (`None`: it saw nothing), the same as `map` when
    /// it did not change maps.
    pub previous_map: Option<Entity>,
}

/// An entity with a view of kind `C`, as the recompute visits it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct ViewItem<C: KeptView> {
    entity: Entity,
    view: &'static mut C,
    state: &'static mut ViewState<C>,
    placed: Ref<'static, Placed>,
}

/// Finds the entities with a view of kind `C` that may need a new one even when no map
/// changed, by reading change ticks: new ones, those whose options changed, and those whose
/// [`ViewState`] asks to be computed afresh (re-enabled, a viewer that started or stopped
/// needing light: their `C` is marked changed then). Those that moved are the placement step's
/// [`PlacedMoves`].
pub(crate) struct ViewScan<C: KeptView>(pub(crate) ChangeScan<C>);

impl<C: KeptView> FromWorld for ViewScan<C> {
    fn from_world(world: &mut World) -> Self {
        let columns = vec![column::<C>(world)];
        Self(ChangeScan::new(world, columns))
    }
}

/// Up to this many viewers to visit, they are found and visited on one thread; above it,
/// every viewer is visited in parallel (most of them only to find that they are up to date,
/// about 500 instructions each).
const FEW: usize = 256;

/// How the viewers visited in parallel are cut into tasks: several per thread, so that a
/// thread done early (or running while another thread's core is taken by another process)
/// takes over tasks still waiting instead of idling until one half of the crowd is done; and
/// at least [`FEW`] viewers a task, so that a small crowd is not cut into tasks that cost
/// more to start than to run.
fn batching() -> BatchingStrategy {
    BatchingStrategy::new()
        .min_batch_size(FEW)
        .batches_per_thread(8)
}

/// Views to file again where their reach now asks (`None`: nowhere), per thread.
type Refile = Vec<(Entity, Option<Filed>)>;

/// One recomputed view: the entity, and its map before and after.
pub(crate) type Update = (Entity, Option<Entity>, Option<Entity>);

/// Which viewers a frame visits, besides those that may have moved.
enum Visit {
    /// Every viewer; `layers`: layers changed, so every viewer is located again.
    All { layers: bool },
    /// Those near tiles whose opacity changed.
    Near(EntityHashSet),
}

/// What changed on the maps since the last run: whether every viewer must be visited (a
/// map's size, grid or existence changed, or layers did) or only those near changed tiles.
#[derive(SystemParam)]
pub(super) struct OpacityChanges<'w, 's> {
    epoch: Res<'w, LayerEpoch>,
    seen_epoch: Local<'s, u64>,
    changed:
        Query<'w, 's, (Entity, Ref<'static, MapOpacity>, &'static OpacityLog), Changed<MapOpacity>>,
    removed: RemovedComponents<'w, 's, MapOpacity>,
}

impl OpacityChanges<'_, '_> {
    fn read(&mut self, index: &mut ReachIndex) -> Visit {
        let layers = self.epoch.changed_since(&mut self.seen_epoch);
        let mut all = layers;
        for map in self.removed.read() {
            index.forget_map(map);
            all = true;
        }
        let mut near = EntityHashSet::default();
        for (map, opacity, log) in &self.changed {
            let read = MapRead {
                opacity: &opacity,
                log,
            };
            let told = !opacity.is_added() && index.reached_by_changes(map, read, &mut near);
            if !told {
                index.seen_all(map, &opacity);
                all = true;
            }
        }
        if all {
            Visit::All { layers }
        } else {
            Visit::Near(near)
        }
    }
}

/// Everything the recompute of the views of one kind `C` reads and keeps.
#[derive(SystemParam)]
pub(crate) struct Views<'w, 's, C: KeptView> {
    items: Query<'w, 's, ViewItem<C>>,
    maps: Maps<'w, 's>,
    moves: Res<'w, PlacedMoves>,
    map_changes: OpacityChanges<'w, 's>,
    removed: RemovedComponents<'w, 's, C>,
    index: Local<'s, ReachIndex>,
    updates: Local<'s, Parallel<Vec<Update>>>,
    /// Views filed elsewhere than their reach now asks for: to file again.
    refile: Local<'s, Parallel<Refile>>,
    /// Each thread's scratch space, kept from frame to frame (its buffers and the vision
    /// cones' masks stay warm).
    fov: Local<'s, Parallel<Scratch>>,
}

impl<C: KeptView> Views<'_, '_, C> {
    /// Brings every view of kind `C` that needs it up to date, given those that `ViewScan`
    /// found; returns those that changed.
    pub(crate) fn recompute(&mut self, moved: &[Entity]) -> impl Iterator<Item = Update> + '_ {
        let (layers_changed, listed) = self.viewers_to_visit(moved);
        let (updates, refile) = (&*self.updates, &*self.refile);
        let (maps, index) = (&self.maps, &*self.index);
        let visit = |task: Task<'_, '_, '_, '_>, item: ViewItemItem<C>| {
            visit_item(task, item, layers_changed, (index, refile));
        };
        let all = &mut self.items;
        let fovs = &*self.fov;
        let task = || {
            let locals = (fovs.borrow_local_mut(), updates.borrow_local_mut());
            (locals, MapLookup::new(maps))
        };
        match &listed {
            Some(listed) => {
                let mut few = all.iter_many_mut(listed);
                let ((mut fov, mut updates), mut maps) = task();
                while let Some(item) = few.fetch_next() {
                    visit((&mut fov, &mut updates, &mut maps), item);
                }
            }
            _ => all
                .par_iter_mut()
                .batching_strategy(batching())
                .for_each_init(task, |((fov, updates), maps), item| {
                    visit((fov, updates, maps), item);
                }),
        }
        for (entity, filed) in self.refile.drain() {
            self.index.file(entity, filed);
        }
        self.updates.drain()
    }

    /// Whether layers changed, and the viewers to visit (`None`: every one): those
    /// `ViewScan` found, those the placement step placed anew and those filed near changed
    /// tiles, when they are few.
    fn viewers_to_visit(&mut self, moved: &[Entity]) -> (bool, Option<EntityHashSet>) {
        for view in self.removed.read() {
            self.index.unfile(view);
        }
        match self.map_changes.read(&mut self.index) {
            Visit::All { layers } => (layers, None),
            Visit::Near(mut near) => {
                // The moves are every placed entity's (walls, targets, the other kind of
                // view): only this kind's count, found when there are not too many to look up.
                let moves = self.moves.entities();
                let few = near.len() + moved.len() <= FEW && moves.len() <= 4 * FEW;
                if few {
                    near.extend(moved);
                    for &entity in moves {
                        if near.len() > FEW {
                            break;
                        }
                        if self.items.contains(entity) {
                            near.insert(entity);
                        }
                    }
                }
                (false, (few && near.len() <= FEW).then_some(near))
            }
        }
    }
}

/// Visits one viewer for a task: brings its view up to date ([`visit_view`]), notes the
/// update, and notes a view to file again.
fn visit_item<C: KeptView>(
    (fov, updates, maps): Task<'_, '_, '_, '_>,
    mut item: ViewItemItem<C>,
    layers_changed: bool,
    (index, refile): (&ReachIndex, &Parallel<Refile>),
) {
    let before = item.state.key().map(|key| key.map);
    if let Some(after) = visit_view(fov, &mut item, layers_changed, maps) {
        updates.push((item.entity, before, after));
    }
    let filed = item.state.key().and_then(|key| {
        let opacity = maps.opacity(key.map)?;
        Some(Filed::new(key, opacity.fixed_area()))
    });
    if index.filed(item.entity) != filed.as_ref() {
        refile.borrow_local_mut().push((item.entity, filed));
    }
}

/// What one task of the recompute keeps while it visits viewers, borrowed for one visit: its
/// thread's scratch space and updates, and the maps its viewers stand on.
type Task<'t, 'm, 'w, 's> = (
    &'t mut Scratch,
    &'t mut Vec<Update>,
    &'t mut MapLookup<'m, 'w, 's>,
);

/// Visits one view: keeps it when it is still right, else locates the viewer and refreshes
/// it. Returns the view's map after it changed (`Some(None)`: emptied), `None` if unchanged.
fn visit_view<C: KeptView>(
    fov: &mut Scratch,
    item: &mut ViewItemItem<C>,
    layers_changed: bool,
    maps: &mut MapLookup,
) -> Option<Option<Entity>> {
    if !layers_changed && still_placed(item) && catch_up(&mut item.state, maps) {
        return None;
    }
    let located = locate(
        (item.view.options(), item.view.elevation()),
        &item.placed,
        maps,
    );
    refresh(fov, item, located).then(|| item.state.key().map(|key| key.map))
}

/// Recomputes the viewers' views and announces each changed one. Exclusive, to read the
/// viewers' change ticks as whole columns (`ViewScan`).
pub(super) fn recompute_viewsheds(
    world: &mut World,
    mut moved: Local<ViewScan<Viewshed>>,
    state: &mut SystemState<(Views<Viewshed>, MessageWriter<ViewshedUpdated>)>,
) {
    scan_then_run(
        world,
        &mut moved.0,
        state,
        |moved, (mut views, mut messages)| {
            let updates = views.recompute(moved);
            messages.write_batch(updates.map(|(viewer, previous_map, map)| ViewshedUpdated {
                viewer,
                map,
                previous_map,
            }));
        },
    );
}

/// Whether a viewer has a view and kept its settings, map and tile since the last run.
fn still_placed<C: KeptView>(item: &ViewItemItem<C>) -> bool {
    item.state.key().is_some() && !item.view.is_changed() && !item.placed.is_changed()
}

/// For a viewer that did not move: whether its view is still right, given the opacity
/// changes since it was computed (it then records that it has seen them).
fn catch_up<C: KeptView>(state: &mut Mut<ViewState<C>>, maps: &mut MapLookup) -> bool {
    let Some(key) = state.key() else {
        return false;
    };
    let Some(opacity) = maps.opacity(key.map) else {
        return false;
    };
    if key.grid != opacity.kind() || opacity.changed_within(key.version, |area| key.reaches(area)) {
        return false;
    }
    if key.version != opacity.version()
        && let Some(key) = state.bypass_change_detection().key_mut().as_mut()
    {
        // Only the version moves: the key is not copied.
        key.version = opacity.version();
    }
    true
}

/// Brings one view up to date with where the viewer stands; returns whether it changed.
fn refresh<C: KeptView>(
    fov: &mut Scratch,
    item: &mut ViewItemItem<C>,
    located: Result<(ViewKey, MapRead), PlaceProblem>,
) -> bool {
    let state = item.state.bypass_change_detection();
    let (key, opacity) = match located {
        Ok(located) => located,
        Err(problem) => return clear(item, problem),
    };
    // Written over in place by the game (its key may be the same): not the view computed.
    let replaced = item.view.is_changed() && buffer(item.view.view()) != state.written;
    let up_to_date = !replaced
        && state.key().is_some_and(|old| {
            ViewKey {
                version: key.version,
                ..*old
            } == key
                && !opacity.changed_within(old.version, |area| key.reaches(area))
        });
    *state.key_mut() = Some(key);
    if up_to_date {
        return false;
    }
    state.warned = None;
    let first = std::mem::take(&mut state.fresh);
    let at = Some((key.map, TilePos::new(key.origin.0, key.origin.1)));
    let view = item.view.start_view(at, first);
    // The origin was checked to be on the map, so this cannot fail.
    let computed = fov.compute(&key, &opacity, view).is_ok();
    state.written = buffer(view);
    computed
}

/// The address of the buffer a view is held in: which value of a view this is.
fn buffer(view: &VisibleSet) -> usize {
    view.words().as_ptr() as usize
}

/// Empties the view of a viewer that stands nowhere (`problem` says why, in one warning);
/// returns whether it held anything.
fn clear<C: KeptView>(item: &mut ViewItemItem<C>, problem: PlaceProblem) -> bool {
    let state = item.state.bypass_change_detection();
    if state.warned != Some(problem) {
        warn!(
            "bevy_viewshed: {} {} {}; {}",
            C::WHO,
            item.entity,
            problem.describe(),
            C::NOTHING
        );
        state.warned = Some(problem);
    }
    *state.key_mut() = None;
    let first = std::mem::take(&mut state.fresh);
    let had_view = item.view.has_view();
    if had_view {
        item.view.start_view(None, first);
    }
    // A new value that stands nowhere is announced too: what its entity saw (its sightings)
    // is judged against it.
    had_view || first
}

/// The map, tile and settings a viewer's view depends on, or why it sees nothing.
fn locate<'a>(
    (options, elevation): (FovOptions, ElevationOptions),
    placed: &Placed,
    maps: &mut MapLookup<'a, '_, '_>,
) -> Result<(ViewKey, MapRead<'a>), PlaceProblem> {
    let (map, tile) = placed.located()?;
    let Some(opacity) = maps.opacity(map) else {
        return Err(PlaceProblem::NotATilemap(map));
    };
    // Checked against the map's tiles, not its grid: a staggered map's diamond grid is taller
    // than the map, and its extra cells are no tiles; a world's area has cells between its
    // chunks.
    if !opacity.covers((tile.x, tile.y)) {
        return Err(PlaceProblem::OffMap(map));
    }
    let key = ViewKey {
        map,
        origin: (tile.x, tile.y),
        options,
        eye: opacity.eye_level((tile.x, tile.y), elevation.eye_height),
        cliff_faces: elevation.cliff_faces,
        version: opacity.version(),
        grid: opacity.kind(),
    };
    Ok((key, opacity))
}
