//! Unusual but legitimate game situations that once crashed the plugin or left a wrong view:
//! each is held here to "no panic, the right view, or nothing and a warning" (the warnings
//! themselves are read back in `tests/warnings.rs`).

mod common_app;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{LayerOf, MapOpacity, ViewshedSchedule, VisionCone};
use common_app::*;

use common_app::spawn_player as player;

fn resize(app: &mut App, map: Entity, width: u32, height: u32) {
    *app.world_mut().get_mut::<TilemapSize>(map).unwrap() = TilemapSize::new(width, height);
}

fn fog_state(app: &App, map: Entity, x: u32, y: u32) -> FogState {
    app.world()
        .get::<FogOfWar>(map)
        .unwrap()
        .state(TilePos { x, y })
}

#[test]
fn a_disabled_revealing_viewer_whose_map_shrank_does_not_crash_the_fog() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let viewer = player(&mut app, map, 15, 15, 6);
    app.update();
    app.world_mut().entity_mut(viewer).insert(Disabled);
    app.update();
    resize(&mut app, map, 8, 8);
    app.update();
    app.world_mut().entity_mut(viewer).remove::<Disabled>();
    app.update();
    app.update();
    // The viewer now stands off the shrunk map: it sees nothing, and the fog shows nothing.
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert_eq!(fog_state(&app, map, 7, 7), FogState::Unexplored);
}

#[test]
fn a_fog_of_another_size_inserted_on_a_map_is_resized_and_keeps_what_fits() {
    let mut app = app();
    let small = spawn_map(&mut app, 6, 6, |_, _| false);
    player(&mut app, small, 1, 1, 2);
    app.update();
    let memory = app.world().get::<FogOfWar>(small).unwrap().memory();
    let loaded = FogOfWar::try_from(memory).unwrap();

    let big = spawn_map(&mut app, 30, 30, |_, _| false);
    app.world_mut().entity_mut(big).insert(FogStyle::default());
    player(&mut app, big, 25, 25, 8);
    app.update();
    app.world_mut().entity_mut(big).insert(loaded);
    app.update();
    app.update();
    let fog = app.world().get::<FogOfWar>(big).unwrap();
    assert_eq!(fog.size(), TilemapSize::new(30, 30));
    assert_eq!(fog.state(TilePos { x: 1, y: 1 }), FogState::Remembered);
    assert_eq!(fog.state(TilePos { x: 25, y: 25 }), FogState::Visible);
}

#[test]
fn a_viewer_disabled_while_a_wall_is_built_sees_it_when_enabled_again() {
    let mut app = app();
    let map = spawn_map(&mut app, 15, 5, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 2, 2, 10);
    app.update();
    assert!(viewshed(&app, viewer).is_visible(TilePos { x: 10, y: 2 }));
    app.world_mut().entity_mut(viewer).insert(Disabled);
    app.update();
    let wall = tile_entity(&app, map, 5, 2);
    app.world_mut().entity_mut(wall).insert(Opaque);
    for _ in 0..3 {
        app.update();
    }
    app.world_mut().entity_mut(viewer).remove::<Disabled>();
    app.update();
    let view = viewshed(&app, viewer);
    assert!(
        view.is_visible(TilePos { x: 5, y: 2 }),
        "the new wall is lit"
    );
    assert!(
        !view.is_visible(TilePos { x: 10, y: 2 }),
        "what is behind it is hidden"
    );
    assert_eq!(
        seen(&app, viewer),
        core_seen(15, 5, |x, y| (x, y) == (5, 2), (2, 2), 10)
    );
}

#[test]
fn a_disabled_wall_blocks_nothing_until_enabled() {
    let mut app = app();
    let map = spawn_map(&mut app, 15, 5, |x, y| (x, y) == (5, 2));
    let viewer = spawn_viewer(&mut app, map, 2, 2, 10);
    app.update();
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 10, y: 2 }));
    let wall = tile_entity(&app, map, 5, 2);
    app.world_mut().entity_mut(wall).insert(Disabled);
    app.update();
    assert!(viewshed(&app, viewer).is_visible(TilePos { x: 10, y: 2 }));
    app.world_mut().entity_mut(wall).remove::<Disabled>();
    app.update();
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 10, y: 2 }));
}

