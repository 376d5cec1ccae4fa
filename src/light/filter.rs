//! [`NeedsLight`]: a viewer that sees only what is lit, and the rule that filters its field of
//! view by its map's [`Lighting`] (`filter_by_light`, right after the views are recomputed).

use std::sync::Arc;

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::{Allow, QueryData};
use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::light::lighting::{LightLedger, Lighting};
use crate::opacity::map_opacity::Grid;
use crate::opacity::map_opacity::MapOpacity;
use crate::viewshed::ViewshedUpdated;
use crate::viewshed::state::ViewState;
use crate::viewshed::{ViewKey, Viewshed};
use viewshed_core::bits::{WORD_BITS, for_each_one, words_for};
use viewshed_core::hex::hex_distance;
use viewshed_core::options::Radius;
use viewshed_core::visible::{VisibleSet, Window};

/// Makes a [`Viewshed`] see only what is lit: a floor when a [`LightSource`](crate::LightSource)
/// lights it, a wall when it is lit and next to a lit floor the viewer could see, and anything
/// within [`dark_vision`](Self::dark_vision) tiles.
///
/// The viewer's [`Viewshed`] then holds what it sees in the light, so fog of war, sightings
/// and [`HidesOutsideView`](crate::HidesOutsideView) all follow the light. Give the viewer a
/// long (or unlimited) radius: a torch in a distant room is seen through a doorway, a dark
/// room next to it is not. An entity without a `Viewshed` gets `Viewshed::default()` (radius
/// 8), and a warning says so once. Precisely, a tile of the viewer's field of view `F` is seen when
/// 1. it is within `dark_vision` of the viewer (measured like the viewer's radius: its
///    distance shape on square maps and on the diamond grid of staggered ones, in hexagons on
///    hexagonal maps), or
/// 2. it is a floor (not [`Opaque`](crate::Opaque)) and [lit](Lighting::is_lit), or
/// 3. it is a wall, lit, and one of the 8 tiles around it (in tile positions, on every kind
///    of map) is a lit floor in `F`.
///
/// A view is filtered again when its field of view was recomputed, when `dark_vision`
/// changes, or when a tile of `F` became lit or dark; it then counts as recomputed
/// ([`Viewshed::generation`], [`ViewshedUpdated`]) only if what it sees changed.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// // A thief: sees lit tiles across the map, and two tiles around her in the dark.
/// let thief = (Viewshed::unlimited(), NeedsLight::new(2));
/// # let _ = thief;
/// ```
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default, Debug)]
#[require(Viewshed = crate::viewshed::required_by("NeedsLight"))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct NeedsLight {
    /// How far the viewer sees without light (0: only its own tile).
    pub dark_vision: u32,
    /// The field of view before the light rule, for [`field_of_view`](Self::field_of_view):
    /// shared with the filter's own ([`LightFilter`]), which it goes by.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    field_of_view: Arc<VisibleSet>,
}

/// What the light filter keeps for one viewer that needs light, next to its [`NeedsLight`]:
/// its field of view and what it filtered last. Crate bookkeeping, in a component no game can
/// name, so none clones it, writes over it or drops it by accident (a `NeedsLight` or
/// `Viewshed` cloned, inserted again or replaced in place carries none of it; an entity cloned
/// whole gets a new one). Inserted with `NeedsLight`, removed with it.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct LightFilter {
    /// The field of view `F` before the light rule (shared with `NeedsLight::field_of_view`).
    field_of_view: Arc<VisibleSet>,
    /// The viewshed generation and the view's key (without its opacity version) `F` was
    /// taken at; `None` before the first filtering, or when it must be taken again.
    from: Option<(u64, Option<Source>)>,
    /// The fingerprint of the view the filter left in the viewshed.
    written: Fingerprint,
    /// The lighting version the view was filtered at.
    lit_version: u64,
    /// The dark vision it was filtered with.
    dark_vision: u32,
}

/// What a field of view is computed from, but the opacity version (which moves, without a
/// recomputation, when opacity changes out of its reach).
type Source = (Entity, (u32, u32), viewshed_core::options::FovOptions, Grid);

fn source(key: &ViewKey) -> Source {
    (key.map, key.origin, key.options, key.grid)
}

/// A view's window and a hash of its rows of words: whether the view in a viewshed is still
/// the one the filter left there.
type Fingerprint = (Window, u64);

/// The fingerprint of `view` (worked out from its cells: only for a view the game may have
/// written; the filter's own come with theirs, [`kept`]).
fn fingerprint(view: &VisibleSet) -> Fingerprint {
    (view.window(), hash_words(view.words()))
}

