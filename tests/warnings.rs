//! Every warning the plugin promises for bad input, read back: each test captures the
//! `tracing` warnings the app gives (a process-wide subscriber, since the plugin's parallel
//! loops warn from the compute pool's threads too, so the tests of this file take turns) and
//! asserts the warning's words, that it names the entity at fault, that it comes once, and what
//! the plugin does instead of panicking.

mod common_app;

use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use bevy::log::tracing::field::{Field, Visit};
use bevy::log::tracing::{Event, Level, Subscriber};
use bevy::log::tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use bevy::log::tracing_subscriber::registry::Registry;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::LayerOf;
use bevy_viewshed::Lighting;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{ChunkOf, ChunkPos, Elevation, MapOpacity};
use common_app::{app, core_seen, seen, spawn_layer, spawn_map, spawn_viewer, viewshed};

// --- Capturing warnings --------------------------------------------------------------------

/// The warnings given since the running test started capturing.
static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Held by the running test: one test at a time reads [`WARNINGS`].
static TURN: Mutex<()> = Mutex::new(());

/// A `tracing` layer that keeps the message of every warning.
struct KeepWarnings;

impl<S: Subscriber> Layer<S> for KeepWarnings {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() != Level::WARN {
            return;
        }
        struct Message(String);
        impl Visit for Message {
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        lock(&WARNINGS).push(message.0);
    }
}

fn lock<T>(mutex: &'static Mutex<T>) -> MutexGuard<'static, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The running test's turn to read the warnings.
struct Warnings(#[allow(dead_code)] MutexGuard<'static, ()>);

impl Warnings {
    /// Starts capturing: waits for the other tests of this file to finish theirs.
    fn capture() -> Self {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            let subscriber = Registry::default().with(KeepWarnings);
            bevy::log::tracing::subscriber::set_global_default(subscriber)
                .expect("no other subscriber in this test binary");
        });
        let turn = lock(&TURN);
        lock(&WARNINGS).clear();
        Warnings(turn)
    }

    /// The warnings given since the last call.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&WARNINGS))
    }

    /// Asserts that exactly one warning was given since the last call, holding every piece of
    /// `words`.
    fn assert_one(&self, words: &[&str]) {
        let warnings = self.take();
        assert_eq!(warnings.len(), 1, "one warning, got {warnings:#?}");
        for word in words {
            assert!(
                warnings[0].contains(word),
                "the warning says {word:?}: {}",
                warnings[0]
            );
        }
    }

    fn assert_none(&self, after: &str) {
        let warnings = self.take();
        assert!(warnings.is_empty(), "no warning {after}, got {warnings:#?}");
    }
}

// --- Viewers and lights that stand nowhere -------------------------------------------------

#[test]
fn a_light_off_the_map_lights_nothing_and_warns() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 5, 5, |_, _| false);
    let light = app
        .world_mut()
        .spawn((LightSource::new(3), TilePos { x: 9, y: 9 }, TilemapId(map)))
        .id();
    app.update();
    let lighting = app.world().get::<Lighting>(map).unwrap();
    assert_eq!(lighting.lit_tiles().count(), 0);
    assert_eq!(
        app.world().get::<LightSource>(light).unwrap().lit().count(),
        0
    );
    warnings.assert_one(&[
        &format!("light {light} stands outside tilemap {map}"),
        "move it onto the map",
        "it lights nothing",
    ]);
    app.update();
    warnings.assert_none("while it stays where it is");

    // Back on the map it lights; off it again, it warns again.
    *app.world_mut().get_mut::<TilePos>(light).unwrap() = TilePos { x: 2, y: 2 };
    app.update();
    let lit = app
        .world()
        .get::<Lighting>(map)
        .unwrap()
        .lit_tiles()
        .count();
    assert_eq!(lit, 25, "radius 3 from the middle of an empty 5x5 map");
    warnings.assert_none("on the map");
    *app.world_mut().get_mut::<TilePos>(light).unwrap() = TilePos { x: 5, y: 0 };
    app.update();
    warnings.assert_one(&[&format!("light {light} stands outside tilemap {map}")]);
    let lighting = app.world().get::<Lighting>(map).unwrap();
    assert_eq!(lighting.lit_tiles().count(), 0, "its light went with it");
}

