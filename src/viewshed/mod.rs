//! The [`Viewshed`] component (who sees, with which [`FovOptions`], and what it saw at its
//! last recomputation), the system that keeps it up to date (`recompute`) and the message it
//! writes ([`ViewshedUpdated`]).
//!
//! | module | its job |
//! |---|---|
//! | this one | the `Viewshed` component: who sees, with which options, and what it saw |
//! | `recompute` | the views that need it recomputed in parallel, each announced with `ViewshedUpdated` |
//! | `kept` | `KeptView`: what the recompute needs of a component whose view it keeps (viewer or light) |
//! | `state` | what the recompute remembers of a kept view (what it was computed from), beside it |
//! | `scratch` | each thread's warm scratch for the core's scans; a view thinned by the map's density |
//! | `map_lookup` | the map a run of viewers stands on, looked up once per run |
//! | `reach_index` | which views a change of opacity can reach: views filed under the buckets they reach |
//! | `save` | (feature `serde`) what a saved `Viewshed` holds |
//! | `plugin` | `ViewsPlugin`: its system in `ViewshedStepSystems::Views`, its message, its observers |

pub(crate) mod kept;
mod map_lookup;
mod plugin;
mod reach_index;
pub(crate) mod recompute;
#[cfg(feature = "serde")]
mod save;
mod scratch;
pub(crate) mod state;

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::opacity::map_opacity::Grid;
use viewshed_core::elevation::CliffFaces;
use viewshed_core::options::{DistanceShape, FovMode, FovOptions, Radius, VisionCone};
use viewshed_core::staggered;
use viewshed_core::visible::{VisibleSet, Window};

pub use plugin::ViewsPlugin;
pub use recompute::ViewshedUpdated;

/// Gives an entity sight: each update it holds the tiles it sees.
///
/// Place the viewer on a tilemap with `TilePos` + `TilemapId`, or with a `Transform` and a
/// `TilemapId` (its tile is then found from its world position and the tilemap's transform,
/// grid size and map type). Its view is recomputed when it is added, when its tile, tilemap or
/// `options` change, and when opacity changes inside its reach (also while it
/// was disabled); at no other time ([`generation`](Self::generation) counts the
/// recomputations).
///
/// With the `serde` feature a `Viewshed` saves its options and its view, with the crate's
/// [`save_format`](crate::support::save_format); a save that does not hold together (a view whose
/// window and bits disagree) or of another format is an error.
///
/// ```
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::{DistanceShape, VisionCone};
/// use bevy_viewshed::Radius;
///
/// let mut viewshed = Viewshed::new(8)
///     .with_shape(DistanceShape::Chebyshev)
///     .with_cone(VisionCone::degrees(90.0, 120.0));
/// viewshed.set_radius(3); // takes effect at the next update
/// viewshed.options.radius = Radius::Limited(3); // the same, through the options
/// viewshed.options.cone = None; // so does this: it sees all around again
/// assert_eq!(viewshed.count(), 0, "nothing is seen before the first update");
/// ```
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component, Default, Debug)]
#[require(crate::placement::placed::Placed, state::ViewState<Viewshed>)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "save::ViewshedSave", try_from = "save::ViewshedSave")
)]
#[type_path = "bevy_viewshed"]
pub struct Viewshed {
    /// How the viewer sees: radius, distance shape, vision cone, floor rule, light walls.
    /// Change any of them at run time; the view follows at the next update.
    pub options: FovOptions,
    /// How far above its tile's ground its eye is, in levels of
    /// [`Elevation`](crate::Elevation) (0, the default: on the ground; a tower, a flying
    /// unit: more). Its eye level is its tile's level plus this, at most 15; tiles above the
    /// eye block its sight. Change it at run time; the view follows at the next update.
    pub eye_height: u8,
    /// What it sees of tiles above its eye: their faces (the default, as a wall's face is
    /// seen), or nothing of them ([`CliffFaces::Hidden`], as in StarCraft II). Change it at
    /// run time; the view follows at the next update.
    pub cliff_faces: CliffFaces,
    /// What it sees.
    #[reflect(ignore)]
    pub(super) visible: VisibleSet,
    /// What it saw before the last recomputation (nothing before its first one on this
    /// entity), for [`newly_seen`](Self::newly_seen).
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) previous: VisibleSet,
    /// Where the view was computed from: its map and tile.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) at: Option<(Entity, TilePos)>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) generation: u64,
}

