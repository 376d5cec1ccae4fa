//! `FogOverlay` in a headless `App`: one component on a map gives it an overlay layer of one
//! tile per cell, drawn over the map's layers, written by the fog in `FogStyle::overlay()`
//! while the map's own tiles keep the game's tints; the layer follows the map's size and goes
//! with its `FogOverlay`.

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{FogOverlayLayer, Layers};
use bevy_viewshed::{LayerOf, TileLook};
use common_app::*;

/// The game's own tint of tile `(x, y)`: a chequered floor of two colours.
fn tint(x: u32, y: u32) -> Color {
    if (x + y).is_multiple_of(2) {
        Color::srgb(0.9, 0.5, 0.2)
    } else {
        Color::srgb(0.2, 0.6, 0.9)
    }
}

/// A `width` x `height` map (walls at `x == 10`) whose tiles the game tinted with [`tint`].
fn tinted_map(app: &mut App, width: u32, height: u32) -> Entity {
    let map = spawn_map(app, width, height, |x, _| x == 10);
    for y in 0..height {
        for x in 0..width {
            let tile = tile_entity(app, map, x, y);
            app.world_mut().get_mut::<TileColor>(tile).unwrap().0 = tint(x, y);
        }
    }
    map
}

fn overlay_of(app: &App, map: Entity) -> Entity {
    app.world()
        .get::<FogOverlay>(map)
        .expect("the map has its FogOverlay")
        .layer()
        .expect("the plugin spawned the overlay layer")
}

/// The overlay's tiles: each cell's tile, checked to be the overlay's, on its cell, and the
/// only tiles of the overlay.
fn assert_one_tile_per_cell(app: &mut App, map: Entity, layer: Entity) {
    let size = *app.world().get::<TilemapSize>(map).unwrap();
    assert_eq!(app.world().get::<TilemapSize>(layer), Some(&size));
    let storage = app.world().get::<TileStorage>(layer).unwrap().clone();
    assert_eq!(storage.size, size);
    for y in 0..size.y {
        for x in 0..size.x {
            let tile = storage
                .get(&TilePos { x, y })
                .unwrap_or_else(|| panic!("({x}, {y}) has an overlay tile"));
            assert_eq!(app.world().get::<TilePos>(tile), Some(&TilePos { x, y }));
            assert_eq!(app.world().get::<TilemapId>(tile), Some(&TilemapId(layer)));
        }
    }
    let mut tiles = app.world_mut().query::<&TilemapId>();
    let count = tiles.iter(app.world()).filter(|id| id.0 == layer).count();
    assert_eq!(count, (size.x * size.y) as usize, "no tile left over");
}

/// Asserts the looks of the map's own tiles (the game's tints, all shown) and of the overlay
/// (clear, translucent black or opaque black by the tile's fog state) on every cell.
fn assert_tints_and_overlay(app: &App, map: Entity, layer: Entity) {
    let style = FogStyle::overlay();
    let size = *app.world().get::<TilemapSize>(map).unwrap();
    let (mut visible, mut remembered, mut unexplored) = (0, 0, 0);
    for y in 0..size.y {
        for x in 0..size.x {
            assert_eq!(look(app, map, x, y), (true, tint(x, y)), "tile ({x}, {y})");
            let state = fog(app, map).state(TilePos { x, y });
            let (shown, color) = look(app, layer, x, y);
            match state {
                FogState::Visible => {
                    visible += 1;
                    assert!(!shown, "clear over the visible ({x}, {y})");
                }
                FogState::Remembered => {
                    remembered += 1;
                    assert!(shown);
                    assert_eq!(color, style.remembered.color.unwrap(), "({x}, {y})");
                    assert!((0.3..0.9).contains(&color.alpha()), "translucent");
                }
                FogState::Unexplored => {
                    unexplored += 1;
                    assert_eq!((shown, color), (true, Color::BLACK), "({x}, {y})");
                }
            }
        }
    }
    assert!(visible > 0 && remembered > 0 && unexplored > 0);
}