#[test]
fn a_viewer_off_the_map_or_on_no_tilemap_sees_nothing_and_warns_once() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 10, 10, |_, _| false);
    let viewer = spawn_viewer(&mut app, map, 40, 4, 3);
    let nowhere = app.world_mut().spawn_empty().id();
    let lost = app
        .world_mut()
        .spawn((Viewshed::new(3), TilePos { x: 1, y: 1 }, TilemapId(nowhere)))
        .id();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    assert_eq!(viewshed(&app, lost).count(), 0);
    let mut got = warnings.take();
    got.sort();
    assert_eq!(got.len(), 2, "one warning each: {got:#?}");
    let off = got
        .iter()
        .find(|w| w.contains(&format!("viewer {viewer} ")))
        .expect("the viewer off the map is named");
    assert!(off.contains(&format!("stands outside tilemap {map}")) && off.contains("sees nothing"));
    let lost_warning = got
        .iter()
        .find(|w| w.contains(&format!("viewer {lost} ")))
        .expect("the viewer on no tilemap is named");
    assert!(
        lost_warning.contains(&format!("is on {nowhere}, which is not a tilemap")),
        "{lost_warning}"
    );
    app.update();
    warnings.assert_none("for viewers that did not move");

    *app.world_mut().get_mut::<TilePos>(viewer).unwrap() = TilePos { x: 9, y: 9 };
    app.update();
    assert_eq!(
        seen(&app, viewer),
        core_seen(10, 10, |_, _| false, (9, 9), 3)
    );
    warnings.assert_none("once back on the map");
}

#[test]
fn an_opaque_entity_with_no_tile_blocks_nothing_and_warns_once() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    let loose = app.world_mut().spawn(Opaque).id();
    let viewer = spawn_viewer(&mut app, map, 1, 1, Viewshed::UNLIMITED);
    app.update();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 64);
    warnings.assert_one(&[
        &format!("Opaque entity {loose} has no TilePos and TilemapId"),
        "it blocks no sight until it gets both",
    ]);
    app.world_mut()
        .entity_mut(loose)
        .insert((TilePos { x: 3, y: 3 }, TilemapId(map)));
    app.update();
    assert!(!viewshed(&app, viewer).is_visible(TilePos { x: 5, y: 5 }));
    warnings.assert_none("once it is placed");
}

// --- Maps ----------------------------------------------------------------------------------

#[test]
fn a_layer_cycle_warns_for_each_tilemap_of_it_once() {
    let warnings = Warnings::capture();
    let mut app = app();
    let a = spawn_map(&mut app, 5, 5, |_, _| false);
    let b = spawn_layer(&mut app, 5, 5, |_, _| false, Some(a));
    app.world_mut().entity_mut(a).insert(LayerOf(b));
    app.update();
    app.update();
    let got = warnings.take();
    for layer in [a, b] {
        let about: Vec<_> = got
            .iter()
            .filter(|w| w.contains(&format!("tilemap layer {layer}: ")))
            .collect();
        assert_eq!(about.len(), 1, "one warning about {layer}: {got:#?}");
        assert!(about[0].contains("loops back on itself"), "{}", about[0]);
    }
    assert_eq!(got.len(), 2, "{got:#?}");
}

