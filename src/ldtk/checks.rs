//! The configuration held against each LDtk project when it loads: an entity identifier, an
//! IntGrid layer or an enum tag that the project does not define is warned about once (a
//! typo would otherwise leave a wall see-through or a monster blind, silently).

use bevy::asset::AssetEvent;
use bevy::prelude::*;
use bevy_ecs_ldtk::assets::LdtkProject;
use bevy_ecs_ldtk::ldtk::{Definitions, Type};

use crate::ldtk::LdtkWarnings;
use crate::ldtk::config::{LdtkOpacity, LdtkVision};

/// Checks [`LdtkOpacity`] and [`LdtkVision`] against each project loaded or modified.
pub(crate) fn check_config(
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
            for problem in problems(&project.json_data().defs, &opacity, &vision) {
                warnings.once(problem);
            }
        }
    }
}

/// What the configuration names that `defs` does not define.
pub(crate) fn problems(
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
