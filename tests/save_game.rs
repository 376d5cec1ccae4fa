//! With the `serde` feature: the explored memory, the ghosts of remembered monsters and the
//! viewsheds survive a save game (a JSON round trip), and a loaded game shows what had been
//! explored.
#![cfg(feature = "serde")]

mod common_app;

use std::f64::consts::FRAC_PI_2;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::save_format::SAVE_FORMAT;
use bevy_viewshed::{DistanceShape, FovMode, FovOptions, VisionCone};
use bevy_viewshed::{ExploredMemory, MemoryError};
use bevy_viewshed::{Radius, Team};
use common_app::{app, spawn_map, spawn_player, tile_entity, viewshed};

fn walls(x: u32, _y: u32) -> bool {
    x == 10
}

#[test]
fn the_explored_memory_survives_a_save_game() {
    // Play: the player explores the west half, an ally team sees the east.
    let mut game = app();
    let map = spawn_map(&mut game, 20, 8, walls);
    let player = game
        .world_mut()
        .spawn((
            Viewshed::new(5),
            RevealsFog,
            TilePos { x: 3, y: 3 },
            TilemapId(map),
        ))
        .id();
    game.world_mut().spawn((
        Viewshed::new(3),
        RevealsFog,
        Team(2),
        TilePos { x: 15, y: 3 },
        TilemapId(map),
    ));
    game.update();
    *game.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 6, y: 3 };
    game.update();
    let fog = game.world().get::<FogOfWar>(map).unwrap().clone();
    let json = serde_json::to_string(&fog).unwrap();

    // Load into a fresh app with the same map and nobody on it yet.
    let mut loaded = app();
    let new_map = spawn_map(&mut loaded, 20, 8, walls);
    loaded
        .world_mut()
        .entity_mut(new_map)
        .insert(FogStyle::default());
    loaded.update();
    let restored: FogOfWar = serde_json::from_str(&json).unwrap();
    assert_eq!(restored.memory(), fog.memory());
    loaded.world_mut().entity_mut(new_map).insert(restored);
    loaded.update();

    let fog_now = loaded.world().get::<FogOfWar>(new_map).unwrap();
    for y in 0..8 {
        for x in 0..20 {
            let tile = TilePos { x, y };
            let was = fog.team(Team(0)).unwrap().is_explored(tile);
            let expected = if was {
                FogState::Remembered
            } else {
                FogState::Unexplored
            };
            assert_eq!(fog_now.state(tile), expected, "{tile:?}");
            let team2 = fog_now.team(Team(2)).unwrap();
            assert_eq!(
                team2.is_explored(tile),
                fog.team(Team(2)).unwrap().is_explored(tile)
            );
        }
    }
    // The tiles show it: remembered tiles are drawn (dimmed), unexplored ones hidden.
    let shown = |x, y| {
        loaded
            .world()
            .get::<TileVisible>(tile_entity(&loaded, new_map, x, y))
            .unwrap()
            .0
    };
    assert!(shown(1, 3), "explored before the save");
    assert!(!shown(15, 3), "team 0 never saw the east");
}