#[test]
fn a_fog_of_another_size_warns_and_is_resized() {
    let warnings = Warnings::capture();
    let mut app = app();
    let small = spawn_map(&mut app, 5, 7, |_, _| false);
    let map = spawn_map(&mut app, 12, 12, |_, _| false);
    for on in [small, map] {
        app.world_mut().spawn((
            Viewshed::new(3),
            RevealsFog,
            TilePos { x: 2, y: 2 },
            TilemapId(on),
        ));
    }
    app.update();
    warnings.assert_none("for maps in order");
    let memory = app.world().get::<FogOfWar>(small).unwrap().memory();
    let loaded = FogOfWar::try_from(memory).unwrap();
    app.world_mut().entity_mut(map).insert(loaded);
    app.update();
    warnings.assert_one(&[
        &format!("the FogOfWar inserted on map {map} is 5x7 but the map is 12x12"),
        "it is resized to the map",
    ]);
    let fog = app.world().get::<FogOfWar>(map).unwrap();
    assert_eq!(fog.size(), TilemapSize::new(12, 12));
    app.update();
    warnings.assert_none("once resized");
}

#[test]
fn a_fog_overlay_on_no_tilemap_warns_and_waits() {
    let warnings = Warnings::capture();
    let mut app = app();
    let entity = app.world_mut().spawn(FogOverlay::default()).id();
    app.update();
    warnings.assert_one(&[
        &format!("FogOverlay on {entity}: it is not a tilemap"),
        "it gets its overlay layer once it has both",
    ]);
    assert_eq!(app.world().get::<FogOverlay>(entity).unwrap().layer(), None);
    app.update();
    warnings.assert_none("while nothing changed");
}

/// `RevealsFog` and `NeedsLight` without a `Viewshed` bring the default one, with a warning
/// once per component in the whole program (this is the one test of this file that gives
/// either component without a `Viewshed`).
#[test]
fn a_component_that_needs_a_viewshed_warns_once_per_component() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 20, 20, |_, _| false);
    let at = (TilePos { x: 10, y: 10 }, TilemapId(map));
    let revealing = app.world_mut().spawn((RevealsFog, at.0, at.1)).id();
    app.world_mut().spawn((RevealsFog, at.0, at.1));
    app.world_mut().spawn((NeedsLight::new(20), at.0, at.1));
    app.update();
    let got = warnings.take();
    assert_eq!(got.len(), 2, "one per component: {got:#?}");
    for who in ["RevealsFog", "NeedsLight"] {
        assert!(
            got.iter().any(|w| w.starts_with(&format!(
                "bevy_viewshed: {who} on an entity without a Viewshed: it gets \
                 Viewshed::default() (radius 8)"
            ))),
            "{who}: {got:#?}"
        );
    }
    assert_eq!(
        seen(&app, revealing),
        core_seen(20, 20, |_, _| false, (10, 10), 8)
    );
    app.world_mut().spawn((RevealsFog, at.0, at.1));
    app.update();
    warnings.assert_none("for the third RevealsFog");
}

#[test]
fn a_map_that_stops_being_a_tilemap_warns_about_its_viewers() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |x, _| x == 4);
    let viewer = spawn_viewer(&mut app, map, 1, 1, 5);
    app.update();
    warnings.assert_none("for a map in order");
    app.world_mut().entity_mut(map).remove::<TilemapSize>();
    app.update();
    app.update();
    assert_eq!(viewshed(&app, viewer).count(), 0);
    // One warning for the viewer and one for each of its 8 walls, each naming its entity.
    let got = warnings.take();
    let not_a_tilemap = format!("is on {map:?}, which is not a tilemap");
    let about_viewer = format!("viewer {viewer} is on {map}, which is not a tilemap");
    assert_eq!(got.iter().filter(|w| w.contains(&about_viewer)).count(), 1);
    let walls = got
        .iter()
        .filter(|w| w.contains("Opaque entity") && w.contains(&not_a_tilemap))
        .count();
    assert_eq!((walls, got.len()), (8, 9), "{got:#?}");
    app.update();
    warnings.assert_none("while nothing changed");
}

