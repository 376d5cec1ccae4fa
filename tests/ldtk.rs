//! The LDtk integration on a real LDtk project (`assets/ldtk_level.ldtk`, made by
//! `assets/make_ldtk_level.py`), loaded and spawned by bevy_ecs_ldtk's own loader and systems
//! in a headless app (see `tests/common_ldtk`). Every view is held to the core's field of view
//! on the opacity read from the file separately.
#![cfg(feature = "ldtk")]

mod common_ldtk;

use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy_ecs_ldtk::ldtk::FieldInstance;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::ldtk::{EntityVision, LdtkOpacity, LdtkViewshedPlugin, LdtkVision};
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Elevation, LayerOf, MapOpacity, ViewshedSchedule};
use bevy_viewshed::{Radius, Team};
use common_ldtk::*;
use viewshed_core::elevation::{ElevationGrid, ElevationOptions, field_of_view_with_elevation};

/// IntGrid values of the "Walls" layer: wall, closed door, open door.
const WALL: i32 = 1;
const CLOSED_DOOR: i32 = 2;
const OPEN_DOOR: i32 = 3;

/// Walls and closed doors of the "Walls" layer and tiles tagged "Solid" block sight.
fn opacity() -> LdtkOpacity {
    LdtkOpacity::default()
        .int_grid_on("Walls", WALL)
        .int_grid_on("Walls", CLOSED_DOOR)
        .enum_tag("Solid")
}

fn configure(app: &mut App) {
    app.insert_resource(opacity()).insert_resource(
        LdtkVision::default()
            .entity("Player", EntityVision::viewer(8).reveals_fog())
            .entity(
                "Goblin",
                EntityVision::none().spottable().hide_outside_view().team(1),
            ),
    );
}

fn player(app: &mut App) -> Entity {
    ldtk_entities(app, "Player")[0]
}

fn root(app: &mut App) -> Entity {
    let mut levels = app
        .world_mut()
        .query_filtered::<&LayerGroup, With<LevelIid>>();
    levels.single(app.world()).unwrap().root().unwrap()
}

/// The player's view must be the core's view on the file's walls, doors and pillars, with the
/// doors at `opened` open.
fn assert_player_sees(app: &mut App, opaque: &[i32], opened: &[TilePos]) {
    let data = LevelData::read();
    let player = player(app);
    let viewshed = app.world().get::<Viewshed>(player).unwrap();
    let mut grid = data.opacity(opaque);
    for door in opened {
        grid.set_opaque(door.x, door.y, false);
    }
    let expected = expected_view(&grid, data.position_of("Player"), viewshed.options);
    assert_eq!(view_of(viewshed), expected);
}

#[test]
fn the_tile_layers_of_a_level_are_one_map_rooted_at_the_bottom_layer() {
    let mut app = ldtk_app(configure);
    let floor = layer(&mut app, "Floor");
    let walls = layer(&mut app, "Walls");
    let decor = layer(&mut app, "Decor");
    assert_eq!(root(&mut app), floor);
    assert_eq!(app.world().get::<LayerOf>(floor), None);
    assert_eq!(app.world().get::<LayerOf>(walls), Some(&LayerOf(floor)));
    assert_eq!(app.world().get::<LayerOf>(decor), Some(&LayerOf(floor)));
    assert!(app.world().get::<MapOpacity>(floor).is_some());
    assert!(app.world().get::<MapOpacity>(walls).is_none());
}

#[test]
fn walls_on_the_wall_layer_block_the_player_on_the_floor_layer() {
    let mut app = ldtk_app(configure);
    let player = player(&mut app);
    let floor = layer(&mut app, "Floor");
    assert_eq!(
        app.world().get::<TilemapId>(player),
        Some(&TilemapId(floor))
    );
    assert_player_sees(&mut app, &[WALL, CLOSED_DOOR], &[]);
    let view = app.world().get::<Viewshed>(player).unwrap();
    let at = LevelData::read().position_of("Player");
    // The player stands at (4, 10) in a room whose east wall is x = 11, closed door at
    // (11, 10): the wall and door are lit, the room behind them is not.
    assert_eq!(at, TilePos::new(4, 10));
    assert!(view.is_visible(TilePos::new(11, 11)));
    assert!(view.is_visible(TilePos::new(11, 10)));
    assert!(!view.is_visible(TilePos::new(12, 10)));
    assert!(!view.is_visible(TilePos::new(4, 6)), "south wall at y = 7");
}

