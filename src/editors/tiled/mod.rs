//! Tiled maps and worlds from [bevy_ecs_tiled] 0.13 (feature `tiled`): add
//! [`TiledViewshedPlugin`] next to bevy_ecs_tiled's `TiledPlugin` and `ViewshedPlugins`, and
//!
//! - every tilemap of a Tiled map (one per tileset used by each tile layer, group layers
//!   included) is a layer of one map (each `TiledMap` entity is a
//!   [`LayerGroup`](crate::LayerGroup)), on orthogonal, isometric (diamond) and hexagonal maps,
//!   finite or infinite; a map reloaded keeps what the teams explored of it;
//! - tiles and objects with the bool custom property `block_line_of_sight` (or of a class
//!   listed in [`TiledOpacity`]) are [`Opaque`](crate::Opaque); so is anything with our
//!   reflected `Opaque` set as a Tiled custom type; an opaque object blocks the tiles it covers,
//!   and a door is opened by removing `Opaque` from its tile or object;
//! - objects get a [`Viewshed`](crate::Viewshed), [`RevealsFog`](crate::RevealsFog),
//!   [`CanBeSpotted`](crate::CanBeSpotted), [`HidesOutsideView`](crate::HidesOutsideView),
//!   [`LeavesGhost`](crate::LeavesGhost), a [`Team`](crate::Team) and a
//!   [`LightSource`](crate::LightSource) from their class and custom properties
//!   ([`TiledVision`]), and stand on the tile under their centre, following their `Transform`;
//! - a `TiledWorld` is one [`WorldMap`](crate::WorldMap) whose maps are its chunks: views
//!   cross from one map to the next, and maps that world chunking despawns and spawns again
//!   keep what the teams explored ([`WorldMemory`](crate::WorldMemory));
//! - the tile layers get the fog of war style of [`TiledFog`].
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_viewshed::prelude::*;
//! use bevy_viewshed::tiled::{ObjectVision, TiledOpacity, TiledViewshedPlugin, TiledVision};
//!
//! let mut app = App::new();
//! // In a game: DefaultPlugins, TiledPlugin, then these two.
//! app.add_plugins((MinimalPlugins, ViewshedPlugins::default(), TiledViewshedPlugin))
//!     .insert_resource(TiledOpacity::default().class("Wall"))
//!     .insert_resource(
//!         TiledVision::default()
//!             .class("Player", ObjectVision::viewer(8).reveals_fog())
//!             .class("Goblin", ObjectVision::viewer(5).spottable().hide_outside_view()),
//!     );
//! app.update();
//! ```
//!
//! | module | its job |
//! |---|---|
//! | this one | `TiledViewshedPlugin`: the systems below, most in `ViewshedStepSystems::Import` |
//! | `config` | what a game tells the integration: `TiledOpacity`, `TiledVision`, `ObjectVision`, `TiledFog` |
//! | `data` | the Tiled data behind what bevy_ecs_tiled spawned: a map, its tileset tile or object |
//! | `properties` | a tile's or object's custom properties, each checked for the type expected |
//! | `map_groups` | each `TiledMap` a `LayerGroup`, each `TiledWorld` a `WorldMap`; the layers' `TiledFog` |
//! | `headless` | a server's tilemaps (no `render`) given the size, grid and storage a map needs |
//! | `chunking` | bevy_ecs_tiled's world chunking kept from unloading a world under a still camera |
//! | `memory` | what the teams explored of a map, kept across a reload |
//! | `opaque_tiles` | `Opaque` and `Elevation` on the tiles whose tileset tile says so |
//! | `objects` | objects that block sight, see, are seen, hide or light: their components |
//! | `place` | where objects stand: their map's root tilemap and the tile under their centre |
//! | `cover` | opaque objects larger than a tile block every tile they cover |
//! | `grid` | the tile under a point and the centre of a tile, on every kind of map |
//! | `checks` | what would fail silently with a map (offset layers, odd grids), warned about once |
//!
//! [bevy_ecs_tiled]: https://crates.io/crates/bevy_ecs_tiled