#[test]
fn a_target_that_loses_its_tile_is_lost_from_sight_at_once() {
    for component in ["TilePos", "TilemapId", "despawn"] {
        let mut app = logging_app();
        let map = spawn_map(&mut app, 4, 1, |_, _| false);
        let viewer = spawn_viewer(&mut app, map, 2, 0, 1);
        let target = app
            .world_mut()
            .spawn((CanBeSpotted, TilePos { x: 3, y: 0 }, TilemapId(map)))
            .id();
        app.update();
        assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
        match component {
            "TilePos" => {
                app.world_mut().entity_mut(target).remove::<TilePos>();
            }
            "TilemapId" => {
                app.world_mut().entity_mut(target).remove::<TilemapId>();
            }
            _ => app.world_mut().entity_mut(target).despawn(),
        }
        app.update();
        assert_eq!(
            take_log(&mut app),
            vec![(false, viewer, target)],
            "{component}"
        );
        assert_eq!(spotted(&app, viewer).count(), 0, "{component}");
    }
}

#[test]
fn a_fog_layer_of_a_layer_follows_the_fog() {
    let mut app = app();
    let root = spawn_map(&mut app, 10, 10, |_, _| false);
    let middle = spawn_layer(&mut app, 10, 10, |_, _| false, Some(root));
    let top = spawn_layer(&mut app, 10, 10, |_, _| false, Some(middle));
    app.world_mut().entity_mut(top).insert(FogStyle::default());
    player(&mut app, root, 1, 1, 2);
    app.update();
    app.update();
    let near = tile_entity(&app, top, 1, 2);
    let far = tile_entity(&app, top, 8, 8);
    assert!(app.world().get::<TileVisible>(near).unwrap().0);
    assert!(!app.world().get::<TileVisible>(far).unwrap().0);
}

#[test]
fn a_layer_cycle_is_no_map_and_does_not_hang() {
    let mut app = app();
    let a = spawn_map(&mut app, 5, 5, |_, _| false);
    let b = spawn_layer(&mut app, 5, 5, |_, _| false, Some(a));
    app.world_mut().entity_mut(a).insert(LayerOf(b));
    let viewer = spawn_viewer(&mut app, a, 1, 1, 3);
    app.update();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert!(app.world().get::<MapOpacity>(a).is_none());
    assert!(app.world().get::<MapOpacity>(b).is_none());
    // Breaking the cycle makes `a` a root again.
    app.world_mut().entity_mut(a).remove::<LayerOf>();
    app.update();
    app.update();
    assert_eq!(seen(&app, viewer), core_seen(5, 5, |_, _| false, (1, 1), 3));
}

#[test]
fn a_map_that_stops_being_a_tilemap_clears_its_viewers_opacity_and_fog() {
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |x, _| x == 4);
    let viewer = spawn_viewer(&mut app, map, 1, 1, 5);
    app.update();
    assert!(viewshed(&app, viewer).count() > 0);
    app.world_mut().entity_mut(map).remove::<TilemapSize>();
    app.update();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert!(app.world().get::<MapOpacity>(map).is_none());
    assert!(app.world().get::<FogOfWar>(map).is_none());
}

fn transform_viewer(app: &mut App, map: Entity, at: Vec3) -> Entity {
    app.world_mut()
        .spawn((
            Viewshed::new(3),
            Transform::from_translation(at),
            GlobalTransform::from_translation(at),
            TilemapId(map),
        ))
        .id()
}