#[test]
fn ghosts_survive_a_save_game_per_team() {
    // Play: the player sees a rat and walks away; team 2 saw a bat and lost it too.
    let mut game = app();
    let map = spawn_map(&mut game, 20, 8, |_, _| false);
    let player = spawn_player(&mut game, map, 2, 3, 3);
    let scout = game
        .world_mut()
        .spawn((
            Viewshed::new(2),
            RevealsFog,
            Team(2),
            TilePos { x: 15, y: 3 },
            TilemapId(map),
        ))
        .id();
    let rat = game
        .world_mut()
        .spawn((LeavesGhost, TilePos { x: 4, y: 3 }, TilemapId(map)))
        .id();
    let bat = game
        .world_mut()
        .spawn((LeavesGhost, TilePos { x: 16, y: 3 }, TilemapId(map)))
        .id();
    game.update();
    *game.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 9, y: 3 };
    *game.world_mut().get_mut::<TilePos>(scout).unwrap() = TilePos { x: 12, y: 6 };
    game.update();
    let last_seen = game.world().get::<LastSeen>(map).unwrap().clone();
    let ghost = |last_seen: &LastSeen, team, entity| {
        last_seen
            .ghost(Team(team), entity)
            .map(|g| (g.tile.x, g.tile.y))
    };
    assert_eq!(ghost(&last_seen, 0, rat), Some((4, 3)));
    assert_eq!(ghost(&last_seen, 2, bat), Some((16, 3)));
    let fog_json = serde_json::to_string(game.world().get::<FogOfWar>(map).unwrap()).unwrap();
    let ghosts_json = serde_json::to_string(&last_seen).unwrap();

    // Load: the same ghosts, per team, with their times.
    let back: LastSeen = serde_json::from_str(&ghosts_json).unwrap();
    assert_eq!(
        back.ghosts(Team(0)).collect::<Vec<_>>(),
        last_seen.ghosts(Team(0)).collect::<Vec<_>>()
    );
    assert_eq!(
        back.ghosts(Team(2)).collect::<Vec<_>>(),
        last_seen.ghosts(Team(2)).collect::<Vec<_>>()
    );
    assert_eq!(ghost(&back, 0, bat), None);

    // On a loaded map, a ghost stays until its tile is seen.
    let mut loaded = app();
    let new_map = spawn_map(&mut loaded, 20, 8, |_, _| false);
    loaded.update();
    let fog: FogOfWar = serde_json::from_str(&fog_json).unwrap();
    loaded.world_mut().entity_mut(new_map).insert((fog, back));
    let player = spawn_player(&mut loaded, new_map, 9, 3, 3);
    loaded.update();
    let kept = loaded.world().get::<LastSeen>(new_map).unwrap();
    assert_eq!(ghost(kept, 0, rat), Some((4, 3)));
    *loaded.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 5, y: 3 };
    loaded.update();
    let kept = loaded.world().get::<LastSeen>(new_map).unwrap();
    assert_eq!(ghost(kept, 0, rat), None, "seen again, without the rat");
    assert_eq!(ghost(kept, 2, bat), Some((16, 3)));
}

#[test]
fn a_save_without_ghosts_loads_and_bad_ghosts_are_errors() {
    // A save written before ghosts existed has a FogOfWar only: the map has no ghosts.
    let mut game = app();
    let map = spawn_map(&mut game, 5, 5, |_, _| false);
    let old: FogOfWar =
        serde_json::from_str(r#"{"width":5,"height":5,"teams":[[0,[1,0,0,0,0]]]}"#).unwrap();
    game.world_mut().entity_mut(map).insert(old);
    game.update();
    let last_seen = game.world().get::<LastSeen>(map).unwrap();
    assert_eq!(last_seen.ghosts(Team(0)).count(), 0);

    let bad = [
        // Not an entity (bits 0 are no entity's).
        r#"{"teams":[[0,[{"entity":0,"x":0,"y":0,"seen_at":{"secs":0,"nanos":0}}]]]}"#,
        r#"{"teams":[[0,[]],[0,[]]]}"#,
        r#"{"teams":[[0,[{"entity":1,"x":0,"y":0,"seen_at":{"secs":0,"nanos":0}},
                         {"entity":1,"x":2,"y":0,"seen_at":{"secs":0,"nanos":0}}]]]}"#,
        r#"{"teams":[], "width": 3}"#,
    ];
    for json in bad {
        assert!(serde_json::from_str::<LastSeen>(json).is_err(), "{json}");
    }
}

#[test]
fn a_memory_for_another_map_size_is_refused() {
    let memory = ExploredMemory {
        width: 5,
        height: 5,
        teams: vec![(Team(0), vec![0; 5])],
    };
    let mut fog: FogOfWar = memory.clone().try_into().unwrap();
    let bigger = ExploredMemory {
        width: 6,
        ..memory.clone()
    };
    assert_eq!(
        fog.restore(&bigger),
        Err(MemoryError::SizeMismatch {
            memory: (6, 5),
            map: (5, 5)
        })
    );
    let short = ExploredMemory {
        teams: vec![(Team(1), vec![0; 3])],
        ..memory
    };
    assert!(fog.restore(&short).is_err());
    let json = serde_json::to_string(&short).unwrap();
    assert!(serde_json::from_str::<FogOfWar>(&json).is_err());
}

