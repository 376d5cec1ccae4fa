//! ARCHITECTURE.md's table of one frame, held to the systems each step really runs: for every
//! step of `ViewshedStepSystems`, the row of the table names exactly the systems of that set in
//! `ViewshedSchedule` (by function name, generics by their last path segment), with every
//! feature on (the editors' systems are in the `Import` row, the smooth fog's in `Draw`).
#![cfg(all(feature = "ldtk", feature = "tiled", feature = "render"))]

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_viewshed::ldtk::LdtkViewshedPlugin;
use bevy_viewshed::prelude::*;
use bevy_viewshed::tiled::TiledViewshedPlugin;
use bevy_viewshed::{ViewshedSchedule, ViewshedStepSystems};

/// The name a system goes by in the table: its function's last path segment, and the last
/// segment of each generic argument (`sync_sources<Opaque>`).
fn short_name(full: &str) -> String {
    let last = |path: &str| path.rsplit("::").next().unwrap_or(path).to_string();
    match full.split_once('<') {
        Some((function, args)) => {
            let args = args.trim_end_matches('>');
            let args: Vec<String> = args.split(',').map(|arg| last(arg.trim())).collect();
            format!("{}<{}>", last(function), args.join(", "))
        }
        None => last(full),
    }
}

/// Each step's systems as the app's schedule holds them.
fn scheduled() -> Vec<(ViewshedStepSystems, BTreeSet<String>)> {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        // The LDtk plugin checks its configuration against the projects it finds.
        .init_asset::<bevy_ecs_ldtk::assets::LdtkProject>()
        .add_plugins(ViewshedPlugins::default())
        .add_plugins((LdtkViewshedPlugin, TiledViewshedPlugin));
    app.finish();
    app.update();
    let schedules = app.world().resource::<Schedules>();
    let schedule = schedules
        .get(ViewshedSchedule)
        .expect("the plugin's schedule");
    let graph = schedule.graph();
    let names: Vec<(_, String)> = schedule
        .systems()
        .expect("the schedule ran")
        .map(|(key, system)| (key, system.name().to_string()))
        .collect();
    ViewshedStepSystems::ALL
        .iter()
        .map(|&step| {
            let keys = graph
                .systems_in_set(step.intern())
                .expect("every step is a set of the schedule");
            let systems = names
                .iter()
                .filter(|(key, _)| keys.contains(key))
                .map(|(_, name)| short_name(name))
                .filter(|name| name != "ApplyDeferred")
                .collect();
            (step, systems)
        })
        .collect()
}

/// The systems the table names for `step`: the backquoted names of the second column of the
/// row whose first column names it.
fn documented(table: &str, step: ViewshedStepSystems) -> Option<BTreeSet<String>> {
    let row = table
        .lines()
        .find(|line| line.starts_with(&format!("| `{step:?}`")))?;
    let systems = row.split('|').nth(2)?;
    Some(
        systems
            .split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect(),
    )
}

#[test]
fn the_frame_table_names_the_systems_of_every_step() {
    let architecture = include_str!("../ARCHITECTURE.md");
    let table = architecture
        .split("## One frame")
        .nth(1)
        .expect("ARCHITECTURE.md has the frame's table");
    for (step, systems) in scheduled() {
        assert!(!systems.is_empty(), "{step:?} runs systems");
        let written = documented(table, step)
            .unwrap_or_else(|| panic!("ARCHITECTURE.md has a row for the step {step:?}"));
        assert_eq!(
            written, systems,
            "ARCHITECTURE.md's row for {step:?} (left) against the systems it runs (right)"
        );
    }
}

#[test]
fn generic_systems_go_by_their_last_segments() {
    assert_eq!(
        short_name(
            "bevy_viewshed::opacity::sources::sync_sources<bevy_viewshed::opacity::opaque::Opaque>"
        ),
        "sync_sources<Opaque>"
    );
    assert_eq!(
        short_name("bevy_viewshed::fog::update::update_fog"),
        "update_fog"
    );
}