#[test]
fn setting_a_door_cell_to_open_opens_the_view_and_back_closes_it() {
    let mut app = ldtk_app(configure);
    let walls = layer(&mut app, "Walls");
    let door = tile(&app, walls, TilePos::new(11, 10));
    assert_eq!(
        app.world().get::<IntGridCell>(door),
        Some(&IntGridCell { value: CLOSED_DOOR })
    );
    assert!(app.world().get::<Opaque>(door).is_some());

    app.world_mut().get_mut::<IntGridCell>(door).unwrap().value = OPEN_DOOR;
    app.update();
    assert!(app.world().get::<Opaque>(door).is_none());
    let player = player(&mut app);
    assert!(
        app.world()
            .get::<Viewshed>(player)
            .unwrap()
            .is_visible(TilePos::new(12, 10))
    );
    // Through the door: the room east of it, and the pillar there (a "Solid" tile of the
    // Decor layer) casting its shadow; the file's open doors (value 3) do not block.
    assert_player_sees(&mut app, &[WALL, CLOSED_DOOR], &[TilePos::new(11, 10)]);
    let decor = layer(&mut app, "Decor");
    let pillar = tile(&app, decor, TilePos::new(16, 9));
    assert!(app.world().get::<Opaque>(pillar).is_some());

    app.world_mut().get_mut::<IntGridCell>(door).unwrap().value = CLOSED_DOOR;
    app.update();
    assert!(app.world().get::<Opaque>(door).is_some());
    assert!(
        !app.world()
            .get::<Viewshed>(player)
            .unwrap()
            .is_visible(TilePos::new(12, 10))
    );
    assert_player_sees(&mut app, &[WALL, CLOSED_DOOR], &[]);
}

#[test]
fn an_opaque_the_game_put_on_a_tile_is_not_taken_away() {
    let mut app = ldtk_app(configure);
    let floor = layer(&mut app, "Floor");
    let walls = layer(&mut app, "Walls");
    let door = tile(&app, walls, TilePos::new(11, 10));
    let boulder = tile(&app, floor, TilePos::new(6, 10));
    app.world_mut().entity_mut(boulder).insert(Opaque);
    app.world_mut().get_mut::<IntGridCell>(door).unwrap().value = OPEN_DOOR;
    app.update();
    assert!(app.world().get::<Opaque>(boulder).is_some());
    // The configuration changed at run time: every tile is looked at again.
    app.insert_resource(LdtkOpacity::default().int_grid(WALL));
    app.update();
    assert!(app.world().get::<Opaque>(boulder).is_some());
    let decor = layer(&mut app, "Decor");
    let pillar = tile(&app, decor, TilePos::new(16, 9));
    assert!(app.world().get::<Opaque>(pillar).is_none());
}

#[test]
fn goblins_get_their_viewer_from_their_type_and_their_sight_radius_field() {
    let mut app = ldtk_app(configure);
    let data = LevelData::read();
    let floor = layer(&mut app, "Floor");
    let goblins = ldtk_entities(&mut app, "Goblin");
    let expected: Vec<_> = data
        .entities
        .iter()
        .filter(|(name, ..)| name == "Goblin")
        .collect();
    assert_eq!(goblins.len(), expected.len());
    assert_eq!(goblins.len(), 4);
    let opacity = data.opacity(&[WALL, CLOSED_DOOR]);
    for (&goblin, (_, at, sight)) in goblins.iter().zip(&expected) {
        let world = app.world();
        let viewshed = world.get::<Viewshed>(goblin).unwrap();
        assert_eq!(viewshed.options.radius, Radius::Limited(sight.unwrap()));
        assert_eq!(world.get::<Team>(goblin), Some(&Team(1)));
        assert!(world.get::<CanBeSpotted>(goblin).is_some());
        assert!(world.get::<HidesOutsideView>(goblin).is_some());
        assert!(world.get::<RevealsFog>(goblin).is_none());
        assert_eq!(world.get::<TilemapId>(goblin), Some(&TilemapId(floor)));
        // Placed by its Transform on the level's map: it sees from its own tile.
        assert_eq!(
            view_of(viewshed),
            expected_view(&opacity, *at, viewshed.options)
        );
    }
    let radii: Vec<_> = expected.iter().map(|(.., sight)| sight.unwrap()).collect();
    assert!(radii.contains(&5) && radii.contains(&7));
    let player = player(&mut app);
    assert!(app.world().get::<RevealsFog>(player).is_some());
    assert_eq!(
        app.world().get::<Viewshed>(player).unwrap().options.radius,
        Radius::Limited(8)
    );
}

