//! The first step of a frame: where every placed entity stands. Viewers, lights, opaque
//! entities and the entities others look for ([`CanBeSpotted`](crate::CanBeSpotted),
//! [`HidesOutsideView`](crate::HidesOutsideView), [`LeavesGhost`](crate::LeavesGhost))
//! get a [`Placed`], written by `place_entities` only when its map or tile changes, so later
//! steps find what moved with `Changed<Placed>` (or its change ticks, or `PlacedMoves`) and
//! never work out a placement themselves.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::{Allow, QueryData};
use bevy::ecs::system::{SystemParam, SystemState};
use bevy::prelude::*;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapSize, TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::TilePos;

use crate::layers::layer_of::LayerEpoch;
use crate::placement::locate::{MapOf, PlaceProblem, Placement};
use crate::placement::residents::Residents;
use crate::support::change_ticks::{ChangeScan, column, scan_then_run};
use crate::worlds::chunks::ChunkOf;
use crate::worlds::layout::ChunkChanges;

/// Where an entity stands: its map (the root tilemap of its `TilemapId`) and tile, from its
/// `TilePos` or, failing that, its `GlobalTransform` and the tilemap's geometry. The plugin
/// writes it in [`ViewshedStepSystems::Placement`](crate::ViewshedStepSystems::Placement), and only
/// when it changes, so `Changed<Placed>` tells a game which of these entities moved this frame.
///
/// It comes with [`Viewshed`](crate::Viewshed), [`LightSource`](crate::LightSource),
/// [`Opaque`](crate::Opaque), [`CanBeSpotted`](crate::CanBeSpotted),
/// [`HidesOutsideView`](crate::HidesOutsideView), [`LeavesGhost`](crate::LeavesGhost)
/// and, with the `replicon` feature, `ReplicatesWhenSeen`. A `Placed` inserted on an entity
/// (another entity's, cloned or reflected) is worked out again for it at the next update; the
/// plugin never reads one a game writes in place.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::Placed;
/// fn report_moves(moved: Query<(Entity, &Placed), Changed<Placed>>) {
///     for (entity, placed) in &moved {
///         info!("{entity} now stands at {:?}", placed.tile());
///     }
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct Placed {
    at: Option<(Entity, TilePos)>,
    /// Why it stands nowhere (`None` before it was first placed, and while it stands).
    #[reflect(ignore)]
    problem: Option<PlaceProblem>,
}

impl Placed {
    /// The map (root tilemap) and tile, if the entity stands anywhere.
    pub fn get(&self) -> Option<(Entity, TilePos)> {
        self.at
    }

    /// The map (root tilemap) the entity stands on.
    pub fn map(&self) -> Option<Entity> {
        self.at.map(|(map, _)| map)
    }

    /// The tile the entity stands on.
    pub fn tile(&self) -> Option<TilePos> {
        self.at.map(|(_, tile)| tile)
    }

    /// Whether the entity stands on `tile` of `map`.
    pub fn is_at(&self, map: Entity, tile: TilePos) -> bool {
        self.at == Some((map, tile))
    }

    /// Where it stands, or why it stands nowhere.
    pub(crate) fn located(&self) -> Result<(Entity, TilePos), PlaceProblem> {
        self.at
            .ok_or(self.problem.unwrap_or(PlaceProblem::NotPlaced))
    }

    fn from_result(located: Result<(Entity, TilePos), PlaceProblem>) -> Self {
        Self {
            at: located.ok(),
            problem: located.err(),
        }
    }
}

/// An entity the teams may see (a target, a hidden monster, a remembered one, a sprite under
/// the fog, a replicated unit): the fog's team sight follows it where its [`Placed`] says.
/// Viewers, lights and walls are placed too, but not followed.
#[derive(Component, Clone, Copy, Debug, Default)]
#[require(Placed)]
pub(crate) struct Findable;

/// Entities with `C` that moved (their `Placed` changed) or got `C` in this frame.
pub(crate) type Moved<C> = (With<C>, Or<(Changed<Placed>, Added<C>)>);

/// Entities to place again whatever their change ticks say: re-enabled, or they lost their
/// `TilePos` or `TilemapId`.
#[derive(Resource, Default)]
pub(super) struct PlaceAgain(EntityHashSet);

