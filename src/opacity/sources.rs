//! The one pipeline every kind of cell goes through: a component on entities that stand on a
//! tile ([`CellSource`]: `Opaque`, `Density`) and a grid of the game's own on a tilemap
//! ([`PaintedCells`]: `OpaqueCells`, `DensityCells`), tallied on each map's tiles and written
//! into its [`MapOpacity`](super::MapOpacity). Each kind says what one source adds to a tile
//! and how a tile's tally is written; placing, moving, warning and painting are the same for
//! every kind.

use std::fmt::Debug;

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use super::log::OpacityLog;
use super::map_opacity::MapOpacity;
use crate::layers::layer_of::LayerEpoch;
use crate::placement::locate::PlaceProblem;
use crate::placement::placed::{Placed, PlacedMoves};
use crate::worlds::chunks::ChunkPlacement;

/// A component that adds something to the tile its entity stands on (`TilePos` + `TilemapId`).
pub(super) trait CellSource: Component + Sized {
    /// What stands on one tile, summed over its entities and painted cells.
    type Tally: Default + Clone + Debug + Send + Sync + 'static;
    /// The component's name, for warnings.
    const NAME: &'static str;
    /// What a source that stands on no tile fails to do, for warnings.
    const DOES_NOTHING: &'static str;
    /// Whether its value can change in place (then changed ones are looked for every frame).
    const CHANGES_IN_PLACE: bool;

    /// What this one adds to its tile (`None`: nothing).
    fn amount(&self) -> Option<u32>;
    /// What is wrong with its value, if it is out of range (warned about when it is placed).
    fn out_of_range(&self) -> Option<String> {
        None
    }
    /// Adds `amount` to a tally.
    fn add(tally: &mut Self::Tally, amount: u32);
    /// Takes `amount` away from a tally.
    fn remove(tally: &mut Self::Tally, amount: u32);
    /// Whether nothing of this kind is left on the tile.
    fn is_empty(tally: &Self::Tally) -> bool;
    /// Writes the value of `tile` (its tally; `None`: nothing there) into the map's grids;
    /// returns whether its cell changed.
    fn write(opacity: &mut MapOpacity, tile: (u32, u32), tally: Option<&Self::Tally>) -> bool;
    /// Whether maps like `opacity` ignore this kind: the kind of map, and why (warned about
    /// once per map).
    fn unsupported(_opacity: &MapOpacity) -> Option<(&'static str, &'static str)> {
        None
    }
}

/// One kind's tally of every tile of a map (also tiles outside its current area, so that
/// shrinking and growing a map back loses nothing), and what each painting tilemap adds: the
/// opacity domain's bookkeeping beside [`MapOpacity`], in a component no game names (a
/// `MapOpacity` the game inserts, another map's clone, is filled again from it).
#[derive(Component)]
#[component(clone_behavior = Ignore)]
pub(super) struct Tallies<S: CellSource> {
    tiles: HashMap<(u32, u32), S::Tally>,
    painted: EntityHashMap<HashMap<(u32, u32), u32>>,
    /// The layout of the grids these last filled (see `MapOpacity::layout`).
    filled: u64,
}

impl<S: CellSource> Default for Tallies<S> {
    fn default() -> Self {
        Self {
            tiles: HashMap::default(),
            painted: EntityHashMap::default(),
            filled: 0,
        }
    }
}

impl<S: CellSource> Tallies<S> {
    /// Whether something of this kind stands on `tile`.
    pub(super) fn on(&self, tile: (u32, u32)) -> Option<&S::Tally> {
        self.tiles.get(&tile)
    }
}

/// A map as one kind changes it: its grids, its tallies of that kind and its change log.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct MapCells<S: CellSource> {
    opacity: &'static mut MapOpacity,
    tallies: &'static mut Tallies<S>,
    log: &'static mut OpacityLog,
}

impl<S: CellSource> MapCellsItem<'_, '_, S> {
    /// Adds `amount` to `tile` (`add` false: takes it away).
    fn add(&mut self, tile: (u32, u32), amount: u32, add: bool) {
        let tally = self.tallies.tiles.entry(tile).or_default();
        if add {
            S::add(tally, amount);
        } else {
            S::remove(tally, amount);
        }
        if S::is_empty(tally) {
            self.tallies.tiles.remove(&tile);
        }
        if S::write(&mut self.opacity, tile, self.tallies.tiles.get(&tile)) {
            let version = self.log.note_change(tile);
            self.opacity.set_version(version);
        }
    }

