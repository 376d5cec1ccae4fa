//! Fog of war in a headless `App`: revealing viewers light tiles, remembered tiles dim,
//! unexplored tiles hide; only changed tiles are written; layers, overlays, hidden monsters
//! and the explored memory.

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::TileLook;
use bevy_viewshed::prelude::*;
use common_app::*;

/// Counts `TileColor` and `TileVisible` changes seen after the plugin's systems.
#[derive(Resource, Default)]
struct TileWrites {
    colors: usize,
    visibles: usize,
}

fn count_writes(
    colors: Query<(), Changed<TileColor>>,
    visibles: Query<(), Changed<TileVisible>>,
    mut writes: ResMut<TileWrites>,
) {
    writes.colors = colors.iter().count();
    writes.visibles = visibles.iter().count();
}

#[test]
fn visible_remembered_and_unexplored_tiles() {
    let mut app = app();
    let map = spawn_map(&mut app, 30, 10, |x, _| x == 15);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let player = spawn_player(&mut app, map, 3, 5, 4);
    app.update();

    let style = FogStyle::default();
    let visible = style.visible.color.unwrap();
    let dim = style.remembered.color.unwrap();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 3, y: 5 }),
        FogState::Visible
    );
    assert_eq!(look(&app, map, 3, 5), (true, visible));
    assert_eq!(
        fog(&app, map).state(TilePos { x: 25, y: 5 }),
        FogState::Unexplored
    );
    assert!(!look(&app, map, 25, 5).0, "unexplored tiles are hidden");

    // Walk east: the start is remembered (dimmed), the new surroundings visible.
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 11, y: 5 };
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 3, y: 5 }),
        FogState::Remembered
    );
    assert_eq!(look(&app, map, 3, 5), (true, dim));
    assert_eq!(look(&app, map, 11, 5), (true, visible));
    assert!(fog(&app, map).is_explored(TilePos { x: 3, y: 5 }));
    // The wall at x = 15 hides what is beyond it.
    assert_eq!(
        fog(&app, map).state(TilePos { x: 15, y: 5 }),
        FogState::Visible
    );
    assert_eq!(
        fog(&app, map).state(TilePos { x: 16, y: 5 }),
        FogState::Unexplored
    );
}

#[test]
fn a_frame_where_nothing_moved_writes_no_tile() {
    let mut app = app();
    app.init_resource::<TileWrites>()
        .add_systems(PostUpdate, count_writes.after(ViewshedSystems));
    let map = spawn_map(&mut app, 40, 40, |x, y| (x * 3 + y).is_multiple_of(7));
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let player = spawn_player(&mut app, map, 20, 20, 6);
    app.update();
    app.update();
    let writes = app.world().resource::<TileWrites>();
    assert_eq!(
        (writes.colors, writes.visibles),
        (0, 0),
        "nothing changed, nothing written"
    );

    // One step writes only tiles whose state changed: far fewer than the map.
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 21, y: 20 };
    app.update();
    let writes = app.world().resource::<TileWrites>();
    assert!(
        writes.colors > 0 && writes.colors < 60,
        "{} colours written",
        writes.colors
    );
    app.update();
    let writes = app.world().resource::<TileWrites>();
    assert_eq!(writes.colors, 0);
}

#[test]
fn only_revealing_viewers_lift_the_fog() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let monster = spawn_viewer(&mut app, map, 15, 15, 3);
    let ally = spawn_player(&mut app, map, 2, 2, 2);
    app.update();
    assert!(viewshed(&app, monster).count() > 0);
    assert_eq!(
        fog(&app, map).state(TilePos { x: 15, y: 15 }),
        FogState::Unexplored
    );
    assert_eq!(
        fog(&app, map).state(TilePos { x: 2, y: 2 }),
        FogState::Visible
    );

    // The union of several revealing viewers.
    let scout = spawn_player(&mut app, map, 17, 3, 1);
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 17, y: 3 }),
        FogState::Visible
    );
    assert_eq!(
        fog(&app, map).state(TilePos { x: 2, y: 2 }),
        FogState::Visible
    );

    // A revealing viewer that leaves takes its view along (the memory stays).
    app.world_mut().despawn(scout);
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 17, y: 3 }),
        FogState::Remembered
    );
    app.world_mut().entity_mut(ally).remove::<RevealsFog>();
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 2, y: 2 }),
        FogState::Remembered
    );
    assert_eq!(fog(&app, map).visible_tiles().count(), 0);
}

#[test]
fn a_fog_overlay_layer_covers_the_map() {
    let mut app = app();
    let ground = spawn_map(&mut app, 16, 16, |_, _| false);
    let overlay = spawn_layer(&mut app, 16, 16, |_, _| false, Some(ground));
    app.world_mut()
        .entity_mut(overlay)
        .insert(FogStyle::overlay());
    spawn_player(&mut app, ground, 4, 4, 2);
    app.update();

    // The ground layer has no FogStyle: it is left alone.
    assert_eq!(look(&app, ground, 12, 12), (true, Color::WHITE));
    // The overlay is clear over what is seen and black over the unexplored.
    assert!(!look(&app, overlay, 4, 4).0);
    assert_eq!(look(&app, overlay, 12, 12), (true, Color::BLACK));
    // The layer's tiles are not opaque walls of their own map: the map is the ground.
    assert!(app.world().get::<FogOfWar>(overlay).is_none());
}

