//! A map's [`Lighting`]: the sum of its lights' contributions, tile by tile; and beside it the
//! light's own bookkeeping ([`LightLedger`]): the log of which tiles became lit or dark (the
//! same versioned [`ChangeLog`] as opacity), so a viewer that needs light knows whether its
//! view must be filtered again, and the ledger of what each light added, so that exactly that
//! is taken away when it changes or goes out.

use bevy::color::{ColorToComponents, LinearRgba};
use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::opacity::map_opacity::Grid;
use crate::opacity::map_opacity::MapOpacity;
use crate::viewshed::ViewKey;
use viewshed_core::bits::{WORD_BITS, low_bits, words_for};
use viewshed_core::changes::ChangeLog;
use viewshed_core::hex::hex_distance;
use viewshed_core::staggered;
use viewshed_core::visible::{VisibleSet, Window};

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
/// its methods. One a game inserts (another map's, cloned or reflected, or a scene's) is made
/// anew from the map's own lights at the next update; one written in place is not.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct Lighting {
    /// The map's tiles (map coordinates): tile `(area.x + x, area.y + y)` is index
    /// `y * width + x` below.
    pub(super) area: Window,
    width: u32,
    height: u32,
    /// How many lights light each tile, row by row (empty until a light is added).
    counts: Vec<u32>,
    /// The summed colour of each tile, fixed point (see [`SCALE`]).
    sums: Vec<[u64; 3]>,
    /// Which tiles are lit (count above 0), row by row of `words_for(width)` words, and one
    /// clear word after the last row ([`lit_bits`](Self::lit_bits) reads word pairs): what
    /// the light filter reads 64 tiles at a time.
    lit: Vec<u64>,
    /// The version of which tiles are lit (the ledger's log's).
    version: u64,
}

impl Lighting {
    pub(super) fn new(area: Window) -> Self {
        Self {
            area,
            width: area.width,
            height: area.height,
            ..default()
        }
    }

    /// The index of a tile, if it is on the map.
    fn index(&self, (x, y): (u32, u32)) -> Option<usize> {
        self.area.contains(x, y).then(|| {
            let (x, y) = (x - self.area.x, y - self.area.y);
            y as usize * self.width as usize + x as usize
        })
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

    /// Up to 64 tiles of row `y` from column `x` (map coordinates), as bits (bit `i` is tile
    /// `(x + i, y)`, set when lit); tiles off the map are dark.
    #[inline]
    pub(super) fn lit_bits(&self, y: u32, x: u32) -> u64 {
        let area = self.area;
        if !(area.y..area.y.saturating_add(area.height)).contains(&y) {
            return 0;
        }
        match x.checked_sub(area.x) {
            Some(x) => self.local_lit_bits(y - area.y, x),
            // The run starts left of the map: its first tiles are off it.
            None if area.x - x < u64::BITS => self.local_lit_bits(y - area.y, 0) << (area.x - x),
            None => 0,
        }
    }

    /// [`lit_bits`](Self::lit_bits) in the lighting's own rows and columns.
    #[inline]
    fn local_lit_bits(&self, y: u32, x: u32) -> u64 {
        if x >= self.width || y >= self.height || self.lit.is_empty() {
            return 0;
        }
        let word = y as usize * words_for(self.width) + x as usize / WORD_BITS;
        let shift = x % u64::BITS;
        // The clear word after the last row makes the pair always there; the high word
        // shifted in two steps contributes nothing when `shift` is 0.
        let pair = &self.lit[word..word + 2];
        let bits = (pair[0] >> shift) | (pair[1] << 1 << (u64::BITS - 1 - shift));
        bits & low_bits(self.width - x)
    }

    /// The lit tiles, row by row.
    pub fn lit_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        let (width, area) = (self.width.max(1), self.area);
        (0u32..)
            .zip(&self.counts)
            .filter(|(_, count)| **count > 0)
            .map(move |(i, _)| TilePos {
                x: area.x + i % width,
                y: area.y + i / width,
            })
    }