#[test]
fn a_map_with_a_singular_or_missing_transform_places_no_one_on_tile_zero() {
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    app.world_mut()
        .entity_mut(map)
        .insert(GlobalTransform::from_scale(Vec3::ZERO));
    let viewer = transform_viewer(&mut app, map, Vec3::new(40.0, 40.0, 0.0));
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert_eq!(viewshed(&app, viewer).origin(), None);

    app.world_mut().entity_mut(map).remove::<GlobalTransform>();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);

    app.world_mut()
        .entity_mut(map)
        .insert(GlobalTransform::default());
    app.update();
    // 16-pixel tiles centred on their position: (40, 40) is tile (3, 3) (tile 2 spans 24..40,
    // tile 3 spans 40..56 with TilemapAnchor::None, whose tile centres sit at 16 * x).
    assert_eq!(
        viewshed(&app, viewer).origin(),
        Some((map, TilePos { x: 3, y: 3 }))
    );
}

#[test]
fn targets_and_hidden_monsters_placed_by_transform_count() {
    let mut app = logging_app();
    let map = spawn_map(&mut app, 10, 3, |_, _| false);
    app.world_mut().entity_mut(map).insert(FogStyle::default());
    let viewer = player(&mut app, map, 1, 1, 4);
    let near = Vec3::new(16.0 * 3.0, 16.0, 0.0);
    let target = app
        .world_mut()
        .spawn((
            CanBeSpotted,
            HidesOutsideView,
            Transform::from_translation(near),
            GlobalTransform::from_translation(near),
            TilemapId(map),
        ))
        .id();
    app.update();
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
    assert_eq!(
        app.world().get::<Visibility>(target),
        Some(&Visibility::Inherited)
    );

    let far = Vec3::new(16.0 * 9.0, 16.0, 0.0);
    app.world_mut().entity_mut(target).insert((
        Transform::from_translation(far),
        GlobalTransform::from_translation(far),
    ));
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, viewer, target)]);
    assert_eq!(
        app.world().get::<Visibility>(target),
        Some(&Visibility::Hidden)
    );
}

#[test]
fn a_nan_cone_is_not_recomputed_every_frame() {
    let mut app = app();
    let map = spawn_map(&mut app, 9, 9, |_, _| false);
    let viewer = app
        .world_mut()
        .spawn((
            Viewshed::new(4).with_cone(VisionCone::new(f64::NAN, f64::NAN)),
            TilePos { x: 4, y: 4 },
            TilemapId(map),
        ))
        .id();
    app.update();
    let before = generation(&app, viewer);
    app.update();
    app.update();
    assert_eq!(generation(&app, viewer), before);
    assert!(viewshed(&app, viewer).is_visible(TilePos { x: 4, y: 4 }));
}

/// Found by `tests/model/`: inserting a new `Viewshed` on a viewer (new settings) keeps
/// what it sees, so no `Spotted` is sent again; off any map, it loses its targets.
#[test]
fn a_viewshed_inserted_again_keeps_its_sightings() {
    let mut app = logging_app();
    let map = spawn_map(&mut app, 4, 1, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 2, 0, 1);
    let target = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 3, y: 0 }, TilemapId(map)))
        .id();
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
    app.world_mut().entity_mut(viewer).insert(Viewshed::new(2));
    app.update();
    assert_eq!(
        take_log(&mut app),
        vec![],
        "still seen: nothing to announce"
    );
    assert_eq!(spotted(&app, viewer).collect::<Vec<_>>(), [target]);
    // Inserted again and moved off the map in the same frame: lost at once.
    app.world_mut()
        .entity_mut(viewer)
        .insert((Viewshed::new(3), TilePos { x: 9, y: 0 }));
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, viewer, target)]);
}

