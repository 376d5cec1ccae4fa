//! Partial opacity in a headless app: `Density` entities and `DensityCells` thin the views and
//! the lights of square and staggered maps exactly as the core's `DensityGrid::thin` does on
//! the same densities (held to a brute-force oracle in `crates/viewshed_core/tests/density.rs`),
//! follow every change like walls do (only the views that reach a changed tile are computed
//! again), and are ignored on hexagonal maps.

mod common_app;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DensityCells, DistanceShape, FovOptions, MapOpacity, VisionCone};
use bevy_viewshed::{DensityGrid, Lighting, OpacityGrid, field_of_view, hex_field_of_view};
use common_app::{app, generation, hex_coords, seen, spawn_map, spawn_viewer, tile_entity};

const W: u32 = 24;
const H: u32 = 12;

fn pillars(x: u32, y: u32) -> bool {
    x % 7 == 3 && y % 5 == 2
}

/// The view from `origin` by the core: the field of view on the walls, thinned by `density`.
fn core_view(
    walls: impl Fn(u32, u32) -> bool,
    density: impl Fn(u32, u32) -> f32,
    origin: (u32, u32),
    options: FovOptions,
) -> Vec<(u32, u32)> {
    let grid = OpacityGrid::from_fn(W, H, walls);
    let density = DensityGrid::from_fn(W, H, density);
    let mut view = field_of_view(&grid, origin, options).unwrap();
    density.thin(origin, &mut view);
    let mut cells: Vec<_> = view.iter().collect();
    cells.sort_unstable_by_key(|&(x, y)| (y, x));
    cells
}

fn smoke(x: u32, y: u32) -> f32 {
    match (x, y) {
        (8..=9, 4..=7) => 0.5,
        (14, 2..=9) => 0.3,
        (18, 6) => 1.0,
        _ => 0.0,
    }
}

/// Puts `density` on every tile entity of the map where it is above 0.
fn puff(app: &mut App, map: Entity, density: impl Fn(u32, u32) -> f32) {
    for y in 0..H {
        for x in 0..W {
            if density(x, y) > 0.0 {
                let tile = tile_entity(app, map, x, y);
                app.world_mut()
                    .entity_mut(tile)
                    .insert(Density(density(x, y)));
            }
        }
    }
}

#[test]
fn density_entities_thin_views_as_the_core_does() {
    let mut app = app();
    let map = spawn_map(&mut app, W, H, pillars);
    puff(&mut app, map, smoke);
    let options = [
        FovOptions::unlimited(),
        FovOptions::radius(9),
        FovOptions::radius(12).with_shape(DistanceShape::Chebyshev),
        FovOptions::radius(30).with_cone(VisionCone::degrees(0.0, 100.0)),
    ];
    let viewers: Vec<_> = options
        .iter()
        .map(|&options| {
            let viewshed = Viewshed::with_options(options);
            let at = (TilePos { x: 5, y: 5 }, TilemapId(map));
            app.world_mut().spawn((viewshed, at.0, at.1)).id()
        })
        .collect();
    app.update();
    for (viewer, options) in viewers.into_iter().zip(options) {
        let want = core_view(pillars, smoke, (5, 5), options);
        assert_eq!(seen(&app, viewer), want, "{options:?}");
    }
    let opacity = app.world().get::<MapOpacity>(map).unwrap();
    assert_eq!(opacity.density(TilePos { x: 8, y: 4 }), 0.5);
    assert_eq!(opacity.density(TilePos { x: 0, y: 0 }), 0.0);
}

#[test]
fn density_cells_and_entities_add_up() {
    let mut app = app();
    let map = spawn_map(&mut app, W, H, pillars);
    let cells = DensityCells::from_fn(W, H, |x, _| if x == 10 { 0.5 } else { 0.0 });
    app.world_mut().entity_mut(map).insert(cells);
    // A second half on one tile of the column: that tile alone blocks.
    let cloud = app
        .world_mut()
        .spawn((Density(0.5), TilePos { x: 10, y: 5 }, TilemapId(map)))
        .id();
    let viewer = spawn_viewer(&mut app, map, 5, 5, 20);
    app.update();
    let both = |x: u32, y: u32| match (x, y) {
        (10, 5) => 1.0,
        (10, _) => 0.5,
        _ => 0.0,
    };
    assert_eq!(
        seen(&app, viewer),
        core_view(pillars, both, (5, 5), FovOptions::radius(20))
    );
    assert!(!seen(&app, viewer).contains(&(15, 5)));
    let opacity = app.world().get::<MapOpacity>(map).unwrap();
    assert_eq!(opacity.density(TilePos { x: 10, y: 5 }), 1.0);

    // The cloud drifts off, then the cells are taken away.
    app.world_mut().entity_mut(cloud).despawn();
    app.update();
    let cells_only = |x: u32, _: u32| if x == 10 { 0.5 } else { 0.0 };
    assert_eq!(
        seen(&app, viewer),
        core_view(pillars, cells_only, (5, 5), FovOptions::radius(20))
    );
    app.world_mut().entity_mut(map).remove::<DensityCells>();
    app.update();
    assert_eq!(
        seen(&app, viewer),
        core_view(pillars, |_, _| 0.0, (5, 5), FovOptions::radius(20))
    );
}