#[test]
fn viewsheds_and_options_round_trip() {
    let mut game = app();
    let map = spawn_map(&mut game, 20, 8, walls);
    let guard = game
        .world_mut()
        .spawn((
            Viewshed::new(6)
                .with_shape(DistanceShape::Manhattan)
                .with_cone(VisionCone::toward_radians(1, 0, FRAC_PI_2))
                .with_mode(FovMode::Permissive)
                .with_light_walls(false),
            TilePos { x: 4, y: 4 },
            TilemapId(map),
        ))
        .id();
    game.update();
    let saved = viewshed(&game, guard).clone();
    let json = serde_json::to_string(&saved).unwrap();
    let back: Viewshed = serde_json::from_str(&json).unwrap();
    assert_eq!(back.radius(), Radius::Limited(6));
    assert_eq!(back.options.shape, DistanceShape::Manhattan);
    assert_eq!(back.options.cone, saved.options.cone);
    assert_eq!(back.options.mode, FovMode::Permissive);
    assert!(!back.options.light_walls);
    assert_eq!(back.visible_set(), saved.visible_set());

    // Loaded onto the same map, it is recomputed to the same view.
    let loaded_guard = game
        .world_mut()
        .spawn((back, TilePos { x: 4, y: 4 }, TilemapId(map)))
        .id();
    game.update();
    assert_eq!(
        viewshed(&game, loaded_guard).visible_set(),
        saved.visible_set()
    );

    let options = FovOptions::radius(9)
        .with_shape(DistanceShape::Chebyshev)
        .with_cone(VisionCone::degrees(45.0, 120.0));
    let json = serde_json::to_string(&options).unwrap();
    assert_eq!(serde_json::from_str::<FovOptions>(&json).unwrap(), options);
}

/// Every save says its format: a `Viewshed`, an `ExploredMemory` (and so a `FogOfWar`) and a
/// `LastSeen` are written with `"format": SAVE_FORMAT`; a save without it is read as that format, and a
/// save of another format is a clear error, not a wrong load.
#[test]
fn saves_carry_their_format_and_an_unknown_one_is_an_error() {
    let mut game = app();
    let map = spawn_map(&mut game, 20, 8, walls);
    let guard = game
        .world_mut()
        .spawn((
            Viewshed::new(5).with_shape(DistanceShape::Chebyshev),
            RevealsFog,
            TilePos { x: 8, y: 2 },
            TilemapId(map),
        ))
        .id();
    game.update();
    let saved = viewshed(&game, guard).clone();
    let memory = game.world().get::<FogOfWar>(map).unwrap().memory();
    let last_seen = game.world().get::<LastSeen>(map).unwrap().clone();
    let mut ghosts = serde_json::to_value(&last_seen).unwrap();
    assert_eq!(ghosts["format"], serde_json::json!(SAVE_FORMAT));
    ghosts
        .as_object_mut()
        .unwrap()
        .insert("format".into(), serde_json::json!(SAVE_FORMAT + 1));
    let error = serde_json::from_value::<LastSeen>(ghosts).unwrap_err();
    assert!(error.to_string().contains("format 2"), "{error}");
    for mut json in [
        serde_json::to_value(&saved).unwrap(),
        serde_json::to_value(&memory).unwrap(),
    ] {
        let object = json.as_object_mut().unwrap();
        assert_eq!(object["format"], serde_json::json!(SAVE_FORMAT));
        // Without the field: read as the current format.
        object.remove("format");
        let unversioned = json.clone();
        // Another format: refused, saying which.
        json.as_object_mut()
            .unwrap()
            .insert("format".into(), serde_json::json!(SAVE_FORMAT + 1));
        if unversioned.get("options").is_some() {
            let back: Viewshed = serde_json::from_value(unversioned).unwrap();
            assert_eq!(back.options, saved.options);
            assert_eq!(back.visible_set(), saved.visible_set());
            let error = serde_json::from_value::<Viewshed>(json).unwrap_err();
            assert!(error.to_string().contains("format 2"), "{error}");
        } else {
            let back: ExploredMemory = serde_json::from_value(unversioned).unwrap();
            assert_eq!(back, memory);
            let error = serde_json::from_value::<ExploredMemory>(json.clone()).unwrap_err();
            assert!(error.to_string().contains("format 2"), "{error}");
            assert!(serde_json::from_value::<FogOfWar>(json).is_err());
        }
    }
}
