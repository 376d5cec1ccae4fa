//! The smooth fog's `Material2d`: the WGSL shader (`smooth_fog.wgsl`, embedded in the crate),
//! the map's texture and what the shader needs to find the tiles and colour them.

use bevy::asset::{AssetPath, embedded_asset, embedded_path};
use bevy::math::{UVec2, Vec2, Vec4};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, ShaderType};
use bevy::shader::ShaderRef;
use bevy::sprite_render::{AlphaMode2d, Material2d, Material2dPlugin};

use super::geometry::TileGrid;
use super::pieces::Piece;
use super::settings::SmoothFog;
use super::texels::millis;

/// The smallest blur, in tiles: below it the shader's weights would all round to zero.
const MIN_SOFTNESS: f32 = 0.05;

/// Draws a map's smooth fog: the texture of its tiles' fades, blurred in the grid's own
/// coordinates.
#[derive(Asset, TypePath, AsBindGroup, Debug, Clone)]
pub(super) struct SmoothFogMaterial {
    #[uniform(0)]
    pub(super) params: SmoothFogParams,
    #[texture(1, sample_type = "u_int")]
    pub(super) texture: Handle<Image>,
}

/// The shader's uniform (`SmoothFogParams` in `smooth_fog.wgsl`, field for field).
#[derive(ShaderType, Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct SmoothFogParams {
    rect_min: Vec2,
    rect_size: Vec2,
    origin: Vec2,
    step_x: Vec2,
    step_y: Vec2,
    shift_x: Vec2,
    shift_y: Vec2,
    unit: Vec2,
    /// The columns of the matrix from a point to tile coordinates (two vectors, not a `mat2x2`:
    /// WebGL2's uniform layout would place its columns 16 bytes apart).
    inverse_x: Vec2,
    inverse_y: Vec2,
    /// The texel of the piece's own tile `(0, 0)`, and how many tiles are its own.
    margin: UVec2,
    own: UVec2,
    /// The tiles the blur reads (on the map), from `on_map_first` to before `on_map_end`, in
    /// the piece's own tiles.
    on_map_first: IVec2,
    on_map_end: IVec2,
    remembered: Vec4,
    unexplored: Vec4,
    softness: f32,
    /// The fog's clock, in milliseconds.
    pub(super) now: u32,
    fade_in: u32,
    fade_out: u32,
}

impl SmoothFogParams {
    /// The tiles the blur reads, in the piece's own tiles: the first and the one past the last.
    pub(super) fn reads(&self) -> (IVec2, IVec2) {
        (self.on_map_first, self.on_map_end)
    }

    /// The uniform for `piece`, of grid `grid`, in the look `fog`, at `now` milliseconds.
    pub(super) fn new(grid: &TileGrid, fog: &SmoothFog, (piece, now): (Piece, u32)) -> Self {
        let (fade_in, fade_out) = fog
            .fade
            .map_or((0, 0), |fade| (millis(fade.fade_in), millis(fade.fade_out)));
        Self {
            rect_min: grid.rect_min,
            rect_size: grid.rect_size,
            origin: grid.origin,
            step_x: grid.step_x,
            step_y: grid.step_y,
            shift_x: grid.shift_x,
            shift_y: grid.shift_y,
            unit: grid.unit,
            inverse_x: grid.inverse().x_axis,
            inverse_y: grid.inverse().y_axis,
            margin: piece.margin(),
            own: UVec2::new(piece.area.width, piece.area.height),
            on_map_first: piece.on_map_tiles().0,
            on_map_end: piece.on_map_tiles().1,
            remembered: LinearRgba::from(fog.remembered).to_vec4(),
            unexplored: LinearRgba::from(fog.unexplored).to_vec4(),
            softness: fog.softness.max(MIN_SOFTNESS),
            now,
            fade_in,
            fade_out,
        }
    }
}

impl Material2d for SmoothFogMaterial {
    fn fragment_shader() -> ShaderRef {
        let path = AssetPath::from_path_buf(embedded_path!("smooth_fog.wgsl"));
        ShaderRef::Path(path.with_source("embedded"))
    }

    fn alpha_mode(&self) -> AlphaMode2d {
        AlphaMode2d::Blend
    }
}

/// Embeds the shader and adds the material's rendering, in an app that renders.
pub(super) fn add_smooth_fog_material(app: &mut App) {
    embedded_asset!(app, "smooth_fog.wgsl");
    app.add_plugins(Material2dPlugin::<SmoothFogMaterial>::default());
}