/// A density change recomputes exactly the views that reach its tile; a new value, a move,
/// disabling and removing one are followed.
#[test]
fn density_changes_recompute_only_the_views_in_reach() {
    let mut app = app();
    let map = spawn_map(&mut app, W, H, |_, _| false);
    let near = spawn_viewer(&mut app, map, 3, 5, 5);
    let far = spawn_viewer(&mut app, map, 20, 5, 3);
    let cloud = app
        .world_mut()
        .spawn((Density(1.0), TilePos { x: 5, y: 5 }, TilemapId(map)))
        .id();
    app.update();
    let open = |_: u32, _: u32| false;
    let view =
        |density: &dyn Fn(u32, u32) -> f32| core_view(open, density, (3, 5), FovOptions::radius(5));
    assert_eq!(
        seen(&app, near),
        view(&|x, y| if (x, y) == (5, 5) { 1.0 } else { 0.0 })
    );
    let (near_gen, far_gen) = (generation(&app, near), generation(&app, far));

    // Thinner: one cell of 0.6 hides nothing behind it.
    app.world_mut().get_mut::<Density>(cloud).unwrap().0 = 0.6;
    app.update();
    assert_eq!(seen(&app, near), view(&|_, _| 0.0));
    assert_eq!(generation(&app, near), near_gen + 1);
    assert_eq!(generation(&app, far), far_gen, "far out of reach");

    // Denser again, moved next to the viewer.
    app.world_mut().get_mut::<Density>(cloud).unwrap().0 = 2.0;
    *app.world_mut().get_mut::<TilePos>(cloud).unwrap() = TilePos { x: 4, y: 6 };
    app.update();
    assert_eq!(
        seen(&app, near),
        view(&|x, y| if (x, y) == (4, 6) { 1.0 } else { 0.0 })
    );
    app.world_mut().entity_mut(cloud).insert(Disabled);
    app.update();
    assert_eq!(seen(&app, near), view(&|_, _| 0.0));
    app.world_mut().entity_mut(cloud).remove::<Disabled>();
    app.update();
    assert_eq!(
        seen(&app, near),
        view(&|x, y| if (x, y) == (4, 6) { 1.0 } else { 0.0 })
    );
    app.world_mut().entity_mut(cloud).remove::<Density>();
    app.update();
    assert_eq!(seen(&app, near), view(&|_, _| 0.0));
    assert_eq!(generation(&app, far), far_gen, "never in reach");
}

/// A light in smoke lights what a viewer there would see through it.
#[test]
fn lights_are_thinned_alike() {
    let mut app = app();
    let map = spawn_map(&mut app, W, H, pillars);
    puff(&mut app, map, smoke);
    app.world_mut()
        .spawn((LightSource::new(10), TilePos { x: 5, y: 5 }, TilemapId(map)));
    app.update();
    let lighting = app.world().get::<Lighting>(map).unwrap();
    let mut lit: Vec<_> = lighting.lit_tiles().map(|t| (t.x, t.y)).collect();
    lit.sort_unstable_by_key(|&(x, y)| (y, x));
    assert_eq!(
        lit,
        core_view(pillars, smoke, (5, 5), FovOptions::radius(10))
    );
}

/// On a staggered map, density thins the view on the diamond grid, tile `(x, y)` at cell
/// `(x, x + y)`.
#[test]
fn a_staggered_map_is_thinned_on_its_diamond_grid() {
    let mut app = app();
    let map = spawn_map(&mut app, W, H, pillars);
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Isometric(IsoCoordSystem::Staggered));
    puff(&mut app, map, smoke);
    let viewer = spawn_viewer(&mut app, map, 6, 4, 9);
    app.update();
    let (cw, ch) = (W, W + H - 1);
    let tile = |u: u32, v: u32| (v >= u && v - u < H).then(|| (u, v - u));
    let walls = OpacityGrid::from_fn(cw, ch, |u, v| tile(u, v).is_none_or(|(x, y)| pillars(x, y)));
    let density = DensityGrid::from_fn(cw, ch, |u, v| tile(u, v).map_or(0.0, |(x, y)| smoke(x, y)));
    let origin = (6, 6 + 4);
    let mut view = field_of_view(&walls, origin, FovOptions::radius(9)).unwrap();
    let unthinned: Vec<_> = view.iter().filter_map(|(u, v)| tile(u, v)).collect();
    density.thin(origin, &mut view);
    let mut want: Vec<_> = view.iter().filter_map(|(u, v)| tile(u, v)).collect();
    want.sort_unstable_by_key(|&(x, y)| (y, x));
    assert!(want.len() < unthinned.len(), "the smoke hides something");
    assert_eq!(seen(&app, viewer), want);
}

/// Hexagonal maps do not follow density (a warning says so: `tests/warnings.rs`).
#[test]
fn hexagonal_maps_ignore_density() {
    let mut app = app();
    let map = spawn_map(&mut app, W, H, pillars);
    let system = HexCoordSystem::Row;
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Hexagon(system));
    puff(&mut app, map, smoke);
    let viewer = spawn_viewer(&mut app, map, 5, 5, 9);
    app.update();
    let grid = OpacityGrid::from_fn(W, H, pillars);
    let view = hex_field_of_view(&grid, hex_coords(system), (5, 5), FovOptions::radius(9));
    let mut want: Vec<_> = view.unwrap().iter().collect();
    want.sort_unstable_by_key(|&(x, y)| (y, x));
    assert_eq!(seen(&app, viewer), want);
}
