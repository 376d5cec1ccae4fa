//! LDtk entities that see, are seen or hide: the components [`LdtkVision`] gives them, and
//! their place on their level's map (`TilemapId` of the level's root layer; `TilePos` from
//! `GridCoords` when they have it, else their `Transform` places them).

use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::FieldValue;
use bevy_ecs_ldtk::{EntityIid, EntityInstance, GridCoords, LevelIid};
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::editors::ldtk::LdtkWarnings;
use crate::editors::ldtk::config::{EntityVision, LdtkVision};
use crate::editors::ldtk::project::ProjectData;
use crate::layers::groups::LayerGroup;

/// On an LDtk entity this integration has read (whether it gave it anything or not).
#[derive(Component, Clone, Copy, Debug, Default)]
pub(super) struct VisionRead;

/// On an LDtk entity this integration placed on its level's map.
#[derive(Component, Clone, Copy, Debug, Default)]
pub(super) struct PlacedOnLevel;

/// Where an entity's level map is.
enum LevelMap {
    /// The root tilemap of its level.
    Found(Entity),
    /// Its level has no tilemap yet: look again at the next update.
    NotYet,
    /// It is not below a level (e.g. a `Worldly` entity).
    NoLevel,
}

/// The LDtk entities not read yet: all carry an `EntityIid`; those of no registered bundle
/// (or of a bundle with `#[from_entity_instance]`) also carry their `EntityInstance`.
type NewLdtkEntity = (
    Entity,
    Option<&'static EntityInstance>,
    Option<&'static EntityIid>,
    Option<&'static GridCoords>,
);

/// LDtk entities whose vision was not read yet.
type Unread = (
    Without<VisionRead>,
    Or<(With<EntityInstance>, With<EntityIid>)>,
);

/// Gives the LDtk entities spawned since the last update what [`LdtkVision`] says, and
/// places them on their level's map. An entity's identifier and fields come from its
/// `EntityInstance`, or from the project's data by its `EntityIid` when a registered bundle
/// left the instance out.
pub(super) fn give_vision(
    vision: Res<LdtkVision>,
    new: Query<NewLdtkEntity, Unread>,
    project: ProjectData,
    levels: Query<&LayerGroup, With<LevelIid>>,
    mut warnings: ResMut<LdtkWarnings>,
    mut commands: Commands,
) {
    for (entity, instance, iid, grid) in &new {
        let Some(instance) = instance.or_else(|| project.entity_instance(entity, iid?.as_str()))
        else {
            warnings.once(format!(
                "entity {entity} has an EntityIid that no level of its LDtk project holds (or \
                 its project is not loaded), so LdtkVision cannot tell what it is; give it an \
                 EntityInstance (#[from_entity_instance] in its bundle) or its components \
                 yourself"
            ));
            commands.entity(entity).try_insert(VisionRead);
            continue;
        };
        let wanted = vision_of(&vision, instance, &mut warnings);
        let sprite = fogs_sprite(instance, wanted);
        if wanted.is_none() && !sprite {
            commands.entity(entity).try_insert(VisionRead);
            continue;
        }
        let map = match level_map(entity, &project, &levels) {
            LevelMap::Found(map) => map,
            LevelMap::NotYet => continue,
            LevelMap::NoLevel => {
                warnings.once(format!(
                    "entity {entity} ({}) is not below an LDtk level (a Worldly entity?), so it \
                     stands on no map; give it a TilemapId yourself",
                    instance.identifier
                ));
                commands.entity(entity).try_insert(VisionRead);
                continue;
            }
        };
        let mut placed = commands.entity(entity);
        place_on_level(&mut placed, map, grid, wanted.unwrap_or_default());
        #[cfg(feature = "render")]
        if sprite {
            crate::draw::sprites::fog_imported_sprite(&mut placed);
        }
    }
}