/// Found by `tests/model/`: a revealing viewer whose `Viewshed` is inserted again while it
/// moves to another map leaves no lit tiles behind on the first.
#[test]
fn a_viewshed_inserted_again_on_a_viewer_changing_maps_clears_the_old_fog() {
    let mut app = app();
    let first = spawn_map(&mut app, 6, 6, |_, _| false);
    let second = spawn_map(&mut app, 6, 6, |_, _| false);
    let viewer = player(&mut app, first, 2, 2, 2);
    app.update();
    assert_eq!(fog_state(&app, first, 2, 2), FogState::Visible);
    app.world_mut()
        .entity_mut(viewer)
        .insert((Viewshed::new(2), TilemapId(second)));
    app.update();
    assert_eq!(fog_state(&app, first, 2, 2), FogState::Remembered);
    assert_eq!(fog_state(&app, second, 2, 2), FogState::Visible);
}

/// Found by `tests/model/`: a target on a tilemap that becomes a layer of the viewer's map
/// is spotted (and lost when the layer leaves).
#[test]
fn a_target_on_a_tilemap_that_becomes_a_layer_is_spotted() {
    let mut app = logging_app();
    let map = spawn_map(&mut app, 5, 1, |_, _| false);
    let other = spawn_map(&mut app, 5, 1, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 1, 0, 3);
    let target = app
        .world_mut()
        .spawn((CanBeSpotted, TilePos { x: 3, y: 0 }, TilemapId(other)))
        .id();
    app.update();
    assert_eq!(take_log(&mut app), vec![]);
    app.world_mut().entity_mut(other).insert(LayerOf(map));
    app.update();
    assert_eq!(take_log(&mut app), vec![(true, viewer, target)]);
    app.world_mut().entity_mut(other).remove::<LayerOf>();
    app.update();
    assert_eq!(take_log(&mut app), vec![(false, viewer, target)]);
}

fn shows(app: &App, layer: Entity, x: u32, y: u32) -> bool {
    let tile = tile_entity(app, layer, x, y);
    app.world().get::<TileVisible>(tile).unwrap().0
}

/// Found by `tests/model/`: a fog layer gets its look whenever it becomes part of a map
/// again: it became a layer, its `TileStorage` was put back, or one of its tiles was disabled
/// while its state changed.
#[test]
fn a_fog_layer_looks_right_after_joining_a_map_or_getting_its_tiles_back() {
    let mut app = app();
    let map = spawn_map(&mut app, 8, 1, |_, _| false);
    let layer = spawn_map(&mut app, 8, 1, |_, _| false);
    app.world_mut()
        .entity_mut(layer)
        .insert(FogStyle::default());
    let viewer = player(&mut app, map, 1, 0, 2);
    app.update();
    // The layer is its own map: nobody sees there, so its tiles are hidden.
    assert!(!shows(&app, layer, 1, 0));
    app.world_mut().entity_mut(layer).insert(LayerOf(map));
    app.update();
    assert!(shows(&app, layer, 1, 0), "a new layer shows its map's fog");
    assert!(!shows(&app, layer, 6, 0));

    // Its storage taken away while the viewer walks east, then put back.
    let storage = app
        .world_mut()
        .entity_mut(layer)
        .take::<TileStorage>()
        .unwrap();
    app.world_mut().get_mut::<TilePos>(viewer).unwrap().x = 6;
    app.update();
    app.world_mut().entity_mut(layer).insert(storage);
    app.update();
    assert!(
        shows(&app, layer, 6, 0),
        "the storage put back shows the fog"
    );

    // A tile disabled while it comes into view looks right once enabled.
    let tile = tile_entity(&app, layer, 3, 0);
    app.world_mut().entity_mut(tile).insert(Disabled);
    app.world_mut().get_mut::<TilePos>(viewer).unwrap().x = 2;
    app.update();
    app.world_mut().entity_mut(tile).remove::<Disabled>();
    app.update();
    assert!(shows(&app, layer, 3, 0), "an enabled tile shows its state");
}

#[cfg(feature = "serde")]
mod saves {
    use super::*;
    use bevy_viewshed::{ExploredMemory, MemoryError};

