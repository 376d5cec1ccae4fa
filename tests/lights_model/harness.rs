//! The app and its driver: the [`Harness`] holds a headless app with one map and the
//! [`Model`] of what it did, and plays each op on both. The checks it runs are in `checks.rs`.

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::OpacityGrid;
use bevy_viewshed::prelude::*;

use crate::common_app::{app, spawn_map, tile_entity};
use crate::ops::{Kind, Op};
use crate::rules::{Eye, Lamp, Model, Thing};

/// A game: the app, its map and the model.
pub(crate) struct Harness {
    pub(crate) app: App,
    pub(crate) map: Entity,
    pub(crate) model: Model,
}

impl Harness {
    /// A map of `kind` with these walls, and nothing on it.
    pub(crate) fn new(kind: Kind, grid: OpacityGrid) -> Self {
        let mut app = app();
        let map = spawn_model_map(&mut app, kind, &grid);
        let model = Model {
            kind,
            grid,
            things: vec![],
        };
        Self { app, map, model }
    }

    /// Plays one op on the app and the model.
    pub(crate) fn apply(&mut self, op: Op) {
        apply(&mut self.app, self.map, &mut self.model, op);
    }
}

/// A map of `kind` with the model's walls.
pub(crate) fn spawn_model_map(app: &mut App, kind: Kind, grid: &OpacityGrid) -> Entity {
    let (w, h) = kind.size();
    let map = spawn_map(app, w, h, |x, y| grid.is_opaque(x, y));
    app.world_mut().entity_mut(map).insert(kind.tilemap_type());
    map
}

pub(crate) fn tile_pos((x, y): (u32, u32)) -> TilePos {
    TilePos { x, y }
}

