//! Clone, reflect and save round trips of the public components carry no stale state: what
//! the plugin remembers about a component (what a view was computed from, what a light added,
//! what a map's tiles show, which layer an overlay spawned) lives beside it, so a copy put on
//! another entity, or written over one in place, behaves as that entity's own after one
//! update.
//!
//! Each component is copied six ways: inserted, or written over the target's own value in
//! place, each by `Clone`, through the type registry (`ReflectComponent::reflect`, a reflected
//! clone, then `ReflectComponent::insert` or `apply`, as an inspector or a scene does), and
//! through a save (serde_json, for the components that save). What the plugin keeps and a
//! game only reads (`MapOpacity`, `Lighting`, `Placed`, `SpottedTargets`) is built again when
//! inserted, and not read when written in place: those are copied by insert only.
#![cfg(feature = "serde")]

mod common_app;

use std::any::TypeId;

use bevy::ecs::component::Mutable;
use bevy::ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DistanceShape, FovOptions, LayerOf, MapOpacity, SpottedTargets};
use bevy_viewshed::{FogOverlayLayer, Ghost, Lighting, Placed, Team, field_of_view};
use common_app::{app, core_seen, logging_app, seen, spawn_map, spotted, take_log, viewshed};

// --- Copying -------------------------------------------------------------------------------

/// How a component is copied.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Way {
    Clone,
    /// Through the type registry: reflected, cloned, inserted or applied.
    Reflect,
    /// Through serde_json.
    Save,
}

/// Where the copy goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Onto {
    /// Inserted (on an entity that may have one already).
    Insert,
    /// Written over the target's own value in place (`*value = copy`, `ReflectComponent::apply`).
    InPlace,
}

/// A public component as a game may copy it.
trait Copied: Component<Mutability = Mutable> + Clone {
    /// The component saved and loaded again, if it saves.
    fn saved(&self) -> Option<Self>;
}

macro_rules! saves {
    ($($t:ty),*) => {$(
        impl Copied for $t {
            fn saved(&self) -> Option<Self> {
                let json = serde_json::to_string(self).expect("it saves");
                Some(serde_json::from_str(&json).expect("its save loads"))
            }
        }
    )*};
}

macro_rules! does_not_save {
    ($($t:ty),*) => {$(
        impl Copied for $t {
            fn saved(&self) -> Option<Self> {
                None
            }
        }
    )*};
}

saves!(Viewshed, LightSource, NeedsLight, FogOfWar, LastSeen);
does_not_save!(
    MapOpacity,
    Lighting,
    OpaqueCells,
    FogOverlay,
    SpottedTargets,
    Placed
);

/// The ways `C` can be copied, each onto a new value and in place.
fn ways<C: Copied + Default>() -> Vec<(Way, Onto)> {
    let mut ways = vec![Way::Clone, Way::Reflect];
    if C::default().saved().is_some() {
        ways.push(Way::Save);
    }
    ways.into_iter()
        .flat_map(|way| [(way, Onto::Insert), (way, Onto::InPlace)])
        .collect()
}

/// Copies `from`'s `C` onto `to`, `way` and `onto` (in place: over `to`'s own, which it must
/// have).
fn copy<C: Copied>(app: &mut App, from: Entity, to: Entity, (way, onto): (Way, Onto)) {
    if onto == Onto::InPlace {
        assert!(app.world().get::<C>(to).is_some(), "a value to write over");
    }
    let world = app.world_mut();
    let value = match way {
        Way::Clone => world.get::<C>(from).unwrap().clone(),
        Way::Save => world.get::<C>(from).unwrap().saved().unwrap(),
        Way::Reflect => return copy_reflected::<C>(world, from, to, onto),
    };
    match onto {
        Onto::Insert => {
            world.entity_mut(to).insert(value);
        }
        Onto::InPlace => *world.get_mut::<C>(to).unwrap() = value,
    }
}