fn hash_words(words: &[u64]) -> u64 {
    words.iter().fold(words.len() as u64, |hash, &word| {
        (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95)
    })
}

impl NeedsLight {
    /// A viewer that needs light, and sees `dark_vision` tiles around it without.
    pub fn new(dark_vision: u32) -> Self {
        Self {
            dark_vision,
            ..default()
        }
    }

    /// The tiles the viewer would see if everything were lit (its field of view before the
    /// light rule), as of its last update.
    pub fn field_of_view(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.field_of_view.iter().map(|(x, y)| TilePos { x, y })
    }
}

/// A viewer that needs light, as the filter visits it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct NeedingLight {
    entity: Entity,
    viewshed: &'static mut Viewshed,
    /// What its field of view was computed from (the views' bookkeeping, read only).
    state: &'static ViewState<Viewshed>,
    needs: &'static mut NeedsLight,
    filter: Option<&'static mut LightFilter>,
}

/// The viewers whose view the light changed, and their maps (per thread).
type Relit = Vec<(Entity, Entity)>;

/// The viewers that got a new light filter (per thread).
type Adopted = Vec<(Entity, LightFilter)>;

/// Filters the views of viewers that need light, and announces those that changed only
/// because the light did.
pub(super) fn filter_by_light(
    mut viewers: Query<NeedingLight>,
    maps: Query<(&MapOpacity, &Lighting, &LightLedger)>,
    (mut relit, mut adopted): (Local<Parallel<Relit>>, Local<Parallel<Adopted>>),
    mut messages: MessageWriter<ViewshedUpdated>,
    mut commands: Commands,
) {
    viewers.par_iter_mut().for_each(|mut viewer| {
        // Touched since the last filtering: by the recompute (a new field of view) or by
        // the game (edited or replaced in place).
        let touched = (viewer.viewshed.is_changed(), viewer.needs.is_changed());
        // A viewer whose `NeedsLight` came before the plugin's observers has no filter
        // yet: it is filtered with a new one, which it keeps.
        let mut new = None;
        let filter = match viewer.filter.as_mut() {
            Some(filter) => filter.bypass_change_detection(),
            None => new.insert(LightFilter::default()),
        };
        let viewer_parts = (
            viewer.viewshed.bypass_change_detection(),
            viewer.state.key().copied(),
            viewer.needs.bypass_change_detection(),
            filter,
        );
        if let Some(map) = filter_view(viewer_parts, touched, &maps) {
            relit.borrow_local_mut().push((viewer.entity, map));
        }
        if let Some(new) = new {
            adopted.borrow_local_mut().push((viewer.entity, new));
        }
    });
    for (viewer, filter) in adopted.drain() {
        commands.entity(viewer).try_insert(filter);
    }
    messages.write_batch(relit.drain().map(|(viewer, map)| ViewshedUpdated {
        viewer,
        map: Some(map),
        previous_map: Some(map),
    }));
}

/// Brings one viewer's view in step with the light, given whether its `Viewshed` and its
/// `NeedsLight` were touched since the last filtering. Returns its map when the view changed
/// though its field of view did not (it must be announced).
fn filter_view(
    (viewshed, key, needs, filter): (
        &mut Viewshed,
        Option<ViewKey>,
        &mut NeedsLight,
        &mut LightFilter,
    ),
    (viewshed_touched, needs_touched): (bool, bool),
    maps: &Query<(&MapOpacity, &Lighting, &LightLedger)>,
) -> Option<Entity> {
    // A new field of view is in the viewshed: recomputed since it was last filtered (a new
    // generation or key), or written over by the game (a viewshed replaced in place, whose
    // generation may have started again at the one filtered last).
    let from = (viewshed.generation(), key.as_ref().map(source));
    let fresh = filter.from != Some(from)
        || (viewshed_touched && fingerprint(viewshed.visible_set()) != filter.written);
    if fresh {
        // Let go of the shared one first, so that its buffer is reused when no clone of the
        // `NeedsLight` holds it.
        needs.field_of_view = Arc::default();
        Arc::make_mut(&mut filter.field_of_view).clone_from(viewshed.visible_set());
        filter.from = Some(from);
    }
    if fresh || needs_touched {
        // Shared again (a `NeedsLight` replaced in place has none).
        needs.field_of_view = Arc::clone(&filter.field_of_view);
    }
    let (written, announce) = relight((viewshed, key), needs.dark_vision, filter, fresh, maps);
    match written {
        Some(print) => filter.written = print,
        // A fresh view the filter left as it was (a viewer that stands nowhere).
        None if fresh => filter.written = fingerprint(viewshed.visible_set()),
        None => {}
    }
    announce
}