    /// `painter` paints `cells` (what it adds to each tile), and no longer the cells it
    /// painted before and not now.
    fn paint(&mut self, painter: Entity, cells: HashMap<(u32, u32), u32>) {
        let before = self.tallies.painted.remove(&painter).unwrap_or_default();
        for (&tile, &amount) in &before {
            if cells.get(&tile) != Some(&amount) {
                self.add(tile, amount, false);
            }
        }
        for (&tile, &amount) in &cells {
            if before.get(&tile) != Some(&amount) {
                self.add(tile, amount, true);
            }
        }
        if !cells.is_empty() {
            self.tallies.painted.insert(painter, cells);
        }
    }

    /// Fills grids laid out anew (since these tallies last filled them) from the tallies.
    fn fill(&mut self) {
        if self.tallies.filled == self.opacity.layout() {
            return;
        }
        self.tallies.filled = self.opacity.layout();
        for (&tile, tally) in &self.tallies.tiles {
            S::write(&mut self.opacity, tile, Some(tally));
        }
    }
}

/// A grid of the game's own on a tilemap, painted onto its map: cell `(x, y)` is the
/// tilemap's tile `(x, y)` (its world's tile at the chunk's place, on a chunk).
pub(super) trait PaintedCells: Component {
    /// The kind it paints.
    type Source: CellSource;
    /// What it adds to each of its tiles (none where nothing).
    fn cells(&self) -> HashMap<(u32, u32), u32>;
}

/// The maps given a `MapOpacity` anew in this frame (their tallies are empty), and those that
/// lost theirs: written by `track_maps` alone, anew each frame; every kind places its sources
/// again.
#[derive(Resource, Default)]
pub(super) struct RemadeMaps(pub(super) Vec<Entity>);

/// Where each source of `S` counts: its map, tile and amount.
#[derive(Resource)]
pub(super) struct SourceIndex<S> {
    /// The [`LayerEpoch`] the sources were placed at.
    epoch: u64,
    placed: EntityHashMap<(Entity, (u32, u32), u32)>,
    /// Sources already warned about, so that each is warned about once.
    warned: EntityHashSet,
    /// Sources to place again at the next sync (inserted or re-enabled).
    pending: EntityHashSet,
    marker: std::marker::PhantomData<S>,
}

impl<S> Default for SourceIndex<S> {
    fn default() -> Self {
        Self {
            epoch: 0,
            placed: EntityHashMap::default(),
            warned: EntityHashSet::default(),
            pending: EntityHashSet::default(),
            marker: std::marker::PhantomData,
        }
    }
}

/// A source as the sync reads it: where it is placed, whether by a `TilePos`, and its tilemap.
#[derive(QueryData)]
pub(super) struct SourceItem<S: CellSource> {
    entity: Entity,
    source: &'static S,
    placed: &'static Placed,
    by_tile: Has<TilePos>,
    tilemap: Option<&'static TilemapId>,
}

/// What syncing the sources of `S` reads and writes.
#[derive(SystemParam)]
pub(super) struct SourceSync<'w, 's, S: CellSource> {
    all: Query<'w, 's, SourceItem<S>>,
    changed: Query<'w, 's, Entity, Changed<S>>,
    maps: Query<'w, 's, MapCells<S>>,
    epoch: Res<'w, LayerEpoch>,
    remade: Res<'w, RemadeMaps>,
    index: ResMut<'w, SourceIndex<S>>,
    moves: Res<'w, PlacedMoves>,
}