use bevy::app::{App, Plugin};
use bevy::platform::collections::HashSet;
use bevy::prelude::*;

use crate::schedule::{ViewshedSchedule, ViewshedSchedulePlugin, ViewshedStepSystems};

mod checks;
mod chunking;
mod config;
mod cover;
mod data;
mod grid;
mod headless;
mod map_groups;
mod memory;
mod objects;
mod opaque_tiles;
mod place;
mod properties;

pub use config::{ObjectVision, TiledFog, TiledOpacity, TiledVision, VisionProperties};

/// Connects bevy_ecs_tiled's maps and worlds to the field of view; see the
/// [module docs](self).
///
/// Add it with `ViewshedPlugins` (and bevy_ecs_tiled's `TiledPlugin` in a game); it adds
/// [`TiledOpacity`], [`TiledVision`] and [`TiledFog`] with their defaults unless the app has
/// them. Its systems run in [`ViewshedSchedule`], in [`ViewshedStepSystems::Import`] (after
/// the layers: maps are layer groups; before the maps, which read the opacity and viewers
/// they give), so they follow `ViewshedPlugins` into whatever schedule it was given. One more
/// runs before [`ViewshedStepSystems::Layers`]: it gives the tilemaps of a build without
/// bevy_ecs_tiled's `render` feature (a headless server) the size and grid bevy_ecs_tiled
/// only gives tilemaps it draws: a server's app is docs/tiled.md's recipe (the `render`
/// feature off, `TiledPlugin` and the PNG loader added).
#[derive(Debug, Clone, Copy, Default)]
pub struct TiledViewshedPlugin;

impl Plugin for TiledViewshedPlugin {
    fn build(&self, app: &mut App) {
        // The maps' load events, which bevy_ecs_tiled's `TiledPlugin` adds too: an app that
        // adds this plugin first, or has no `TiledPlugin` at all (it then loads no map),
        // still runs.
        app.add_message::<bevy::asset::AssetEvent<bevy_ecs_tiled::prelude::TiledMapAsset>>()
            .add_message::<bevy::asset::AssetLoadFailedEvent<bevy_ecs_tiled::prelude::TiledMapAsset>>();
        app.init_resource::<TiledOpacity>()
            .init_resource::<TiledVision>()
            .init_resource::<TiledFog>()
            .init_resource::<TiledWarnings>()
            .register_type::<TiledOpacity>()
            .register_type::<TiledVision>()
            .register_type::<TiledFog>()
            .add_observer(map_groups::group_map)
            .add_observer(map_groups::world_of_maps)
            .add_observer(memory::keep_explored);
        app.add_systems(
            ViewshedSchedule,
            headless::complete_tilemaps.before(ViewshedStepSystems::Layers),
        );
        app.add_systems(
            PostUpdate,
            chunking::keep_still_cameras_seen
                .before(bevy_ecs_tiled::prelude::TiledPostUpdateSystems::HandleWorldChunking),
        );
        app.add_systems(
            ViewshedSchedule,
            (
                checks::check_maps,
                checks::check_grids,
                map_groups::style_tilemaps,
                memory::give_back_explored,
                opaque_tiles::sync_tile_opacity,
                objects::read_objects,
                place::place_objects,
                place::follow_objects,
                cover::cover_tiles,
                cover::follow_door_state,
            )
                .chain()
                .in_set(ViewshedStepSystems::Import),
        );
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<ViewshedSchedulePlugin>() {
            error!(
                "bevy_viewshed: TiledViewshedPlugin needs ViewshedPlugins, whose schedule runs \
                 its systems; Tiled maps will not be connected to the field of view"
            );
        }
    }
}

/// Problems with the Tiled data or the configuration already warned about, so that each is
/// logged once.
#[derive(Resource, Default)]
pub(crate) struct TiledWarnings(HashSet<String>);

impl TiledWarnings {
    /// Logs `problem` as a warning unless it was logged before.
    pub(crate) fn once(&mut self, problem: String) {
        if !self.0.contains(&problem) {
            warn!("bevy_viewshed (tiled): {problem}");
            self.0.insert(problem);
        }
    }

    /// How many problems were warned about.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}
