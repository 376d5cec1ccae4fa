//! Who sees which [`CanBeSpotted`] entity: [`Spotted`] when a viewer starts seeing one,
//! [`LostSight`] when it stops, each exactly once per change.
//!
//! A change is noticed wherever it comes from: the viewer's view was recomputed (it moved, its
//! radius or cone changed, a door closed in its reach), the target moved onto or off a seen
//! tile or to another map, the target lost its `TilePos` or `TilemapId`, stopped being
//! spottable, was disabled or despawned, the viewer lost its viewshed or was despawned.
//! Targets stand where viewers do: on their `TilePos`, or under their `Transform`.
//!
//! | module | its job |
//! |---|---|
//! | `judge` | which viewers see which targets each frame, from the views that changed and the targets that moved |
//! | `targets` | where each target stood when last judged and where it stands now, filed by bucket: `TargetIndex` |
//! | `viewers` | which viewers may see a tile, from a copy of each view filed by bucket: `ViewerIndex` |
//! | `plugin` | [`SightingsPlugin`]: its system in `ViewshedStepSystems::Sightings`, its observers |

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

mod judge;
mod plugin;
mod targets;
mod viewers;

use crate::viewshed::Viewshed;
use judge::Change;
pub use plugin::SightingsPlugin;
use targets::TargetIndex;
use viewers::ViewerIndex;

