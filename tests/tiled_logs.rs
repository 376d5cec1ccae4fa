//! What the Tiled integration logs on a map drawn in another project: class properties of
//! types the game never registered (`assets/tiled/foreign.tmx`, and the same map as Tiled
//! 1.8.2 re-saved it without that project's types, `by_tiled/foreign.tmx`) are not errors.
//! bevy_ecs_tiled's `user_properties` (which logs an ERROR for every unknown type at every
//! load) stays off; the plugin reads its own reflected types from the map's properties. A
//! binary of its own: the process-wide log subscriber sees only these loads.
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

#[test]
fn foreign_class_properties_log_no_error_and_ours_are_read() {
    let subscriber = Registry::default().with(KeepLog);
    bevy::log::tracing::subscriber::set_global_default(subscriber).unwrap();
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