#[test]
fn the_fog_of_war_covers_every_tile_layer_of_the_level() {
    let mut app = ldtk_app(configure);
    let floor = layer(&mut app, "Floor");
    let walls = layer(&mut app, "Walls");
    let player = player(&mut app);
    let view = view_of(app.world().get::<Viewshed>(player).unwrap());
    let fog = app.world().get::<FogOfWar>(floor).unwrap();
    let data = LevelData::read();
    for y in 0..data.height {
        for x in 0..data.width {
            let pos = TilePos::new(x, y);
            let expected = if view.contains(&pos) {
                FogState::Visible
            } else {
                FogState::Unexplored
            };
            assert_eq!(fog.state(pos), expected, "{pos:?}");
            let floor_tile = tile(&app, floor, pos);
            assert_eq!(
                app.world().get::<TileVisible>(floor_tile),
                Some(&TileVisible(view.contains(&pos))),
                "floor {pos:?}"
            );
        }
    }
    // The wall layer's tiles too: the lit door is shown, a wall of an unseen room hidden.
    let door = tile(&app, walls, TilePos::new(11, 10));
    let far_wall = tile(&app, walls, TilePos::new(31, 5));
    assert_eq!(
        app.world().get::<TileVisible>(door),
        Some(&TileVisible(true))
    );
    assert_eq!(
        app.world().get::<TileVisible>(far_wall),
        Some(&TileVisible(false))
    );
    // Goblins out of the player's view are hidden.
    for goblin in ldtk_entities(&mut app, "Goblin") {
        assert_eq!(
            app.world().get::<Visibility>(goblin),
            Some(&Visibility::Hidden)
        );
    }
}

#[test]
fn a_goblin_moved_by_its_transform_sees_from_its_new_tile() {
    let mut app = ldtk_app(configure);
    let goblin = ldtk_entities(&mut app, "Goblin")[0];
    let data = LevelData::read();
    let at = data
        .entities
        .iter()
        .find(|(name, ..)| name == "Goblin")
        .unwrap()
        .1;
    let to = TilePos::new(at.x - 2, at.y);
    app.world_mut()
        .get_mut::<Transform>(goblin)
        .unwrap()
        .translation
        .x -= 32.0;
    app.update();
    let viewshed = app.world().get::<Viewshed>(goblin).unwrap();
    let opacity = data.opacity(&[WALL, CLOSED_DOOR]);
    assert_eq!(
        view_of(viewshed),
        expected_view(&opacity, to, viewshed.options)
    );
}

/// An LDtk field named `identifier` of type `kind` holding `value`.
fn field(identifier: &str, kind: &str, value: FieldValue) -> FieldInstance {
    FieldInstance {
        identifier: identifier.into(),
        tile: None,
        field_instance_type: kind.into(),
        value,
        def_uid: 0,
        real_editor_values: Vec::new(),
    }
}

#[test]
fn bad_fields_on_ldtk_entities_are_ignored_not_a_panic() {
    let mut app = ldtk_app(configure);
    let goblin = ldtk_entities(&mut app, "Goblin")[0];
    let parent = app.world().get::<ChildOf>(goblin).unwrap().parent();
    // Goblins made in an editor by hand: a negative radius, a radius typed as text, a team
    // that is a Bool, and a radius of i32::MIN.
    let bad_fields = [
        vec![field("sight_radius", "Int", FieldValue::Int(Some(-3)))],
        vec![field(
            "sight_radius",
            "String",
            FieldValue::String(Some("far".into())),
        )],
        vec![
            field("sight_radius", "Int", FieldValue::Int(Some(4))),
            field("team", "Bool", FieldValue::Bool(true)),
        ],
        vec![field(
            "sight_radius",
            "Int",
            FieldValue::Int(Some(i32::MIN)),
        )],
    ];
    let spawned: Vec<Entity> = bad_fields
        .into_iter()
        .map(|fields| {
            let instance = EntityInstance {
                identifier: "Goblin".into(),
                field_instances: fields,
                ..default()
            };
            let transform = *app.world().get::<Transform>(goblin).unwrap();
            app.world_mut()
                .spawn((instance, transform, ChildOf(parent)))
                .id()
        })
        .collect();
    app.update();
    app.update();
    let world = app.world();
    // A bad radius is ignored: the goblin keeps what its type gives, and no viewer.
    for &bad in [spawned[0], spawned[1], spawned[3]].iter() {
        assert!(world.get::<Viewshed>(bad).is_none(), "no radius, no viewer");
        assert!(world.get::<CanBeSpotted>(bad).is_some());
        assert_eq!(world.get::<Team>(bad), Some(&Team(1)));
    }
    // A good radius beside a bad team: the radius is used, the type's team kept.
    let viewshed = world
        .get::<Viewshed>(spawned[2])
        .expect("its Int radius is used");
    assert_eq!(viewshed.options.radius, Radius::Limited(4));
    assert_eq!(world.get::<Team>(spawned[2]), Some(&Team(1)));
    assert!(viewshed.count() > 1, "it sees from its tile");
    // The file's own goblins are untouched.
    assert!(world.get::<Viewshed>(goblin).is_some());
}

