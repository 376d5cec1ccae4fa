//! The examples' window: 1280x720 and fixed, pixel art drawn sharp (in a browser, on
//! web/index.html's full-page canvas).

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;
use bevy::window::WindowResolution;

/// Bevy's default plugins with the examples' window, titled `title`.
pub fn window_plugins(title: impl Into<String>) -> PluginGroupBuilder {
    DefaultPlugins
        .set(WindowPlugin {
            primary_window: Some(Window {
                title: title.into(),
                resolution: WindowResolution::new(1280, 720),
                resizable: false,
                #[cfg(target_arch = "wasm32")]
                canvas: Some("#bevy".into()),
                #[cfg(target_arch = "wasm32")]
                fit_canvas_to_parent: true,
                ..default()
            }),
            ..default()
        })
        .set(ImagePlugin::default_nearest())
}