    #[test]
    fn an_absurd_memory_size_is_an_error_not_an_abort() {
        let json = r#"{"width":4294967295,"height":4294967295,"teams":[]}"#;
        let error = serde_json::from_str::<FogOfWar>(json).unwrap_err();
        assert!(error.to_string().contains("larger than"), "{error}");
        let memory = ExploredMemory {
            width: u32::MAX,
            height: 3,
            teams: vec![(bevy_viewshed::Team(0), vec![0; 3])],
        };
        assert!(matches!(
            FogOfWar::try_from(memory),
            Err(MemoryError::TooLarge { .. }) | Err(MemoryError::WrongLength { .. })
        ));
    }

    #[test]
    fn a_viewshed_whose_window_and_bits_disagree_is_an_error() {
        let mut app = app();
        let map = spawn_map(&mut app, 8, 8, |_, _| false);
        let viewer = spawn_viewer(&mut app, map, 3, 3, 2);
        app.update();
        let json = serde_json::to_string(viewshed(&app, viewer)).unwrap();
        assert!(serde_json::from_str::<Viewshed>(&json).is_ok());
        let broken = json.replace("\"width\":5", "\"width\":500");
        assert_ne!(broken, json);
        assert!(serde_json::from_str::<Viewshed>(&broken).is_err());
        let huge = json.replace("\"height\":5", "\"height\":4294967295");
        assert!(serde_json::from_str::<Viewshed>(&huge).is_err());
    }
}

/// A game that removes the plugin's schedule loses its work and gets an error in the log,
/// not a panic; views already computed stay as they were.
#[test]
fn a_removed_plugin_schedule_stops_the_plugin_without_a_panic() {
    let mut app = app();
    let map = spawn_map(&mut app, 12, 12, |x, _| x == 6);
    let viewer = spawn_viewer(&mut app, map, 2, 2, 5);
    app.update();
    let before = seen(&app, viewer);
    assert_eq!(before, core_seen(12, 12, |x, _| x == 6, (2, 2), 5));
    app.world_mut()
        .resource_mut::<Schedules>()
        .remove(ViewshedSchedule);
    app.world_mut().get_mut::<TilePos>(viewer).unwrap().y = 7;
    app.update();
    app.update();
    assert_eq!(seen(&app, viewer), before);
}

/// A viewer whose `TilemapId` is removed (its `TilePos` kept) stands on no map: it sees
/// nothing from the next update on, and sees again once it gets a tilemap back.
#[test]
fn a_viewer_that_loses_its_tilemap_sees_nothing() {
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 3, 3, 3);
    app.update();
    assert!(viewshed(&app, viewer).count() > 0);
    app.world_mut().entity_mut(viewer).remove::<TilemapId>();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0, "on no map");
    assert_eq!(viewshed(&app, viewer).origin(), None);
    app.world_mut().entity_mut(viewer).insert(TilemapId(map));
    app.update();
    assert!(viewshed(&app, viewer).count() > 0, "back on its map");
}

/// `RevealsFog` or `NeedsLight` on an entity without a `Viewshed` brings `Viewshed::default()`
/// (radius 8, with a warning once: `tests/warnings.rs`), so the entity sees and is never
/// silently blind; a `Viewshed` the game gives wins.
#[test]
fn a_component_that_needs_a_viewshed_brings_the_default_one() {
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    let at = (TilePos { x: 10, y: 10 }, TilemapId(map));
    let revealing = app.world_mut().spawn((RevealsFog, at.0, at.1)).id();
    let in_the_dark = app
        .world_mut()
        .spawn((NeedsLight::new(20), at.0, at.1))
        .id();
    let chosen = app
        .world_mut()
        .spawn((RevealsFog, Viewshed::new(3), at.0, at.1))
        .id();
    app.update();
    for entity in [revealing, in_the_dark] {
        assert_eq!(
            viewshed(&app, entity).radius(),
            Viewshed::default().radius()
        );
        assert_eq!(
            seen(&app, entity),
            core_seen(20, 20, |_, _| false, (10, 10), 8)
        );
    }
    assert_eq!(
        seen(&app, chosen),
        core_seen(20, 20, |_, _| false, (10, 10), 3)
    );
}