    /// The version of which tiles are lit: it grows whenever a tile becomes lit or dark.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The map's tiles it covers.
    pub(super) fn area(&self) -> Window {
        self.area
    }

    /// Takes away the contributions `taken` and adds those of `added`. Many tiles are shared
    /// out among the threads by bands of rows, each thread going through every contribution;
    /// returns the tiles (of the area's own coordinates) that ended up lit or dark, not those
    /// that only flickered between the two.
    fn add_up(
        &mut self,
        taken: &[Contribution],
        added: &[(Entity, Contribution)],
    ) -> Vec<(u32, u32)> {
        let cells = (self.width as usize) * (self.height as usize);
        if self.counts.len() != cells {
            self.counts = vec![0; cells];
            self.sums = vec![[0; 3]; cells];
            self.lit = vec![0; words_for(self.width) * self.height as usize + 1];
        }
        if cells == 0 {
            // Nothing to light on a map without tiles.
            return Vec::new();
        }
        let adds: Vec<&Contribution> = added.iter().map(|(_, c)| c).collect();
        let work: usize = taken
            .iter()
            .chain(adds.iter().copied())
            .map(Contribution::cells)
            .sum();
        let pool = ComputeTaskPool::try_get().filter(|pool| pool.thread_num() > 1);
        match pool {
            Some(pool) if work >= CELLS_IN_PARALLEL => {
                let bands = self.bands(2 * pool.thread_num());
                let adds = &adds;
                pool.scope(|scope| {
                    for mut band in bands {
                        scope.spawn(async move { band.apply(taken, adds) });
                    }
                })
                .concat()
            }
            _ => self
                .bands(1)
                .flat_map(|mut band| band.apply(taken, &adds))
                .collect(),
        }
    }

    /// The map's counts, sums and lit bits cut into `parts` bands of rows.
    fn bands(&mut self, parts: usize) -> impl Iterator<Item = Band<'_>> {
        let (width, stride) = (self.width as usize, words_for(self.width));
        let rows = (self.height as usize).div_ceil(parts).max(1);
        let words = stride * self.height as usize;
        self.counts
            .chunks_mut(rows * width)
            .zip(self.sums.chunks_mut(rows * width))
            .zip(self.lit[..words].chunks_mut((rows * stride).max(1)))
            .enumerate()
            .map(move |(i, ((counts, sums), lit))| Band {
                first: (i * rows) as u32,
                width,
                stride,
                counts,
                sums,
                lit,
            })
    }
}

/// What the light domain keeps beside a map's [`Lighting`]: which tiles became lit or dark,
/// and when, and what each light (by entity) added, to take exactly that away again. A
/// component of its own, no game's: a `Lighting` or a `LightSource` a game clones, or writes
/// over in place, copies or drops nothing of what the map holds from its lights.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct LightLedger {
    changes: ChangeLog,
    applied: EntityHashMap<Contribution>,
}

impl LightLedger {
    /// Whether `light` added something to this map's lighting (and has not taken it away).
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

    /// Whether a tile for which `in_reach` holds became lit or dark after version `since`.
    pub(crate) fn changed_within(&self, since: u64, in_reach: impl Fn((u32, u32)) -> bool) -> bool {
        // The light's changes are single tiles.
        let in_reach = |area: Window| area.cells().any(&in_reach);
        self.changes.changed_within(since, in_reach)
    }
}

/// A map's light as the light domain changes it: its [`Lighting`] and its [`LightLedger`].
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct LitMap {
    pub(super) entity: Entity,
    pub(super) lighting: &'static mut Lighting,
    pub(super) ledger: &'static mut LightLedger,
}

impl LitMapItem<'_, '_> {
    /// Lays the lighting out anew over `area` (a map resized, a world whose chunks came or
    /// went, a `Lighting` a game inserted): every light's contribution in the ledger is added
    /// again where it falls in the new area, and every tile counts as changed.
    pub(super) fn lay_out(&mut self, area: Window) {
        let applied = std::mem::take(&mut self.ledger.applied);
        *self.lighting = Lighting::new(area);
        self.ledger.changes.reset();
        let again = applied.into_iter().map(|(light, contribution)| {
            let lit = contribution.lit.clone();
            (light, contribution.over(&lit, area))
        });
        self.apply(&[], again.collect());
    }