/// Everything a view depends on: the map and its opacity version, the tile and the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ViewKey {
    /// The map (root tilemap) the view was computed on.
    pub map: Entity,
    pub origin: (u32, u32),
    /// The viewer's settings (radius, shape, cone, mode, light walls).
    pub options: FovOptions,
    /// The viewer's eye level (its tile's elevation plus its eye height): the grid it sees on.
    pub eye: u8,
    /// What the viewer sees of the tiles above its eye.
    pub cliff_faces: CliffFaces,
    /// The map's opacity version the view was computed at.
    pub version: u64,
    /// The map's grid (square or hexagonal) the view was computed on.
    pub grid: Grid,
}

impl ViewKey {
    /// Whether a change of opacity in `area` (map coordinates) can change this view: whether a
    /// cell of it is within the radius, measured on the grid the view is computed on (a
    /// hexagonal map's disk lies in the square of tile positions around the viewer; a
    /// staggered map's tiles are measured as the diamond cells they are). The cell of the
    /// area nearest to the viewer on both axes is the nearest in every distance shape.
    pub fn reaches(&self, area: Window) -> bool {
        if area.is_empty() {
            return false;
        }
        match self.grid {
            // The cell of the area nearest to the viewer on both axes.
            Grid::Square | Grid::Hex(_) => {
                self.reaches_tile(area.nearest(self.origin.0, self.origin.1))
            }
            // A staggered map's areas are single tiles or whole tilemaps: each tile is
            // measured on the diamond grid.
            Grid::Staggered => area.cells().any(|cell| self.reaches_tile(cell)),
        }
    }

    /// Whether a change of opacity at `tile` can change this view ([`reaches`](Self::reaches)
    /// for one tile).
    #[inline]
    pub fn reaches_tile(&self, tile: (u32, u32)) -> bool {
        let Radius::Limited(r) = self.options.radius else {
            return true;
        };
        let (shape, (x, y), (ox, oy)) = match self.grid {
            Grid::Square => (self.options.shape, tile, self.origin),
            Grid::Hex(_) => (DistanceShape::Chebyshev, tile, self.origin),
            Grid::Staggered => (
                self.options.shape,
                staggered::to_diamond(tile),
                staggered::to_diamond(self.origin),
            ),
        };
        shape.contains(
            i64::from(x) - i64::from(ox),
            i64::from(y) - i64::from(oy),
            r,
        )
    }
}

impl Default for Viewshed {
    fn default() -> Self {
        Self::new(8)
    }
}

impl Viewshed {
    /// A radius no map reaches: `Viewshed::new(Viewshed::UNLIMITED)` sees as far as walls and
    /// the map allow, like [`Viewshed::unlimited`].
    pub const UNLIMITED: u32 = u32::MAX;

    /// A viewer that sees `radius` tiles around it (a disk, see [`Radius::Limited`]), walls
    /// lit, all around, symmetric.
    pub fn new(radius: u32) -> Self {
        Self::with_options(FovOptions::radius(radius))
    }

    /// A viewer with no radius limit.
    pub fn unlimited() -> Self {
        Self::with_options(FovOptions::unlimited())
    }

    /// A viewer with these options.
    pub fn with_options(options: FovOptions) -> Self {
        Self {
            options,
            eye_height: 0,
            cliff_faces: CliffFaces::Seen,
            visible: VisibleSet::new(),
            previous: VisibleSet::new(),
            at: None,
            generation: 0,
        }
    }

    /// The same viewer with its eye `height` levels above its tile's ground (see
    /// [`eye_height`](Self::eye_height)).
    pub fn with_eye_height(mut self, height: u8) -> Self {
        self.eye_height = height;
        self
    }

    /// The same viewer seeing `faces` of the tiles above its eye (see
    /// [`cliff_faces`](Self::cliff_faces)).
    pub fn with_cliff_faces(mut self, faces: CliffFaces) -> Self {
        self.cliff_faces = faces;
        self
    }