/// Opts an entity on the map (a monster, the player, an item) into [`Spotted`] and
/// [`LostSight`] notifications. It stands on its `TilePos` + `TilemapId`, or under its
/// `Transform` on its `TilemapId`, as viewers do.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # fn spawn(mut commands: Commands, map: Entity) {
/// // A guard that sees, and a thief it can spot.
/// commands.spawn((Viewshed::new(6), TilePos { x: 2, y: 2 }, TilemapId(map)));
/// commands.spawn((CanBeSpotted, TilePos { x: 5, y: 2 }, TilemapId(map)));
/// # }
/// // After the plugin's `Notify` step (in `PostUpdate`, `.after(ViewshedStepSystems::Sightings)`):
/// fn alarm(mut spotted: MessageReader<Spotted>) {
///     for sighting in spotted.read() {
///         info!("{} spots {}", sighting.viewer, sighting.target);
///     }
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(crate::placement::placed::Findable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct CanBeSpotted;

/// The [`CanBeSpotted`] entities a viewer sees (itself excluded), as of the last
/// [`ViewshedStepSystems::Sightings`](crate::ViewshedStepSystems::Sightings): every
/// [`Viewshed`] gets one from the [`SightingsPlugin`], which alone writes it (it is changed
/// only in frames where the viewer spots or loses a target). A clone of the entity starts
/// with none: it announces what it sees as its own. One inserted on a viewer (another
/// viewer's, cloned) is judged against the viewer's own view at the next update.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::{SpottedTargets};
/// fn count_threats(guards: Query<(Entity, &SpottedTargets), Changed<SpottedTargets>>) {
///     for (guard, spotted) in &guards {
///         info!("{guard} sees {} targets", spotted.len());
///     }
/// }
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
#[component(clone_behavior = Ignore)]
pub struct SpottedTargets {
    targets: EntityHashSet,
}

impl SpottedTargets {
    /// The targets the viewer sees.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.targets.iter().copied()
    }

    /// Whether the viewer sees `target`.
    pub fn contains(&self, target: Entity) -> bool {
        self.targets.contains(&target)
    }

    /// How many targets the viewer sees.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether the viewer sees no target.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// A viewer started seeing a [`CanBeSpotted`] target.
///
/// Sent three ways: as a buffered message (read it with `MessageReader<Spotted>` after
/// [`ViewshedStepSystems::Sightings`](crate::ViewshedStepSystems::Sightings)), once, with `on` the viewer;
/// and as an entity event on the viewer and then on the target, for observers: a guard
/// watches what it spots, a monster that it was seen.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # let mut world = World::new();
/// # let (guard, thief) = (world.spawn_empty().id(), world.spawn_empty().id());
/// // The guard's observer hears the guard's sightings ...
/// world.entity_mut(guard).observe(|spotted: On<Spotted>| {
///     info!("{} spots {}", spotted.viewer, spotted.target);
/// });
/// // ... the thief's, that it was seen.
/// world.entity_mut(thief).observe(|spotted: On<Spotted>| {
///     info!("{} was seen by {}", spotted.target, spotted.viewer);
/// });
/// ```
///
/// A global observer (`app.add_observer(..)`) hears both triggers: `on` (the event's target)
/// tells them apart.
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spotted {
    /// Who sees.
    pub viewer: Entity,
    /// What it now sees.
    pub target: Entity,
    /// The entity this event is on: the viewer, or, for the second trigger, the target.
    #[event_target]
    pub on: Entity,
}

impl Spotted {
    /// `viewer` started seeing `target`, as the message and the viewer's event say it.
    pub fn new(viewer: Entity, target: Entity) -> Self {
        Self {
            viewer,
            target,
            on: viewer,
        }
    }
}

/// A viewer stopped seeing a [`CanBeSpotted`] target (the target moved away or behind a wall,
/// left the map, the viewer moved or turned, a door closed, or either was despawned). Sent
/// like [`Spotted`].
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// // A monster that forgets the player once it loses sight of it.
/// fn give_up(mut lost: MessageReader<LostSight>) {
///     for sighting in lost.read() {
///         info!("{} lost {}", sighting.viewer, sighting.target);
///     }
/// }
/// ```
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LostSight {
    /// Who saw.
    pub viewer: Entity,
    /// What it no longer sees.
    pub target: Entity,
    /// The entity this event is on: the viewer, or, for the second trigger, the target (a
    /// despawned target hears nothing).
    #[event_target]
    pub on: Entity,
}

impl LostSight {
    /// `viewer` stopped seeing `target`, as the message and the viewer's event say it.
    pub fn new(viewer: Entity, target: Entity) -> Self {
        Self {
            viewer,
            target,
            on: viewer,
        }
    }
}

/// Sends [`Spotted`] and [`LostSight`]: as a message, and as entity events on the viewer and
/// on the target.
#[derive(SystemParam)]
pub(crate) struct Announce<'w, 's> {
    commands: Commands<'w, 's>,
    spotted: MessageWriter<'w, Spotted>,
    lost: MessageWriter<'w, LostSight>,
}

impl Announce<'_, '_> {
    fn send(&mut self, seen: bool, viewer: Entity, target: Entity) {
        self.send_all(vec![(seen, viewer, target)]);
    }

    /// Sends each change as a message, then queues one command that triggers them all.
    fn send_all(&mut self, changes: Vec<Change>) {
        if changes.is_empty() {
            return;
        }
        let (seen, lost): (Vec<_>, Vec<_>) = changes.into_iter().partition(|change| change.0);
        let seen: Vec<[Spotted; 2]> = seen
            .into_iter()
            .map(|(_, viewer, target)| {
                let spotted = Spotted::new(viewer, target);
                [
                    spotted,
                    Spotted {
                        on: target,
                        ..spotted
                    },
                ]
            })
            .collect();
        let lost: Vec<[LostSight; 2]> = lost
            .into_iter()
            .map(|(_, viewer, target)| {
                let lost = LostSight::new(viewer, target);
                [lost, LostSight { on: target, ..lost }]
            })
            .collect();
        self.spotted.write_batch(seen.iter().map(|both| both[0]));
        self.lost.write_batch(lost.iter().map(|both| both[0]));
        self.commands.queue(move |world: &mut World| {
            trigger_where_heard(world, seen);
            trigger_where_heard(world, lost);
        });
    }
}

/// Triggers each sighting on its viewer and then on its target, each only if an observer can hear it: a global one, or one watching that entity.
/// A game without sighting observers pays for no trigger (each costs a few hundred
/// instructions, and a crowded scene has thousands of sightings a frame).
fn trigger_where_heard<E>(world: &mut World, sightings: Vec<[E; 2]>)
where
    E: EntityEvent + Copy,
    for<'a> E::Trigger<'a>: Default,
{
    let Some(key) = world.event_key::<E>() else {
        return;
    };
    // Looked up for each trigger: an observer may add or remove observers.
    let heard = |world: &World, entity: Entity| {
        world
            .observers()
            .try_get_observers(key)
            .is_some_and(|observers| {
                !observers.global_observers().is_empty()
                    || observers.entity_observers().contains_key(&entity)
            })
    };
    for event in sightings.into_iter().flatten() {
        if heard(world, event.event_target()) {
            world.trigger(event);
        }
    }
}

/// A target stopped standing anywhere: `CanBeSpotted`, `TilePos` or `TilemapId` was removed, or
/// it was disabled or despawned (`C` is the component of the lifecycle event `E`). Every
/// viewer that saw it loses it now.
pub(crate) fn on_target_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    targets: Query<(), (With<CanBeSpotted>, Allow<Disabled>)>,
    mut viewers: Query<(Entity, &mut SpottedTargets)>,
    mut index: ResMut<SightingsIndex>,
    mut announce: Announce,
) {
    let target = event.event_target();
    if !targets.contains(target) {
        return;
    }
    // The viewers that saw it: those whose view as last judged holds where it was last judged
    // (and those given another viewer's set, which may hold anything).
    let index = &mut *index;
    let mut saw = index.again.clone();
    if let Some((map, tile)) = index.targets.remove(target) {
        index
            .viewers
            .for_each_seeing(map, tile, |viewer| saw.push(viewer));
    }
    for viewer in saw {
        if let Ok((viewer, mut spotted)) = viewers.get_mut(viewer)
            && spotted.contains(target)
        {
            spotted.targets.remove(&target);
            announce.send(false, viewer, target);
        }
    }
}