    /// Takes `light` out of the ledger, without taking its light away from the tiles: the
    /// caller hands what it returns to [`apply`](Self::apply) as taken away.
    pub(super) fn unledger(&mut self, light: Entity) -> Option<Contribution> {
        self.ledger.applied.remove(&light)
    }

    /// Takes away exactly what was added for `light`, if anything; returns whether it did.
    pub(super) fn take_away(&mut self, light: Entity) -> bool {
        let Some(contribution) = self.unledger(light) else {
            return false;
        };
        self.apply(&[contribution], Vec::new());
        true
    }

    /// Takes away the contributions `taken` (out of the ledger already,
    /// [`unledger`](Self::unledger)) and adds each light's contribution of `added` (each
    /// [`over`](Contribution::over) its lit set, its light out of the ledger), which the
    /// ledger then holds; the tiles that end up lit or dark go in the change log.
    pub(super) fn apply(&mut self, taken: &[Contribution], added: Vec<(Entity, Contribution)>) {
        let flipped = self.lighting.add_up(taken, &added);
        let area = self.lighting.area;
        for (x, y) in flipped {
            self.ledger.changes.note_change((area.x + x, area.y + y));
        }
        self.lighting.version = self.ledger.changes.version();
        self.ledger.applied.extend(added);
    }
}

/// The most offsets (a quadrant of a light's radius, `(radius + 1)²`) whose amounts
/// [`Contribution::over`] remembers; a larger light works each tile's out anew.
const OFFSETS_REMEMBERED: usize = 4096;

/// How many tiles' worth of contributions [`Lighting::apply`] shares out among the threads
/// (fewer are added on one: the tasks would cost more than they save).
const CELLS_IN_PARALLEL: usize = 4096;

/// Rows `first..` of a [`Lighting`]'s tiles, for one thread of [`Lighting::apply`].
struct Band<'a> {
    first: u32,
    width: usize,
    stride: usize,
    counts: &'a mut [u32],
    sums: &'a mut [[u64; 3]],
    lit: &'a mut [u64],
}