/// Filters the field of view `F` of `filter` into the viewshed when it is new, when the dark
/// vision changed or when a tile of `F` became lit or dark. Returns the fingerprint of the view
/// it wrote in the viewshed, if it did, and the map when the view changed though `F` did not.
fn relight(
    (viewshed, key): (&mut Viewshed, Option<ViewKey>),
    dark_vision: u32,
    filter: &mut LightFilter,
    fresh: bool,
    maps: &Query<(&MapOpacity, &Lighting, &LightLedger)>,
) -> (Option<Fingerprint>, Option<Entity>) {
    let Some(key) = key else {
        return (None, None);
    };
    let Ok((opacity, lighting, ledger)) = maps.get(key.map) else {
        return (None, None);
    };
    let fov = &*filter.field_of_view;
    let stale = fresh
        || dark_vision != filter.dark_vision
        || ledger.changed_within(filter.lit_version, |(x, y)| fov.contains(x, y));
    filter.lit_version = lighting.version();
    filter.dark_vision = dark_vision;
    if !stale {
        return (None, None);
    }
    let rule = LightRule {
        fov,
        opacity,
        lighting,
        key,
        dark_vision,
    };
    let (view, print) = rule.seen();
    if fresh {
        viewshed.filter_to(view);
        return (Some(print), None);
    }
    if view == *viewshed.visible_set() {
        return (None, None);
    }
    viewshed.relight(view);
    filter.from = Some((viewshed.generation(), Some(source(&key))));
    (Some(print), Some(key.map))
}

/// The light rule for one viewer (see [`NeedsLight`]).
struct LightRule<'a> {
    /// The viewer's field of view.
    fov: &'a VisibleSet,
    opacity: &'a MapOpacity,
    lighting: &'a Lighting,
    /// Where the viewer stands, and how it measures distance.
    key: ViewKey,
    dark_vision: u32,
}

impl LightRule<'_> {
    /// What the viewer sees of its field of view `F`, over `F`'s window, and its fingerprint:
    /// worked out 64 tiles at a time, row by row of words.
    fn seen(&self) -> (VisibleSet, Fingerprint) {
        let window = self.fov.window();
        let stride = words_for(window.width);
        let (floors, walls) = self.lit_floors_and_walls(window, stride);
        let mut seen = floors.clone();
        if stride > 0 {
            let rows: Vec<&[u64]> = floors.chunks_exact(stride).collect();
            for (i, (seen, &walls)) in seen.iter_mut().zip(&walls).enumerate() {
                if walls != 0 {
                    let (row, word) = (i / stride, i % stride);
                    let around = row.saturating_sub(1)..=(row + 1).min(rows.len() - 1);
                    let near = rows[around]
                        .iter()
                        .fold(0, |near, row| near | spread(row, word));
                    *seen |= walls & near;
                }
            }
        }
        self.add_dark_vision(&mut seen, window, stride);
        let print = (window, hash_words(&seen));
        // The words are shaped for the window, so this cannot fail.
        (
            VisibleSet::from_words(window, seen).unwrap_or_default(),
            print,
        )
    }

    /// Rules 2 and 3's tiles of `F`, as rows of words over its window: the lit floors (not
    /// [`Opaque`](crate::Opaque)) and the lit walls.
    fn lit_floors_and_walls(&self, window: Window, stride: usize) -> (Vec<u64>, Vec<u64>) {
        let fov = self.fov.words();
        let (mut floors, mut walls) = (vec![0; fov.len()], vec![0; fov.len()]);
        let rows = fov.chunks_exact(stride.max(1)).zip(window.y..);
        for (i, (row, y)) in rows.enumerate() {
            for (j, &fov) in row.iter().enumerate() {
                if fov == 0 {
                    continue;
                }
                let x = window.x + (j * WORD_BITS) as u32;
                let lit = fov & self.lighting.lit_bits(y, x);
                if lit != 0 {
                    let opaque = self.opaque_bits(y, x, lit);
                    floors[i * stride + j] = lit & !opaque;
                    walls[i * stride + j] = lit & opaque;
                }
            }
        }
        (floors, walls)
    }

    /// Which of the 64 tiles of row `y` from column `x` are opaque, at least among those of
    /// `wanted`: read from the map's grid, whose cells are its tiles but on a staggered map.
    fn opaque_bits(&self, y: u32, x: u32, wanted: u64) -> u64 {
        match self.key.grid {
            Grid::Square | Grid::Hex(_) => self.opacity.row_bits(y, x),
            Grid::Staggered => {
                let mut opaque = 0;
                for_each_one(wanted, |i| {
                    let tile = TilePos { x: x + i, y };
                    opaque |= u64::from(self.opacity.is_opaque(tile)) << i;
                });
                opaque
            }
        }
    }

    /// Adds rule 1's tiles of `F` to `seen` (rows of words over `window`): those within dark
    /// vision, looked for in the box around the viewer that holds them (`dark_vision` tiles
    /// each way, twice that up and down on a staggered map, whose tiles are diamond cells).
    fn add_dark_vision(&self, seen: &mut [u64], window: Window, stride: usize) {
        if window.width == 0 || window.height == 0 {
            return;
        }
        let reach = self.dark_vision;
        let (across, up) = match self.key.grid {
            Grid::Staggered => (reach, reach.saturating_mul(2)),
            Grid::Square | Grid::Hex(_) => (reach, reach),
        };
        let (x, y) = self.key.origin;
        let last = (
            window.x + (window.width - 1),
            window.y + (window.height - 1),
        );
        let xs = x.saturating_sub(across).max(window.x)..=x.saturating_add(across).min(last.0);
        let ys = y.saturating_sub(up).max(window.y)..=y.saturating_add(up).min(last.1);
        for y in ys {
            for x in xs.clone() {
                if self.fov.contains(x, y) && self.within_dark_vision((x, y)) {
                    let (x, row) = ((x - window.x) as usize, (y - window.y) as usize);
                    seen[row * stride + x / WORD_BITS] |= 1 << (x % WORD_BITS);
                }
            }
        }
    }

    /// Rule 1: within dark vision, measured like the viewer's radius.
    fn within_dark_vision(&self, cell: (u32, u32)) -> bool {
        match self.key.grid {
            Grid::Hex(coords) => {
                hex_distance(coords, self.key.origin, cell) <= u64::from(self.dark_vision)
            }
            Grid::Square | Grid::Staggered => ViewKey {
                options: self
                    .key
                    .options
                    .with_radius(Radius::Limited(self.dark_vision)),
                ..self.key
            }
            .reaches_tile(cell),
        }
    }
}