/// Finds the placed entities whose `TilePos` or `TilemapId` changed since `place_entities`
/// last ran, by reading their change ticks 64 at a time: walls, viewers and targets are
/// placed, and nearly none of them moves in a frame. (A new `Placed` is placed through
/// [`PlaceAgain`], by an observer.)
pub(crate) struct PlacedScan(ChangeScan<Placed>);

impl FromWorld for PlacedScan {
    fn from_world(world: &mut World) -> Self {
        let columns = vec![column::<TilePos>(world), column::<TilemapId>(world)];
        Self(ChangeScan::new(world, columns))
    }
}

/// The entities whose [`Placed`] `place_entities` changed (or marked changed) this frame,
/// written by it alone, anew each frame: the later steps take the moved walls, viewers and
/// lights from here instead of scanning every one of them again.
#[derive(Resource, Default)]
pub(crate) struct PlacedMoves(Vec<Entity>);

impl PlacedMoves {
    /// The entities placed anew this frame (some may be listed twice).
    pub(crate) fn entities(&self) -> &[Entity] {
        &self.0
    }
}

/// A placed entity, as `place_entities` reads it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct PlacedItem {
    entity: Entity,
    tile: Option<&'static TilePos>,
    tilemap: Option<&'static TilemapId>,
    transform: Option<&'static GlobalTransform>,
    placed: &'static mut Placed,
}

/// Entities placed by `Transform` whose transform changed.
type Carried = (With<Placed>, Without<TilePos>, Changed<GlobalTransform>);

/// Tilemaps whose geometry changed, and chunks that joined a world.
type Regeared = (
    With<TilemapSize>,
    Or<(
        Changed<TilemapSize>,
        Changed<TilemapType>,
        Changed<GlobalTransform>,
        Changed<TilemapGridSize>,
        Changed<TilemapTileSize>,
        Changed<TilemapAnchor>,
        Added<ChunkOf>,
    )>,
);

/// What `place_entities` reads and writes besides the change ticks.
#[derive(SystemParam)]
pub(crate) struct Placing<'w, 's> {
    entities: Query<'w, 's, PlacedItem>,
    /// Entities placed by `Transform` whose transform changed.
    carried: Query<'w, 's, Entity, Carried>,
    /// Tilemaps whose geometry changed: every entity is placed again (unless the tilemap is
    /// a chunk that has just come: the world's residents there are placed again instead).
    maps: Query<'w, 's, (Ref<'static, TilemapSize>, Option<Ref<'static, ChunkOf>>), Regeared>,
    gone_maps: RemovedComponents<'w, 's, TilemapSize>,
    /// Entities that lost a transform or an anchor: if a tilemap, every entity is placed again.
    lost_transforms: RemovedComponents<'w, 's, GlobalTransform>,
    lost_anchors: RemovedComponents<'w, 's, TilemapAnchor>,
    epoch: Res<'w, LayerEpoch>,
    seen_epoch: Local<'s, u64>,
    again: ResMut<'w, PlaceAgain>,
    moves: ResMut<'w, PlacedMoves>,
    chunks: Res<'w, ChunkChanges>,
    residents: ResMut<'w, Residents>,
    placement: Placement<'w, 's>,
}

/// Works out where every [`Placed`] entity stands when anything it depends on changed: its
/// `TilePos`, `TilemapId` or (placed by `Transform`) `GlobalTransform`, its `Placed` is new,
/// it was re-enabled, or for every entity: layers changed (every root may have) or any
/// tilemap's geometry did (size, type, transform, grid). Exclusive, to read the change ticks
/// as whole columns.
pub(crate) fn place_entities(
    world: &mut World,
    mut moved: Local<PlacedScan>,
    state: &mut SystemState<Placing>,
) {
    scan_then_run(world, &mut moved.0, state, |moved, mut placing| {
        placing.place(moved);
    });
}

impl Placing<'_, '_> {
    /// Whether a tilemap's geometry changed or a tilemap went, which may move any entity; a
    /// chunk that has just come or has left moves only the entities on its tiles.
    fn maps_changed(&mut self) -> bool {
        let came = |(size, chunk): (Ref<TilemapSize>, Option<Ref<ChunkOf>>)| {
            size.is_added() && chunk.is_some_and(|chunk| chunk.is_added())
        };
        let left = self.chunks.left();
        let gone = self
            .gone_maps
            .read()
            .filter(|map| !left.contains(map))
            .count();
        gone > 0 || !self.maps.iter().all(came)
    }