/// `LdtkViewshedPlugin` alone (a game that forgot `ViewshedPlugins`) logs an error and runs:
/// its systems live in the plugin's schedule, which nothing runs, so no frame panics.
#[test]
fn the_ldtk_plugin_without_the_viewshed_plugin_does_not_panic() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, LdtkViewshedPlugin));
    app.update();
    app.update();
    assert!(
        app.world()
            .resource::<Schedules>()
            .contains(ViewshedSchedule)
    );
}

/// The LDtk systems join `ViewshedPlugins`'s schedule whichever plugin is added first.
#[test]
fn the_ldtk_systems_join_the_sync_phase_in_either_plugin_order() {
    let sync_systems = |ldtk: Option<bool>| {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins);
        if ldtk == Some(true) {
            app.add_plugins(LdtkViewshedPlugin);
        }
        app.add_plugins(ViewshedPlugins::default());
        if ldtk == Some(false) {
            app.add_plugins(LdtkViewshedPlugin);
        }
        app.update();
        let schedules = app.world().resource::<Schedules>();
        let count = |label| {
            schedules
                .get(label)
                .map_or(0, |s: &Schedule| s.systems_len())
        };
        (count(ViewshedSchedule.intern()), count(Update.intern()))
    };
    let without = sync_systems(None);
    for ldtk_first in [false, true] {
        let with = sync_systems(Some(ldtk_first));
        // Four systems, and the sync points that apply their commands.
        assert!(
            with.0 >= without.0 + 4,
            "LDtk first: {ldtk_first}; the LDtk systems joined the phase"
        );
        assert_eq!(with, sync_systems(Some(!ldtk_first)), "the same either way");
        assert_eq!(with.1, without.1, "and none went into Update");
    }
}

/// High ground from LDtk: the file's open doors (IntGrid value 3 of the "Walls" layer) made a
/// raised sill at level 2 by `int_grid_level_on`. Every such tile gets `Elevation(2)`, the
/// player on the ground sees the core's view on the walls thresholded at its eye (the sills'
/// faces, not beyond), and sees over them once its eye is raised to 2; a configuration
/// without the levels takes them away again.
#[test]
fn int_grid_values_give_tiles_their_level_of_high_ground() {
    let mut app = ldtk_app(|app| {
        configure(app);
        app.insert_resource(opacity().int_grid_level_on("Walls", OPEN_DOOR, 2));
    });
    app.update();
    let data = LevelData::read();
    let sills: Vec<TilePos> = (0..data.width)
        .flat_map(|x| (0..data.height).map(move |y| TilePos::new(x, y)))
        .filter(|&tile| data.wall_value(tile) == OPEN_DOOR)
        .collect();
    assert!(!sills.is_empty(), "the level has open doors");
    let levels = ElevationGrid::from_fn(data.width, data.height, |x, y| {
        if sills.contains(&TilePos::new(x, y)) {
            2
        } else {
            0
        }
    });
    let walls = layer(&mut app, "Walls");
    let map = root(&mut app);
    for &sill in &sills {
        let tile = tile(&app, walls, sill);
        assert_eq!(app.world().get::<Elevation>(tile), Some(&Elevation(2)));
        let opacity = app.world().get::<MapOpacity>(map).unwrap();
        assert_eq!(opacity.elevation(sill), 2);
    }
    let player = player(&mut app);
    for eye_height in [0, 2] {
        app.world_mut()
            .get_mut::<Viewshed>(player)
            .unwrap()
            .eye_height = eye_height;
        app.update();
        let viewshed = app.world().get::<Viewshed>(player).unwrap();
        let at = data.position_of("Player");
        let expected = field_of_view_with_elevation(
            &data.opacity(&[WALL, CLOSED_DOOR]),
            &levels,
            (at.x, at.y),
            ElevationOptions::eye_height(eye_height),
            viewshed.options,
        )
        .unwrap();
        let mut expected: Vec<TilePos> = expected.iter().map(|(x, y)| TilePos::new(x, y)).collect();
        expected.sort_by_key(|p| (p.y, p.x));
        assert_eq!(view_of(viewshed), expected, "eye height {eye_height}");
    }
    app.insert_resource(opacity());
    app.update();
    let opacity = app.world().get::<MapOpacity>(map).unwrap();
    assert!(sills.iter().all(|&sill| opacity.elevation(sill) == 0));
}