/// [`copy`] through the type registry, as an inspector or a scene does.
fn copy_reflected<C: Copied>(world: &mut World, from: Entity, to: Entity, onto: Onto) {
    let registry = world.resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let component = registry
        .get_type_data::<ReflectComponent>(TypeId::of::<C>())
        .expect("registered as a component");
    let value = {
        let reflected = component.reflect(world.entity(from)).unwrap();
        match reflected.reflect_clone() {
            Ok(value) => value.into_partial_reflect(),
            Err(_) => reflected.to_dynamic(),
        }
    };
    let mut target = world.entity_mut(to);
    match onto {
        Onto::Insert => component.insert(&mut target, value.as_ref(), &registry),
        Onto::InPlace => component.apply(target, value.as_ref()),
    }
}

// --- A map with two rooms ------------------------------------------------------------------

/// 16x6, a wall down column 7: two rooms that see nothing of each other.
fn wall(x: u32, _: u32) -> bool {
    x == 7
}

fn rooms(app: &mut App) -> Entity {
    spawn_map(app, 16, 6, wall)
}

fn target(app: &mut App, map: Entity, (x, y): (u32, u32)) -> Entity {
    app.world_mut()
        .spawn((CanBeSpotted, TilePos { x, y }, TilemapId(map)))
        .id()
}

fn placed(app: &mut App, map: Entity, (x, y): (u32, u32)) -> Entity {
    app.world_mut()
        .spawn((TilePos { x, y }, TilemapId(map)))
        .id()
}

// --- Viewshed, SpottedTargets, NeedsLight --------------------------------------------------

/// A `Viewshed` copied onto another viewer sees from that viewer's own tile after one update:
/// a new value (inserted on an entity without one) has all it sees newly seen; the sightings
/// are the target entity's own, none carried from the original.
#[test]
fn a_copied_viewshed_sees_from_its_own_tile_with_its_own_sightings() {
    for way in ways::<Viewshed>() {
        let mut app = logging_app();
        let map = rooms(&mut app);
        let west = target(&mut app, map, (4, 2));
        let east = target(&mut app, map, (13, 2));
        let original = app
            .world_mut()
            .spawn((Viewshed::new(5), TilePos { x: 2, y: 2 }, TilemapId(map)))
            .id();
        let copy_onto = match way.1 {
            Onto::Insert => placed(&mut app, map, (11, 2)),
            Onto::InPlace => app
                .world_mut()
                .spawn((Viewshed::new(2), TilePos { x: 11, y: 2 }, TilemapId(map)))
                .id(),
        };
        app.update();
        take_log(&mut app);
        copy::<Viewshed>(&mut app, original, copy_onto, way);
        app.update();

        let own = core_seen(16, 6, wall, (11, 2), 5);
        assert_eq!(seen(&app, copy_onto), own, "{way:?}: its own tile's view");
        let at = Some((map, TilePos { x: 11, y: 2 }));
        assert_eq!(viewshed(&app, copy_onto).origin(), at, "{way:?}");
        assert_eq!(seen(&app, original), core_seen(16, 6, wall, (2, 2), 5));
        let sees: Vec<Entity> = spotted(&app, copy_onto).collect();
        assert_eq!(sees, vec![east], "{way:?}: its own sightings");
        assert_eq!(spotted(&app, original).collect::<Vec<_>>(), vec![west]);
        let log = take_log(&mut app);
        match way.1 {
            Onto::Insert => {
                let mut newly: Vec<_> = viewshed(&app, copy_onto)
                    .newly_seen()
                    .map(|t| (t.x, t.y))
                    .collect();
                newly.sort_unstable_by_key(|&(x, y)| (y, x));
                assert_eq!(newly, own, "{way:?}: a new value saw nothing before");
                assert_eq!(log, vec![(true, copy_onto, east)], "{way:?}");
            }
            // It saw `east` before: nothing to announce.
            Onto::InPlace => assert_eq!(log, vec![], "{way:?}"),
        }
    }
}