/// A viewer lost its viewshed, was disabled or despawned: it no longer sees what it saw.
pub(crate) fn on_viewer_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    mut viewers: Query<&mut SpottedTargets, Allow<Disabled>>,
    mut index: ResMut<SightingsIndex>,
    mut announce: Announce,
) {
    let viewer = event.event_target();
    index.viewers.file(viewer, None);
    let Ok(mut spotted) = viewers.get_mut(viewer) else {
        return;
    };
    for target in std::mem::take(&mut spotted.targets) {
        announce.send(false, viewer, target);
    }
}

/// The sightings' own record: the views and the targets as last judged, and the viewers to
/// judge whole at the next step.
#[derive(Resource, Default)]
pub(crate) struct SightingsIndex {
    viewers: ViewerIndex,
    targets: TargetIndex,
    /// Viewers that were given a [`SpottedTargets`] (another viewer's, cloned) while they had
    /// a view: judged anew at the next sightings step, whether or not their view changed.
    again: Vec<Entity>,
}

/// A `SpottedTargets` was inserted on a viewer that has a view (not the one a new viewer gets
/// with its `Viewshed`, judged with its first view anyway): its targets are judged again.
pub(crate) fn on_spotted_inserted(
    event: On<Insert, SpottedTargets>,
    viewers: Query<&Viewshed>,
    mut index: ResMut<SightingsIndex>,
) {
    if viewers
        .get(event.entity)
        .is_ok_and(|view| view.map().is_some())
    {
        index.again.push(event.entity);
    }
}

/// A viewer's `Viewshed` is about to be replaced or removed (discarded): what it spotted stays
/// in its [`SpottedTargets`], judged whole against its next view at the next update (the view
/// filed in the viewer index stays until then; a removed one leaves it with the viewer).
pub(crate) fn on_viewshed_replaced(
    event: On<Discard, Viewshed>,
    mut index: ResMut<SightingsIndex>,
) {
    index.again.push(event.entity);
}
