//! The custom properties of a Tiled tile or object as the integration reads them: its own,
//! then, for a tile object, its tile's; each value checked for the type the configuration
//! expects (a value of another type is warned about once and ignored).

use bevy::reflect::TypePath;
use bevy_ecs_tiled::prelude::tiled::{Properties, PropertyValue};

use crate::editors::tiled::TiledWarnings;
use crate::editors::tiled::config::TiledOpacity;
use crate::opacity::elevation::Elevation;
use crate::opacity::opaque::Opaque;

/// The properties and class of one tile or object.
pub(super) struct PropertySource<'a> {
    /// Its own properties.
    pub(super) own: &'a Properties,
    /// Those it inherits (a tile object's tile), read where it sets none.
    pub(super) inherited: Option<&'a Properties>,
    /// Its class (its own, or else its tile's).
    pub(super) class: &'a str,
    /// What it is, for warnings ("object Guard (id 2) of map room.tmx").
    pub(super) what: &'a str,
}

impl PropertySource<'_> {
    /// The value of property `name`, its own or inherited.
    fn get(&self, name: &str) -> Option<&PropertyValue> {
        self.own
            .get(name)
            .or_else(|| self.inherited.and_then(|inherited| inherited.get(name)))
    }

    /// The bool property `name`, if it has one of that type.
    pub(super) fn bool(&self, name: Option<&str>, warnings: &mut TiledWarnings) -> Option<bool> {
        let name = name?;
        match self.get(name)? {
            PropertyValue::BoolValue(value) => Some(*value),
            other => self.wrong(name, other, "a bool", warnings),
        }
    }

    /// The int property `name`, if it has one of that type that is not negative.
    pub(super) fn count(&self, name: Option<&str>, warnings: &mut TiledWarnings) -> Option<u32> {
        let name = name?;
        match self.get(name)? {
            PropertyValue::IntValue(value) => match u32::try_from(*value) {
                Ok(value) => Some(value),
                Err(_) => self.wrong(
                    name,
                    &PropertyValue::IntValue(*value),
                    "an int of 0 or more",
                    warnings,
                ),
            },
            other => self.wrong(name, other, "an int", warnings),
        }
    }

    /// The float (or int) property `name`, if it has one of those types.
    pub(super) fn number(&self, name: Option<&str>, warnings: &mut TiledWarnings) -> Option<f64> {
        let name = name?;
        match self.get(name)? {
            PropertyValue::FloatValue(value) if value.is_finite() => Some(f64::from(*value)),
            PropertyValue::IntValue(value) => Some(f64::from(*value)),
            other => self.wrong(name, other, "a float", warnings),
        }
    }

    /// The members of its property of the custom type `type_path` (one of our reflected
    /// components set as a Tiled custom type), its own or else inherited. They are read from
    /// the map's own properties, so no bevy_ecs_tiled feature is needed (docs/tiled.md).
    pub(super) fn class_property(&self, type_path: &str) -> Option<&Properties> {
        fn find<'p>(properties: &'p Properties, type_path: &str) -> Option<&'p Properties> {
            properties.values().find_map(|value| match value {
                PropertyValue::ClassValue {
                    property_type,
                    properties,
                } if property_type == type_path => Some(properties),
                _ => None,
            })
        }
        find(self.own, type_path).or_else(|| {
            self.inherited
                .and_then(|inherited| find(inherited, type_path))
        })
    }

    /// Warns once that property `name` is `value`, not `expected`; reads it as unset.
    fn wrong<T>(
        &self,
        name: &str,
        value: &PropertyValue,
        expected: &str,
        warnings: &mut TiledWarnings,
    ) -> Option<T> {
        warnings.once(format!(
            "the property {name} of {} is {}, not {expected}; it is ignored",
            self.what,
            describe(value)
        ));
        None
    }
}

/// Whether `source` blocks sight by `config`: its class is listed, its bool property is
/// `true`, or it inherits our reflected `Opaque` as a custom type (a tile object whose tile
/// has it; bevy_ecs_tiled inserts a custom type only on the tile or object that sets it).
pub(super) fn blocks(
    config: &TiledOpacity,
    source: &PropertySource,
    warnings: &mut TiledWarnings,
) -> bool {
    config.blocks_class(source.class)
        || source.bool(config.property.as_deref(), warnings) == Some(true)
        || source.class_property(Opaque::type_path()).is_some()
}

/// The level of high ground `source` stands on by `config`'s int property, if it has one (a
/// level above 15 is warned about where it is used).
pub(super) fn level(
    config: &TiledOpacity,
    source: &PropertySource,
    warnings: &mut TiledWarnings,
) -> Option<Elevation> {
    let level = source.count(config.elevation.as_deref(), warnings)?;
    Some(Elevation(u8::try_from(level).unwrap_or(u8::MAX)))
}

/// A property value as a warning names it.
fn describe(value: &PropertyValue) -> String {
    match value {
        PropertyValue::BoolValue(value) => format!("the bool {value}"),
        PropertyValue::FloatValue(value) => format!("the float {value}"),
        PropertyValue::IntValue(value) => format!("the int {value}"),
        PropertyValue::ColorValue(_) => "a color".into(),
        PropertyValue::StringValue(value) => format!("the string {value:?}"),
        PropertyValue::FileValue(value) => format!("the file {value:?}"),
        PropertyValue::ObjectValue(_) => "an object reference".into(),
        PropertyValue::ListValue(_) => "a list".into(),
        PropertyValue::ClassValue { property_type, .. } => {
            format!("a value of the custom type {property_type}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(own: &Properties) -> PropertySource<'_> {
        PropertySource {
            own,
            inherited: None,
            class: "",
            what: "object Test",
        }
    }

    #[test]
    fn values_of_the_wrong_type_are_ignored_and_warned_about_once() {
        let mut own = Properties::new();
        own.insert(
            "sight_radius".into(),
            PropertyValue::StringValue("six".into()),
        );
        own.insert("team".into(), PropertyValue::IntValue(-1));
        own.insert("block_line_of_sight".into(), PropertyValue::IntValue(1));
        let source = source(&own);
        let mut warnings = TiledWarnings::default();
        assert_eq!(source.count(Some("sight_radius"), &mut warnings), None);
        assert_eq!(source.count(Some("sight_radius"), &mut warnings), None);
        assert_eq!(source.count(Some("team"), &mut warnings), None);
        assert_eq!(
            source.bool(Some("block_line_of_sight"), &mut warnings),
            None
        );
        assert_eq!(warnings.len(), 3, "one warning per property");
        assert!(!blocks(&TiledOpacity::default(), &source, &mut warnings));
    }

    #[test]
    fn a_tile_objects_own_properties_win_over_its_tiles() {
        let mut own = Properties::new();
        own.insert(
            "block_line_of_sight".into(),
            PropertyValue::BoolValue(false),
        );
        let mut tile = Properties::new();
        tile.insert("block_line_of_sight".into(), PropertyValue::BoolValue(true));
        tile.insert("sight_radius".into(), PropertyValue::IntValue(4));
        let source = PropertySource {
            inherited: Some(&tile),
            ..source(&own)
        };
        let mut warnings = TiledWarnings::default();
        assert!(!blocks(&TiledOpacity::default(), &source, &mut warnings));
        assert_eq!(source.count(Some("sight_radius"), &mut warnings), Some(4));
        assert_eq!(
            source.number(Some("sight_radius"), &mut warnings),
            Some(4.0)
        );
        assert_eq!(warnings.len(), 0);
    }
}