/// `SpottedTargets` copied onto another viewer holds that viewer's own sightings after one
/// update. (It is neither `Reflect` nor saved, and the plugin alone writes it in place.)
#[test]
fn copied_spotted_targets_are_the_viewers_own_after_an_update() {
    let way = (Way::Clone, Onto::Insert);
    let mut app = app();
    let map = rooms(&mut app);
    target(&mut app, map, (4, 2));
    let east = target(&mut app, map, (13, 2));
    let original = common_app::spawn_viewer(&mut app, map, 2, 2, 5);
    let other = common_app::spawn_viewer(&mut app, map, 11, 2, 5);
    app.update();
    copy::<SpottedTargets>(&mut app, original, other, way);
    app.update();
    assert_eq!(
        spotted(&app, other).collect::<Vec<_>>(),
        vec![east],
        "{way:?}"
    );
}

/// A dark room lit by a torch in the east room: `NeedsLight` copied onto a viewer there
/// filters that viewer's own field of view.
#[test]
fn a_copied_needs_light_filters_its_own_viewers_view() {
    for way in ways::<NeedsLight>() {
        let mut app = app();
        let map = rooms(&mut app);
        app.world_mut()
            .spawn((LightSource::new(2), TilePos { x: 13, y: 2 }, TilemapId(map)));
        let original = app
            .world_mut()
            .spawn((
                Viewshed::new(5),
                NeedsLight::new(1),
                TilePos { x: 2, y: 2 },
                TilemapId(map),
            ))
            .id();
        let other = app
            .world_mut()
            .spawn((Viewshed::new(5), TilePos { x: 10, y: 2 }, TilemapId(map)))
            .id();
        if way.1 == Onto::InPlace {
            app.world_mut().entity_mut(other).insert(NeedsLight::new(4));
        }
        app.update();
        copy::<NeedsLight>(&mut app, original, other, way);
        app.update();

        let fov = core_seen(16, 6, wall, (10, 2), 5);
        let needs = app.world().get::<NeedsLight>(other).unwrap();
        let mut got: Vec<_> = needs.field_of_view().map(|t| (t.x, t.y)).collect();
        got.sort_unstable_by_key(|&(x, y)| (y, x));
        assert_eq!(got, fov, "{way:?}: its own field of view");
        // Dark vision 1 around (10, 2), and the torch's tiles (radius 2 around (13, 2), all
        // floors: the torch lights no wall).
        let torch = core_seen(16, 6, wall, (13, 2), 2);
        let near = |(at_x, at_y): (u32, u32), (x, y): (u32, u32)| {
            let (dx, dy) = (
                i64::from(x) - i64::from(at_x),
                i64::from(y) - i64::from(at_y),
            );
            DistanceShape::Euclidean.contains(dx, dy, 1)
        };
        let want: Vec<_> = fov
            .into_iter()
            .filter(|&c| near((10, 2), c) || torch.contains(&c))
            .collect();
        assert_eq!(seen(&app, other), want, "{way:?}: lit or near");
        let dark = core_seen(16, 6, wall, (2, 2), 5)
            .into_iter()
            .filter(|&c| near((2, 2), c))
            .collect::<Vec<_>>();
        assert_eq!(
            seen(&app, original),
            dark,
            "the original is still in the dark"
        );
    }
}

// --- Lights --------------------------------------------------------------------------------

fn lit(app: &App, map: Entity) -> Vec<(u32, u32)> {
    let lighting = app.world().get::<Lighting>(map).unwrap();
    let mut tiles: Vec<_> = lighting.lit_tiles().map(|t| (t.x, t.y)).collect();
    tiles.sort_unstable_by_key(|&(x, y)| (y, x));
    tiles
}