#[test]
fn a_map_with_a_singular_or_missing_transform_warns_about_who_it_places() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    app.world_mut()
        .entity_mut(map)
        .insert(GlobalTransform::default());
    let viewer = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            TilemapId(map),
            Transform::from_xyz(40.0, 40.0, 0.0),
            GlobalTransform::from_xyz(40.0, 40.0, 0.0),
        ))
        .id();
    app.update();
    // 16-pixel tiles centred at 16 * x: (40, 40) is tile (3, 3).
    let on_tile = Some((map, TilePos { x: 3, y: 3 }));
    assert_eq!(viewshed(&app, viewer).origin(), on_tile);
    warnings.assert_none("for a map in order");

    app.world_mut().entity_mut(map).remove::<GlobalTransform>();
    app.update();
    assert_eq!(viewshed(&app, viewer).origin(), None);
    warnings.assert_one(&[
        &format!("viewer {viewer} is placed by Transform on tilemap {map}"),
        "which has no GlobalTransform",
    ]);

    app.world_mut()
        .entity_mut(map)
        .insert(GlobalTransform::from_scale(Vec3::ZERO));
    app.update();
    assert_eq!(viewshed(&app, viewer).origin(), None);
    warnings.assert_one(&[
        &format!("viewer {viewer} is placed by Transform on tilemap {map}"),
        "cannot be inverted",
    ]);

    app.world_mut()
        .entity_mut(map)
        .insert(GlobalTransform::default());
    app.update();
    assert_eq!(viewshed(&app, viewer).origin(), on_tile);
    warnings.assert_none("once it stands on a tile");
}

#[test]
fn a_layer_of_another_size_than_its_root_warns_once() {
    let warnings = Warnings::capture();
    let mut app = app();
    let root = spawn_map(&mut app, 6, 6, |_, _| false);
    let layer = spawn_layer(&mut app, 9, 4, |_, _| false, Some(root));
    app.update();
    warnings.assert_one(&[
        &format!("tilemap layer {layer}: it is 9x4 but its root tilemap {root} is 6x6"),
        "give both the same TilemapSize",
    ]);
    app.update();
    warnings.assert_none("while nothing changed");
}

#[test]
fn density_on_a_hexagonal_map_or_off_any_tile_warns_once() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Hexagon(HexCoordSystem::Row));
    for x in 2..4 {
        app.world_mut()
            .spawn((Density(0.5), TilePos { x, y: 3 }, TilemapId(map)));
    }
    let loose = app.world_mut().spawn(Density(1.0)).id();
    app.update();
    let mut got = warnings.take();
    got.sort();
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got.iter().any(|w| w.starts_with(&format!(
        "bevy_viewshed: Density on hexagonal map {map}: partial opacity is not supported"
    ))));
    assert!(got.iter().any(|w| w.contains(&format!(
        "Density entity {loose} has no TilePos and TilemapId"
    ))));
    app.update();
    warnings.assert_none("for the same maps and entities");
}

/// High ground out of range or off the map: a level above 15 is warned about each time it is
/// set and counts as 15 (the top: a viewer at any eye below it cannot see past it); an
/// `Elevation` off every tile raises nothing and is warned about once. (An eye height is a
/// whole number of levels, a `u8`: there is no NaN to give.)
#[test]
fn an_elevation_out_of_range_or_off_the_map_warns() {
    let warnings = Warnings::capture();
    let mut app = app();
    let map = spawn_map(&mut app, 8, 8, |_, _| false);
    let peak = app
        .world_mut()
        .spawn((Elevation(40), TilePos { x: 4, y: 3 }, TilemapId(map)))
        .id();
    let loose = app.world_mut().spawn(Elevation(2)).id();
    let off = app
        .world_mut()
        .spawn((Elevation(2), TilePos { x: 9, y: 3 }, TilemapId(map)))
        .id();
    app.update();
    let got = warnings.take();
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(got.iter().any(|w| w.contains(&format!(
        "Elevation entity {peak} has level 40, above the highest (15): it counts as 15"
    ))));
    assert!(
        got.iter()
            .any(|w| w.contains(&format!("Elevation entity {loose} has no TilePos")))
    );
    assert!(
        got.iter()
            .any(|w| w.contains(&format!("Elevation entity {off}")))
    );
    let opacity = app.world().get::<MapOpacity>(map).unwrap();
    assert_eq!(opacity.elevation(TilePos { x: 4, y: 3 }), 15);
    app.update();
    warnings.assert_none("for the same entities");
    app.world_mut().get_mut::<Elevation>(peak).unwrap().0 = 3;
    app.update();
    warnings.assert_none("for a level in range");
    let opacity = app.world().get::<MapOpacity>(map).unwrap();
    assert_eq!(opacity.elevation(TilePos { x: 4, y: 3 }), 3);
}

