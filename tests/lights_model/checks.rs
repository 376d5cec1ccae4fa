//! The checks, in a second `impl Harness` block: after every update, each view, lit set and
//! the map's `Lighting` against the model; at the end of a game, the `Lighting` against a new
//! app's, bit for bit.

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Lighting;
use bevy_viewshed::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::common_app::{self, seen};
use crate::harness::{Harness, spawn_model_map, tile_pos};
use crate::rules::{Model, Tiles};

impl Harness {
    /// Runs an update, then holds the app to the model.
    pub(crate) fn update(&mut self) -> Result<(), TestCaseError> {
        self.app.update();
        check(&self.app, self.map, &self.model)
    }

    /// At the end of a game: the sums are exact ([`check_exact`]).
    pub(crate) fn check_exact(&self) -> Result<(), TestCaseError> {
        check_exact(&self.app, self.map, &self.model)
    }
}

pub(crate) fn lighting(app: &App, map: Entity) -> &Lighting {
    app.world().get::<Lighting>(map).expect("map has Lighting")
}

/// Checks the app against the model: each view (and `NeedsLight::field_of_view`), each
/// enabled light's lit set, and the map's `Lighting` on every tile (and off the map).
pub(crate) fn check(app: &App, map: Entity, model: &Model) -> Result<(), TestCaseError> {
    let world = app.world();
    for thing in model.things.iter().filter(|thing| thing.enabled) {
        if let Some(lamp) = thing.light {
            let light = world.get::<LightSource>(thing.entity).unwrap();
            let lit: Tiles = light.lit().map(|t| (t.x, t.y)).collect();
            prop_assert_eq!(lit, model.lit_by(thing, lamp), "light {}", thing.entity);
        }
        if let Some(eye) = thing.viewer {
            let (fov, want) = model.view(thing, eye);
            let got: Tiles = seen(app, thing.entity).into_iter().collect();
            prop_assert_eq!(got, want, "viewer {} at {:?}", thing.entity, thing.at);
            if eye.dark.is_some() {
                let needs = world.get::<NeedsLight>(thing.entity).unwrap();
                let got: Tiles = needs.field_of_view().map(|t| (t.x, t.y)).collect();
                prop_assert_eq!(got, fov, "field of view of {}", thing.entity);
            }
        }
    }
    let lighting = lighting(app, map);
    let (w, h) = model.kind.size();
    let mut lit = BTreeSet::new();
    for y in 0..h {
        for x in 0..w {
            let tile = TilePos { x, y };
            let (count, want) = model.light_at((x, y));
            prop_assert_eq!(lighting.lights_at(tile), count, "lights at {:?}", (x, y));
            prop_assert_eq!(lighting.is_lit(tile), count > 0);
            if count > 0 {
                lit.insert((x, y));
            }
            let got = lighting.light_at(tile);
            for (got, want) in [got.red, got.green, got.blue].into_iter().zip(want) {
                // Each light is added in 1/1024ths, rounded; with no light the tile is
                // exactly black (nothing left behind by lights gone).
                let tolerance = f64::from(count) / 1024.0 + want * 1e-6;
                prop_assert!(
                    (f64::from(got) - want).abs() <= tolerance,
                    "light at {:?}: {} for {} from {} lights",
                    (x, y),
                    got,
                    want,
                    count
                );
            }
            prop_assert_eq!(
                lighting.brightness(tile),
                got.red.max(got.green).max(got.blue)
            );
        }
    }
    let lit_tiles: Tiles = lighting.lit_tiles().map(|t| (t.x, t.y)).collect();
    prop_assert_eq!(lit_tiles, lit);
    for off in [(w, 0), (0, h), (u32::MAX, u32::MAX)] {
        prop_assert_eq!(lighting.lights_at(tile_pos(off)), 0);
        prop_assert_eq!(lighting.brightness(tile_pos(off)), 0.0);
    }
    Ok(())
}

/// The sums are exact: the map's `Lighting` after a whole game is, bit for bit, that of a new
/// app where the lights that shine at the end were spawned at once.
pub(crate) fn check_exact(app: &App, map: Entity, model: &Model) -> Result<(), TestCaseError> {
    let mut fresh = common_app::app();
    let fresh_map = spawn_model_map(&mut fresh, model.kind, &model.grid);
    for thing in model
        .things
        .iter()
        .filter(|thing| thing.enabled && thing.mapped)
    {
        if let Some(lamp) = thing.light {
            fresh
                .world_mut()
                .spawn((lamp.component(), tile_pos(thing.at), TilemapId(fresh_map)));
        }
    }
    fresh.update();
    let (w, h) = model.kind.size();
    let (played, new) = (lighting(app, map), lighting(&fresh, fresh_map));
    for y in 0..h {
        for x in 0..w {
            let tile = TilePos { x, y };
            prop_assert_eq!(played.lights_at(tile), new.lights_at(tile));
            let bits = |l: LinearRgba| [l.red, l.green, l.blue].map(f32::to_bits);
            prop_assert_eq!(
                bits(played.light_at(tile)),
                bits(new.light_at(tile)),
                "light at {:?}",
                (x, y)
            );
        }
    }
    Ok(())
}