#[test]
fn monsters_hide_outside_the_revealed_view() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 5, |x, _| x == 10);
    spawn_player(&mut app, map, 2, 2, Viewshed::UNLIMITED);
    let seen_rat = app
        .world_mut()
        .spawn((HidesOutsideView, TilePos { x: 7, y: 2 }, TilemapId(map)))
        .id();
    let hidden_rat = app
        .world_mut()
        .spawn((HidesOutsideView, TilePos { x: 14, y: 2 }, TilemapId(map)))
        .id();
    app.update();
    assert_eq!(
        app.world().get::<Visibility>(seen_rat),
        Some(&Visibility::Inherited)
    );
    assert_eq!(
        app.world().get::<Visibility>(hidden_rat),
        Some(&Visibility::Hidden)
    );

    // The rat walks behind the wall.
    *app.world_mut().get_mut::<TilePos>(seen_rat).unwrap() = TilePos { x: 12, y: 2 };
    app.update();
    assert_eq!(
        app.world().get::<Visibility>(seen_rat),
        Some(&Visibility::Hidden)
    );
}

#[test]
fn the_game_can_read_clear_and_set_the_memory() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let player = spawn_player(&mut app, map, 3, 3, 2);
    app.update();
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 10, y: 10 };
    app.update();
    assert!(fog(&app, map).is_explored(TilePos { x: 3, y: 3 }));
    let explored = fog(&app, map).explored_tiles().count();
    assert!(explored > fog(&app, map).visible_tiles().count());

    // A level reset forgets everything not seen now.
    app.world_mut()
        .get_mut::<FogOfWar>(map)
        .unwrap()
        .forget_all();
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 3, y: 3 }),
        FogState::Unexplored
    );
    assert!(!look(&app, map, 3, 3).0);
    assert_eq!(
        fog(&app, map).state(TilePos { x: 10, y: 10 }),
        FogState::Visible
    );

    // A magic map.
    app.world_mut()
        .get_mut::<FogOfWar>(map)
        .unwrap()
        .explore_all();
    app.update();
    let dim = FogStyle::default().remembered.color.unwrap();
    assert_eq!(look(&app, map, 19, 0), (true, dim));
    assert_eq!(fog(&app, map).explored_tiles().count(), 400);

    // One tile by hand; a tile seen now cannot be forgotten.
    let mut memory = app.world_mut().get_mut::<FogOfWar>(map).unwrap();
    memory.set_explored(TilePos { x: 19, y: 0 }, false);
    memory.set_explored(TilePos { x: 10, y: 10 }, false);
    app.update();
    assert!(!look(&app, map, 19, 0).0);
    assert_eq!(
        fog(&app, map).state(TilePos { x: 10, y: 10 }),
        FogState::Visible
    );
}

#[test]
fn changing_the_style_rewrites_the_layer_and_new_tiles_get_their_look() {
    let mut app = app();
    let map = spawn_map(&mut app, 10, 10, |_, _| false);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    spawn_player(&mut app, map, 1, 1, 1);
    app.update();
    assert!(!look(&app, map, 8, 8).0);

    // Unexplored tiles drawn dark red instead of hidden.
    let red = Color::srgb(0.3, 0.0, 0.0);
    app.world_mut().get_mut::<FogStyle>(map).unwrap().unexplored = TileLook::shown(red);
    app.update();
    assert_eq!(look(&app, map, 8, 8), (true, red));

    // A tile replaced later (a dug-out wall) gets the look of its state.
    let old = tile_entity(&app, map, 8, 8);
    app.world_mut().despawn(old);
    let new = app
        .world_mut()
        .spawn((
            TilePos { x: 8, y: 8 },
            TilemapId(map),
            TileVisible(false),
            TileColor(Color::WHITE),
        ))
        .id();
    app.world_mut()
        .get_mut::<TileStorage>(map)
        .unwrap()
        .set(&TilePos { x: 8, y: 8 }, new);
    app.update();
    assert_eq!(look(&app, map, 8, 8), (true, red));
}

#[test]
fn resizing_keeps_the_memory_inside() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let player = spawn_player(&mut app, map, 2, 2, 1);
    app.update();
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 5, y: 5 };
    app.update();
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(12, 12);
    app.update();
    assert_eq!(fog(&app, map).size(), TilemapSize::new(12, 12));
    assert_eq!(
        fog(&app, map).state(TilePos { x: 2, y: 2 }),
        FogState::Remembered
    );
    assert_eq!(
        fog(&app, map).state(TilePos { x: 5, y: 5 }),
        FogState::Visible
    );
}
