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

impl IntGridRule {
    /// Whether a tile of layer `layer` with IntGrid value `value` matches.
    fn matches(&self, layer: &str, value: Option<i32>) -> bool {
        value == Some(self.value) && self.layer.as_deref().is_none_or(|name| name == layer)
    }
}

/// Which LDtk tiles are [`Opaque`](crate::Opaque): IntGrid values (on any layer or on one)
/// and tile enum tags; and which stand on high ground ([`Elevation`](crate::Elevation)): the
/// IntGrid values and enum tags given a level.
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
///
/// // IntGrid value 5 is a hill (level 2) on every layer, tiles tagged "Cliff" level 4.
/// let terrain = LdtkOpacity::default().int_grid_level(5, 2).enum_tag_level("Cliff", 4);
/// assert_eq!(terrain.level("Ground", Some(5), &[]), Some(2));
/// assert_eq!(terrain.level("Ground", Some(1), &["Cliff".to_string()]), Some(4));
/// assert_eq!(terrain.level("Ground", Some(1), &[]), None);
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug)]
#[type_path = "bevy_viewshed::ldtk"]
pub struct LdtkOpacity {
    /// IntGrid values that block sight.
    pub int_grid: Vec<IntGridRule>,
    /// Enum values (their identifiers) that make a tagged tile block sight.
    pub enum_tags: Vec<String>,
    /// IntGrid values and the level of high ground they give a tile.
    pub int_grid_levels: Vec<(IntGridRule, u8)>,
    /// Enum values and the level of high ground they give a tagged tile.
    pub enum_tag_levels: Vec<(String, u8)>,
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

    /// IntGrid `value` gives a tile `level` of high ground, on every IntGrid layer.
    pub fn int_grid_level(mut self, value: i32, level: u8) -> Self {
        let rule = IntGridRule { layer: None, value };
        self.int_grid_levels.push((rule, level));
        self
    }

    /// IntGrid `value` gives a tile `level` of high ground, on the layer with this identifier.
    pub fn int_grid_level_on(mut self, layer: impl Into<String>, value: i32, level: u8) -> Self {
        let rule = IntGridRule {
            layer: Some(layer.into()),
            value,
        };
        self.int_grid_levels.push((rule, level));
        self
    }

    /// Tiles tagged with this enum value stand at `level` of high ground.
    pub fn enum_tag_level(mut self, tag: impl Into<String>, level: u8) -> Self {
        self.enum_tag_levels.push((tag.into(), level));
        self
    }

    /// Whether a tile of layer `layer` with this IntGrid value and these enum tags blocks
    /// sight.
    pub fn blocks(&self, layer: &str, int_grid: Option<i32>, tags: &[String]) -> bool {
        let by_value = self
            .int_grid
            .iter()
            .any(|rule| rule.matches(layer, int_grid));
        by_value || tags.iter().any(|tag| self.enum_tags.contains(tag))
    }

    /// The level of high ground of a tile of layer `layer` with this IntGrid value and these
    /// enum tags: the highest its value and tags give, `None` where none gives one.
    pub fn level(&self, layer: &str, int_grid: Option<i32>, tags: &[String]) -> Option<u8> {
        let by_value = self.int_grid_levels.iter();
        let by_value = by_value.filter(|(rule, _)| rule.matches(layer, int_grid));
        let by_tag = self
            .enum_tag_levels
            .iter()
            .filter(|(tag, _)| tags.contains(tag));
        by_value
            .map(|(_, level)| *level)
            .chain(by_tag.map(|(_, level)| *level))
            .max()
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
