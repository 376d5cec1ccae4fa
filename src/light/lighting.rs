//! A map's [`Lighting`]: the sum of its lights' contributions, tile by tile, with the log of
//! which tiles became lit or dark (the same versioned [`ChangeLog`] as opacity), so a viewer
//! that needs light knows whether its view must be filtered again, and the ledger of what
//! each light added, so that exactly that is taken away when it changes or goes out.

use bevy::color::{ColorToComponents, LinearRgba};
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::changes::ChangeLog;
use crate::maps::opacity::MapOpacity;
use crate::maps::placement::Grid;
use crate::staggered;
use crate::viewshed::ViewKey;
use viewshed_core::hex::hex_distance;
use viewshed_core::visible::VisibleSet;

/// Fixed-point scale of the summed light: integers add and take away exactly, so a light
/// that goes out leaves no rounding behind.
const SCALE: f32 = 1024.0;
/// The largest contribution of one light to one channel of one tile (1024 in light units).
const MOST: f32 = (1 << 20) as f32;

/// The light on one map, kept by the plugin on its root tilemap (next to
/// [`MapOpacity`]): for each tile, how many [`LightSource`](crate::LightSource)s light it and the sum of their
/// colours.
///
/// A tile is *lit* when at least one light's lit set holds it, whatever that light's colour
/// or intensity: that is what viewers with [`NeedsLight`](crate::NeedsLight) go by. The
/// colour is for drawing: a light adds `color × intensity × (1 − d / (radius + 1))` at a tile
/// at distance `d` from it (Euclidean on square maps and on the diamond grid of staggered
/// ones, in hexagons on hexagonal maps).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # use bevy_viewshed::Lighting;
/// fn shade(maps: Query<&Lighting>, map: Single<Entity, With<TileStorage>>) {
///     let lighting = maps.get(*map).unwrap();
///     let tile = TilePos { x: 3, y: 4 };
///     let _dim = if lighting.is_lit(tile) { lighting.brightness(tile).min(1.0) } else { 0.0 };
/// }
/// ```
///
/// It is `Reflect` as an opaque value (an inspector shows its `Debug` form); read it through
/// its methods.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
pub struct Lighting {
    width: u32,
    height: u32,
    /// How many lights light each tile, row by row (empty until a light is added).
    counts: Vec<u32>,
    /// The summed colour of each tile, fixed point (see [`SCALE`]).
    sums: Vec<[u64; 3]>,
    /// Which tiles became lit or dark, and when.
    changes: ChangeLog,
    /// What each light (by entity) added, to take exactly that away again. It lives here,
    /// with the sums it was added to, and not in the light's [`LightSource`]: a game may
    /// clone that component, or write a new one over it in place, and neither may copy or
    /// drop what the map holds from the light.
    ///
    /// [`LightSource`]: crate::LightSource
    applied: EntityHashMap<Contribution>,
}

