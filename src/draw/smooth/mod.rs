//! The smooth fog (feature `render`): [`SmoothFog`] on a map draws its fog of war on the GPU,
//! over each of its pieces (the map itself, or each chunk of a world), from a texture of one
//! texel per tile written only where tiles changed, blurred and faded by a WGSL shader.
//!
//! | module | its job |
//! |---|---|
//! | `settings` | [`SmoothFog`]: which maps have it and how it looks |
//! | `pieces` | the tilemaps a map's fog is drawn over: the map, or each chunk of a world |
//! | `texels` | the texture's format: a tile's fade from one look to another since a time |
//! | `texture` | each piece's texture ([`SmoothFogTexture`]), made from the fog and written where tiles changed |
//! | `geometry` | where the tiles are on each kind of map, as the shader finds them |
//! | `material` | the `Material2d` and its shader (`smooth_fog.wgsl`) |
//! | `quad` | the quad each piece's fog is drawn on, and the shader's clock while fades run |

mod geometry;
mod material;
mod pieces;
mod quad;
mod settings;
mod texels;
mod texture;

use bevy::app::App;
use bevy::prelude::*;
use bevy::render::RenderApp;

pub use settings::SmoothFog;
pub use texture::SmoothFogTexture;

use crate::draw::minimap_canvas::draw_minimaps;
use crate::fog::change_list::FogChanges;
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// Adds the smooth fog's systems at the end of the fog's step, its observer, and (in an app
/// that renders) its material.
pub(super) fn add_smooth_fog(app: &mut App) {
    app.register_type::<SmoothFog>()
        .register_type::<SmoothFogTexture>();
    app.add_systems(
        ViewshedSchedule,
        (
            texture::write_smooth_fogs,
            quad::keep_fog_quads,
            quad::run_fog_clocks,
        )
            .chain()
            .after(draw_minimaps)
            .run_if(resource_exists::<FogChanges>)
            .in_set(ViewshedStepSystems::Draw),
    );
    app.add_observer(quad::on_piece_removed);
    if app.get_sub_app(RenderApp).is_some() {
        material::add_smooth_fog_material(app);
    }
}
