//! The lights scene: the 256x256 dungeon with 1,000 viewers of radius 16 that `NeedsLight`
//! (dark vision 1) among 1,000 lights of radius 6, or the same viewers without light. Shared
//! by `benches/lights.rs` (criterion) and `benches/frame_instructions.rs` (callgrind).

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::OpacityGrid;
use bevy_viewshed::prelude::*;

use super::{minimal_plugins, spawn_dungeon, walk, walks};

pub const LIGHTS: usize = 1000;
pub const VIEWERS: usize = 1000;
pub const LIGHT_RADIUS: u32 = 6;
pub const VIEW_RADIUS: u32 = 16;

/// The dungeon with `viewers` viewers, and as many lights when `lit`; everything walks when
/// `moving`.
pub fn lights_app(grid: &OpacityGrid, viewers: usize, lit: bool, moving: bool) -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    let map = spawn_dungeon(app.world_mut(), grid);
    // One list of walks: the first half for viewers, the second for lights.
    let all = walks(grid, viewers * 2);
    let (viewer_walks, light_walks) = all.split_at(viewers);
    for walk in viewer_walks {
        let mut viewer =
            app.world_mut()
                .spawn((Viewshed::new(VIEW_RADIUS), walk.a, TilemapId(map)));
        if lit {
            viewer.insert(NeedsLight::new(1));
        }
        if moving {
            viewer.insert(*walk);
        }
    }
    for walk in light_walks.iter().filter(|_| lit) {
        let mut light =
            app.world_mut()
                .spawn((LightSource::new(LIGHT_RADIUS), walk.a, TilemapId(map)));
        if moving {
            light.insert(*walk);
        }
    }
    app.add_systems(Update, walk);
    // The first frames place every opaque tile and compute every view and light.
    app.update();
    app.update();
    app
}
