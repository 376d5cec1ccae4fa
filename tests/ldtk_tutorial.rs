//! The LDtk integration used the way bevy_ecs_ldtk's "Tile-based Game" tutorial writes a game:
//! the player and the goal registered with `LdtkEntity` bundles (`#[grid_coords]`, no
//! `EntityInstance`), the walls with an `LdtkIntCell` bundle (no `IntGridCell`), the wall layer
//! drawn by auto-layer rules, the player moved by `GridCoords`, levels switched by
//! `LevelSelection`. The project, `assets/tutorial.ldtk` (written by
//! `assets/make_tutorial_ldtk.py`), is read again here with serde_json, and every level is
//! checked against the core field of view on the file's own IntGrid data; the same game with
//! nothing registered must give the same views.
#![cfg(feature = "ldtk")]

mod common_ldtk;

use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FovOptions;
use bevy_viewshed::OpacityGrid;
use bevy_viewshed::ldtk::{EntityVision, LdtkOpacity, LdtkVision};
use bevy_viewshed::prelude::*;
use common_ldtk::{expected_view, project_app, view_of};
use serde_json::Value;

const PROJECT: &str = "tutorial.ldtk";

// The tutorial's bundles, as its book writes them.

#[derive(Default, Component)]
struct Player;

#[derive(Default, Bundle, LdtkEntity)]
struct PlayerBundle {
    player: Player,
    #[sprite_sheet]
    sprite_sheet: Sprite,
    #[grid_coords]
    grid_coords: GridCoords,
}

#[derive(Default, Component)]
struct Goal;

#[derive(Default, Bundle, LdtkEntity)]
struct GoalBundle {
    goal: Goal,
    #[sprite_sheet]
    sprite_sheet: Sprite,
    #[grid_coords]
    grid_coords: GridCoords,
}

#[derive(Default, Component)]
struct Wall;

#[derive(Default, Bundle, LdtkIntCell)]
struct WallBundle {
    wall: Wall,
}

/// One level of the file: its walls by `TilePos` (row 0 at the bottom) and its entities.
struct LevelData {
    width: u32,
    height: u32,
    walls: Vec<bool>,
    entities: Vec<(String, TilePos)>,
}

/// Every level of `assets/tutorial.ldtk`, read with serde_json.
fn read_levels() -> Vec<LevelData> {
    let path = format!(
        "{}/assets/tutorial.ldtk",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let levels = json["levels"].as_array().unwrap();
    levels.iter().map(read_level).collect()
}

fn read_level(level: &Value) -> LevelData {
    let layers = level["layerInstances"].as_array().unwrap();
    let by_name = |name: &str| layers.iter().find(|l| l["__identifier"] == name).unwrap();
    let wall = by_name("Wall");
    let width = wall["__cWid"].as_u64().unwrap() as u32;
    let height = wall["__cHei"].as_u64().unwrap() as u32;
    let flip = |x: i64, y: i64| TilePos::new(x as u32, height - 1 - y as u32);
    let mut walls = vec![false; (width * height) as usize];
    for (i, value) in wall["intGridCsv"].as_array().unwrap().iter().enumerate() {
        let pos = flip((i as u32 % width).into(), (i as u32 / width).into());
        walls[(pos.y * width + pos.x) as usize] = value.as_i64() == Some(1);
    }
    let entities = by_name("Entities")["entityInstances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let at = flip(
                e["__grid"][0].as_i64().unwrap(),
                e["__grid"][1].as_i64().unwrap(),
            );
            (e["__identifier"].as_str().unwrap().to_string(), at)
        })
        .collect();
    LevelData {
        width,
        height,
        walls,
        entities,
    }
}

impl LevelData {
    fn opacity(&self) -> OpacityGrid {
        OpacityGrid::from_fn(self.width, self.height, |x, y| {
            self.walls[(y * self.width + x) as usize]
        })
    }

    fn position_of(&self, identifier: &str) -> TilePos {
        self.entities
            .iter()
            .find(|(name, _)| name == identifier)
            .map(|&(_, at)| at)
            .unwrap()
    }
}

/// The game: the tutorial's bundles registered (or not), the player a radius-6 viewer that
/// reveals its team's fog, guards radius 4 and spottable, IntGrid value 1 opaque.
fn game(registered: bool) -> App {
    project_app(PROJECT, |app| {
        if registered {
            app.register_ldtk_entity::<PlayerBundle>("Player")
                .register_ldtk_entity::<GoalBundle>("Goal")
                .register_ldtk_int_cell::<WallBundle>(1);
        }
        app.insert_resource(LdtkOpacity::default().int_grid(1))
            .insert_resource(
                LdtkVision::default()
                    .entity("Player", EntityVision::viewer(6).reveals_fog())
                    .entity("Guard", EntityVision::viewer(4).spottable()),
            );
    })
}