/// Plays one op on the app and the model.
pub(crate) fn apply(app: &mut App, map: Entity, model: &mut Model, op: Op) {
    let size = model.kind.size();
    let any = |_: &Thing| true;
    let lit = |thing: &Thing| thing.light.is_some();
    let sees = |thing: &Thing| thing.viewer.is_some();
    let world = app.world_mut();
    match op {
        Op::SpawnLight(at, radius, look, beam) => {
            let at = at.on(size);
            let lamp = Lamp { radius, look, beam };
            let entity = world
                .spawn((lamp.component(), tile_pos(at), TilemapId(map)))
                .id();
            model.things.push(Thing {
                entity,
                at,
                mapped: true,
                enabled: true,
                light: Some(lamp),
                viewer: None,
            });
        }
        Op::SpawnViewer(at, options, dark, lantern) => {
            let at = at.on(size);
            let mut viewer = world.spawn((
                Viewshed::with_options(options),
                tile_pos(at),
                TilemapId(map),
            ));
            if let Some(dark) = dark {
                viewer.insert(NeedsLight::new(dark));
            }
            let light = lantern.map(|(radius, look, beam)| Lamp { radius, look, beam });
            if let Some(lamp) = light {
                viewer.insert(lamp.component());
            }
            model.things.push(Thing {
                entity: viewer.id(),
                at,
                mapped: true,
                enabled: true,
                light,
                viewer: Some(Eye { options, dark }),
            });
        }
        Op::Despawn(i) => {
            if let Some(i) = model.pick(i, any) {
                world.despawn(model.things.remove(i).entity);
            }
        }
        Op::Move(i, at) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                thing.at = at.on(size);
                *world.get_mut::<TilePos>(thing.entity).unwrap() = tile_pos(thing.at);
            }
        }
        Op::Disable(i) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                let mut entity = world.entity_mut(thing.entity);
                if thing.enabled {
                    entity.insert(Disabled);
                } else {
                    entity.remove::<Disabled>();
                }
                thing.enabled = !thing.enabled;
            }
        }
        Op::Unmap(i) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                let mut entity = world.entity_mut(thing.entity);
                if thing.mapped {
                    entity.remove::<TilemapId>();
                } else {
                    entity.insert(TilemapId(map));
                }
                thing.mapped = !thing.mapped;
            }
        }
        Op::Toggle(at) => {
            let (x, y) = at.tile(size);
            let opaque = !model.grid.is_opaque(x, y);
            model.grid.set_opaque(x, y, opaque);
            let tile = tile_entity(app, map, x, y);
            let mut tile = app.world_mut().entity_mut(tile);
            if opaque {
                tile.insert(Opaque);
            } else {
                tile.remove::<Opaque>();
            }
        }
        Op::Radius(i, radius) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                world.get_mut::<LightSource>(thing.entity).unwrap().radius = radius;
                thing.light.as_mut().unwrap().radius = radius;
            }
        }
        Op::Recolor(i, look) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                let mut light = world.get_mut::<LightSource>(thing.entity).unwrap();
                light.color = look.color;
                light.intensity = look.intensity;
                thing.light.as_mut().unwrap().look = look;
            }
        }
        Op::Aim(i, beam) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                world.get_mut::<LightSource>(thing.entity).unwrap().cone = beam;
                thing.light.as_mut().unwrap().beam = beam;
            }
        }
        Op::InsertLight(i, radius, look, beam) => {
            if let Some(i) = model.pick(i, any) {
                let thing = &mut model.things[i];
                let lamp = Lamp { radius, look, beam };
                world.entity_mut(thing.entity).insert(lamp.component());
                thing.light = Some(lamp);
            }
        }
        Op::ReplaceLight(i, radius, look, beam) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                let lamp = Lamp { radius, look, beam };
                *world.get_mut::<LightSource>(thing.entity).unwrap() = lamp.component();
                thing.light = Some(lamp);
            }
        }
        Op::RemoveLight(i) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = &mut model.things[i];
                world.entity_mut(thing.entity).remove::<LightSource>();
                thing.light = None;
            }
        }
        Op::SpawnClone(i, at) => {
            if let Some(i) = model.pick(i, lit) {
                let thing = model.things[i];
                let light = world.get::<LightSource>(thing.entity).unwrap().clone();
                let at = at.on(size);
                let entity = world.spawn((light, tile_pos(at), TilemapId(map))).id();
                model.things.push(Thing {
                    entity,
                    at,
                    mapped: true,
                    enabled: true,
                    light: thing.light,
                    viewer: None,
                });
            }
        }
        Op::CopyLight(i, j, insert) => {
            if let (Some(i), Some(j)) = (model.pick(i, lit), model.pick(j, any)) {
                let light = world
                    .get::<LightSource>(model.things[i].entity)
                    .unwrap()
                    .clone();
                let target = model.things[j].entity;
                match world.get_mut::<LightSource>(target) {
                    Some(mut old) if !insert => *old = light,
                    _ => {
                        world.entity_mut(target).insert(light);
                    }
                }
                model.things[j].light = model.things[i].light;
            }
        }
        Op::CloneThing(i) => {
            if let Some(i) = model.pick(i, any) {
                let mut thing = model.things[i];
                thing.entity = world.entity_mut(thing.entity).clone_and_spawn();
                // Bevy clones `Disabled` with the rest (a clone of a disabled entity is
                // disabled), and the tilemap the thing stands on, if any.
                model.things.push(thing);
            }
        }
        Op::DarkVision(i, dark) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let eye = thing.viewer.as_mut().unwrap();
                if let Some(mut needs) = world.get_mut::<NeedsLight>(thing.entity) {
                    needs.dark_vision = dark;
                    eye.dark = Some(dark);
                }
            }
        }
        Op::InsertNeedsLight(i, dark) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                world.entity_mut(thing.entity).insert(NeedsLight::new(dark));
                thing.viewer.as_mut().unwrap().dark = Some(dark);
            }
        }
        Op::ReplaceNeedsLight(i, dark) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let eye = thing.viewer.as_mut().unwrap();
                if let Some(mut needs) = world.get_mut::<NeedsLight>(thing.entity) {
                    *needs = NeedsLight::new(dark);
                    eye.dark = Some(dark);
                }
            }
        }
        Op::RemoveNeedsLight(i) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                world.entity_mut(thing.entity).remove::<NeedsLight>();
                thing.viewer.as_mut().unwrap().dark = None;
            }
        }
        Op::Options(i, options) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                world.get_mut::<Viewshed>(thing.entity).unwrap().options = options;
                thing.viewer.as_mut().unwrap().options = options;
            }
        }
        Op::InsertViewshed(i, options) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let options = options.unwrap_or(thing.viewer.unwrap().options);
                world
                    .entity_mut(thing.entity)
                    .insert(Viewshed::with_options(options));
                thing.viewer.as_mut().unwrap().options = options;
            }
        }
        Op::ReplaceViewshed(i, options) => {
            if let Some(i) = model.pick(i, sees) {
                let thing = &mut model.things[i];
                let options = options.unwrap_or(thing.viewer.unwrap().options);
                *world.get_mut::<Viewshed>(thing.entity).unwrap() = Viewshed::with_options(options);
                thing.viewer.as_mut().unwrap().options = options;
            }
        }
    }
}
