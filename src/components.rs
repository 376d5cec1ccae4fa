//! The components a game puts on its entities: who sees ([`Viewshed`]), what blocks sight
//! ([`Opaque`]), whose sight lifts the fog ([`RevealsFog`]), what hides outside the view
//! ([`HideOutsideView`]), and which tilemaps are layers of one map ([`LayerOf`]).

use bevy::camera::visibility::Visibility;
use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::options::{DistanceShape, FovMode, FovOptions, Radius, VisionCone};
use crate::visible::VisibleSet;

/// Gives an entity sight: each update it holds the tiles it sees.
///
/// Place the viewer on a tilemap with `TilePos` + `TilemapId`, or with a `Transform` and a
/// `TilemapId` (its tile is then found from its world position and the tilemap's transform,
/// grid size and map type). Its view is recomputed when it is added, when its tile, tilemap,
/// [`radius`](Self::radius), [`shape`](Self::shape), [`cone`](Self::cone),
/// [`mode`](Self::mode) or light-walls option changes, and when opacity changes inside its
/// reach; at no other time ([`generation`](Self::generation) counts the recomputations).
///
/// ```
/// use bevy_viewshed::prelude::*;
///
/// let mut viewshed = Viewshed::new(8)
///     .with_shape(DistanceShape::Chebyshev)
///     .with_cone(VisionCone::degrees(90.0, 120.0));
/// viewshed.radius = 3; // takes effect at the next update
/// viewshed.cone = None; // so does this: it sees all around again
/// assert_eq!(viewshed.count(), 0, "nothing is seen before the first update");
/// ```
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Viewshed {
    /// How far the viewer sees: tiles with `dx*dx + dy*dy <= r*(r+1)`. 0 sees only the
    /// viewer's own tile; [`Viewshed::UNLIMITED`] sees as far as walls and the map allow.
    pub radius: u32,
    /// Whether opaque tiles that sight reaches count as seen (true, the default).
    pub light_walls: bool,
    /// The shape the radius is measured in (a disk by default).
    #[reflect(ignore)]
    pub shape: DistanceShape,
    /// A vision cone (`None`, the default: all around). Turn it as the viewer turns; the
    /// view follows at the next update.
    #[reflect(ignore)]
    pub cone: Option<VisionCone>,
    /// Which floors count as seen (symmetric by default).
    #[reflect(ignore)]
    pub mode: FovMode,
    #[reflect(ignore)]
    pub(crate) visible: VisibleSet,
    /// The view before the last recomputation.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) previous: VisibleSet,
    /// The [`Spottable`](crate::Spottable) entities it sees.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) spotted: EntityHashSet,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) generation: u64,
    /// What the current view was computed from.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) computed: Option<ViewKey>,
    /// The last problem warned about, so each is logged once.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) warned: Option<ViewProblem>,
}

/// Everything a view depends on besides the opacity around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ViewKey {
    /// The map (root tilemap) the view was computed on.
    pub map: Entity,
    pub origin: (u32, u32),
    /// The viewer's settings (radius, shape, cone, mode, light walls).
    pub options: FovOptions,
}

/// Why a viewer sees nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ViewProblem {
    /// It has no `TilemapId`, or neither a `TilePos` nor a `GlobalTransform`.
    NotPlaced,
    /// Its `TilemapId` names an entity that is not (or no longer) a tilemap.
    NoTilemap(Entity),
    /// Its tile lies outside its tilemap.
    OffMap(Entity),
}

impl Default for Viewshed {
    fn default() -> Self {
        Self::new(8)
    }
}

impl Viewshed {
    /// A radius that sees as far as walls and the map allow.
    pub const UNLIMITED: u32 = u32::MAX;

    /// A viewer that sees `radius` tiles around it, walls lit.
    pub fn new(radius: u32) -> Self {
        Self {
            radius,
            light_walls: true,
            shape: DistanceShape::Euclidean,
            cone: None,
            mode: FovMode::Symmetric,
            visible: VisibleSet::new(),
            previous: VisibleSet::new(),
            spotted: EntityHashSet::default(),
            generation: 0,
            computed: None,
            warned: None,
        }
    }