/// A `LightSource` copied onto another entity lights from that entity's tile; taking either
/// away leaves exactly the other's light.
#[test]
fn a_copied_light_lights_from_its_own_tile_and_goes_out_exactly() {
    for way in ways::<LightSource>() {
        let mut app = app();
        let map = rooms(&mut app);
        let original = app
            .world_mut()
            .spawn((LightSource::new(3), TilePos { x: 2, y: 2 }, TilemapId(map)))
            .id();
        let other = placed(&mut app, map, (12, 3));
        if way.1 == Onto::InPlace {
            app.world_mut()
                .entity_mut(other)
                .insert(LightSource::new(1).with_intensity(0.5));
        }
        app.update();
        let alone = lit(&app, map);
        let alone_sum = app.world().get::<Lighting>(map).unwrap().clone();
        copy::<LightSource>(&mut app, original, other, way);
        app.update();

        let own = core_seen(16, 6, wall, (12, 3), 3);
        let light = app.world().get::<LightSource>(other).unwrap();
        let mut got: Vec<_> = light.lit().map(|t| (t.x, t.y)).collect();
        got.sort_unstable_by_key(|&(x, y)| (y, x));
        assert_eq!(got, own, "{way:?}: lit from its own tile");
        let mut both: Vec<_> = core_seen(16, 6, wall, (2, 2), 3);
        both.extend(own);
        both.sort_unstable_by_key(|&(x, y)| (y, x));
        assert_eq!(lit(&app, map), both, "{way:?}");

        app.world_mut().entity_mut(other).remove::<LightSource>();
        app.update();
        assert_eq!(lit(&app, map), core_seen(16, 6, wall, (2, 2), 3), "{way:?}");
        if way.1 == Onto::Insert {
            let now = app.world().get::<Lighting>(map).unwrap();
            for (x, y) in alone {
                let tile = TilePos { x, y };
                assert_eq!(now.light_at(tile), alone_sum.light_at(tile), "{way:?}");
            }
        }
        app.world_mut().entity_mut(original).despawn();
        app.update();
        assert_eq!(lit(&app, map), vec![], "{way:?}: nothing left behind");
        let lighting = app.world().get::<Lighting>(map).unwrap();
        assert_eq!(
            lighting.light_at(TilePos { x: 12, y: 3 }),
            LinearRgba::BLACK
        );
    }
}

/// A map's `Lighting` inserted on another map holds that map's own lights after one update,
/// and the first map's lights going out change nothing there. (The plugin keeps it: a game
/// reads it, and one it writes in place is not read.)
#[test]
fn a_copied_lighting_is_the_maps_own_after_an_update() {
    let inserted = ways::<Lighting>()
        .into_iter()
        .filter(|way| way.1 == Onto::Insert);
    for way in inserted {
        let mut app = app();
        let first = rooms(&mut app);
        let second = rooms(&mut app);
        let torch = app
            .world_mut()
            .spawn((
                LightSource::new(3),
                TilePos { x: 2, y: 2 },
                TilemapId(first),
            ))
            .id();
        app.world_mut().spawn((
            LightSource::new(1),
            TilePos { x: 12, y: 3 },
            TilemapId(second),
        ));
        app.update();
        copy::<Lighting>(&mut app, first, second, way);
        app.update();
        assert_eq!(
            lit(&app, second),
            core_seen(16, 6, wall, (12, 3), 1),
            "{way:?}"
        );
        assert_eq!(lit(&app, first), core_seen(16, 6, wall, (2, 2), 3));
        app.world_mut().entity_mut(torch).despawn();
        app.update();
        assert_eq!(lit(&app, first), vec![], "{way:?}");
        assert_eq!(
            lit(&app, second),
            core_seen(16, 6, wall, (12, 3), 1),
            "{way:?}"
        );
    }
}

// --- Maps: opacity -------------------------------------------------------------------------

