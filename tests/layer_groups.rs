//! `LayerGroup`: every tilemap below an entity is a layer of one map, with the root picked by
//! the documented rule (the first tilemap met depth first, children in order) and followed when
//! tilemaps are added, despawned or re-parented at run time.

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{LayerOf, MapOpacity};
use common_app::*;

const W: u32 = 12;
const H: u32 = 5;

/// A wall column at x = 6 on its own layer.
fn wall(x: u32, _y: u32) -> bool {
    x == 6
}

fn nothing(_x: u32, _y: u32) -> bool {
    false
}

/// A level entity with a floor layer and a wall layer as children, in that order.
fn level(app: &mut App) -> (Entity, Entity, Entity) {
    let floor = spawn_map(app, W, H, nothing);
    let walls = spawn_map(app, W, H, wall);
    let level = app
        .world_mut()
        .spawn(LayerGroup::default())
        .add_children(&[floor, walls])
        .id();
    (level, floor, walls)
}

fn layer_of(app: &App, tilemap: Entity) -> Option<Entity> {
    app.world().get::<LayerOf>(tilemap).map(|l| l.0)
}

fn group_root(app: &App, group: Entity) -> Option<Entity> {
    app.world().get::<LayerGroup>(group).unwrap().root()
}

#[test]
fn walls_on_a_grouped_layer_block_a_viewer_on_another() {
    let mut app = app();
    let (level, floor, walls) = level(&mut app);
    let viewer = spawn_viewer(&mut app, floor, 2, 2, 10);
    app.update();
    assert_eq!(group_root(&app, level), Some(floor));
    assert_eq!(layer_of(&app, floor), None);
    assert_eq!(layer_of(&app, walls), Some(floor));
    assert_eq!(seen(&app, viewer), core_seen(W, H, wall, (2, 2), 10));
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 8, y: 2 }));
}

/// A `LayerOf` set by hand on a tilemap below a group, or taken from it, is put back as the
/// group wants it (as `LayerGroup`'s docs say), and the walls still block the view.
#[test]
fn a_layer_of_set_or_removed_by_hand_below_a_group_is_put_back() {
    let mut app = app();
    let (level, floor, walls) = level(&mut app);
    let elsewhere = spawn_map(&mut app, W, H, nothing);
    let viewer = spawn_viewer(&mut app, floor, 2, 2, 10);
    app.update();
    assert_eq!(layer_of(&app, walls), Some(floor));
    app.world_mut().entity_mut(walls).insert(LayerOf(elsewhere));
    app.update();
    assert_eq!(layer_of(&app, walls), Some(floor), "put back");
    assert_eq!(group_root(&app, level), Some(floor));
    assert_eq!(seen(&app, viewer), core_seen(W, H, wall, (2, 2), 10));
    app.world_mut().entity_mut(walls).remove::<LayerOf>();
    app.update();
    assert_eq!(
        layer_of(&app, walls),
        Some(floor),
        "put back after a removal"
    );
    app.update();
    assert_eq!(seen(&app, viewer), core_seen(W, H, wall, (2, 2), 10));
}

#[test]
fn the_root_is_the_first_tilemap_depth_first_in_children_order() {
    let mut app = app();
    let decor = spawn_map(&mut app, W, H, nothing);
    let ground = spawn_map(&mut app, W, H, nothing);
    let deep = spawn_map(&mut app, W, H, nothing);
    // level -> [folder -> [deep], ground, decor]: `deep` comes first.
    let folder = app.world_mut().spawn_empty().add_child(deep).id();
    let level = app
        .world_mut()
        .spawn(LayerGroup::default())
        .add_children(&[folder, ground, decor])
        .id();
    app.update();
    assert_eq!(group_root(&app, level), Some(deep));
    assert_eq!(layer_of(&app, ground), Some(deep));
    assert_eq!(layer_of(&app, decor), Some(deep));
    assert_eq!(layer_of(&app, deep), None);
}

#[test]
fn tilemaps_added_despawned_or_moved_out_at_run_time_are_followed() {
    let mut app = app();
    let (level, floor, walls) = level(&mut app);
    let viewer = spawn_viewer(&mut app, walls, 2, 2, 10);
    app.update();

    // A new layer with a pillar at (3, 3) joins the map.
    let pillar = |x: u32, y: u32| (x, y) == (3, 3);
    let extra = spawn_map(&mut app, W, H, pillar);
    app.world_mut().entity_mut(level).add_child(extra);
    app.update();
    assert_eq!(layer_of(&app, extra), Some(floor));
    let both = |x, y| wall(x, y) || pillar(x, y);
    assert_eq!(seen(&app, viewer), core_seen(W, H, both, (2, 2), 10));

    // It leaves the group: it is its own map again and its pillar no longer blocks.
    app.world_mut().entity_mut(extra).remove::<ChildOf>();
    app.update();
    assert_eq!(layer_of(&app, extra), None);
    assert_eq!(seen(&app, viewer), core_seen(W, H, wall, (2, 2), 10));

    // The root is despawned: the wall layer becomes the root, the viewer on it still sees.
    app.world_mut().entity_mut(floor).despawn();
    app.update();
    assert_eq!(group_root(&app, level), Some(walls));
    assert_eq!(layer_of(&app, walls), None);
    assert!(app.world().get::<MapOpacity>(walls).is_some());
    assert_eq!(seen(&app, viewer), core_seen(W, H, wall, (2, 2), 10));
}

#[test]
fn removing_the_group_makes_each_tilemap_its_own_map() {
    let mut app = app();
    let (level, floor, walls) = level(&mut app);
    let viewer = spawn_viewer(&mut app, floor, 2, 2, 10);
    app.update();
    app.world_mut().entity_mut(level).remove::<LayerGroup>();
    app.update();
    assert_eq!(layer_of(&app, walls), None);
    assert_eq!(seen(&app, viewer), core_seen(W, H, nothing, (2, 2), 10));
}

#[test]
fn a_nested_group_keeps_its_own_tilemaps() {
    let mut app = app();
    let (outer, floor, _walls) = level(&mut app);
    let (inner, inner_floor, inner_walls) = level(&mut app);
    app.world_mut().entity_mut(outer).add_child(inner);
    app.update();
    assert_eq!(group_root(&app, outer), Some(floor));
    assert_eq!(group_root(&app, inner), Some(inner_floor));
    assert_eq!(layer_of(&app, inner_floor), None);
    assert_eq!(layer_of(&app, inner_walls), Some(inner_floor));
}

#[test]
fn a_group_with_no_tilemap_has_no_root() {
    let mut app = app();
    let group = app.world_mut().spawn(LayerGroup::default()).id();
    app.update();
    assert_eq!(group_root(&app, group), None);
}
