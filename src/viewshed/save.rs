//! What a saved [`Viewshed`] holds: its options and its view. Saves written by version 0.1,
//! which kept `radius`, `light_walls`, `shape`, `cone` and `mode` as fields of their own, load
//! too, so a game that updates the plugin keeps its players' saves.

use serde::Deserialize;

use crate::options::{DistanceShape, FovMode, FovOptions, Radius, VisionCone};
use crate::viewshed::Viewshed;
use crate::visible::VisibleSet;

/// The radius version 0.1 saved for an unlimited viewer.
const UNLIMITED_0_1: u32 = u32::MAX;

/// A saved viewshed, in the current layout (`options`) or in version 0.1's (its fields at the
/// top level). A save that mixes both is refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ViewshedSave {
    options: Option<FovOptions>,
    #[serde(default)]
    visible: VisibleSet,
    radius: Option<u32>,
    light_walls: Option<bool>,
    shape: Option<DistanceShape>,
    cone: Option<Option<VisionCone>>,
    mode: Option<FovMode>,
}

impl ViewshedSave {
    /// The options of a version 0.1 save, if it is one (a field it lacks keeps its default).
    fn options_0_1(&self) -> Option<FovOptions> {
        let any = self.radius.is_some()
            || self.light_walls.is_some()
            || self.shape.is_some()
            || self.cone.is_some()
            || self.mode.is_some();
        any.then(|| {
            let defaults = Viewshed::default().options;
            FovOptions {
                radius: match self.radius {
                    Some(UNLIMITED_0_1) => Radius::Unlimited,
                    Some(r) => Radius::Limited(r),
                    None => defaults.radius,
                },
                shape: self.shape.unwrap_or(defaults.shape),
                light_walls: self.light_walls.unwrap_or(defaults.light_walls),
                cone: self.cone.unwrap_or(defaults.cone),
                mode: self.mode.unwrap_or(defaults.mode),
            }
        })
    }
}

impl TryFrom<ViewshedSave> for Viewshed {
    type Error = String;

    fn try_from(save: ViewshedSave) -> Result<Self, Self::Error> {
        let options = match (save.options, save.options_0_1()) {
            (Some(options), None) => options,
            (None, Some(options)) => options,
            (None, None) => Viewshed::default().options,
            (Some(_), Some(_)) => {
                return Err(
                    "a saved Viewshed has `options` and also version 0.1's top-level \
                            `radius`/`light_walls`/`shape`/`cone`/`mode`: keep one of the two"
                        .to_owned(),
                );
            }
        };
        let mut viewshed = Viewshed::with_options(options);
        viewshed.visible = save.visible;
        Ok(viewshed)
    }
}