/// Counts the sources of `S` where they stand: those the placement step placed anew this
/// frame (`PlacedMoves`), those inserted, changed or re-enabled; all of them when layers
/// changed or a map got its opacity anew.
pub(super) fn sync_sources<S: CellSource>(mut sync: SourceSync<S>) {
    let index = &mut *sync.index;
    let layers_changed = sync.epoch.changed_since(&mut index.epoch);
    let remade = &sync.remade.0;
    // Nearly always empty: the index of every source (a map's walls) is not walked then.
    // `idle 10000` (benches/frame_instructions.rs, one thread): 675k -> 305k instructions a frame.
    if !remade.is_empty() {
        index.placed.retain(|_, (map, ..)| !remade.contains(map));
    }
    let (all, maps) = (&sync.all, &mut sync.maps);
    if layers_changed || !remade.is_empty() {
        index.pending.clear();
        for item in all {
            place(item, maps, index, true);
        }
        return;
    }
    // A moved source that lost its tile or tilemap is not warned about (the game took it
    // away); a new or re-enabled one without them is.
    let pending = std::mem::take(&mut index.pending);
    let moved = sync.moves.entities().iter().map(|&entity| (entity, false));
    let changed = S::CHANGES_IN_PLACE
        .then(|| sync.changed.iter().map(|entity| (entity, true)))
        .into_iter()
        .flatten();
    let queued = pending.into_iter().map(|entity| (entity, true));
    for (entity, new) in moved.chain(queued).chain(changed) {
        // A query skips what it should (disabled entities, those no longer sources).
        if let Ok(item) = all.get(entity) {
            place(item, maps, index, new);
        }
    }
}

/// Counts a source on the tile its `Placed` says (and no longer where it stood); only a
/// `TilePos` places a source. One without a tile or tilemap is warned about when
/// `warn_unplaced`.
fn place<S: CellSource>(
    item: SourceItemItem<S>,
    maps: &mut Query<MapCells<S>>,
    index: &mut SourceIndex<S>,
    warn_unplaced: bool,
) {
    let entity = item.entity;
    if let Some(problem) = item.source.out_of_range() {
        warn!("bevy_viewshed: {} entity {entity} {problem}", S::NAME);
    }
    let target = match (item.source.amount(), item.placed.located()) {
        (None, _) => None,
        (Some(amount), Ok((map, tile))) if item.by_tile && maps.contains(map) => {
            Some((map, (tile.x, tile.y), amount))
        }
        (Some(_), located) => {
            let by_tile = item.by_tile && item.tilemap.is_some();
            if let Some(problem) = unplaced::<S>(located, by_tile, warn_unplaced, item.tilemap) {
                warn_once(index, entity, problem);
            }
            None
        }
    };
    if index.placed.get(&entity).copied() == target {
        return;
    }
    unplace(entity, maps, index);
    if let Some((map, tile, amount)) = target
        && let Ok(mut cells) = maps.get_mut(map)
    {
        if let Some((kind, why)) = S::unsupported(&cells.opacity)
            && index.warned.insert(map)
        {
            warn!("bevy_viewshed: {} on {kind} map {map}: {why}", S::NAME);
        }
        cells.add(tile, amount, true);
        index.placed.insert(entity, (map, tile, amount));
        index.warned.remove(&entity);
    }
}

/// What is wrong with a source of `S` that stands on no tile of a map, if it is to be warned
/// about: one placed by `Transform` only, or without a tile or tilemap (when `warn_unplaced`),
/// or on something that is no map.
fn unplaced<S: CellSource>(
    located: Result<(Entity, TilePos), PlaceProblem>,
    by_tile: bool,
    warn_unplaced: bool,
    tilemap: Option<&TilemapId>,
) -> Option<String> {
    match located {
        Ok(_) | Err(PlaceProblem::NotPlaced) if !by_tile && !warn_unplaced => None,
        Ok(_) | Err(PlaceProblem::NotPlaced) if !by_tile => Some(format!(
            "has no TilePos and TilemapId (a Transform does not place a {} entity); it {} \
             until it gets both",
            S::NAME,
            S::DOES_NOTHING
        )),
        Ok(_) => tilemap.map(|tilemap| {
            format!(
                "is on {}, which is not a tilemap (or a layer of one); it {} until it is \
                 placed on one",
                tilemap.0,
                S::DOES_NOTHING
            )
        }),
        Err(problem) => Some(format!(
            "{}; it {} until then",
            problem.describe(),
            S::DOES_NOTHING
        )),
    }
}

fn warn_once<S: CellSource>(index: &mut SourceIndex<S>, entity: Entity, problem: String) {
    if index.warned.insert(entity) {
        warn!("bevy_viewshed: {} entity {entity} {problem}", S::NAME);
    }
}

