//! Finds the entities whose components changed since an exclusive system last ran by reading
//! Bevy's columns of change ticks directly, table by table.
//!
//! A `Changed<T>` filter checks one entity at a time. The plugin asks the same question of
//! every opaque tile and every viewer every frame, and the answer is nearly always "nothing
//! changed": reading each column as a slice answers it for 64 entities at a time, which is
//! most of what an idle frame costs otherwise. The answer is the same as Bevy's own filter:
//! a tick counts when it is newer than the system's last run ([`Tick::is_newer_than`]).
//!
//! What it pays for, counted with `benches/frame_instructions.rs` when `sync_opaque` and the
//! two recomputes moved to it: `idle 10000` 0.65M -> 0.31M instructions a frame, `door 10000`
//! 1.01M -> 0.64M. Its `unsafe` reads and the rule it must keep are checked against Bevy's
//! `Changed` filters by `tests::the_scan_finds_what_changed_filters_find` (a proptest).

use std::cell::UnsafeCell;

use bevy::ecs::change_detection::{MAX_CHANGE_AGE, Tick};
use bevy::ecs::component::{ComponentId, StorageType};
use bevy::ecs::storage::Table;
use bevy::ecs::system::{SystemParam, SystemParamItem, SystemState};
use bevy::prelude::*;

/// Watches the tables of the entities with `M` for changes of some of their components.
pub(crate) struct ChangeScan<M: Component> {
    tables: QueryState<(), With<M>>,
    columns: Vec<ComponentId>,
    found: Vec<Entity>,
}

/// Entities looked at per step: the ticks of a step are read together before any entity of it
/// is picked out one by one.
const STEP: usize = 64;

impl<M: Component> ChangeScan<M> {
    /// Watches `columns` (made with [`column`]) of the entities with `M`.
    pub(crate) fn new(world: &mut World, columns: Vec<ComponentId>) -> Self {
        const { assert!(matches!(M::STORAGE_TYPE, StorageType::Table)) };
        Self {
            tables: QueryState::new(world),
            columns,
            found: Vec::new(),
        }
    }

    /// Every entity with `M` one of whose watched components was added or changed since the
    /// running exclusive system last ran (an entity may come once per changed component). It
    /// may list entities that a query would skip (disabled ones): look each up in a query.
    pub(super) fn changed_since_last_run(&mut self, world: &World) -> &[Entity] {
        self.found.clear();
        self.tables.update_archetypes(world);
        let ticks = (world.last_change_tick(), world.read_change_tick());
        let tables = &world.storages().tables;
        for table in self.tables.matched_tables().filter_map(|id| tables.get(id)) {
            for &column in &self.columns {
                changed_in(table, column, ticks, &mut self.found);
            }
        }
        &self.found
    }
}

/// The body of an exclusive system that reads change ticks: `scan` them, then `run` with what
/// was found and the system's other parameters (`state`).
pub(crate) fn scan_then_run<M: Component, P: SystemParam + 'static>(
    world: &mut World,
    scan: &mut ChangeScan<M>,
    state: &mut SystemState<P>,
    run: impl FnOnce(&[Entity], SystemParamItem<P>),
) {
    let changed = scan.changed_since_last_run(world);
    match state.get_mut(world) {
        Ok(params) => run(changed, params),
        // Only a game that removed one of the plugin's resources gets here.
        Err(error) => error_once!("bevy_viewshed: a system cannot run: {error}"),
    }
}

/// The column of `T` to watch; `T` must be stored in tables (checked when compiled), since
/// only table columns are read.
pub(crate) fn column<T: Component>(world: &mut World) -> ComponentId {
    const { assert!(matches!(T::STORAGE_TYPE, StorageType::Table)) };
    world.register_component::<T>()
}