/// A map's `MapOpacity` inserted on another map holds that map's own walls after one update,
/// and its viewers see by them. (The plugin keeps it: a game reads it, and one it writes in
/// place is not read.)
#[test]
fn a_copied_map_opacity_is_the_maps_own_after_an_update() {
    let inserted = ways::<MapOpacity>()
        .into_iter()
        .filter(|way| way.1 == Onto::Insert);
    for way in inserted {
        let mut app = app();
        let walled = rooms(&mut app);
        let open = spawn_map(&mut app, 16, 6, |_, _| false);
        let viewer = common_app::spawn_viewer(&mut app, open, 2, 2, 8);
        app.update();
        copy::<MapOpacity>(&mut app, walled, open, way);
        app.update();
        let opacity = app.world().get::<MapOpacity>(open).unwrap();
        assert_eq!(
            opacity.grid().opaque_count(),
            0,
            "{way:?}: no wall of its own"
        );
        assert_eq!(
            seen(&app, viewer),
            core_seen(16, 6, |_, _| false, (2, 2), 8),
            "{way:?}"
        );
        // Its walls still count: one built later shows, one knocked down on the first map
        // does not.
        let tile = common_app::tile_entity(&app, open, 4, 2);
        app.world_mut().entity_mut(tile).insert(Opaque);
        let first = common_app::tile_entity(&app, walled, 7, 2);
        app.world_mut().entity_mut(first).remove::<Opaque>();
        app.update();
        let wall_at = |x: u32, y: u32| (x, y) == (4, 2);
        assert_eq!(
            seen(&app, viewer),
            core_seen(16, 6, wall_at, (2, 2), 8),
            "{way:?}"
        );
        let opacity = app.world().get::<MapOpacity>(walled).unwrap();
        assert_eq!(opacity.grid().opaque_count(), 5, "{way:?}");
    }
}

/// `OpaqueCells` is the game's own grid: copied onto another map, it paints its walls there
/// too, and leaves the first map's as they were.
#[test]
fn copied_opaque_cells_paint_the_other_map() {
    for way in ways::<OpaqueCells>() {
        let mut app = app();
        let first = spawn_map(&mut app, 16, 6, |_, _| false);
        let second = spawn_map(&mut app, 16, 6, |_, _| false);
        let cells = OpaqueCells::from_fn(16, 6, |x, _| x == 3);
        app.world_mut().entity_mut(first).insert(cells);
        if way.1 == Onto::InPlace {
            let other = OpaqueCells::from_fn(16, 6, |_, y| y == 5);
            app.world_mut().entity_mut(second).insert(other);
        }
        let viewer = common_app::spawn_viewer(&mut app, second, 1, 2, 8);
        app.update();
        copy::<OpaqueCells>(&mut app, first, second, way);
        app.update();
        for map in [first, second] {
            let opacity = app.world().get::<MapOpacity>(map).unwrap();
            let walls: Vec<_> = (0..6).map(|y| (3, y)).collect();
            let got: Vec<_> = (0..6)
                .flat_map(|y| (0..16).map(move |x| (x, y)))
                .filter(|&(x, y)| opacity.is_opaque(TilePos { x, y }))
                .collect();
            assert_eq!(got, walls, "{way:?}");
        }
        assert_eq!(
            seen(&app, viewer),
            core_seen(16, 6, |x, _| x == 3, (1, 2), 8),
            "{way:?}"
        );
    }
}

/// `Placed` copied onto another entity is worked out again for that entity. (Written in place,
/// it is not read: `Placed` is the plugin's answer, which a game reads.)
#[test]
fn a_copied_placed_is_the_entitys_own_after_an_update() {
    let inserted = ways::<Placed>()
        .into_iter()
        .filter(|way| way.1 == Onto::Insert);
    for way in inserted {
        let mut app = app();
        let map = rooms(&mut app);
        let original = common_app::spawn_viewer(&mut app, map, 2, 2, 3);
        let other = common_app::spawn_viewer(&mut app, map, 12, 4, 3);
        app.update();
        copy::<Placed>(&mut app, original, other, way);
        app.update();
        let placed = app.world().get::<Placed>(other).unwrap();
        assert_eq!(
            placed.get(),
            Some((map, TilePos { x: 12, y: 4 })),
            "{way:?}"
        );
        assert_eq!(
            seen(&app, other),
            core_seen(16, 6, wall, (12, 4), 3),
            "{way:?}"
        );
    }
}

