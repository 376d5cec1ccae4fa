//! What the Tiled integration logs on a map drawn in another project: class properties of
//! types the game never registered (`assets/tiled/foreign.tmx`, and the same map as Tiled
//! 1.8.2 re-saved it without that project's types, `by_tiled/foreign.tmx`) are not errors.
//! bevy_ecs_tiled's `user_properties` (which logs an ERROR for every unknown type at every
//! load) stays off; the plugin reads its own reflected types from the map's properties. A
//! binary of its own: the process-wide log subscriber sees only these loads. Decorations drawn
//! beside a map's tile layers (`assets/tiled/decorated.tmx`), which the importer puts under the
//! fog as it does every tile object, stand on no tile: they are left as the file draws them,
//! with no warning.
#![cfg(feature = "tiled")]

mod common_tiled;

use std::sync::Mutex;

use bevy::log::tracing::field::{Field, Visit};
use bevy::log::tracing::{Event, Level, Subscriber};
use bevy::log::tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use bevy::log::tracing_subscriber::registry::Registry;
use bevy::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use common_tiled::*;

/// Every warning and error logged, with its level.
static LOGGED: Mutex<Vec<(Level, String)>> = Mutex::new(Vec::new());

/// A `tracing` layer that keeps every warning and error.
struct KeepLog;

impl<S: Subscriber> Layer<S> for KeepLog {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let level = *event.metadata().level();
        if level > Level::WARN {
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
        LOGGED.lock().unwrap().push((level, message.0));
    }
}

/// Keeps every warning and error logged from now on (the subscriber is the process's: set once
/// for both tests, which take the log in turns).
fn keep_log() -> std::sync::MutexGuard<'static, ()> {
    static SET: std::sync::Once = std::sync::Once::new();
    static TURN: Mutex<()> = Mutex::new(());
    SET.call_once(|| {
        let subscriber = Registry::default().with(KeepLog);
        bevy::log::tracing::subscriber::set_global_default(subscriber).unwrap();
    });
    let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    LOGGED.lock().unwrap().clear();
    turn
}

#[cfg(feature = "render")]
#[test]
fn decorations_beside_the_map_are_drawn_as_the_file_draws_them_with_no_warning() {
    let _turn = keep_log();
    let mut app = tiled_app(configure);
    let map = load_map(&mut app, "decorated.tmx");
    for _ in 0..5 {
        app.update();
    }
    let player = object(&mut app, map, "Player");
    assert!(app.world().get::<Viewshed>(player).unwrap().count() > 0);
    for label in ["West", "East", "South"] {
        let decoration = object(&mut app, map, &format!("Decoration {label}"));
        let visibility = app.world().get::<Visibility>(decoration).copied();
        assert_ne!(
            visibility,
            Some(Visibility::Hidden),
            "the {label} decoration is drawn"
        );
        assert!(
            app.world().get::<FogSprite>(decoration).is_some(),
            "it is a tile object like the others"
        );
    }
    // The chest on the floor, beyond the player's sight, is under the fog.
    let chest = object(&mut app, map, "Chest");
    assert_eq!(
        app.world().get::<Visibility>(chest),
        Some(&Visibility::Hidden)
    );
    let logged = std::mem::take(&mut *LOGGED.lock().unwrap());
    assert!(logged.is_empty(), "nothing logged, got {logged:#?}");
}

#[test]
fn foreign_class_properties_log_no_error_and_ours_are_read() {
    let _turn = keep_log();
    for (file, team) in [
        ("foreign.tmx", Some(Team(3))),
        ("by_tiled/foreign.tmx", None),
    ] {
        let mut app = tiled_app(configure);
        let map = load_map(&mut app, file);
        for _ in 0..5 {
            app.update();
        }
        let player = object(&mut app, map, "Player");
        let viewshed = app.world().get::<Viewshed>(player).unwrap();
        assert!(viewshed.count() > 0, "{file}: the player sees");
        // Tiled 1.8.2, without the other project's types, keeps a class property's name only.
        assert_eq!(app.world().get::<Team>(player).copied(), team, "{file}");
        let logged = std::mem::take(&mut *LOGGED.lock().unwrap());
        let errors: Vec<_> = logged
            .iter()
            .filter(|(level, _)| *level == Level::ERROR)
            .collect();
        assert!(errors.is_empty(), "{file}: no error, got {errors:#?}");
        let about_foreign: Vec<_> = logged
            .iter()
            .filter(|(_, message)| message.contains("other_game"))
            .collect();
        assert!(
            about_foreign.is_empty(),
            "{file}: nothing about other_game, got {about_foreign:#?}"
        );
    }
}
