//! What a saved [`Viewshed`] holds: its save format, its options and its view.

use serde::{Deserialize, Serialize};

use crate::support::save_format;
use crate::viewshed::Viewshed;
use viewshed_core::elevation::CliffFaces;
use viewshed_core::options::FovOptions;
use viewshed_core::visible::VisibleSet;

/// A saved viewshed. A field left out takes its default (the format: the current one).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ViewshedSave {
    #[serde(default = "save_format::unspecified")]
    format: u32,
    #[serde(default = "default_options")]
    options: FovOptions,
    #[serde(default)]
    visible: VisibleSet,
    #[serde(default, skip_serializing_if = "is_zero")]
    eye_height: u8,
    #[serde(default, skip_serializing_if = "is_seen")]
    cliff_faces: CliffFaces,
}

fn is_seen(faces: &CliffFaces) -> bool {
    *faces == CliffFaces::Seen
}

fn is_zero(height: &u8) -> bool {
    *height == 0
}

fn default_options() -> FovOptions {
    Viewshed::default().options
}

impl From<Viewshed> for ViewshedSave {
    fn from(viewshed: Viewshed) -> Self {
        Self {
            format: save_format::SAVE_FORMAT,
            options: viewshed.options,
            visible: viewshed.visible,
            eye_height: viewshed.eye_height,
            cliff_faces: viewshed.cliff_faces,
        }
    }
}

impl TryFrom<ViewshedSave> for Viewshed {
    type Error = String;

    fn try_from(save: ViewshedSave) -> Result<Self, Self::Error> {
        save_format::check(save.format, "Viewshed")?;
        let mut viewshed = Viewshed::with_options(save.options);
        viewshed.visible = save.visible;
        viewshed.eye_height = save.eye_height;
        viewshed.cliff_faces = save.cliff_faces;
        Ok(viewshed)
    }
}
