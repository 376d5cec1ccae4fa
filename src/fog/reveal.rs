//! Temporary reveals: [`Reveal`], an area its team sees for a while (a scan, a flare, a ward),
//! with or without walls in the way, counted down with the app's time and despawned when it
//! runs out.

use std::time::Duration;

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::{FogDirty, RevealsFog};
use crate::viewshed::Viewshed;
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// Lights an area for its [`Team`](crate::Team) (team 0 without one) while `lifetime` lasts:
/// every tile its [`Viewshed`] sees from its `TilePos` (walls cast shadows), or, built with
/// [`through_walls`](Self::through_walls), every tile within `radius` of it (distance
/// `sqrt(dx² + dy²)` at most `radius`). It counts for the team's fog like a
/// [`RevealsFog`] viewer, and so for everything that reads the team's fog.
///
/// `lifetime` is the time left. It runs down with the app's `Time` from the update after the
/// one it was inserted in; the update in which it reaches zero no longer counts it, and the
/// plugin despawns the entity.
///
/// ```
/// # use std::time::Duration;
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::{Reveal, Team};
/// fn scan(mut commands: Commands, map: Entity) {
///     commands.spawn((
///         Reveal::new(6, Duration::from_secs(3)).through_walls(),
///         Team(0),
///         TilePos::new(20, 20),
///         TilemapId(map),
///     ));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[require(RevealsFog, Viewshed = Viewshed::new(0))]
#[component(on_insert = fit_view)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Reveal {
    /// How far it reveals, in tiles.
    pub radius: u32,
    /// Whether walls and `Opaque` entities are ignored.
    pub through_walls: bool,
    /// The time left.
    pub lifetime: Duration,
}

impl Reveal {
    /// Reveals what a `Viewshed::new(radius)` on its tile sees, for `lifetime`.
    pub fn new(radius: u32, lifetime: Duration) -> Self {
        Self {
            radius,
            through_walls: false,
            lifetime,
        }
    }

    /// Reveals every tile within its radius, walls or not.
    pub fn through_walls(mut self) -> Self {
        self.through_walls = true;
        self
    }

    /// Adds its area, seen from `tile`, to `rows` (the tiles of `area`): the tiles within its
    /// radius.
    pub(super) fn or_disc_into(&self, rows: &mut BitRows, area: Window, tile: (u32, u32)) {
        let r = i64::from(self.radius);
        let (cx, cy) = (i64::from(tile.0), i64::from(tile.1));
        let (left, right) = (i64::from(area.x), i64::from(area.x) + i64::from(area.width));
        let (top, bottom) = (
            i64::from(area.y),
            i64::from(area.y) + i64::from(area.height),
        );
        for dy in -r..=r {
            let y = cy + dy;
            if y < top || y >= bottom {
                continue;
            }
            let half = (r * r - dy * dy).isqrt();
            let (from, to) = ((cx - half).max(left), (cx + half + 1).min(right));
            if from < to {
                let (row, bit) = ((y - top) as u32, (from - left) as u32);
                rows.fill_span(row, bit, (to - from) as u32, true);
            }
        }
    }
}

/// Marks a [`Reveal`] spawned as a child without a `TilePos` of its own: it stands on its
/// parent's tile and follows it.
#[derive(Component)]
pub(super) struct OnParent;

/// Gives a reveal its view's radius, and a child reveal without a tile its parent's place.
fn fit_view(mut world: DeferredWorld, context: HookContext) {
    let entity = context.entity;
    if world.get::<TilePos>(entity).is_none() && world.get::<ChildOf>(entity).is_some() {
        world.commands().entity(entity).insert(OnParent);
    }
    let Some(radius) = world.get::<Reveal>(entity).map(|r| r.radius) else {
        return;
    };
    if let Some(mut view) = world.get_mut::<Viewshed>(entity)
        && view.radius() != radius.into()
    {
        view.set_radius(radius);
    }
}

/// Runs the reveals' time down and despawns those that ran out (their maps' team views are
/// gathered again without them).
pub(super) fn expire_reveals(
    time: Option<Res<Time>>,
    mut reveals: Query<(Entity, &mut Reveal, &Viewshed)>,
    mut dirty: ResMut<FogDirty>,
    mut commands: Commands,
) {
    let delta = time.map_or(Duration::ZERO, |time| time.delta());
    for (entity, mut reveal, view) in &mut reveals {
        let delta = if reveal.is_added() {
            Duration::ZERO
        } else {
            delta
        };
        let lifetime = reveal.lifetime.saturating_sub(delta);
        if lifetime.is_zero() {
            if let Some(map) = view.map() {
                dirty.mark(map);
            }
            commands.entity(entity).despawn();
        } else {
            reveal.bypass_change_detection().lifetime = lifetime;
        }
    }
}

/// A child reveal: its parent, and its own place once it has one.
type ChildReveal = (
    Entity,
    &'static ChildOf,
    Option<&'static mut TilePos>,
    Option<&'static mut TilemapId>,
);

/// Each child reveal without a tile of its own stands where its parent stands now (the
/// parent's `TilePos` and `TilemapId`), before the entities are placed.
pub(super) fn follow_parents(
    mut reveals: Query<ChildReveal, With<OnParent>>,
    parents: Query<(&TilePos, &TilemapId), Without<OnParent>>,
    mut commands: Commands,
) {
    for (entity, child_of, tile, map) in &mut reveals {
        let Ok((&to_tile, &to_map)) = parents.get(child_of.parent()) else {
            continue;
        };
        match (tile, map) {
            (Some(mut tile), Some(mut map)) => {
                tile.set_if_neq(to_tile);
                map.set_if_neq(to_map);
            }
            _ => {
                commands.entity(entity).insert((to_tile, to_map));
            }
        }
    }
}