impl Band<'_> {
    /// Takes away `taken` and adds `added` over the band's rows; returns the tiles that became
    /// lit or dark.
    fn apply(&mut self, taken: &[Contribution], added: &[&Contribution]) -> Vec<(u32, u32)> {
        let mut touched = Vec::new();
        for contribution in taken {
            self.for_each_cell(contribution, &mut touched, |count, sum, amount| {
                *count = count.saturating_sub(1);
                add_channels(sum, amount, u64::wrapping_sub);
                *count == 0
            });
        }
        for contribution in added {
            self.for_each_cell(contribution, &mut touched, |count, sum, amount| {
                *count += 1;
                add_channels(sum, amount, u64::wrapping_add);
                *count == 1
            });
        }
        // A tile that went dark and lit again (or the other way) is no change.
        let first = self.first as usize * self.width;
        touched
            .into_iter()
            .filter_map(|i| {
                let y = i / self.width;
                let (x, row) = (i - y * self.width, y - self.first as usize);
                let lit = self.counts[i - first] > 0;
                let word = &mut self.lit[row * self.stride + x / WORD_BITS];
                let bit = 1 << (x % WORD_BITS);
                let flipped = (*word & bit != 0) != lit;
                *word ^= if flipped { bit } else { 0 };
                flipped.then_some((x as u32, y as u32))
            })
            .collect()
    }

    /// Applies `step` to the count, sum and amount of light of each tile of the band that
    /// `contribution` lights, noting in `touched` (by index) those for which it says they
    /// became lit or dark.
    #[inline(always)]
    fn for_each_cell(
        &mut self,
        contribution: &Contribution,
        touched: &mut Vec<usize>,
        mut step: impl FnMut(&mut u32, &mut [u64; 3], [u32; 3]) -> bool,
    ) {
        let rows = (self.counts.len() / self.width) as u32;
        let window = contribution.lit.window();
        let top = contribution.first_row;
        // Most lights are in another band: told by their window, without reading their tiles.
        if top >= self.first + rows || top.saturating_add(window.height) <= self.first {
            return;
        }
        // The tiles are in the order of their index: those of the band are one run of them
        // (all of them, for most lights).
        let first = self.first as usize * self.width;
        let end = first + self.counts.len();
        let mut amounts = &contribution.amounts[..];
        if top < self.first || top.saturating_add(window.height) > self.first + rows {
            let start = amounts.partition_point(|&(i, _)| i < first);
            let stop = start + amounts[start..].partition_point(|&(i, _)| i < end);
            amounts = &amounts[start..stop];
        }
        for &(i, amount) in amounts {
            if step(
                &mut self.counts[i - first],
                &mut self.sums[i - first],
                amount,
            ) {
                touched.push(i);
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
pub(super) struct Contribution {
    /// Where, on which map and on which grid the light stood.
    key: ViewKey,
    radius: u32,
    /// Linear red, green and blue times intensity, sanitized.
    base: [f32; 3],
    /// The tiles lit (empty until it is added).
    lit: VisibleSet,
    /// The index on the map of each tile of `lit` (row by row, those on the map), with what
    /// it adds there: worked out once, when it is made ready to add ([`over`](Self::over)),
    /// and taken away as it was added (a map resized works them out again).
    amounts: Vec<(usize, [u32; 3])>,
    /// The map's row (counted from its area's first) of `lit`'s first row.
    first_row: u32,
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
            amounts: Vec::new(),
            first_row: 0,
        }
    }

    /// The same contribution over the tiles `lit`, with what it adds at each tile on a map
    /// whose tiles are `area`: ready to be added there ([`Lighting::apply`]).
    pub(crate) fn over(mut self, lit: &VisibleSet, area: Window) -> Self {
        self.lit.clone_from(lit);
        let on_map = lit.iter().filter(|&(x, y)| area.contains(x, y));
        let width = area.width as usize;
        let index = |(x, y): (u32, u32)| (y - area.y) as usize * width + (x - area.x) as usize;
        self.first_row = lit.window().y.saturating_sub(area.y);
        // What a light adds at a tile depends on the tile's offset from it alone (but on a
        // hexagonal map): worked out once per offset, in a table of one quadrant of offsets.
        let side = (self.radius as usize).saturating_add(1);
        let quadrant = side.checked_mul(side).filter(|&n| n <= OFFSETS_REMEMBERED);
        let mut seen: Vec<Option<[u32; 3]>> = match (self.key.grid, quadrant) {
            (Grid::Square | Grid::Staggered, Some(offsets)) => vec![None; offsets],
            _ => Vec::new(),
        };
        let mut amounts = Vec::with_capacity(lit.count());
        for cell in on_map {
            let remembered = self
                .offset(cell)
                .filter(|&(dx, dy)| dx < side && dy < side)
                .and_then(|(dx, dy)| seen.get_mut(dy * side + dx));
            let amount = match remembered {
                Some(amount) => *amount.get_or_insert_with(|| self.amount(cell)),
                None => self.amount(cell),
            };
            amounts.push((index(cell), amount));
        }
        self.amounts = amounts;
        self
    }

    /// The offset of `cell` from the light, in absolute values on the grid its distance is
    /// measured on, on a square or staggered map (on a hexagonal map the distance depends on
    /// more than that).
    fn offset(&self, cell: (u32, u32)) -> Option<(usize, usize)> {
        let (light, cell) = match self.key.grid {
            Grid::Square => (self.key.origin, cell),
            Grid::Staggered => (
                staggered::to_diamond(self.key.origin),
                staggered::to_diamond(cell),
            ),
            Grid::Hex(_) => return None,
        };
        Some((
            light.0.abs_diff(cell.0) as usize,
            light.1.abs_diff(cell.1) as usize,
        ))
    }

    /// How many tiles it lights.
    fn cells(&self) -> usize {
        self.amounts.len()
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
        // `max` makes a not-a-number falloff 0, so each amount is in 0..=2^20.
        self.base
            .map(|c| round_half_up(c * falloff.max(0.0) * SCALE).min(MOST as u32))
    }
}

/// `value.round() as u32` for a `value` from 0 to 2^20 (halves away from 0), without the
/// call `f32::round` makes on CPUs without SSE4.1: `value + 0.5` is exact in `f64`, and
/// `as` truncates. (`f32::round` and the clamps around it were half of an amount's
/// instructions.)
#[inline(always)]
fn round_half_up(value: f32) -> u32 {
    (f64::from(value) + 0.5) as u32
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

/// The [`Lighting`]s inserted on maps: those `track_lighting` gives new maps, and those
/// someone else inserted (a game's copy of another map's, a reflected one, a scene's), whose
/// sums are another map's lights: they are made anew from the map's own lights.
#[derive(Resource, Default)]
pub(super) struct LightingInserts {
    own: EntityHashSet,
    replaced: Vec<Entity>,
}

impl LightingInserts {
    /// The maps given a `Lighting` by someone else since the last call.
    pub(super) fn take_replaced(&mut self) -> Vec<Entity> {
        std::mem::take(&mut self.replaced)
    }

    /// Whether some map was given a `Lighting` by someone else.
    pub(super) fn any_replaced(inserts: Res<Self>) -> bool {
        !inserts.replaced.is_empty()
    }
}

/// A `Lighting` was inserted on a map: unless `track_lighting` gave it, it is made anew.
pub(super) fn on_lighting_inserted(
    event: On<Insert, Lighting>,
    mut inserts: ResMut<LightingInserts>,
) {
    if !inserts.own.remove(&event.entity) {
        inserts.replaced.push(event.entity);
    }
}

/// Gives every map with a [`MapOpacity`] a [`Lighting`] of its size, lays it out anew when
/// the map is resized, and takes it (and its ledger) from tilemaps that are no longer maps.
pub(super) fn track_lighting(
    mut commands: Commands,
    new_maps: Query<(Entity, &MapOpacity), Without<Lighting>>,
    mut maps: Query<(&MapOpacity, LitMap)>,
    stale: Query<Entity, (With<Lighting>, Without<MapOpacity>)>,
    mut inserts: ResMut<LightingInserts>,
) {
    for (map, opacity) in &new_maps {
        inserts.own.insert(map);
        commands.entity(map).insert(Lighting::new(opacity.area()));
    }
    for (opacity, mut lit) in &mut maps {
        if lit.lighting.area != opacity.area() {
            lit.lay_out(opacity.area());
        }
    }
    for map in &stale {
        commands.entity(map).remove::<(Lighting, LightLedger)>();
    }
}

/// Lays out anew the [`Lighting`] of each map a game gave one (another map's copy): its sums
/// are made again from the map's own lights, which its ledger holds.
pub(super) fn rebuild_replaced_lighting(
    mut maps: Query<LitMap>,
    mut inserts: ResMut<LightingInserts>,
) {
    for map in inserts.take_replaced() {
        if let Ok(mut lit) = maps.get_mut(map) {
            let area = lit.lighting.area;
            lit.lay_out(area);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounding by adding a half gives what `f32::round` gives, halves included, over the
    /// amounts a light adds (0 to 2^20).
    #[test]
    fn rounding_up_from_a_half_is_round() {
        let mut value = 0.0f32;
        while value <= MOST {
            for v in [
                value,
                value + 0.5,
                (value + 0.5).next_down(),
                (value + 0.5).next_up(),
            ] {
                assert_eq!(round_half_up(v), v.round() as u32, "{v}");
            }
            value = if value < 64.0 {
                value + 1.0 / 64.0
            } else {
                value + 1.0
            };
        }
        for bits in (0..0x4980_0000u32).step_by(997) {
            let v = f32::from_bits(bits);
            assert_eq!(round_half_up(v), v.round() as u32, "{v}");
        }
    }

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
