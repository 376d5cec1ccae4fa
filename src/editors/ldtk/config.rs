//! What a game tells the LDtk integration: which tiles block sight ([`LdtkOpacity`]), which
//! LDtk entities see, are seen or hide ([`LdtkVision`], [`EntityVision`]), and the fog of war
//! put on each level's tile layers ([`LdtkFog`]). All are resources read at run time: insert
//! your own before or after adding the plugin.

use bevy::prelude::*;

use crate::draw::FogStyle;
pub use crate::editors::vision::EditorVision as EntityVision;
use crate::editors::vision::{named, set_named};

/// An IntGrid value that blocks sight, on one layer or on all of them.
#[derive(Clone, Debug, PartialEq, Eq, Reflect)]
#[type_path = "bevy_viewshed::ldtk"]
pub struct IntGridRule {
    /// The layer identifier (as in LDtk), or `None` for every IntGrid layer.
    pub layer: Option<String>,
    /// The IntGrid value.
    pub value: i32,
}

/// Which LDtk tiles are [`Opaque`](crate::Opaque): IntGrid values (on any layer or on one)
/// and tile enum tags.
///
/// Tiles follow it at run time: set a door tile's `IntGridCell` value from "closed door" to
/// "open door" and the door stops blocking sight at the next update; change the resource and
/// every tile is looked at again. An `Opaque` the game put on a tile itself is never removed.
///
/// ```
/// use bevy_viewshed::ldtk::LdtkOpacity;
///
/// // Walls are 1 on every IntGrid layer, closed doors 3 on the "Doors" layer, and tiles
/// // tagged "Wall" in the tileset's enum tags block sight too.
/// let opacity = LdtkOpacity::default()
///     .int_grid(1)
///     .int_grid_on("Doors", 3)
///     .enum_tag("Wall");
/// assert!(opacity.blocks("Ground", Some(1), &[]));
/// assert!(!opacity.blocks("Ground", Some(3), &[]));
/// assert!(opacity.blocks("Doors", Some(3), &[]));
/// assert!(opacity.blocks("Decor", None, &["Wall".to_string()]));
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::ldtk"]
pub struct LdtkOpacity {
    /// IntGrid values that block sight.
    pub int_grid: Vec<IntGridRule>,
    /// Enum values (their identifiers) that make a tagged tile block sight.
    pub enum_tags: Vec<String>,
}

impl LdtkOpacity {
    /// IntGrid `value` blocks sight on every IntGrid layer.
    pub fn int_grid(mut self, value: i32) -> Self {
        self.int_grid.push(IntGridRule { layer: None, value });
        self
    }

    /// IntGrid `value` blocks sight on the layer with this identifier.
    pub fn int_grid_on(mut self, layer: impl Into<String>, value: i32) -> Self {
        self.int_grid.push(IntGridRule {
            layer: Some(layer.into()),
            value,
        });
        self
    }

    /// Tiles tagged with this enum value block sight.
    pub fn enum_tag(mut self, tag: impl Into<String>) -> Self {
        self.enum_tags.push(tag.into());
        self
    }

    /// Whether a tile of layer `layer` with this IntGrid value and these enum tags blocks
    /// sight.
    pub fn blocks(&self, layer: &str, int_grid: Option<i32>, tags: &[String]) -> bool {
        let by_value = int_grid.is_some_and(|value| {
            self.int_grid.iter().any(|rule| {
                rule.value == value && rule.layer.as_deref().is_none_or(|name| name == layer)
            })
        });
        by_value || tags.iter().any(|tag| self.enum_tags.contains(tag))
    }
}

/// Which LDtk entities see, are seen or hide: by entity identifier, and from their fields.
///
/// An entity whose identifier is listed gets that [`EntityVision`]; then, on any entity, an
/// Int field named [`radius_field`](Self::radius_field) (default `sight_radius`) gives a
/// `Viewshed` of that radius and an Int field named [`team_field`](Self::team_field)
/// (default `team`) its `Team`. A field of another type or a negative value is warned about
/// once and ignored. Entities are read when they are spawned (a level loaded or respawned).
///
/// ```
/// use bevy_viewshed::ldtk::{EntityVision, LdtkVision};
///
/// let vision = LdtkVision::default()
///     .entity("Player", EntityVision::viewer(8).reveals_fog())
///     .entity("Goblin", EntityVision::viewer(5).spottable().hide_outside_view().team(1));
/// assert_eq!(vision.for_identifier("Goblin").unwrap().radius, Some(5));
/// assert!(vision.for_identifier("Chest").is_none());
/// ```
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::ldtk"]
pub struct LdtkVision {
    /// Entity identifiers and what they get.
    pub entities: Vec<(String, EntityVision)>,
    /// The Int field that gives an entity a `Viewshed` of its value as radius.
    pub radius_field: Option<String>,
    /// The Int field that gives an entity its `Team`.
    pub team_field: Option<String>,
}

impl Default for LdtkVision {
    fn default() -> Self {
        Self {
            entities: Vec::new(),
            radius_field: Some("sight_radius".into()),
            team_field: Some("team".into()),
        }
    }
}

impl LdtkVision {
    /// Entities with this identifier get `vision` (a later entry for the same identifier
    /// replaces an earlier one).
    pub fn entity(mut self, identifier: impl Into<String>, vision: EntityVision) -> Self {
        set_named(&mut self.entities, identifier.into(), vision);
        self
    }

    /// What entities with this identifier get, if they are listed.
    pub fn for_identifier(&self, identifier: &str) -> Option<EntityVision> {
        named(&self.entities, identifier)
    }
}

/// The fog of war put on the tile layers of every LDtk level (`None`: no fog style is put,
/// a game adds `FogStyle` itself). Default: [`FogStyle::default`] (remembered tiles dimmed,
/// unexplored ones hidden).
///
/// It goes on each tile layer when the layer is spawned, unless the layer already has a
/// `FogStyle` or is an IntGrid layer drawn invisible (no tileset and
/// `LdtkSettings::int_grid_rendering` set to `Invisible`).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::ldtk"]
pub struct LdtkFog(pub Option<FogStyle>);

impl Default for LdtkFog {
    fn default() -> Self {
        Self(Some(FogStyle::default()))
    }
}
