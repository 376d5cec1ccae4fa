//! The components a game puts on its entities: who sees ([`Viewshed`]), what blocks sight
//! ([`Opaque`]), whose sight lifts the fog ([`RevealsFog`]), what hides outside the view
//! ([`HideOutsideView`]), and which tilemaps are layers of one map ([`LayerOf`]).

use bevy::camera::visibility::Visibility;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::options::{FovOptions, Radius};
use crate::visible::VisibleSet;

/// Gives an entity sight: each update it holds the tiles it sees.
///
/// Place the viewer on a tilemap with `TilePos` + `TilemapId`, or with a `Transform` and a
/// `TilemapId` (its tile is then found from its world position and the tilemap's transform,
/// grid size and map type). Its view is recomputed when it is added, when its tile, tilemap or
/// [`radius`](Self::radius) changes, and when opacity changes inside its reach; at no other
/// time ([`generation`](Self::generation) counts the recomputations).
///
/// ```
/// use bevy_viewshed::prelude::*;
///
/// let mut viewshed = Viewshed::new(8);
/// viewshed.radius = 3; // takes effect at the next update
/// assert_eq!(viewshed.count(), 0, "nothing is seen before the first update");
/// ```
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component, Default, Debug)]
pub struct Viewshed {
    /// How far the viewer sees: tiles with `dx*dx + dy*dy <= r*(r+1)`. 0 sees only the
    /// viewer's own tile; [`Viewshed::UNLIMITED`] sees as far as walls and the map allow.
    pub radius: u32,
    /// Whether opaque tiles that sight reaches count as seen (true, the default).
    pub light_walls: bool,
    #[reflect(ignore)]
    pub(crate) visible: VisibleSet,
    pub(crate) generation: u64,
    /// What the current view was computed from.
    #[reflect(ignore)]
    pub(crate) computed: Option<ViewKey>,
    /// The last problem warned about, so each is logged once.
    #[reflect(ignore)]
    pub(crate) warned: Option<ViewProblem>,
}

/// Everything a view depends on besides the opacity around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ViewKey {
    /// The map (root tilemap) the view was computed on.
    pub map: Entity,
    pub origin: (u32, u32),
    pub radius: u32,
    pub light_walls: bool,
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
            visible: VisibleSet::new(),
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
            ..FovOptions::default()
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
pub struct Opaque;

/// Marks viewers whose sight lifts the fog of war (the player and allies, not monsters).
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Viewshed)]
pub struct RevealsFog;

/// An entity on the map (a monster, an item) that is shown only while its tile is in the
/// revealed view: its `Visibility` is set to `Hidden` outside it and `Inherited` inside.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Visibility)]
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
