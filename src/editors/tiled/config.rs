//! What a game tells the Tiled integration: which tiles and objects block sight
//! ([`TiledOpacity`]), which objects see, are seen, hide or light ([`TiledVision`],
//! [`ObjectVision`], [`VisionProperties`]), and the fog of war put on each map's tile layers
//! ([`TiledFog`]). All are resources read at run time: insert your own before or after adding
//! the plugin.

use bevy::prelude::*;

use crate::draw::FogStyle;
pub use crate::editors::vision::EditorVision as ObjectVision;
use crate::editors::vision::{named, set_named};

/// Which Tiled tiles and objects are [`Opaque`](crate::Opaque): those with a bool custom
/// property set to `true` ([`property`](Self::property), `block_line_of_sight` by default, as
/// in bevy_ecs_tiled's book), and those of the classes listed ([`classes`](Self::classes)).
/// And which stand on high ground: an int property ([`elevation`](Self::elevation),
/// `elevation` by default) gives a tile or object that [`Elevation`](crate::Elevation).
///
/// Tiles get it from their tileset's tile (set the property or class on the tile in Tiled's
/// tileset editor); objects from their own properties and class, or else from their tile's
/// (a tile object). An object that blocks sight blocks every tile whose centre it covers.
/// Besides these, our reflected `Opaque` set as a Tiled custom type (a class property of type
/// `bevy_viewshed::Opaque`, read from the map's properties) makes its tile or object opaque
/// by itself.
///
/// Change the resource and every tile and object is looked at again; an `Opaque` the game put
/// itself is never taken away. A door is opened by removing `Opaque` from its tile or object.
///
/// ```
/// use bevy_viewshed::tiled::TiledOpacity;
///
/// // Tiles and objects with `block_line_of_sight = true`, or of class "Wall" or "Door".
/// let opacity = TiledOpacity::default().class("Wall").class("Door");
/// assert_eq!(opacity.property.as_deref(), Some("block_line_of_sight"));
/// assert!(opacity.blocks_class("Door"));
/// assert!(!opacity.blocks_class("Floor"));
///
/// // Another property name, and no class.
/// let opacity = TiledOpacity::default().with_property("opaque");
/// assert_eq!(opacity.property.as_deref(), Some("opaque"));
///
/// // Levels of high ground from the int property "height".
/// let opacity = TiledOpacity::default().with_elevation_property("height");
/// assert_eq!(opacity.elevation.as_deref(), Some("height"));
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::tiled"]
pub struct TiledOpacity {
    /// The bool custom property that makes a tile or object block sight when `true` (`None`:
    /// no property does).
    pub property: Option<String>,
    /// Tile and object classes (Tiled's "Class" field) that block sight.
    pub classes: Vec<String>,
    /// The int custom property that gives a tile or object its level of high ground
    /// ([`Elevation`](crate::Elevation), 0 to 15; `None`: no property does).
    pub elevation: Option<String>,
}

impl Default for TiledOpacity {
    fn default() -> Self {
        Self {
            property: Some("block_line_of_sight".into()),
            classes: Vec::new(),
            elevation: Some("elevation".into()),
        }
    }
}

impl TiledOpacity {
    /// Tiles and objects with this bool property set to `true` block sight (instead of
    /// `block_line_of_sight`).
    pub fn with_property(mut self, name: impl Into<String>) -> Self {
        self.property = Some(name.into());
        self
    }

    /// Tiles and objects take their level of high ground from this int property (instead of
    /// `elevation`).
    pub fn with_elevation_property(mut self, name: impl Into<String>) -> Self {
        self.elevation = Some(name.into());
        self
    }

    /// No property makes anything block sight (only classes and the reflected `Opaque`).
    pub fn without_property(mut self) -> Self {
        self.property = None;
        self
    }

    /// Tiles and objects of this class block sight.
    pub fn class(mut self, class: impl Into<String>) -> Self {
        self.classes.push(class.into());
        self
    }

    /// Whether tiles and objects of this class block sight.
    pub fn blocks_class(&self, class: &str) -> bool {
        !class.is_empty() && self.classes.iter().any(|c| c == class)
    }
}

