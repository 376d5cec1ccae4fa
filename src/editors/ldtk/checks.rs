//! The configuration held against each LDtk project when it loads: an entity identifier, an
//! IntGrid layer or an enum tag that the project does not define is warned about once (a
//! typo would otherwise leave a wall see-through or a monster blind, silently).

use bevy::asset::AssetEvent;
use bevy::prelude::*;
use bevy_ecs_ldtk::assets::LdtkProject;
use bevy_ecs_ldtk::ldtk::raw_level_accessor::RawLevelAccessor;
use bevy_ecs_ldtk::ldtk::{Definitions, LdtkJson, Type};

use crate::editors::ldtk::LdtkWarnings;
use crate::editors::ldtk::config::{LdtkOpacity, LdtkVision};

/// Checks [`LdtkOpacity`] and [`LdtkVision`] against each project loaded or modified.
pub(super) fn check_config(
    mut events: MessageReader<AssetEvent<LdtkProject>>,
    projects: Res<Assets<LdtkProject>>,
    opacity: Res<LdtkOpacity>,
    vision: Res<LdtkVision>,
    mut warnings: ResMut<LdtkWarnings>,
) {
    for event in events.read() {
        let (AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id }) = event
        else {
            continue;
        };
        if let Some(project) = projects.get(*id) {
            let problems = problems(&project.json_data().defs, &opacity, &vision);
            for problem in problems
                .into_iter()
                .chain(unplaced(project.json_data(), &vision))
            {
                warnings.once(problem);
            }
        }
    }
}

/// What the configuration names that `defs` does not define.
pub(super) fn problems(
    defs: &Definitions,
    opacity: &LdtkOpacity,
    vision: &LdtkVision,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (identifier, _) in &vision.entities {
        if !defs.entities.iter().any(|e| e.identifier == *identifier) {
            problems.push(format!(
                "LdtkVision names the entity {identifier}, which the LDtk project does not \
                 define; no entity gets its vision"
            ));
        }
    }
    for layer in opacity
        .int_grid
        .iter()
        .filter_map(|rule| rule.layer.as_ref())
    {
        let is_int_grid = |l: &&bevy_ecs_ldtk::ldtk::LayerDefinition| {
            l.identifier == *layer && l.purple_type == Type::IntGrid
        };
        if !defs.layers.iter().any(|l| is_int_grid(&l)) {
            problems.push(format!(
                "LdtkOpacity names the IntGrid layer {layer}, which the LDtk project does not \
                 define; its values block nothing"
            ));
        }
    }
    let enums = || defs.enums.iter().chain(&defs.external_enums);
    for tag in &opacity.enum_tags {
        if !enums().any(|e| e.values.iter().any(|v| v.id == *tag)) {
            problems.push(format!(
                "LdtkOpacity names the enum tag {tag}, which no enum of the LDtk project has; \
                 it blocks nothing"
            ));
        }
    }
    problems
}

/// The entity identifiers [`LdtkVision`] names that the project defines but no level places
/// (checked only when the project holds its levels' data: not with external levels).
fn unplaced(project: &LdtkJson, vision: &LdtkVision) -> Vec<String> {
    let levels: Vec<_> = project.iter_raw_levels().collect();
    if levels.iter().any(|level| level.layer_instances.is_none()) {
        return Vec::new();
    }
    let placed = |identifier: &str| {
        levels
            .iter()
            .flat_map(|level| level.layer_instances.iter().flatten())
            .flat_map(|layer| &layer.entity_instances)
            .any(|instance| instance.identifier == identifier)
    };
    let defined = |identifier: &str| {
        let defs = &project.defs.entities;
        defs.iter().any(|e| e.identifier == identifier)
    };
    vision
        .entities
        .iter()
        .filter(|(identifier, _)| defined(identifier) && !placed(identifier))
        .map(|(identifier, _)| {
            format!(
                "LdtkVision names the entity {identifier}, which no level of the LDtk project \
                 places; no entity gets its vision until one does"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editors::ldtk::config::EntityVision;

    #[test]
    fn an_entity_defined_but_placed_in_no_level_is_reported() {
        let path = format!(
            "{}/assets/tutorial.ldtk",
            std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let project: LdtkJson = serde_json::from_str(&text).unwrap();
        let vision = LdtkVision::default()
            .entity("Player", EntityVision::viewer(6))
            .entity("Chest", EntityVision::viewer(1))
            .entity("Dragon", EntityVision::viewer(1));
        // Dragon is not defined at all: `problems` reports that one.
        let unplaced = unplaced(&project, &vision);
        assert_eq!(unplaced.len(), 1, "{unplaced:?}");
        assert!(unplaced[0].contains("Chest"));
    }
}