impl Lighting {
    fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            ..default()
        }
    }

    /// The index of a tile, if it is on the map.
    fn index(&self, (x, y): (u32, u32)) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y as usize * self.width as usize + x as usize)
    }

    /// Whether at least one light lights `tile` (tiles off the map are dark).
    pub fn is_lit(&self, tile: TilePos) -> bool {
        self.lights_at(tile) > 0
    }

    /// How many lights light `tile`.
    pub fn lights_at(&self, tile: TilePos) -> u32 {
        self.index((tile.x, tile.y))
            .and_then(|i| self.counts.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// The summed light on `tile`, in linear colour (black when dark). Channels may exceed 1
    /// where lights overlap; clamp or tone-map as the game likes.
    pub fn light_at(&self, tile: TilePos) -> LinearRgba {
        let [red, green, blue] = self
            .index((tile.x, tile.y))
            .and_then(|i| self.sums.get(i))
            .map_or([0.0; 3], |sum| sum.map(|c| c as f32 / SCALE));
        LinearRgba::rgb(red, green, blue)
    }

    /// The brightest channel of [`light_at`](Self::light_at): 0 in the dark, 1 next to a
    /// white light of intensity 1.
    pub fn brightness(&self, tile: TilePos) -> f32 {
        let light = self.light_at(tile);
        light.red.max(light.green).max(light.blue)
    }

    /// The lit tiles, row by row.
    pub fn lit_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        let width = self.width.max(1);
        (0u32..)
            .zip(&self.counts)
            .filter(|(_, count)| **count > 0)
            .map(move |(i, _)| TilePos {
                x: i % width,
                y: i / width,
            })
    }

    /// The version of which tiles are lit: it grows whenever a tile becomes lit or dark.
    pub fn version(&self) -> u64 {
        self.changes.version()
    }

    /// Whether a tile for which `in_reach` holds became lit or dark after version `since`.
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn((u32, u32)) -> bool) -> bool {
        self.changes.changed_within(since, in_reach)
    }

    /// Whether `light` added something to this lighting (and has not taken it away).
    pub(crate) fn holds(&self, light: Entity) -> bool {
        self.applied.contains_key(&light)
    }

    /// Whether what `light` added is exactly `wanted` over the tiles `lit`.
    pub(super) fn holds_exactly(
        &self,
        light: Entity,
        wanted: &Contribution,
        lit: &VisibleSet,
    ) -> bool {
        self.applied
            .get(&light)
            .is_some_and(|applied| applied.same_look(wanted) && applied.lit == *lit)
    }

    /// Clears everything for a map of a new size (what the lights added goes with it; they
    /// are recomputed, as the opacity they were computed from is gone too, and added again).
    fn resize(&mut self, width: u32, height: u32) {
        *self = Self {
            changes: std::mem::take(&mut self.changes),
            ..Self::new(width, height)
        };
        self.changes.reset();
    }

    /// Adds the light `light` over its lit set `lit` with the colour and falloff of
    /// `contribution`, and records in the ledger what was added. What the light added before
    /// must have been taken away ([`take_away`](Self::take_away)).
    pub(crate) fn add(&mut self, light: Entity, mut contribution: Contribution, lit: &VisibleSet) {
        let cells = (self.width as usize) * (self.height as usize);
        if self.counts.len() != cells {
            self.counts = vec![0; cells];
            self.sums = vec![[0; 3]; cells];
        }
        // A light adds at most once (a second add would be taken away only once).
        self.take_away(light);
        contribution.lit.clone_from(lit);
        self.for_each_cell(&contribution, |count, sum, amount| {
            *count += 1;
            add_channels(sum, amount, u64::wrapping_add);
            *count == 1
        });
        self.applied.insert(light, contribution);
    }

    /// Takes away exactly what [`add`](Self::add) added for `light`, if anything; returns
    /// whether it did.
    pub(super) fn take_away(&mut self, light: Entity) -> bool {
        let Some(contribution) = self.applied.remove(&light) else {
            return false;
        };
        self.for_each_cell(&contribution, |count, sum, amount| {
            *count = count.saturating_sub(1);
            add_channels(sum, amount, u64::wrapping_sub);
            *count == 0
        });
        true
    }

    /// Applies `step` to the count, sum and amount of light of each tile `contribution`
    /// lights; `step` says whether the tile became lit or dark.
    fn for_each_cell(
        &mut self,
        contribution: &Contribution,
        mut step: impl FnMut(&mut u32, &mut [u64; 3], [u32; 3]) -> bool,
    ) {
        for cell in contribution.lit.iter() {
            let Some(i) = self.index(cell) else {
                continue;
            };
            if step(
                &mut self.counts[i],
                &mut self.sums[i],
                contribution.amount(cell),
            ) {
                self.changes.note_change(cell);
            }
        }
    }
}

/// `op` (exact wrapping addition or subtraction) on each channel. A channel is 64 bits and
/// each light adds at most 2^20 to it, so the sum of fewer than 2^44 lights on one tile never
/// wraps; and only what the ledger says a light added is taken away, so every subtraction
/// takes away exactly what was added.
fn add_channels(sum: &mut [u64; 3], amount: [u32; 3], op: fn(u64, u64) -> u64) {
    for (channel, amount) in sum.iter_mut().zip(amount) {
        *channel = op(*channel, u64::from(amount));
    }
}

/// What one light added to its map's [`Lighting`] (kept in that lighting's ledger): enough
/// to take exactly that away again.
#[derive(Clone, Debug)]
pub(crate) struct Contribution {
    /// Where, on which map and on which grid the light stood.
    key: ViewKey,
    radius: u32,
    /// Linear red, green and blue times intensity, sanitized.
    base: [f32; 3],
    /// The tiles lit (empty until it is added).
    lit: VisibleSet,
}