/// Whether an LDtk entity drawn as a sprite (it has a tile in LDtk) goes under the fog: unless
/// it is a thing that moves ([`EntityVision::moves`]).
#[cfg(feature = "render")]
fn fogs_sprite(instance: &EntityInstance, wanted: Option<EntityVision>) -> bool {
    instance.tile.is_some() && !wanted.is_some_and(|vision| vision.moves())
}

/// Without the `render` feature no sprite is drawn.
#[cfg(not(feature = "render"))]
fn fogs_sprite(_: &EntityInstance, _: Option<EntityVision>) -> bool {
    false
}

/// Gives an LDtk entity its place on its level's `map` (unless the game gave one) and what
/// [`LdtkVision`] wants of it.
fn place_on_level(
    commands: &mut EntityCommands,
    map: Entity,
    grid: Option<&GridCoords>,
    wanted: EntityVision,
) {
    commands.try_insert((VisionRead, PlacedOnLevel));
    commands.try_insert_if_new(TilemapId(map));
    if let Some(&grid) = grid {
        commands.try_insert_if_new(tile_of(grid));
    }
    wanted.insert(commands);
}

/// Entities placed on a level that the game moved.
type MovedOnLevel = (Changed<GridCoords>, With<PlacedOnLevel>);

/// Keeps the `TilePos` of placed entities on their `GridCoords` when the game moves them.
pub(super) fn follow_grid_coords(
    moved: Query<(Entity, &GridCoords), MovedOnLevel>,
    mut commands: Commands,
) {
    for (entity, &grid) in &moved {
        commands.entity(entity).try_insert(tile_of(grid));
    }
}

/// The tile at LDtk grid coordinates (bevy_ecs_ldtk's `GridCoords` count from the bottom
/// left, as `TilePos` does); negative coordinates become a tile off the map, which the plugin
/// warns about.
fn tile_of(grid: GridCoords) -> TilePos {
    let coord = |c: i32| u32::try_from(c).unwrap_or(u32::MAX);
    TilePos::new(coord(grid.x), coord(grid.y))
}

/// What `instance` gets: its identifier's [`EntityVision`] with its fields applied, or `None`
/// when it gets nothing.
fn vision_of(
    config: &LdtkVision,
    instance: &EntityInstance,
    warnings: &mut LdtkWarnings,
) -> Option<EntityVision> {
    let mut vision = config
        .for_identifier(&instance.identifier)
        .unwrap_or_default();
    let mut field = |name: &Option<String>| {
        let name = name.as_deref()?;
        int_field(instance, name, warnings)
    };
    if let Some(radius) = field(&config.radius_field) {
        vision.radius = Some(radius);
    }
    if let Some(team) = field(&config.team_field) {
        vision.team = Some(team);
    }
    (vision != EntityVision::default()).then_some(vision)
}

/// The value of the Int field `name` of `instance`, if it has one that is not negative.
fn int_field(instance: &EntityInstance, name: &str, warnings: &mut LdtkWarnings) -> Option<u32> {
    let field = instance
        .field_instances
        .iter()
        .find(|field| field.identifier == name)?;
    let problem = match field.value {
        FieldValue::Int(None) => return None,
        FieldValue::Int(Some(value)) => match u32::try_from(value) {
            Ok(value) => return Some(value),
            Err(_) => format!("is {value}, a negative number"),
        },
        _ => format!("is a {} field, not an Int", field.field_instance_type),
    };
    warnings.once(format!(
        "the field {name} of LDtk entity {} {problem}; it is ignored",
        instance.identifier
    ));
    None
}

/// The root tilemap of the level above `entity`.
fn level_map(
    entity: Entity,
    project: &ProjectData,
    levels: &Query<&LayerGroup, With<LevelIid>>,
) -> LevelMap {
    let Some(level) = project.level_of(entity) else {
        return LevelMap::NoLevel;
    };
    levels
        .get(level)
        .ok()
        .and_then(LayerGroup::root)
        .map_or(LevelMap::NotYet, LevelMap::Found)
}
