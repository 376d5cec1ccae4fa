//! The LDtk data behind what bevy_ecs_ldtk spawned: the level and project above an entity, and
//! the level's own layer instances, so that the integration reads IntGrid values and entity
//! instances from the data bevy_ecs_ldtk loaded, whatever components the game's registered
//! bundles put on the spawned entities.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_ldtk::assets::{LdtkProject, LevelMetadataAccessor};
use bevy_ecs_ldtk::ldtk::raw_level_accessor::RawLevelAccessor;
use bevy_ecs_ldtk::ldtk::{LayerInstance, Level};
use bevy_ecs_ldtk::{EntityInstance, LdtkProjectHandle, LevelIid};

/// How many parents are climbed from an entity to its level and project.
const MAX_DEPTH: usize = 8;

/// Finds the LDtk data of spawned entities.
#[derive(SystemParam)]
pub(super) struct ProjectData<'w, 's> {
    parents: Query<'w, 's, &'static ChildOf>,
    levels: Query<'w, 's, &'static LevelIid>,
    handles: Query<'w, 's, &'static LdtkProjectHandle>,
    projects: Option<Res<'w, Assets<LdtkProject>>>,
}

impl ProjectData<'_, '_> {
    /// The level entity above `entity`, if any (a `Worldly` entity has none).
    pub(super) fn level_of(&self, entity: Entity) -> Option<Entity> {
        self.parents
            .iter_ancestors(entity)
            .take(MAX_DEPTH)
            .find(|&e| self.levels.contains(e))
    }

    /// The project loaded for the world above `entity`.
    fn project_of(&self, entity: Entity) -> Option<&LdtkProject> {
        let world = self
            .parents
            .iter_ancestors(entity)
            .take(MAX_DEPTH)
            .find(|&e| self.handles.contains(e))?;
        let handle = self.handles.get(world).ok()?;
        self.projects.as_ref()?.get(&handle.handle)
    }

    /// The raw data of the level above `entity`.
    fn level_data(&self, entity: Entity) -> Option<&Level> {
        let level = self.levels.get(self.level_of(entity)?).ok()?;
        self.project_of(entity)?.get_raw_level_by_iid(level.get())
    }

    /// The layer instance `iid` of the level above `entity`; `None` when the project holds no
    /// layer data for that level (external levels) or has no such layer.
    pub(crate) fn layer(&self, entity: Entity, iid: &str) -> Option<&LayerInstance> {
        self.level_data(entity)?
            .layer_instances
            .as_ref()?
            .iter()
            .find(|layer| layer.iid == iid)
    }

    /// The entity instance `iid`, looked for in the level above `entity` (or, for an entity
    /// above no level, every level of its project).
    pub(super) fn entity_instance(&self, entity: Entity, iid: &str) -> Option<&EntityInstance> {
        match self.level_data(entity) {
            Some(level) => instances(level).find(|instance| instance.iid == iid),
            None => self
                .project_of(entity)?
                .iter_raw_levels()
                .flat_map(instances)
                .find(|instance| instance.iid == iid),
        }
    }
}

/// The entity instances of a level (none when the project holds no layer data for it).
fn instances(level: &Level) -> impl Iterator<Item = &EntityInstance> {
    level
        .layer_instances
        .iter()
        .flatten()
        .flat_map(|layer| &layer.entity_instances)
}