#[test]
fn a_fog_overlay_covers_the_map_and_keeps_its_tints() {
    let mut app = app();
    let map = tinted_map(&mut app, 24, 12);
    // A decoration layer at z = 3: the overlay goes above it.
    let decorations = spawn_layer(&mut app, 24, 12, |_, _| false, Some(map));
    let raised = Transform::from_xyz(0.0, 0.0, 3.0);
    app.world_mut()
        .entity_mut(decorations)
        .insert((raised, GlobalTransform::from(raised)));
    app.world_mut()
        .entity_mut(map)
        .insert(FogOverlay::default());
    let player = spawn_player(&mut app, map, 3, 5, 3);
    app.update();

    let layer = overlay_of(&app, map);
    let world = app.world();
    assert!(world.get::<FogOverlayLayer>(layer).is_some());
    assert_eq!(world.get::<LayerOf>(layer), Some(&LayerOf(map)));
    assert_eq!(world.get::<ChildOf>(layer).map(ChildOf::parent), Some(map));
    assert!(world.get::<Layers>(map).unwrap().iter().any(|l| l == layer));
    assert_eq!(world.get::<FogStyle>(layer), Some(&FogStyle::overlay()));
    assert!(world.get::<FogOfWar>(layer).is_none(), "a layer, not a map");
    for (component, same) in [
        (
            "grid size",
            world.get::<TilemapGridSize>(layer) == world.get::<TilemapGridSize>(map),
        ),
        (
            "tile size",
            world.get::<TilemapTileSize>(layer) == world.get::<TilemapTileSize>(map),
        ),
        (
            "map type",
            world.get::<TilemapType>(layer) == world.get::<TilemapType>(map),
        ),
        (
            "anchor",
            world.get::<TilemapAnchor>(layer) == world.get::<TilemapAnchor>(map),
        ),
    ] {
        assert!(same, "the overlay has its map's {component}");
    }
    let z = world.get::<GlobalTransform>(layer).unwrap().translation();
    assert_eq!(z, Vec3::new(0.0, 0.0, 4.0), "1.0 above the highest layer");
    assert_one_tile_per_cell(&mut app, map, layer);

    // Walk east: the start is remembered, past the wall is unexplored.
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 7, y: 5 };
    app.update();
    assert_tints_and_overlay(&app, map, layer);
    assert!(!look(&app, layer, 7, 5).0);
    assert_eq!(
        fog(&app, map).state(TilePos { x: 3, y: 5 }),
        FogState::Remembered
    );
    assert_eq!(look(&app, layer, 20, 5), (true, Color::BLACK));
    // The decoration layer has no FogStyle either: left alone.
    assert_eq!(look(&app, decorations, 20, 5), (true, Color::WHITE));
}

#[test]
fn a_fog_overlay_follows_its_map_when_resized() {
    let mut app = app();
    let map = tinted_map(&mut app, 24, 12);
    app.world_mut()
        .entity_mut(map)
        .insert(FogOverlay::default());
    let player = spawn_player(&mut app, map, 3, 5, 3);
    app.update();
    *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 7, y: 5 };
    app.update();
    let layer = overlay_of(&app, map);
    let kept = tile_entity(&app, layer, 2, 2);
    let cut = tile_entity(&app, layer, 20, 10);

    // Smaller: the tiles still on the map are kept, the others despawned.
    shrink_map(&mut app, map, TilemapSize::new(16, 8));
    app.update();
    assert_eq!(overlay_of(&app, map), layer, "the same layer");
    assert_one_tile_per_cell(&mut app, map, layer);
    assert_eq!(tile_entity(&app, layer, 2, 2), kept);
    assert!(app.world().get_entity(cut).is_err(), "despawned");
    assert_tints_and_overlay(&app, map, layer);

    // Larger: the new cells get tiles, black (never seen).
    grow_map(&mut app, map, TilemapSize::new(30, 14));
    app.update();
    assert_one_tile_per_cell(&mut app, map, layer);
    assert_eq!(look(&app, layer, 29, 13), (true, Color::BLACK));
    assert_tints_and_overlay(&app, map, layer);
}

/// Shrinks `map` to `size`, despawning its tiles outside.
fn shrink_map(app: &mut App, map: Entity, size: TilemapSize) {
    let old = app.world().get::<TileStorage>(map).unwrap().clone();
    let mut storage = TileStorage::empty(size);
    for y in 0..old.size.y {
        for x in 0..old.size.x {
            let position = TilePos { x, y };
            let tile = old.get(&position).unwrap();
            if position.within_map_bounds(&size) {
                storage.set(&position, tile);
            } else {
                app.world_mut().despawn(tile);
            }
        }
    }
    app.world_mut().entity_mut(map).insert((size, storage));
}

/// Grows `map` to `size`, with tinted tiles on the new cells.
fn grow_map(app: &mut App, map: Entity, size: TilemapSize) {
    let old = app.world().get::<TileStorage>(map).unwrap().clone();
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let position = TilePos { x, y };
            let tile = old.checked_get(&position).unwrap_or_else(|| {
                let look = (TileVisible(true), TileColor(tint(x, y)));
                app.world_mut().spawn((position, TilemapId(map), look)).id()
            });
            storage.set(&position, tile);
        }
    }
    app.world_mut().entity_mut(map).insert((size, storage));
}

