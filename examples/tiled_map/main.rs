//! A Tiled map with fog of war: `assets/tiled/tiled_map.tmx` (written by
//! `assets/make_tiled_maps.py`) loaded by bevy_ecs_tiled, its tile layers made one map by
//! `TiledViewshedPlugin`. Walls block sight because their tileset tile has the custom property
//! `block_line_of_sight`, pillars because theirs has our `Opaque` as a custom type, doors
//! because the door objects have `block_line_of_sight`. The player and the guards are tile
//! objects that get their `Viewshed` from their class and their `sight_radius` property; guards
//! are only drawn where the player sees them. The fog is drawn smooth (`SmoothFog` on the map),
//! the doors (tile objects) stay hidden until seen and are drawn as last seen, and
//! the minimap in the corner (`FogMinimap` on the map) shows what was explored.
//!
//! ```text
//! cargo run --example tiled_map --features tiled                # walks by itself, a step every 0.25 s
//! cargo run --example tiled_map --features tiled -- --seed 7 --autoplay 28 --screenshot shot.png --exit
//! cargo run --example tiled_map --features tiled -- --seed 7 --autoplay 28 --open-remembered-doors
//! ```
//!
//! The player walks towards the nearest tile it has not explored and opens the closed doors on
//! its way: the example takes `Opaque` off the door object and shows the open door's tile, and
//! the view goes through. Guards wander (the seed picks their steps). With
//! `--open-remembered-doors`, once the walk is over the closed doors the player remembers but
//! does not see open behind its back: they stay drawn closed, as the player last saw them.

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod finish;
mod map;
#[path = "../shared/minimap.rs"]
mod minimap;
#[path = "../shared/screenshot.rs"]
mod screenshot;
#[path = "../shared/script.rs"]
mod script;
#[path = "../shared/args.rs"]
mod shared_args;
#[path = "../shared/walk.rs"]
mod shared_walk;
mod walk;
#[path = "../shared/window.rs"]
mod window;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::tiled::TiledViewshedPlugin;

use script::Options;

fn main() {
    let mut open_remembered = false;
    let options = Options::from_args_with("tiled_map", " [--open-remembered-doors]", |arg, _| {
        open_remembered |= arg == "--open-remembered-doors";
        Ok(arg == "--open-remembered-doors")
    });
    println!("tiled_map seed {}", options.seed);
    App::new()
        .add_plugins(window::window_plugins("bevy_viewshed Tiled map"))
        // No export of the app's types for Tiled's custom types editor on every run.
        .add_plugins(TiledPlugin(TiledPluginConfig {
            tiled_types_export_file: None,
            ..default()
        }))
        .add_plugins((ViewshedPlugins::default(), TiledViewshedPlugin))
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(shared_walk::Turns::new(&options))
        .insert_resource(options)
        .insert_resource(walk::RememberedDoors {
            open: open_remembered,
            ..default()
        })
        .add_plugins((map::MapPlugin, walk::WalkPlugin, finish::FinishPlugin))
        .add_plugins(minimap::CornerMinimapPlugin::<RevealsFog>::below(10.0))
        .run();
}
