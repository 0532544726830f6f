// The sprite and grid shaders of timestep-lab.
//
// Coordinates are playfield pixels (origin top-left, y down); the render pass
// viewport does the letterboxing, so clip space here always spans exactly the
// playfield. Two pipelines use this module:
//   grid:    vs_grid + fs_grid, one quad covering the playfield, opaque;
//   sprites: vs_sprite + fs_sprite, one instance per sprite, all sprites in
//            one draw call, premultiplied alpha blending (returns rgb * a).
// Instance colours are straight sRGB values as the world wrote them; when the
// target encodes sRGB on write, the vertex stage linearises them so the pixels
// read back equal the numbers the world asked for.
//
// Software rasterisers (llvmpipe) run both sides of a branch under a mask, so
// the fragment stages avoid optional work: one texture sample at most.

struct View {
    // Playfield size in playfield pixels.
    playfield: vec2<f32>,
    // Playfield pixels per target pixel (1 / letterbox scale): the antialiasing width.
    px: f32,
    // Bit 0: the target is an sRGB format (linearise colours).
    flags: u32,
    // Background colours, already in the target's encoding.
    background: vec4<f32>,
    grid_line: vec4<f32>,
    border: vec4<f32>,
}

const FLAG_SDF_CIRCLE: u32 = 1u;
const FLAG_OUTLINE: u32 = 2u;
const VIEW_SRGB: u32 = 1u;

// Grid line spacing in playfield pixels (GRID_SPACING in sprites.rs).
const GRID_SPACING: f32 = 64.0;
// Width of SDF outlines in target pixels.
const OUTLINE_PX: f32 = 2.0;

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var atlas_texture: texture_2d<f32>;
@group(0) @binding(2) var atlas_sampler: sampler;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    // Offset from the sprite centre before rotation, playfield pixels.
    @location(0) local: vec2<f32>,
    @location(1) uv: vec2<f32>,
    // Linear (target-encoded) straight RGBA.
    @location(2) color: vec4<f32>,
    @location(3) radius: f32,
    @location(4) @interpolate(flat) flags: u32,
}

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

fn to_clip(world: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(world.x / view.playfield.x * 2.0 - 1.0, 1.0 - world.y / view.playfield.y * 2.0, 0.0, 1.0);
}

// Expands one corner (each coordinate 0 or 1) of a sprite quad.
fn sprite_vertex(
    corner01: vec2<f32>,
    position: vec2<f32>,
    size: vec2<f32>,
    rotation: f32,
    flags: u32,
    color: vec4<f32>,
    atlas: vec4<f32>,
) -> VertexOut {
    let corner = corner01 - vec2<f32>(0.5);
    // SDF circles get one target pixel of margin so the antialiased rim is not cut.
    let pad = select(0.0, view.px, (flags & FLAG_SDF_CIRCLE) != 0u);
    let local = corner * (size + vec2<f32>(2.0 * pad));
    // Counter-clockwise on screen with y down.
    let c = cos(rotation);
    let s = sin(rotation);
    let rotated = vec2<f32>(local.x * c + local.y * s, -local.x * s + local.y * c);
    let t = local / max(size, vec2<f32>(1e-6)) + vec2<f32>(0.5);

    var out: VertexOut;
    out.clip = to_clip(position + rotated);
    out.local = local;
    out.uv = mix(atlas.xy, atlas.zw, t);
    let rgb = select(color.rgb, srgb_to_linear(color.rgb), (view.flags & VIEW_SRGB) != 0u);
    out.color = vec4<f32>(rgb, color.a);
    out.radius = 0.5 * min(size.x, size.y);
    out.flags = flags;
    return out;
}

struct InstanceIn {
    @location(0) position: vec2<f32>,
    @location(1) size: vec2<f32>,
    @location(2) rotation: f32,
    @location(3) flags: u32,
    @location(4) color: vec4<f32>,
    @location(5) atlas: vec4<f32>,
}

// One instance per sprite, expanded to a 4-vertex strip.
@vertex
fn vs_sprite(@builtin(vertex_index) vertex: u32, inst: InstanceIn) -> VertexOut {
    let corner01 = vec2<f32>(f32(vertex & 1u), f32(vertex >> 1u));
    return sprite_vertex(corner01, inst.position, inst.size, inst.rotation, inst.flags, inst.color, inst.atlas);
}

@fragment
fn fs_sprite(in: VertexOut) -> @location(0) vec4<f32> {
    // Implicit-derivative samples must stay in uniform control flow: compute
    // every candidate first, then pick with select().
    // The atlas is a single-channel coverage mask.
    let coverage = textureSample(atlas_texture, atlas_sampler, in.uv).r;
    let coverage_band = max(fwidth(coverage), 1e-3);

    let h = 0.5 * view.px;
    let d = length(in.local) - in.radius;
    let disc = 1.0 - smoothstep(-h, h, d);
    let ring_half = 0.5 * OUTLINE_PX * view.px;
    let ring = 1.0 - smoothstep(-h, h, abs(d + ring_half) - ring_half);
    // Textured outline: the band where the atlas alpha crosses one half, about
    // a target pixel wide whatever the sprite's scale.
    let hollow = 1.0 - smoothstep(0.0, coverage_band, abs(coverage - 0.5));

    let sdf = (in.flags & FLAG_SDF_CIRCLE) != 0u;
    let outline = (in.flags & FLAG_OUTLINE) != 0u;
    let shape = select(select(coverage, hollow, outline), select(disc, ring, outline), sdf);
    let a = shape * in.color.a;
    return vec4<f32>(in.color.rgb * a, a);
}

struct GridOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec2<f32>,
}

// One quad (4-vertex strip) covering the playfield.
@vertex
fn vs_grid(@builtin(vertex_index) vertex: u32) -> GridOut {
    let world = vec2<f32>(f32(vertex & 1u), f32(vertex >> 1u)) * view.playfield;
    var out: GridOut;
    out.clip = to_clip(world);
    out.world = world;
    return out;
}

// Coverage of lines `dist_px` target pixels away: a two-pixel tent.
fn line_coverage(dist_px: vec2<f32>) -> f32 {
    let c = clamp(vec2<f32>(1.0) - dist_px, vec2<f32>(0.0), vec2<f32>(1.0));
    return max(c.x, c.y);
}

@fragment
fn fs_grid(in: GridOut) -> @location(0) vec4<f32> {
    let cell = in.world / GRID_SPACING;
    let dist = abs(fract(cell + vec2<f32>(0.5)) - vec2<f32>(0.5)) * GRID_SPACING / view.px;
    let edge = max(min(in.world, view.playfield - in.world), vec2<f32>(0.0)) / view.px;
    var rgb = mix(view.background.rgb, view.grid_line.rgb, line_coverage(dist));
    rgb = mix(rgb, view.border.rgb, line_coverage(edge * 0.5));
    return vec4<f32>(rgb, 1.0);
}
