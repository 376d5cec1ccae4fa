// The smooth fog of war of one piece of a map (the map itself, or a chunk of a world), drawn
// on a quad over the piece's rectangle.
//
// The texture holds one texel per tile (see `texels.rs`): a fade from one level to another
// since a time, for the piece's own tiles and a margin of its neighbours' around them (texel
// `margin` is its own tile (0, 0)), so the blur flows on across a chunk's border. Each pixel finds the tiles around it in the grid's own coordinates (square,
// hexagonal or isometric: a centre is origin + x * step_x + y * step_y, plus a shift on odd
// columns and rows), works out each one's level at the fog's clock (the fade), and takes
// their mean weighted by a Gaussian of the distance to their centres, in tiles: the edge of
// what is seen is a smooth curve about a tile wide. Distances are in `unit`s, in which the
// tile whose centre is nearest a pixel is the tile drawn there: a pixel off the map's tiles is
// not drawn.

#import bevy_sprite::mesh2d_vertex_output::VertexOutput

struct SmoothFogParams {
    rect_min: vec2<f32>,
    rect_size: vec2<f32>,
    origin: vec2<f32>,
    step_x: vec2<f32>,
    step_y: vec2<f32>,
    shift_x: vec2<f32>,
    shift_y: vec2<f32>,
    unit: vec2<f32>,
    inverse_x: vec2<f32>,
    inverse_y: vec2<f32>,
    margin: vec2<u32>,
    own: vec2<u32>,
    on_map_first: vec2<i32>,
    on_map_end: vec2<i32>,
    remembered: vec4<f32>,
    unexplored: vec4<f32>,
    softness: f32,
    now: u32,
    fade_in: u32,
    fade_out: u32,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> params: SmoothFogParams;
@group(#{MATERIAL_BIND_GROUP}) @binding(1) var fog: texture_2d<u32>;

// How much the tile at `tile` (the piece's own coordinates) is seen (x) and known (y) now,
// from 0 to 1.
fn level(tile: vec2<i32>) -> vec2<f32> {
    let texel = textureLoad(fog, tile + vec2<i32>(params.margin), 0);
    let start_level = vec2<f32>(f32(texel.x & 255u), f32((texel.x >> 8u) & 255u)) / 255.0;
    let end_level = vec2<f32>(f32((texel.x >> 16u) & 255u), f32((texel.x >> 24u) & 255u)) / 255.0;
    let length = select(params.fade_out, params.fade_in, end_level.x > start_level.x);
    let elapsed = params.now - texel.y;
    if (length == 0u || elapsed >= length) {
        return end_level;
    }
    return mix(start_level, end_level, f32(elapsed) / f32(length));
}

fn center(tile: vec2<i32>) -> vec2<f32> {
    return params.origin
        + params.step_x * f32(tile.x)
        + params.step_y * f32(tile.y)
        + params.shift_x * f32(tile.x & 1)
        + params.shift_y * f32(tile.y & 1);
}

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let point = params.rect_min + vec2<f32>(in.uv.x, 1.0 - in.uv.y) * params.rect_size;
    let inverse = mat2x2<f32>(params.inverse_x, params.inverse_y);
    let near = vec2<i32>(round(inverse * (point - params.origin)));
    // The tiles the blur reads, in the piece's own coordinates: those of the texture on the
    // map (on a world, the margin's tiles beyond the loaded chunks are left out, as the edge of
    // one map is).
    let first = params.on_map_first;
    let last = params.on_map_end;
    let own = vec2<i32>(params.own);
    let spread = 2.0 * params.softness * params.softness;
    var sum = vec2<f32>(0.0);
    var weights = 0.0;
    var nearest = 1e30;
    var nearest_on_map = false;
    for (var dy = -2; dy <= 2; dy++) {
        for (var dx = -2; dx <= 2; dx++) {
            let tile = near + vec2<i32>(dx, dy);
            let away = (point - center(tile)) / params.unit;
            let distance = dot(away, away);
            let on_map = all(tile >= first) && all(tile < last);
            if (distance < nearest) {
                nearest = distance;
                nearest_on_map = all(tile >= vec2<i32>(0)) && all(tile < own);
            }
            if (on_map) {
                let weight = exp(-distance / spread);
                sum += weight * level(tile);
                weights += weight;
            }
        }
    }
    // The tile nearest the pixel is the tile drawn there: none of the piece's own (off the
    // map, or a neighbour's, which its own quad fogs), nothing to fog here.
    if (!nearest_on_map || weights <= 0.0) {
        discard;
    }
    let amount = sum / weights;
    // What was never seen is covered right up to the edge of what was: the blur of the
    // explored area falls off inside its own tiles, so the tiles around it need not be drawn.
    let known = smoothstep(0.5, 1.0, amount.y);
    let fogged = mix(params.unexplored, params.remembered, known);
    return vec4<f32>(fogged.rgb, fogged.a * (1.0 - amount.x));
}