    /// A viewer with no radius limit.
    pub fn unlimited() -> Self {
        Self::new(Self::UNLIMITED)
    }

    /// The same viewer with light walls on or off.
    pub fn with_light_walls(mut self, light_walls: bool) -> Self {
        self.light_walls = light_walls;
        self
    }

    /// The same viewer with its radius measured in `shape`.
    pub fn with_shape(mut self, shape: DistanceShape) -> Self {
        self.shape = shape;
        self
    }

    /// The same viewer restricted to a vision cone.
    pub fn with_cone(mut self, cone: VisionCone) -> Self {
        self.cone = Some(cone);
        self
    }

    /// The same viewer with this floor rule.
    pub fn with_mode(mut self, mode: FovMode) -> Self {
        self.mode = mode;
        self
    }

    /// Whether `tile` is in the current view (a line-of-sight query answered from the view:
    /// for a symmetric, unlimited, all-around viewer it equals the core's `line_of_sight`).
    pub fn can_see(&self, tile: TilePos) -> bool {
        self.is_visible(tile)
    }

    /// The [`Spottable`](crate::Spottable) entities the viewer sees (itself excluded), as of
    /// the last [`ViewshedSystems::Notify`](crate::ViewshedSystems::Notify).
    pub fn spotted(&self) -> impl Iterator<Item = Entity> + '_ {
        self.spotted.iter().copied()
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

    /// Whether the viewer saw `tile` at its last update.
    pub fn is_visible(&self, tile: TilePos) -> bool {
        self.visible.contains(tile.x, tile.y)
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
        self.computed.map(|key| {
            (
                key.map,
                TilePos {
                    x: key.origin.0,
                    y: key.origin.1,
                },
            )
        })
    }

    pub(crate) fn options(&self) -> FovOptions {
        FovOptions {
            radius: if self.radius == Self::UNLIMITED {
                Radius::Unlimited
            } else {
                Radius::Limited(self.radius)
            },
            light_walls: self.light_walls,
            shape: self.shape,
            cone: self.cone,
            mode: self.mode,
        }
    }
}

/// Blocks sight at its tile: a wall tile, a closed door, a boulder.
///
/// Counts on tile entities of a tilemap and on any other entity with `TilePos` +
/// `TilemapId`; several opaque entities may share a tile. Insert or remove it (open a door),
/// move the entity or despawn it, and the map's opacity follows. A viewer that is itself
/// opaque still sees out of its own tile.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Opaque;

/// Marks viewers whose sight lifts the fog of war (the player and allies, not monsters).
///
/// Their views, united per map, make their [`Team`]'s view: team 0 (the team drawn unless
/// [`FogTeam`](crate::FogTeam) says otherwise) when the entity has no `Team`.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Viewshed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RevealsFog;

/// The team a [`RevealsFog`] viewer sees for (team 0 without this component). A team's view,
/// per map, is the union of its members' viewsheds, with an explored memory of its own (see
/// [`FogOfWar`](crate::FogOfWar)); the fog of war is drawn for the team in the
/// [`FogTeam`](crate::FogTeam) resource, which a spectator mode or a hot-seat game switches at
/// run time. Change a viewer's team by inserting another `Team`.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Team(pub u32);

/// An entity on the map (a monster, an item) that is shown only while its tile is in the
/// revealed view: its `Visibility` is set to `Hidden` outside it and `Inherited` inside.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Visibility)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HideOutsideView;

/// Makes a tilemap a layer of another: layers that share a grid (terrain, decorations, a fog
/// overlay) form one map, whose opacity, viewers and fog of war live on the root tilemap.
///
/// Put it on every layer but the root; opaque tiles and viewers may sit on any layer.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship(relationship_target = Layers)]
pub struct LayerOf(pub Entity);

/// The layers of a root tilemap (kept by Bevy from the [`LayerOf`] components).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[relationship_target(relationship = LayerOf)]
pub struct Layers(Vec<Entity>);

impl Layers {
    /// The layer tilemaps (not including the root).
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.0.iter().copied()
    }
}