/// The LDtk entities with this identifier (by their `Name`, which bevy_ecs_ldtk gives every
/// entity it spawns, registered or not).
fn named(app: &mut App, identifier: &str) -> Vec<Entity> {
    let mut query = app.world_mut().query::<(Entity, &Name)>();
    query
        .iter(app.world())
        .filter(|(_, name)| name.as_str() == identifier)
        .map(|(entity, _)| entity)
        .collect()
}

/// Updates until the level's player has its viewshed, computed.
fn settle(app: &mut App) -> Entity {
    for _ in 0..5_000 {
        app.update();
        let players = named(app, "Player");
        if let [player] = players[..]
            && app
                .world()
                .get::<Viewshed>(player)
                .is_some_and(|v| v.count() > 0)
        {
            return player;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("the level's player never got a view");
}

/// Every level: walls opaque where the file's IntGrid says 1, the player's and the guards'
/// views those of the core on the file's data, the player following its `GridCoords`.
fn every_level_matches_the_file(registered: bool) {
    let levels = read_levels();
    let mut app = game(registered);
    for (index, level) in levels.iter().enumerate() {
        app.insert_resource(LevelSelection::index(index));
        let player = settle(&mut app);
        let grid = level.opacity();
        let options = FovOptions::radius(6);
        let at = level.position_of("Player");
        let view = view_of(app.world().get::<Viewshed>(player).unwrap());
        assert_eq!(
            view,
            expected_view(&grid, at, options),
            "level {index}, the player"
        );
        // Guards are not registered: bevy_ecs_ldtk places them by `Transform` only.
        let mut guards: Vec<Vec<TilePos>> = named(&mut app, "Guard")
            .into_iter()
            .map(|guard| view_of(app.world().get::<Viewshed>(guard).unwrap()))
            .collect();
        let mut expected: Vec<Vec<TilePos>> = level
            .entities
            .iter()
            .filter(|(name, _)| name == "Guard")
            .map(|&(_, at)| expected_view(&grid, at, FovOptions::radius(4)))
            .collect();
        guards.sort();
        expected.sort();
        assert_eq!(guards, expected, "level {index}, the guards");
        if registered {
            let player_marker = app.world().get::<Player>(player).is_some();
            assert!(player_marker, "the game's own bundle is on the player");
        }
        // The player takes a step along the row: by GridCoords, as the tutorial moves it, or
        // (nothing registered, so no GridCoords) by its Transform.
        let step = TilePos::new(at.x + 1, at.y);
        assert!(
            !grid.is_opaque(step.x, step.y),
            "the maps leave room east of the player"
        );
        let mut player_mut = app.world_mut().entity_mut(player);
        if let Some(mut grid_coords) = player_mut.get_mut::<GridCoords>() {
            grid_coords.x += 1;
        } else {
            player_mut.get_mut::<Transform>().unwrap().translation.x += 16.0;
        }
        app.update();
        let view = view_of(app.world().get::<Viewshed>(player).unwrap());
        assert_eq!(
            view,
            expected_view(&grid, step, options),
            "level {index}, moved"
        );
    }
}

#[test]
fn a_game_with_the_tutorials_bundles_gets_opaque_walls_and_seeing_players_on_every_level() {
    every_level_matches_the_file(true);
}

#[test]
fn the_same_game_without_registered_bundles_sees_the_same() {
    every_level_matches_the_file(false);
}

/// A wall cell of a registered `LdtkIntCell` bundle carries no `IntGridCell`: the game opens
/// it by taking `Opaque` away (or by inserting an `IntGridCell` of another value, which the
/// integration then follows).
#[test]
fn a_registered_wall_follows_an_int_grid_cell_the_game_inserts() {
    let levels = read_levels();
    let mut app = game(true);
    app.insert_resource(LevelSelection::index(0));
    let player = settle(&mut app);
    let level = &levels[0];
    // The wall east of the player's room, on the player's row (x = 5 on level 0).
    let at = level.position_of("Player");
    let door = (at.x..level.width)
        .map(|x| TilePos::new(x, at.y))
        .find(|t| level.walls[(t.y * level.width + t.x) as usize])
        .unwrap();
    let layer = common_ldtk::layer(&mut app, "Wall");
    let tile = common_ldtk::tile(&app, layer, door);
    assert!(app.world().get::<Wall>(tile).is_some(), "the game's bundle");
    assert!(
        app.world().get::<Opaque>(tile).is_some(),
        "opaque from the file's data"
    );
    app.world_mut()
        .entity_mut(tile)
        .insert(IntGridCell { value: 0 });
    app.update();
    assert!(
        app.world().get::<Opaque>(tile).is_none(),
        "opened by its new IntGridCell"
    );
    let view = app.world().get::<Viewshed>(player).unwrap();
    assert!(
        view.is_visible(TilePos::new(door.x + 1, door.y)),
        "seen through the door"
    );
}