    fn place(&mut self, moved: &[Entity]) {
        let layers = self.epoch.changed_since(&mut self.seen_epoch);
        let maps_changed = self.maps_changed() | self.lost_geometry();
        let again = std::mem::take(&mut self.again.0);
        // Nearly always empty: no lookup per entity then.
        let re_enabled = |entity: Entity| !again.is_empty() && again.contains(&entity);
        let mut place = Place {
            placement: &self.placement,
            last: None,
            residents: &mut self.residents,
            moves: &mut self.moves.0,
        };
        place.moves.clear();
        if layers || maps_changed {
            for item in &mut self.entities {
                let re_enabled = re_enabled(item.entity);
                place.one(item, re_enabled);
            }
            return;
        }
        let mut near_chunks = Vec::new();
        for &(world, area) in self.chunks.areas() {
            place.residents.near(world, area, &mut near_chunks);
        }
        let listed = moved.iter().chain(&again).chain(&near_chunks);
        let listed = listed.copied().chain(&self.carried);
        let mut listed = self.entities.iter_many_mut(listed);
        while let Some(item) = listed.fetch_next() {
            let re_enabled = re_enabled(item.entity);
            place.one(item, re_enabled);
        }
    }
}

impl Placing<'_, '_> {
    /// Whether a tilemap lost its `GlobalTransform` or `TilemapAnchor` since the last run (the
    /// removals of other entities' are read and passed over).
    fn lost_geometry(&mut self) -> bool {
        let lost = self.lost_transforms.read().chain(self.lost_anchors.read());
        lost.filter(|&entity| self.placement.is_tilemap(entity))
            .count()
            > 0
    }
}

/// Where `place_entities` places entities and notes what moved.
struct Place<'a, 'w, 's> {
    placement: &'a Placement<'w, 's>,
    /// The last tilemap whose root was looked up, its root and the root's size: consecutive
    /// entities mostly stand on the same tilemap, so its `LayerOf` chain is walked once for a
    /// run of them.
    last: Option<(Entity, MapOf)>,
    residents: &'a mut Residents,
    moves: &'a mut Vec<Entity>,
}

impl Place<'_, '_, '_> {
    /// Places one entity; when it moved, notes it in the moves. A re-enabled one counts as
    /// moved (its `Placed` is marked changed) wherever it stands.
    fn one(&mut self, mut item: PlacedItemItem, re_enabled: bool) {
        let (placement, last) = (self.placement, &mut self.last);
        let map_of = |tilemap: Entity| match *last {
            Some((asked, map_of)) if asked == tilemap => map_of,
            _ => {
                let map_of = placement.root_and_size(tilemap);
                *last = Some((tilemap, map_of));
                map_of
            }
        };
        let (tile, tilemap, transform) = (item.tile, item.tilemap, item.transform);
        let now = Placed::from_result(placement.locate_in(tile, tilemap, transform, map_of));
        let was = *item.placed;
        if item.placed.set_if_neq(now) || re_enabled {
            let is_world = |map| placement.is_world(map);
            self.residents
                .moved(item.entity, was.located(), now.located(), is_world);
            item.placed.set_changed();
            self.moves.push(item.entity);
        }
    }
}

/// A placed entity is new, was re-enabled, lost its `TilePos` or `TilemapId`, or had a
/// `Placed` inserted (a clone, a reflected copy, a scene: another entity's place): it is
/// placed (again) at the next update (`C` is the component of the lifecycle event `E`).
pub(super) fn place_again<E: EntityEvent, C: Component>(
    event: On<E, C>,
    placed: Query<(), (With<Placed>, Allow<Disabled>)>,
    mut again: ResMut<PlaceAgain>,
) {
    if placed.contains(event.event_target()) {
        again.0.insert(event.event_target());
    }
}

/// A [`Placed`] is about to be replaced or removed (the entity may be despawned): it is
/// filed nowhere.
pub(super) fn on_placed_discarded(
    event: On<Discard, Placed>,
    placed: Query<&Placed, Allow<Disabled>>,
    mut residents: ResMut<Residents>,
) {
    if let Ok(placed) = placed.get(event.entity) {
        residents.left(event.entity, placed.located());
    }
}
