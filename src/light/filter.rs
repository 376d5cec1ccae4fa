//! [`NeedsLight`]: a viewer that sees only what is lit, and the rule that filters its field of
//! view by its map's [`Lighting`] (`filter_by_light`, right after the views are recomputed).

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::bits::{WORD_BITS, words_for};
use crate::fog::{FogDirty, RevealsFog};
use crate::hex::hex_distance;
use crate::light::lighting::Lighting;
use crate::opacity::MapOpacity;
use crate::options::Radius;
use crate::placement::Grid;
use crate::viewshed::recompute::ViewshedUpdated;
use crate::viewshed::{ViewKey, Viewshed};
use crate::visible::VisibleSet;

/// Makes a [`Viewshed`] see only what is lit: a floor when a [`LightSource`](crate::LightSource)
/// lights it, a wall when it is lit and next to a lit floor the viewer could see, and anything
/// within [`dark_vision`](Self::dark_vision) tiles.
///
/// The viewer's [`Viewshed`] then holds what it sees in the light, so fog of war, sightings
/// and [`HideOutsideView`](crate::HideOutsideView) all follow the light. Give the viewer a
/// long (or unlimited) radius: a torch in a distant room is seen through a doorway, a dark
/// room next to it is not. Precisely, a tile of the viewer's field of view `F` is seen when
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
#[require(Viewshed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NeedsLight {
    /// How far the viewer sees without light (0: only its own tile).
    pub dark_vision: u32,
    /// The field of view before the light rule.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    field_of_view: VisibleSet,
    /// The viewshed generation the current view was filtered for.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    filtered: Option<u64>,
    /// The lighting version the view was filtered at.
    #[cfg_attr(feature = "serde", serde(skip))]
    lit_version: u64,
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

/// Filters the views of viewers that need light, and announces those that changed only
/// because the light did.
pub(crate) fn filter_by_light(
    mut viewers: Query<(Entity, &mut Viewshed, &mut NeedsLight, Has<RevealsFog>)>,
    maps: Query<(&MapOpacity, &Lighting)>,
    mut relit: Local<Parallel<Vec<(Entity, bool, Entity)>>>,
    mut messages: MessageWriter<ViewshedUpdated>,
    mut fog_dirty: ResMut<FogDirty>,
) {
    // A fresh view is filtered here without being marked (the recompute marked it): the
    // team views the recompute gathered before this filter do not hold.
    fog_dirty.set_gathered(false);
    viewers
        .par_iter_mut()
        .for_each(|(viewer, mut viewshed, mut needs, reveals)| {
            let changed = needs.is_changed();
            let needs = needs.bypass_change_detection();
            let viewshed = viewshed.bypass_change_detection();
            if let Some(map) = filter_view(viewshed, needs, changed, &maps) {
                relit.borrow_local_mut().push((viewer, reveals, map));
            }
        });
    for (viewer, reveals, map) in relit.drain() {
        messages.write(ViewshedUpdated { viewer });
        if reveals {
            fog_dirty.mark(map);
        }
    }
}

/// Brings one viewer's view in step with the light. Returns its map when the view changed
/// though its field of view did not (it must be announced).
fn filter_view(
    viewshed: &mut Viewshed,
    needs: &mut NeedsLight,
    dark_vision_changed: bool,
    maps: &Query<(&MapOpacity, &Lighting)>,
) -> Option<Entity> {
    // A new field of view is in the viewshed (recomputed since it was last filtered).
    let fresh = needs.filtered != Some(viewshed.generation);
    if fresh {
        needs.field_of_view.clone_from(&viewshed.visible);
        needs.filtered = Some(viewshed.generation);
    }
    let key = viewshed.computed?;
    let (opacity, lighting) = maps.get(key.map).ok()?;
    let fov = &needs.field_of_view;
    let stale = fresh
        || dark_vision_changed
        || lighting.changed_within(needs.lit_version, |(x, y)| fov.contains(x, y));
    needs.lit_version = lighting.version();
    if !stale {
        return None;
    }
    let rule = LightRule {
        fov,
        opacity,
        lighting,
        key,
        dark_vision: needs.dark_vision,
    };
    let view = kept(fov, |cell| rule.sees(cell));
    if fresh {
        viewshed.visible = view;
        return None;
    }
    if view == viewshed.visible {
        return None;
    }
    viewshed.relight(view);
    needs.filtered = Some(viewshed.generation);
    Some(key.map)
}

/// The cells of `fov` for which `keep` holds, over the same window.
fn kept(fov: &VisibleSet, keep: impl Fn((u32, u32)) -> bool) -> VisibleSet {
    let window = fov.window();
    let stride = words_for(window.width);
    let mut words = vec![0; stride * window.height as usize];
    for (x, y) in fov.iter().filter(|&cell| keep(cell)) {
        let (x, y) = ((x - window.x) as usize, (y - window.y) as usize);
        words[y * stride + x / WORD_BITS] |= 1 << (x % WORD_BITS);
    }
    // The words are shaped for the window, so this cannot fail.
    VisibleSet::from_words(window, words).unwrap_or_default()
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
    /// Whether the viewer sees `cell` of its field of view.
    fn sees(&self, cell: (u32, u32)) -> bool {
        self.within_dark_vision(cell) || self.lit_floor(cell) || self.lit_wall_by_a_seen_floor(cell)
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
            .reaches(cell),
        }
    }

    /// Rule 2: a lit floor.
    fn lit_floor(&self, (x, y): (u32, u32)) -> bool {
        let tile = TilePos { x, y };
        !self.opacity.is_opaque(tile) && self.lighting.is_lit(tile)
    }

    /// Rule 3: a lit wall next to a lit floor of the field of view.
    fn lit_wall_by_a_seen_floor(&self, (x, y): (u32, u32)) -> bool {
        let tile = TilePos { x, y };
        self.opacity.is_opaque(tile)
            && self.lighting.is_lit(tile)
            && NEIGHBOURS.iter().any(|&(dx, dy)| {
                let next = (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
                self.fov.contains(next.0, next.1) && self.lit_floor(next)
            })
    }
}

/// The 8 tile positions around a tile.
const NEIGHBOURS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// A `Viewshed` or a `NeedsLight` (`C`) was inserted on a viewer that needs light (anew,
/// again, or cloned from another viewer): the generation the old value was filtered for means
/// nothing for the new one, so the field of view is computed again at the next update and
/// filtered afresh.
pub(crate) fn on_light_rule_inserted<C: Component>(
    event: On<Insert, C>,
    mut viewers: Query<(&mut Viewshed, &mut NeedsLight), Allow<Disabled>>,
) {
    if let Ok((mut viewshed, mut needs)) = viewers.get_mut(event.entity) {
        needs.bypass_change_detection().filtered = None;
        // Changed, so that the recompute visits it.
        viewshed.computed = None;
    }
}

/// `NeedsLight` was removed from a viewer: its field of view is recomputed at the next update,
/// unfiltered.
pub(crate) fn on_needs_light_removed(
    event: On<Remove, NeedsLight>,
    mut viewers: Query<&mut Viewshed, Allow<Disabled>>,
) {
    if let Ok(mut viewshed) = viewers.get_mut(event.entity) {
        // Changed, so that the recompute visits it.
        viewshed.computed = None;
    }
}
