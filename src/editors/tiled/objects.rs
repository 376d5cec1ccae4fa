//! Tiled objects that block sight, see, are seen, hide or light: the components
//! [`TiledOpacity`] and [`TiledVision`] give them from their class and custom properties (or
//! their tile's, for a tile object), read when their map is spawned; their opacity is read
//! again when `TiledOpacity` changes. Where they stand is `place.rs`'s job.

use bevy::ecs::query::QueryData;
use bevy::prelude::*;
use bevy::reflect::TypePath;
use bevy_ecs_tiled::prelude::{TiledMapReference, TiledObject, TiledObjectId, tiled};

use crate::editors::tiled::TiledWarnings;
use crate::editors::tiled::config::{ObjectVision, TiledOpacity, TiledVision, VisionProperties};
use crate::editors::tiled::data::{TiledData, map_name};
use crate::editors::tiled::opaque_tiles::TiledTerrain;
use crate::editors::tiled::properties::{PropertySource, blocks, level};
use crate::fog::{RevealsFog, Team};
use crate::ghosts::{HidesOutsideView, LeavesGhost};
use crate::sightings::CanBeSpotted;
use viewshed_core::options::VisionCone;

/// What an object's components are decided from.
#[derive(QueryData)]
pub(super) struct ObjectOpacity {
    entity: Entity,
    id: &'static TiledObjectId,
    map: &'static TiledMapReference,
    object: &'static TiledObject,
    terrain: TiledTerrain,
}

/// Gives the objects spawned since the last update what [`TiledOpacity`] and [`TiledVision`]
/// say; when `TiledOpacity` changed, gives every object its opacity again.
pub(super) fn read_objects(
    (opacity, vision): (Res<TiledOpacity>, Res<TiledVision>),
    new: Query<ObjectOpacity, Added<TiledObject>>,
    all: Query<ObjectOpacity, With<TiledObject>>,
    data: TiledData,
    mut warnings: ResMut<TiledWarnings>,
    mut commands: Commands,
) {
    let items: Vec<(ObjectOpacityItem, bool)> = if opacity.is_changed() {
        all.iter()
            .map(|item| {
                let is_new = new.contains(item.entity);
                (item, is_new)
            })
            .collect()
    } else {
        new.iter().map(|item| (item, true)).collect()
    };
    for (object, is_new) in items {
        let Some((asset, tiled_object)) = data.object(object.map.0, object.id.0) else {
            continue;
        };
        let what = format!(
            "object {} (id {}) of map {}",
            tiled_object.name,
            object.id.0,
            map_name(asset)
        );
        let tile = tiled_object.get_tile();
        let tile = tile.as_ref().and_then(|tile| tile.get_tile());
        let class = class_of(&tiled_object, tile.as_ref());
        let source = PropertySource {
            own: &tiled_object.properties,
            inherited: tile.as_ref().map(|tile| &tile.properties),
            class: &class,
            what: &what,
        };
        let wanted = (
            blocks(&opacity, &source, &mut warnings),
            level(&opacity, &source, &mut warnings),
        );
        object.terrain.set(&mut commands, object.entity, wanted);
        if !is_new {
            continue;
        }
        let wanted = vision_of(&vision, &source, &mut warnings);
        // A tile object is drawn as a sprite: under the fog, as its tile is, unless it is one
        // that moves (hidden out of view, or leaving a ghost).
        #[cfg(feature = "render")]
        if matches!(object.object, TiledObject::Tile { .. }) && !wanted.is_some_and(|v| v.moves()) {
            crate::draw::sprites::fog_imported_sprite(&mut commands.entity(object.entity));
        }
        if let Some(wanted) = wanted {
            wanted.insert(&mut commands.entity(object.entity));
        }
    }
}

/// An object's class: its own, or else its tile's (a tile object).
fn class_of(object: &tiled::Object, tile: Option<&tiled::Tile>) -> String {
    match tile {
        Some(tile) if object.user_type.is_empty() => tile.user_type.clone(),
        _ => object.user_type.clone(),
    }
}

/// What an object gets: its class's [`ObjectVision`] with its properties applied, or `None`
/// when it gets nothing.
fn vision_of(
    config: &TiledVision,
    source: &PropertySource,
    warnings: &mut TiledWarnings,
) -> Option<ObjectVision> {
    let mut vision = config.for_class(source.class).unwrap_or_default();
    let names = &config.properties;
    fn name(name: &Option<String>) -> Option<&str> {
        name.as_deref()
    }
    if let Some(radius) = source.count(name(&names.sight_radius), warnings) {
        vision.radius = Some(radius);
    }
    if let Some(cone) = cone_of(names, source, warnings) {
        vision.cone = Some(cone);
    }
    if let Some(team) = source.count(name(&names.team), warnings) {
        vision.team = Some(team);
    }
    if let Some(light) = source.count(name(&names.light_radius), warnings) {
        vision.light = Some(light);
    }
    let mut flag = |name: &Option<String>, field: &mut bool| {
        if let Some(value) = source.bool(name.as_deref(), warnings) {
            *field = value;
        }
    };
    flag(&names.reveals_fog, &mut vision.reveals_fog);
    flag(&names.can_be_spotted, &mut vision.spottable);
    flag(&names.hides_outside_view, &mut vision.hide_outside_view);
    flag(&names.leaves_ghost, &mut vision.leaves_ghost);
    from_our_types(source, &mut vision, warnings);
    (vision != ObjectVision::default()).then_some(vision)
}

/// What our reflected components set as Tiled custom types give an object: the markers, and
/// a `Team` by its member `0`.
fn from_our_types(
    source: &PropertySource,
    vision: &mut ObjectVision,
    warnings: &mut TiledWarnings,
) {
    for (type_path, field) in [
        (RevealsFog::type_path(), &mut vision.reveals_fog),
        (CanBeSpotted::type_path(), &mut vision.spottable),
        (HidesOutsideView::type_path(), &mut vision.hide_outside_view),
        (LeavesGhost::type_path(), &mut vision.leaves_ghost),
    ] {
        *field |= source.class_property(type_path).is_some();
    }
    if let Some(members) = source.class_property(Team::type_path()) {
        let members = PropertySource {
            own: members,
            inherited: None,
            ..*source
        };
        vision.team = Some(members.count(Some("0"), warnings).unwrap_or(0));
    }
}

/// The vision cone an object's properties give: a width, facing the direction given (or +x).
fn cone_of(
    names: &VisionProperties,
    source: &PropertySource,
    warnings: &mut TiledWarnings,
) -> Option<VisionCone> {
    let width = source.number(names.sight_cone_width.as_deref(), warnings)?;
    let facing = source
        .number(names.sight_cone_facing.as_deref(), warnings)
        .unwrap_or(0.0);
    Some(VisionCone::degrees(facing, width))
}