impl Contribution {
    /// What a light of this `color` and `intensity`, whose view was computed from `key`,
    /// adds within `radius`; its lit set is copied when it is added. The floats enter the
    /// lighting here, and only here, sanitized ([`sanitize`]).
    pub(crate) fn new(key: ViewKey, radius: u32, (color, intensity): (Color, f32)) -> Self {
        let [red, green, blue, _] = color.to_linear().to_f32_array();
        let intensity = sanitize(intensity);
        Self {
            key,
            radius,
            base: [red, green, blue].map(|c| sanitize(sanitize(c) * intensity)),
            lit: VisibleSet::new(),
        }
    }

    /// The map it lights.
    pub(crate) fn map(&self) -> Entity {
        self.key.map
    }

    /// Whether `other` adds the same amounts at the same tiles, given the same lit set: the
    /// same map, grid, origin, radius and colour (whatever the opacity version).
    fn same_look(&self, other: &Contribution) -> bool {
        let place = |c: &Contribution| (c.key.map, c.key.grid, c.key.origin, c.radius);
        place(self) == place(other) && self.base.map(f32::to_bits) == other.base.map(f32::to_bits)
    }

    /// The fixed-point light it adds at `cell`.
    fn amount(&self, cell: (u32, u32)) -> [u32; 3] {
        let falloff =
            1.0 - distance(self.key.grid, self.key.origin, cell) / (self.radius as f32 + 1.0);
        // `as` saturates: a negative or not-a-number amount is 0.
        self.base
            .map(|c| (c * falloff.max(0.0) * SCALE).round().min(MOST) as u32)
    }
}

/// A colour channel or intensity as the lighting takes it, where a light's floats enter it:
/// not-a-number is 0, below 0 is 0, above the brightest amount a light can add at a tile
/// (1,024, infinity included) is that amount.
fn sanitize(value: f32) -> f32 {
    if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, MOST / SCALE)
    }
}

/// The distance between two tiles on a map's grid.
fn distance(grid: Grid, a: (u32, u32), b: (u32, u32)) -> f32 {
    // The square root of the exact sum of squares (exact in `f64` below 2^26 tiles apart, far
    // beyond any map's radius of light), not `hypot`: the same distance at a fraction of
    // the cost (`hypot` was 15% of the frame in which every light moves).
    let euclid = |(ax, ay): (u32, u32), (bx, by): (u32, u32)| {
        let (dx, dy) = (f64::from(ax) - f64::from(bx), f64::from(ay) - f64::from(by));
        (dx * dx + dy * dy).sqrt() as f32
    };
    match grid {
        Grid::Square => euclid(a, b),
        Grid::Hex(coords) => hex_distance(coords, a, b) as f32,
        Grid::Staggered => euclid(staggered::to_diamond(a), staggered::to_diamond(b)),
    }
}

/// Gives every map with a [`MapOpacity`] a [`Lighting`] of its size, clears it when the map
/// is resized, and takes it from tilemaps that are no longer maps.
pub(super) fn track_lighting(
    mut commands: Commands,
    new_maps: Query<(Entity, &MapOpacity), Without<Lighting>>,
    mut maps: Query<(&MapOpacity, &mut Lighting)>,
    stale: Query<Entity, (With<Lighting>, Without<MapOpacity>)>,
) {
    for (map, opacity) in &new_maps {
        let size = opacity.size();
        commands.entity(map).insert(Lighting::new(size.x, size.y));
    }
    for (opacity, mut lighting) in &mut maps {
        let size = opacity.size();
        if (lighting.width, lighting.height) != (size.x, size.y) {
            lighting.resize(size.x, size.y);
        }
    }
    for map in &stale {
        commands.entity(map).remove::<Lighting>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The square root of the sum of squares gives the same `f32` distance as `hypot` (what
    /// it replaced), near and as far apart as tiles can be.
    #[test]
    fn the_distance_is_what_hypot_gives() {
        let centre = (300, 300);
        for x in 0..=600 {
            for y in 250..=350 {
                let (dx, dy) = (f64::from(x) - 300.0, f64::from(y) - 300.0);
                let hypot = dx.hypot(dy) as f32;
                assert_eq!(distance(Grid::Square, centre, (x, y)), hypot, "{x}, {y}");
            }
        }
        let far = (u32::MAX, 7);
        let hypot = f64::from(u32::MAX).hypot(7.0) as f32;
        assert_eq!(distance(Grid::Square, (0, 0), far), hypot);
    }
}