// --- Fog -----------------------------------------------------------------------------------

/// Asserts that every tile of `map` looks as `FogStyle::default()` draws `fog`'s state there
/// (the colour of a hidden tile is left alone).
fn assert_drawn(app: &App, map: Entity, fog: &FogOfWar, what: &str) {
    let style = FogStyle::default();
    for (x, y) in (0..6).flat_map(|y| (0..16).map(move |x| (x, y))) {
        let look = style.look(fog.state(TilePos { x, y }));
        let (visible, color) = common_app::look(app, map, x, y);
        assert_eq!(Some(visible), look.visible, "{what}: tile ({x}, {y}) shown");
        if let Some(want) = look.color {
            assert_eq!(color, want, "{what}: tile ({x}, {y})'s colour");
        }
    }
}

/// A `FogOfWar` copied onto another map of the same size brings its memory; the map's teams
/// see what their members there see, and every tile of the map is drawn from it.
#[test]
fn a_copied_fog_of_war_is_written_whole_on_the_other_map() {
    for way in ways::<FogOfWar>() {
        let mut app = app();
        let first = rooms(&mut app);
        let second = rooms(&mut app);
        for map in [first, second] {
            app.world_mut().entity_mut(map).insert(FogStyle::default());
        }
        common_app::spawn_player(&mut app, first, 2, 2, 4);
        let explorer = common_app::spawn_player(&mut app, second, 12, 3, 2);
        app.update();
        // The second map's explorer walks one step: its first tile stays explored there.
        app.world_mut().get_mut::<TilePos>(explorer).unwrap().x = 13;
        app.update();
        copy::<FogOfWar>(&mut app, first, second, way);
        app.update();

        let fog = app.world().get::<FogOfWar>(second).unwrap();
        let sees = core_seen(16, 6, wall, (13, 3), 2);
        let visible: Vec<_> = (0..6)
            .flat_map(|y| (0..16).map(move |x| (x, y)))
            .filter(|&(x, y)| fog.is_visible(TilePos { x, y }))
            .collect();
        assert_eq!(visible, sees, "{way:?}: the second map's own view");
        let from_first = core_seen(16, 6, wall, (2, 2), 4);
        for (x, y) in from_first {
            assert!(
                fog.is_explored(TilePos { x, y }),
                "{way:?}: the copied memory"
            );
        }
        assert_drawn(&app, second, fog, &format!("{way:?}: the second map"));
        let first_fog = app.world().get::<FogOfWar>(first).unwrap();
        assert_drawn(&app, first, first_fog, &format!("{way:?}: the first map"));
    }
}

