//! An LDtk level with fog of war: `assets/ldtk_level.ldtk` (written by
//! `assets/make_ldtk_level.py`) loaded by bevy_ecs_ldtk, its tile layers made one map by
//! `LdtkViewshedPlugin`, walls and closed doors blocking sight from their IntGrid values and
//! pillars from their tiles' enum tag. The player and the goblins are LDtk entities that get
//! their `Viewshed` from the level data (the goblins' `sight_radius` field); goblins are only
//! drawn where the player sees them. The fog is drawn smooth (`SmoothFog` on the level), the
//! chests (LDtk entities drawn from their tile) stay hidden until seen and are drawn as last
//! seen, and the minimap in the corner (`FogMinimap` on the level) shows what was explored.
//!
//! ```text
//! cargo run --example ldtk_level --features ldtk                # walks by itself, a step every 0.25 s
//! cargo run --example ldtk_level --features ldtk -- --seed 7 --autoplay 28 --screenshot shot.png --exit
//! ```
//!
//! The player walks towards the nearest tile it has not explored and opens closed doors on
//! its way by setting their `IntGridCell` to "open door": the door stops blocking sight
//! because the level data changed, with no opacity code in the example. Goblins wander (the
//! seed picks their steps).

// Bevy systems take their data as parameters: many of them, with spelled-out query types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod finish;
mod level;
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
use bevy_ecs_ldtk::prelude::*;
use bevy_viewshed::ldtk::LdtkViewshedPlugin;
use bevy_viewshed::prelude::*;

use script::Options;

fn main() {
    let options = Options::from_args("ldtk_level");
    println!("ldtk_level seed {}", options.seed);
    App::new()
        .add_plugins(window::window_plugins("bevy_viewshed LDtk level"))
        .add_plugins(LdtkPlugin)
        .add_plugins((ViewshedPlugins::default(), LdtkViewshedPlugin))
        .insert_resource(ClearColor(Color::BLACK))
        .insert_resource(LevelSelection::index(0))
        .insert_resource(shared_walk::Turns::new(&options))
        .insert_resource(options)
        .add_plugins((level::LevelPlugin, walk::WalkPlugin, finish::FinishPlugin))
        .add_plugins(minimap::CornerMinimapPlugin::<RevealsFog>::below(10.0))
        .run();
}
