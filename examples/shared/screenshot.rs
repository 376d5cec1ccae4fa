//! Shared by the examples (each includes it with `#[path]`): the end of a scripted game, saving
//! the window with Bevy's `Screenshot` and quitting.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

/// Saves the screenshot if asked to, and exits (after saving) if asked to.
pub fn save_and_exit(
    commands: &mut Commands,
    screenshot: Option<PathBuf>,
    exit_after: bool,
    exit: &mut MessageWriter<AppExit>,
) {
    match screenshot {
        Some(path) => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path.clone()))
                .observe(
                    move |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                        println!("screenshot saved to {}", path.display());
                        if exit_after {
                            exit.write(AppExit::Success);
                        }
                    },
                );
        }
        None if exit_after => {
            exit.write(AppExit::Success);
        }
        None => {}
    }
}