/// `LastSeen` copied from another map brings its ghosts, and nothing of what that map's teams
/// see now.
#[test]
fn a_copied_last_seen_brings_ghosts_only() {
    for way in ways::<LastSeen>() {
        let mut app = app();
        let first = rooms(&mut app);
        let second = rooms(&mut app);
        let player = common_app::spawn_player(&mut app, first, 2, 2, 4);
        common_app::spawn_player(&mut app, second, 12, 2, 3);
        let rat = app
            .world_mut()
            .spawn((LeavesGhost, TilePos { x: 5, y: 4 }, TilemapId(first)))
            .id();
        let seen_rat = app
            .world_mut()
            .spawn((LeavesGhost, TilePos { x: 1, y: 1 }, TilemapId(first)))
            .id();
        app.update();
        // The player steps back into the corner: the rat is out of view, a ghost where it was
        // seen; the other rat stays in view.
        *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 0, y: 0 };
        app.update();
        let ghosts = |app: &App, map: Entity| -> Vec<_> {
            let last_seen = app.world().get::<LastSeen>(map).unwrap();
            let mut ghosts: Vec<_> = last_seen
                .ghosts(Team(0))
                .map(|g| (g.entity, g.tile))
                .collect();
            ghosts.sort_by_key(|&(entity, _)| entity);
            ghosts
        };
        let first_ghosts = ghosts(&app, first);
        assert_eq!(first_ghosts, vec![(rat, TilePos { x: 5, y: 4 })]);
        if way.1 == Onto::InPlace {
            // Something for the copy to write over: a ghost the game put on the second map.
            let ghost = Ghost {
                entity: seen_rat,
                tile: TilePos { x: 15, y: 5 },
                seen_at: default(),
            };
            let mut last_seen = app.world_mut().get_mut::<LastSeen>(second).unwrap();
            last_seen.remember(Team(0), ghost);
        }
        copy::<LastSeen>(&mut app, first, second, way);
        app.update();
        assert_eq!(ghosts(&app, second), first_ghosts, "{way:?}: its ghosts");
        assert_eq!(ghosts(&app, first), first_ghosts, "{way:?}");
        // The team leaves the first map: what it saw there becomes ghosts there, and nothing
        // of it on the second map.
        app.world_mut().entity_mut(player).despawn();
        app.update();
        assert_eq!(
            ghosts(&app, second),
            first_ghosts,
            "{way:?}: nothing seen there"
        );
        let mut both = vec![
            (rat, TilePos { x: 5, y: 4 }),
            (seen_rat, TilePos { x: 1, y: 1 }),
        ];
        both.sort_by_key(|&(entity, _)| entity);
        assert_eq!(ghosts(&app, first), both, "{way:?}");
    }
}

/// `FogOverlay` copied onto another map gets that map its own overlay layer; the first map
/// keeps its own.
#[test]
fn a_copied_fog_overlay_gets_its_own_layer() {
    for way in ways::<FogOverlay>() {
        let mut app = app();
        let first = rooms(&mut app);
        let second = rooms(&mut app);
        app.world_mut()
            .entity_mut(first)
            .insert(FogOverlay::default());
        if way.1 == Onto::InPlace {
            let dim = FogOverlay::default().with_style(FogStyle::default());
            app.world_mut().entity_mut(second).insert(dim);
        }
        app.update();
        let first_layer = app.world().get::<FogOverlay>(first).unwrap().layer();
        copy::<FogOverlay>(&mut app, first, second, way);
        app.update();
        app.update();
        let layer = app.world().get::<FogOverlay>(second).unwrap().layer();
        let layer = layer.expect("the second map has its overlay");
        assert_ne!(Some(layer), first_layer, "{way:?}: a layer of its own");
        assert_eq!(
            app.world().get::<LayerOf>(layer).map(|l| l.0),
            Some(second),
            "{way:?}"
        );
        assert_eq!(
            app.world().get::<FogOverlay>(first).unwrap().layer(),
            first_layer,
            "{way:?}"
        );
        let mut layers = app.world_mut().query::<(&FogOverlayLayer, &LayerOf)>();
        let mut roots: Vec<_> = layers.iter(app.world()).map(|(_, of)| of.0).collect();
        roots.sort();
        let mut want = vec![first, second];
        want.sort();
        assert_eq!(roots, want, "{way:?}: one overlay layer each");
    }
}

/// Sanity of the oracle these tests use: the rooms' wall blocks everything.
#[test]
fn the_rooms_see_nothing_of_each_other() {
    let grid = bevy_viewshed::OpacityGrid::from_fn(16, 6, wall);
    let view = field_of_view(&grid, (2, 2), FovOptions::radius(20)).unwrap();
    assert!(view.iter().all(|(x, _)| x <= 7));
}