/// Adds the entities of `table` whose `column` changed after `last_run`.
fn changed_in(
    table: &Table,
    column: ComponentId,
    (last_run, this_run): (Tick, Tick),
    found: &mut Vec<Entity>,
) {
    // A table without the column holds entities without the component: nothing to find.
    let Some(ticks) = table.get_changed_ticks_slice_for(column) else {
        return;
    };
    // `Tick::is_newer_than` written out on plain numbers, so that a step's ticks are
    // compared side by side in vector registers.
    let now = this_run.get();
    let since_last_run = now.wrapping_sub(last_run.get()).min(MAX_CHANGE_AGE);
    let newer = |tick: &UnsafeCell<Tick>| {
        // SAFETY: the ticks are read through `&World`, so no system writes them meanwhile.
        let tick = unsafe { *tick.get() }.get();
        since_last_run > now.wrapping_sub(tick).min(MAX_CHANGE_AGE)
    };
    for (ticks, entities) in ticks.chunks(STEP).zip(table.entities().chunks(STEP)) {
        if !ticks.iter().fold(false, |any, tick| any | newer(tick)) {
            continue;
        }
        let changed = ticks.iter().zip(entities).filter(|(tick, _)| newer(tick));
        found.extend(changed.map(|(_, &entity)| entity));
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::entity::EntityHashSet;
    use bevy::ecs::entity_disabling::Disabled;
    use bevy::ecs::schedule::ScheduleLabel;
    use proptest::prelude::*;

    use super::*;

    #[derive(Component)]
    struct Watched;
    #[derive(Component, Default)]
    struct A(u32);
    #[derive(Component, Default)]
    struct B(u32);
    /// Moves an entity to another table.
    #[derive(Component)]
    struct Extra;
    /// Moves an entity to another archetype of the same table.
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    struct Sparse;

    #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    struct Frame;

    /// What each way of asking saw in the last frame.
    #[derive(Resource, Default)]
    struct Seen {
        by_filter: EntityHashSet,
        by_scan: EntityHashSet,
    }

    struct Scan(ChangeScan<Watched>);

    impl FromWorld for Scan {
        fn from_world(world: &mut World) -> Self {
            let columns = vec![column::<A>(world), column::<B>(world)];
            Self(ChangeScan::new(world, columns))
        }
    }

    /// Watched entities whose `A` or `B` changed, as Bevy's filter finds them.
    type WatchedChanged = (With<Watched>, Or<(Changed<A>, Changed<B>)>);

    fn by_filter(changed: Query<Entity, WatchedChanged>, mut seen: ResMut<Seen>) {
        seen.by_filter = changed.iter().collect();
    }

    fn by_scan(world: &mut World, mut scan: Local<Scan>) {
        let found: EntityHashSet = scan
            .0
            .changed_since_last_run(world)
            .iter()
            .copied()
            .collect();
        // The scan may list disabled entities, which a query skips.
        let enabled = found
            .into_iter()
            .filter(|&e| world.get::<Disabled>(e).is_none());
        world.resource_mut::<Seen>().by_scan = enabled.collect();
    }

    #[derive(Clone, Debug)]
    enum Op {
        Spawn {
            watched: bool,
            a: bool,
            b: bool,
            extra: bool,
        },
        ChangeA(usize),
        ChangeB(usize),
        Toggle(usize, u8),
        Despawn(usize),
        Frame,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
                |(watched, a, b, extra)| Op::Spawn {
                    watched,
                    a,
                    b,
                    extra
                }
            ),
            (0..40usize).prop_map(Op::ChangeA),
            (0..40usize).prop_map(Op::ChangeB),
            (0..40usize, 0..6u8).prop_map(|(i, what)| Op::Toggle(i, what)),
            (0..40usize).prop_map(Op::Despawn),
            Just(Op::Frame),
            Just(Op::Frame),
        ]
    }

    /// Inserts the component `what` names if the entity lacks it, else removes it.
    fn toggle(world: &mut World, entity: Entity, what: u8) {
        fn flip<T: Component>(world: &mut World, entity: Entity, value: impl FnOnce() -> T) {
            let mut entity = world.entity_mut(entity);
            if entity.contains::<T>() {
                entity.remove::<T>();
            } else {
                entity.insert(value());
            }
        }
        match what {
            0 => flip(world, entity, A::default),
            1 => flip(world, entity, B::default),
            2 => flip(world, entity, || Watched),
            3 => flip(world, entity, || Extra),
            4 => flip(world, entity, || Sparse),
            _ => flip(world, entity, || Disabled),
        }
    }

    /// Spawns an entity with the components its flags say: `Watched`, `A`, `B`, `Extra`.
    fn spawn(world: &mut World, [watched, a, b, extra]: [bool; 4]) -> Entity {
        let mut entity = world.spawn_empty();
        if watched {
            entity.insert(Watched);
        }
        if a {
            entity.insert(A::default());
        }
        if b {
            entity.insert(B::default());
        }
        if extra {
            entity.insert(Extra);
        }
        entity.id()
    }

    fn apply(world: &mut World, entities: &mut Vec<Entity>, op: Op) {
        let pick = |i: usize| (!entities.is_empty()).then(|| entities[i % entities.len()]);
        match op {
            Op::Spawn {
                watched,
                a,
                b,
                extra,
            } => entities.push(spawn(world, [watched, a, b, extra])),
            Op::ChangeA(i) => {
                if let Some(mut a) = pick(i).and_then(|e| world.get_mut::<A>(e)) {
                    a.0 += 1;
                }
            }
            Op::ChangeB(i) => {
                if let Some(mut b) = pick(i).and_then(|e| world.get_mut::<B>(e)) {
                    b.0 += 1;
                }
            }
            Op::Toggle(i, what) => {
                if let Some(entity) = pick(i) {
                    toggle(world, entity, what);
                }
            }
            Op::Despawn(i) => {
                if let Some(entity) = pick(i) {
                    world.despawn(entity);
                    entities.retain(|&e| e != entity);
                }
            }
            Op::Frame => {
                world.run_schedule(Frame);
                let seen = world.resource::<Seen>();
                assert_eq!(seen.by_scan, seen.by_filter);
            }
        }
    }

    proptest! {
        /// Whatever happens to entities (changes, tables and archetypes changed, disabled,
        /// despawned), the scan finds the entities that Bevy's `Changed` filters find.
        #[test]
        fn the_scan_finds_what_changed_filters_find(ops in prop::collection::vec(op(), 1..120)) {
            let mut world = World::new();
            world.init_resource::<Seen>();
            let mut frame = Schedule::new(Frame);
            frame.add_systems((by_filter, by_scan).chain());
            world.add_schedule(frame);
            let mut entities = Vec::new();
            for op in ops.into_iter().chain([Op::Frame]) {
                apply(&mut world, &mut entities, op);
            }
        }
    }

    /// Bumps every `A`, through the parameters of `scan_then_run`, and keeps what it found.
    fn bump_all(
        world: &mut World,
        mut scan: Local<Scan>,
        state: &mut SystemState<Query<&mut A>>,
        mut found: Local<Vec<usize>>,
    ) {
        scan_then_run(world, &mut scan.0, state, |changed, mut all| {
            found.push(changed.len());
            for mut a in &mut all {
                a.0 += 1;
            }
        });
        world.insert_resource(Counts(found.clone()));
    }

    /// The same, changing `A` through the world itself.
    fn bump_all_directly(world: &mut World, mut scan: Local<Scan>, mut found: Local<Vec<usize>>) {
        found.push(scan.0.changed_since_last_run(world).len());
        for mut a in world.query::<&mut A>().iter_mut(world) {
            a.0 += 1;
        }
        world.insert_resource(Counts(found.clone()));
    }

    #[derive(Resource)]
    struct Counts(Vec<usize>);

    #[test]
    fn a_system_does_not_find_its_own_changes() {
        for through_params in [true, false] {
            let mut world = World::new();
            world.spawn_batch((0..100).map(|_| (Watched, A::default())));
            let mut frame = Schedule::new(Frame);
            if through_params {
                frame.add_systems(bump_all);
            } else {
                frame.add_systems(bump_all_directly);
            }
            world.add_schedule(frame);
            for _ in 0..3 {
                world.run_schedule(Frame);
            }
            world.spawn((Watched, A::default()));
            world.run_schedule(Frame);
            // All are new at first; then only its own changes, then one spawned entity.
            assert_eq!(world.resource::<Counts>().0, vec![100, 0, 0, 1]);
        }
    }
}