/// Word `word` of a row of words, spread one tile left and right: the tiles next to (or on)
/// one of the row's, the 3 tiles of a row among the 8 around a tile (in tile positions).
#[inline(always)]
fn spread(row: &[u64], word: usize) -> u64 {
    let bits = row[word];
    let from_left = word
        .checked_sub(1)
        .map_or(0, |left| row[left] >> (WORD_BITS - 1));
    let from_right = row
        .get(word + 1)
        .map_or(0, |right| right << (WORD_BITS - 1));
    bits | bits << 1 | from_left | bits >> 1 | from_right
}

/// Viewers that need light, disabled ones too.
type NeedingLightOrDisabled = (With<NeedsLight>, Allow<Disabled>);

/// A `Viewshed` or a `NeedsLight` (`C`) was inserted on a viewer that needs light (anew,
/// again, or cloned from another viewer): the field of view is computed again at the next
/// update and filtered afresh, with a new [`LightFilter`] (the crate's bookkeeping, which a
/// clone of the entity does not copy).
pub(super) fn on_light_rule_inserted<C: Component>(
    event: On<Insert, C>,
    mut viewers: Query<(&mut ViewState<Viewshed>, &mut Viewshed), NeedingLightOrDisabled>,
    mut commands: Commands,
) {
    if let Ok((mut state, mut viewshed)) = viewers.get_mut(event.entity) {
        state.bypass_change_detection().compute_afresh();
        viewshed.set_changed();
        commands
            .entity(event.entity)
            .try_insert(LightFilter::default());
    }
}

/// `NeedsLight` was removed from a viewer: its field of view is recomputed at the next update,
/// unfiltered, and its [`LightFilter`] goes.
pub(super) fn on_needs_light_removed(
    event: On<Remove, NeedsLight>,
    mut viewers: Query<(&mut ViewState<Viewshed>, &mut Viewshed), Allow<Disabled>>,
    mut commands: Commands,
) {
    if let Ok((mut state, mut viewshed)) = viewers.get_mut(event.entity) {
        state.bypass_change_detection().compute_afresh();
        viewshed.set_changed();
    }
    commands.entity(event.entity).try_remove::<LightFilter>();
}