#[test]
fn a_fog_overlay_takes_the_callers_style_and_goes_with_its_component() {
    let mut app = app();
    let map = tinted_map(&mut app, 12, 12);
    let grey = FogStyle {
        remembered: TileLook::shown(Color::srgba(0.5, 0.5, 0.5, 0.5)),
        ..FogStyle::overlay()
    };
    app.world_mut()
        .entity_mut(map)
        .insert(FogOverlay::new().with_style(grey));
    spawn_player(&mut app, map, 3, 5, 3);
    app.update();
    let layer = overlay_of(&app, map);
    assert_eq!(app.world().get::<FogStyle>(layer), Some(&grey));
    let tile = tile_entity(&app, layer, 11, 11);

    // The style changed in place: the layer is written in the new style.
    let red = Color::srgb(0.5, 0.0, 0.0);
    app.world_mut()
        .get_mut::<FogOverlay>(map)
        .unwrap()
        .style
        .unexplored = TileLook::shown(red);
    app.update();
    assert_eq!(look(&app, layer, 11, 11), (true, red));

    // Inserted again: the same layer is kept, not a second one.
    app.world_mut()
        .entity_mut(map)
        .insert(FogOverlay::default());
    app.update();
    assert_eq!(overlay_of(&app, map), layer);
    let mut overlays = app.world_mut().query::<&FogOverlayLayer>();
    assert_eq!(overlays.iter(app.world()).count(), 1);
    assert_eq!(look(&app, layer, 11, 11), (true, Color::BLACK));

    // Removed: the layer and its tiles go; the map's tiles keep their tints.
    app.world_mut().entity_mut(map).remove::<FogOverlay>();
    app.update();
    assert!(app.world().get_entity(layer).is_err());
    assert!(app.world().get_entity(tile).is_err());
    assert_eq!(look(&app, map, 11, 11), (true, tint(11, 11)));

    // A map despawned takes its overlay with it.
    app.world_mut()
        .entity_mut(map)
        .insert(FogOverlay::default());
    app.update();
    let layer = overlay_of(&app, map);
    app.world_mut().entity_mut(map).despawn();
    app.update();
    assert!(app.world().get_entity(layer).is_err());
}

#[test]
fn a_fog_overlay_on_an_entity_that_is_no_tilemap_waits_for_one() {
    let mut app = app();
    let entity = app.world_mut().spawn(FogOverlay::default()).id();
    app.update(); // a warning, no panic, no layer
    assert_eq!(app.world().get::<FogOverlay>(entity).unwrap().layer(), None);
    let mut overlays = app.world_mut().query::<&FogOverlayLayer>();
    assert_eq!(overlays.iter(app.world()).count(), 0);

    // It becomes a tilemap: it gets its overlay.
    let size = TilemapSize::new(4, 4);
    app.world_mut()
        .entity_mut(entity)
        .insert((size, TileStorage::empty(size)));
    app.update();
    let layer = overlay_of(&app, entity);
    assert_one_tile_per_cell(&mut app, entity, layer);
}

/// An 8x8 tinted map given a default `FogOverlay`, one update later: its overlay layer.
fn overlay_on_a_new_map(app: &mut App) -> Entity {
    let map = tinted_map(app, 8, 8);
    app.world_mut()
        .entity_mut(map)
        .insert(FogOverlay::default());
    app.update();
    overlay_of(app, map)
}

#[test]
fn with_assets_the_overlay_draws_a_generated_white_tile() {
    let mut app = app();
    app.add_plugins(AssetPlugin::default())
        .init_asset::<Image>();
    let layer = overlay_on_a_new_map(&mut app);
    let TilemapTexture::Single(handle) = app.world().get::<TilemapTexture>(layer).unwrap() else {
        panic!("a single texture");
    };
    let image = app.world().resource::<Assets<Image>>().get(handle).unwrap();
    assert_eq!(image.size(), UVec2::new(16, 16), "a tile's size");
    assert!(image.data.as_ref().unwrap().iter().all(|&b| b == 255));

    // Without assets (a headless server), the default handle: nothing drawn, nothing missing.
    let mut app = common_app::app();
    let layer = overlay_on_a_new_map(&mut app);
    assert_eq!(
        app.world().get::<TilemapTexture>(layer),
        Some(&TilemapTexture::default())
    );
}