/// The names of the custom properties [`TiledVision`] reads on objects (`None`: that property
/// is not read). An object's properties override what its class gives it.
///
/// | property | type | gives |
/// |---|---|---|
/// | `sight_radius` | int | a `Viewshed` of that radius |
/// | `sight_cone_facing` | float (degrees, 0 = +x, counter-clockwise) | the direction of its vision cone |
/// | `sight_cone_width` | float (degrees) | a vision cone that wide |
/// | `team` | int | its `Team` |
/// | `reveals_fog` | bool | `RevealsFog` |
/// | `can_be_spotted` | bool | `CanBeSpotted` |
/// | `hides_outside_view` | bool | `HidesOutsideView` |
/// | `leaves_ghost` | bool | `LeavesGhost` |
/// | `light_radius` | int | a `LightSource` of that radius |
#[derive(Clone, Debug, PartialEq, Eq, Reflect)]
#[type_path = "bevy_viewshed::tiled"]
pub struct VisionProperties {
    /// An int: the radius of its `Viewshed`.
    pub sight_radius: Option<String>,
    /// A float (an int will do): the direction its vision cone faces, in degrees.
    pub sight_cone_facing: Option<String>,
    /// A float (an int will do): the width of its vision cone, in degrees.
    pub sight_cone_width: Option<String>,
    /// An int: its `Team`.
    pub team: Option<String>,
    /// A bool: `RevealsFog`.
    pub reveals_fog: Option<String>,
    /// A bool: `CanBeSpotted`.
    pub can_be_spotted: Option<String>,
    /// A bool: `HidesOutsideView`.
    pub hides_outside_view: Option<String>,
    /// A bool: `LeavesGhost`.
    pub leaves_ghost: Option<String>,
    /// An int: the radius of its `LightSource`.
    pub light_radius: Option<String>,
}

impl Default for VisionProperties {
    fn default() -> Self {
        let name = |name: &str| Some(name.to_string());
        Self {
            sight_radius: name("sight_radius"),
            sight_cone_facing: name("sight_cone_facing"),
            sight_cone_width: name("sight_cone_width"),
            team: name("team"),
            reveals_fog: name("reveals_fog"),
            can_be_spotted: name("can_be_spotted"),
            hides_outside_view: name("hides_outside_view"),
            leaves_ghost: name("leaves_ghost"),
            light_radius: name("light_radius"),
        }
    }
}

/// Which Tiled objects see, are seen, hide or light: by class, and from their custom
/// properties ([`VisionProperties`]).
///
/// An object whose class (Tiled's "Class" field, or its tile's for a tile object) is listed
/// gets that [`ObjectVision`]; then its properties (or its tile's, for those it does not set)
/// add to it or override it. A property of the wrong type or a negative number is warned about
/// once and ignored. Objects are read when their map is spawned (loaded or reloaded), and
/// stand on the tile under their centre, following their `Transform` when the game moves them.
///
/// ```
/// use bevy_viewshed::tiled::{ObjectVision, TiledVision};
///
/// let vision = TiledVision::default()
///     .class("Player", ObjectVision::viewer(8).reveals_fog())
///     .class("Goblin", ObjectVision::viewer(5).spottable().hide_outside_view().team(1));
/// assert_eq!(vision.for_class("Goblin").unwrap().radius, Some(5));
/// assert!(vision.for_class("Chest").is_none());
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::tiled"]
pub struct TiledVision {
    /// Object classes and what they get.
    pub classes: Vec<(String, ObjectVision)>,
    /// The custom properties read on every object.
    pub properties: VisionProperties,
}

impl TiledVision {
    /// Objects of this class get `vision` (a later entry for the same class replaces an
    /// earlier one).
    pub fn class(mut self, class: impl Into<String>, vision: ObjectVision) -> Self {
        set_named(&mut self.classes, class.into(), vision);
        self
    }

    /// What objects of this class get, if it is listed.
    pub fn for_class(&self, class: &str) -> Option<ObjectVision> {
        named(&self.classes, class)
    }
}

/// The fog of war put on the tile layers of every Tiled map (`None`: no fog style is put, a
/// game adds `FogStyle` itself). Default: [`FogStyle::default`] (remembered tiles dimmed,
/// unexplored ones hidden). It goes on each tilemap of a tile layer when it is spawned,
/// unless it already has a `FogStyle`.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::tiled"]
pub struct TiledFog(pub Option<FogStyle>);

impl Default for TiledFog {
    fn default() -> Self {
        Self(Some(FogStyle::default()))
    }
}