// --- Worlds of chunks of mixed grids -------------------------------------------------------

/// A world made in code of four chunks, two square, one hexagonal and one isometric, spawned
/// in every order (all at once, and one a frame): it ends up keeping the two square chunks
/// (the grid most of them share; a tie goes to the grid that ranks first, whatever the order)
/// and leaves each other one out with a warning that names it; a viewer on a kept chunk
/// sees, one on a left-out chunk stands nowhere.
#[test]
fn a_world_of_mixed_grids_keeps_the_majority_grid_whatever_the_order() {
    let warnings = Warnings::capture();
    let kinds = [
        TilemapType::Square,
        TilemapType::Square,
        TilemapType::Hexagon(HexCoordSystem::RowOdd),
        TilemapType::Isometric(IsoCoordSystem::Diamond),
    ];
    let mut orders = Vec::new();
    permutations(&mut vec![0, 1, 2, 3], 0, &mut orders);
    for order in orders {
        for one_a_frame in [false, true] {
            let mut app = app();
            let world = app.world_mut().spawn(WorldMap).id();
            let mut chunks = [Entity::PLACEHOLDER; 4];
            for &i in &order {
                let chunk = spawn_map(&mut app, 4, 4, |_, _| false);
                let place = (kinds[i], ChunkOf(world), ChunkPos(IVec2::new(i as i32, 0)));
                app.world_mut().entity_mut(chunk).insert(place);
                chunks[i] = chunk;
                if one_a_frame {
                    app.update();
                }
            }
            app.update();
            app.update();
            let viewers = chunks.map(|chunk| {
                let viewer = (Viewshed::new(2), TilePos::new(1, 1), TilemapId(chunk));
                app.world_mut().spawn(viewer).id()
            });
            app.update();
            for (i, viewer) in viewers.into_iter().enumerate() {
                let placed = app.world().get::<Viewshed>(viewer).unwrap().origin();
                assert_eq!(
                    placed.is_some(),
                    i < 2,
                    "order {order:?} (one a frame: {one_a_frame}): chunk {i} of {:?}",
                    kinds[i]
                );
            }
            let said = warnings.take();
            let warned = |chunk: Entity| {
                let left_out = format!("chunk {chunk} of world {world} is left out");
                said.iter().filter(|w| w.contains(&left_out)).count()
            };
            // One a frame, a square chunk may be left out while another grid leads (a hexagonal
            // chunk that came first), and warned about then; all at once, never.
            for (i, &chunk) in chunks.iter().enumerate() {
                let times = warned(chunk);
                match i < 2 {
                    true if !one_a_frame => assert_eq!(times, 0, "chunk {i} is kept: {said:#?}"),
                    true => {}
                    false => assert!(times >= 1, "chunk {i} is left out: {said:#?}"),
                }
            }
        }
    }
}

/// Every order of `items[from..]`, appended to `out`.
fn permutations(items: &mut Vec<usize>, from: usize, out: &mut Vec<Vec<usize>>) {
    if from == items.len() {
        out.push(items.clone());
        return;
    }
    for i in from..items.len() {
        items.swap(from, i);
        permutations(items, from + 1, out);
        items.swap(from, i);
    }
}