/// A source stopped counting where it was counted.
fn unplace<S: CellSource>(
    entity: Entity,
    maps: &mut Query<MapCells<S>>,
    index: &mut SourceIndex<S>,
) {
    if let Some((map, tile, amount)) = index.placed.remove(&entity)
        && let Ok(mut cells) = maps.get_mut(map)
    {
        cells.add(tile, amount, false);
    }
}

/// `S`, `TilePos` or `TilemapId` was removed from an entity, or it was disabled or despawned
/// (`C` is the component of the lifecycle event `E`): it counts nowhere any more.
pub(super) fn on_source_gone<S: CellSource, E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut maps: Query<MapCells<S>>,
    mut index: ResMut<SourceIndex<S>>,
) {
    let entity = event.event_target();
    unplace(entity, &mut maps, &mut index);
    index.pending.remove(&entity);
    index.warned.remove(&entity);
}

/// An entity was re-enabled (`Remove<Disabled>`) or got `S` (`Insert<S>`): if it is a source,
/// it is placed (again) at the next sync.
pub(super) fn queue_source<S: CellSource, E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut index: ResMut<SourceIndex<S>>,
) {
    index.pending.insert(event.event_target());
}

/// The map each painting tilemap of `P` is painted on.
#[derive(Resource)]
pub(super) struct PaintedOn<P>(EntityHashMap<Entity>, std::marker::PhantomData<P>);

impl<P> Default for PaintedOn<P> {
    fn default() -> Self {
        Self(EntityHashMap::default(), std::marker::PhantomData)
    }
}

/// A tilemap with painted cells, and where it lies if it is a chunk of a world.
type Painter<'a, P> = (Entity, Ref<'a, P>, Option<Ref<'a, ChunkPlacement>>);

/// Fills the grids of the kind on every map laid out anew since its tallies last filled them
/// (what its sources placed this frame is among the tallies), then paints each tilemap's `P`
/// onto its map (its own, or its world at the chunk's place) when they changed, the map got
/// its opacity anew or the chunk moved; takes them away when the component is removed or the
/// tilemap left its world. (The fill is no system of its own: three fewer systems a frame,
/// `idle 10000` in benches/frame_instructions.rs, one thread: 305k -> 299k instructions.)
pub(super) fn paint_cells<P: PaintedCells>(
    painters: Query<Painter<P>>,
    mut maps: Query<MapCells<P::Source>>,
    mut removed: RemovedComponents<P>,
    (mut painted, remade): (ResMut<PaintedOn<P>>, Res<RemadeMaps>),
) {
    for mut cells in &mut maps {
        cells.fill();
    }
    for painter in removed.read() {
        unpaint(painter, &mut painted, &mut maps);
    }
    for (painter, cells, chunk) in &painters {
        let (map, first) = match &chunk {
            Some(chunk) => (chunk.world(), chunk.first()),
            None => (painter, TilePos::new(0, 0)),
        };
        let moved = chunk.as_ref().is_some_and(DetectChanges::is_changed);
        let elsewhere = painted.0.get(&painter) != Some(&map);
        let new_map = remade.0.contains(&map);
        if !(cells.is_changed() || moved || elsewhere || new_map) {
            continue;
        }
        if elsewhere {
            unpaint(painter, &mut painted, &mut maps);
        }
        if let Ok(mut on) = maps.get_mut(map) {
            let at = |((x, y), amount): ((u32, u32), u32)| ((first.x + x, first.y + y), amount);
            on.paint(painter, cells.cells().into_iter().map(at).collect());
            painted.0.insert(painter, map);
        }
    }
}

/// Takes what `painter` painted away from the map it is painted on.
fn unpaint<P: PaintedCells>(
    painter: Entity,
    painted: &mut PaintedOn<P>,
    maps: &mut Query<MapCells<P::Source>>,
) {
    if let Some(map) = painted.0.remove(&painter)
        && let Ok(mut on) = maps.get_mut(map)
    {
        on.paint(painter, HashMap::default());
    }
}

/// A map stopped being one: its tallies of `S` go with its `MapOpacity`.
pub(super) fn on_map_gone<S: CellSource>(event: On<Remove, MapOpacity>, mut commands: Commands) {
    if let Ok(mut map) = commands.get_entity(event.entity) {
        map.try_remove::<Tallies<S>>();
    }
}