    /// The same viewer with light walls on or off.
    pub fn with_light_walls(mut self, light_walls: bool) -> Self {
        self.options.light_walls = light_walls;
        self
    }

    /// The same viewer with its radius measured in `shape`.
    pub fn with_shape(mut self, shape: DistanceShape) -> Self {
        self.options.shape = shape;
        self
    }

    /// The same viewer restricted to a vision cone.
    pub fn with_cone(mut self, cone: VisionCone) -> Self {
        self.options.cone = Some(cone);
        self
    }

    /// The same viewer with this floor rule.
    pub fn with_mode(mut self, mode: FovMode) -> Self {
        self.options.mode = mode;
        self
    }

    /// How far the viewer sees.
    pub fn radius(&self) -> Radius {
        self.options.radius
    }

    /// Sets how far the viewer sees: a number of tiles or [`Radius::Unlimited`].
    pub fn set_radius(&mut self, radius: impl Into<Radius>) {
        self.options.radius = radius.into();
    }

    /// Whether the viewer saw `tile` at its last update (a line-of-sight query answered from
    /// the view: for a symmetric, unlimited, all-around viewer it equals the core's
    /// [`line_of_sight`](viewshed_core::line_of_sight())).
    pub fn is_visible(&self, tile: TilePos) -> bool {
        self.visible.contains(tile.x, tile.y)
    }

    /// The tiles in the current view that were not in the one before the last recomputation.
    pub fn newly_seen(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.iter()
            .filter(|tile| !self.previous.contains(tile.x, tile.y))
    }

    /// The tiles in the view before the last recomputation that are not in the current one.
    pub fn newly_unseen(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.previous
            .iter()
            .map(|(x, y)| TilePos { x, y })
            .filter(|tile| !self.visible.contains(tile.x, tile.y))
    }

    /// The tiles the viewer sees.
    pub fn iter(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.visible.iter().map(|(x, y)| TilePos { x, y })
    }

    /// How many tiles the viewer sees.
    pub fn count(&self) -> usize {
        self.visible.count()
    }

    /// The bit-packed result of the core computation.
    pub fn visible_set(&self) -> &VisibleSet {
        &self.visible
    }

    /// How many times the view has been computed (or cleared). It changes exactly when the
    /// view was recomputed, which makes the "only when something changed" rule observable.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The map (root tilemap entity) and tile the current view was computed from, if any.
    pub fn origin(&self) -> Option<(Entity, TilePos)> {
        self.at
    }

    /// The map the current view was computed on, if any.
    pub(crate) fn map(&self) -> Option<Entity> {
        self.at.map(|(map, _)| map)
    }

    /// Puts `view` in place of the view just computed, without counting a recomputation (the
    /// light rule filtering a fresh field of view).
    pub(crate) fn filter_to(&mut self, view: VisibleSet) {
        self.visible = view;
    }

    /// Replaces the view with `view`, computed from the same place (a viewer that needs light
    /// sees differently because the light changed).
    pub(crate) fn relight(&mut self, view: VisibleSet) {
        self.previous = std::mem::replace(&mut self.visible, view);
        self.generation += 1;
    }

    /// Moves the current view to the previous one (or empties it, for a view computed for the
    /// first time on this entity: `first`) and records where the new one is computed from
    /// (`None`: the viewer sees nothing, and the view is emptied).
    pub(crate) fn replace_view(&mut self, at: Option<(Entity, TilePos)>, first: bool) {
        std::mem::swap(&mut self.visible, &mut self.previous);
        if first {
            self.previous.clear();
        }
        if at.is_none() {
            self.visible.clear();
        }
        self.at = at;
        self.generation += 1;
    }
}

/// The `Viewshed` an entity gets when a component that needs one (`who`: `RevealsFog`,
/// `NeedsLight`) comes without it: `Viewshed::default()`, a radius the game did not choose,
/// with a warning once per component.
pub(crate) fn required_by(who: &'static str) -> Viewshed {
    static WARNED: std::sync::Mutex<Vec<&str>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !warned.contains(&who) {
        warned.push(who);
        warn!(
            "bevy_viewshed: {who} on an entity without a Viewshed: it gets Viewshed::default() \
             (radius 8); insert a Viewshed with the radius you want"
        );
    }
    Viewshed::default()
}
