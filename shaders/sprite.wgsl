// The sprite and grid shaders of timestep-lab.
//
// Coordinates are playfield pixels (origin top-left, y down); the render pass
// viewport does the letterboxing, so clip space here always spans exactly the
// playfield. Two pipelines use this module:
//   grid:    vs_grid + fs_grid, one quad covering the playfield, opaque;
//   sprites: vs_sprite + fs_sprite, one instance per sprite, all sprites in
//            one draw call, premultiplied alpha blending (returns rgb * a).
// Instance colours are straight sRGB values as the world wrote them; when the
// target encodes sRGB on write (TARGET_SRGB), the vertex stage linearises them
// so the pixels read back equal the numbers the world asked for.
//
// Written for software rasterisers (llvmpipe) as much as for GPUs, where a
// small sprite costs more in triangle setup than in shading:
// - they run both sides of a branch under a mask, so the fragment stage
//   computes every shape with cheap linear ramps and picks one with select();
// - each varying location costs setup work and bin memory per triangle, so the
//   vertex stage packs its outputs into three locations;
// - the target's encoding is a pipeline constant (TARGET_SRGB in target.wgsl),
//   not a uniform, so the sRGB conversion is compiled out where it is not needed.

struct View {
    // Playfield size in playfield pixels.
    playfield: vec2<f32>,
    // Playfield pixels per target pixel (1 / letterbox scale): the antialiasing width.
    px: f32,
    _pad: u32,
    // Background colours, already in the target's encoding.
    background: vec4<f32>,
    grid_line: vec4<f32>,
    border: vec4<f32>,
}

const FLAG_SDF_CIRCLE: u32 = 1u;
const FLAG_OUTLINE: u32 = 2u;

// Grid line spacing in playfield pixels (GRID_SPACING in sprites.rs).
const GRID_SPACING: f32 = 64.0;
// Width of SDF outlines in target pixels.
const OUTLINE_PX: f32 = 2.0;

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var atlas_texture: texture_2d<f32>;
@group(0) @binding(2) var atlas_sampler: sampler;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    // xy: offset from the sprite centre before rotation, in target pixels
    // (so SDF distances are already antialiasing units); zw: atlas uv.
    @location(0) local_uv: vec4<f32>,
    // Target-encoded straight RGBA.
    @location(1) color: vec4<f32>,
    // x: the SDF circle's radius in target pixels (as bits), y: the flags.
    @location(2) @interpolate(flat) shape: vec2<u32>,
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
    let to_px = 1.0 / view.px;

    var out: VertexOut;
    out.clip = to_clip(position + rotated);
    out.local_uv = vec4<f32>(local * to_px, mix(atlas.xy, atlas.zw, t));
    var rgb = color.rgb;
    if TARGET_SRGB {
        rgb = srgb_to_linear(rgb);
    }
    out.color = vec4<f32>(rgb, color.a);
    out.shape = vec2<u32>(bitcast<u32>(0.5 * min(size.x, size.y) * to_px), flags);
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
    let local = in.local_uv.xy;
    let radius = bitcast<f32>(in.shape.x);
    let flags = in.shape.y;
    // Implicit-derivative samples must stay in uniform control flow: compute
    // every candidate first, then pick with select().
    // The atlas is a single-channel coverage mask.
    let coverage = textureSample(atlas_texture, atlas_sampler, in.local_uv.zw).r;
    let coverage_band = max(fwidth(coverage), 1e-3);

    // Signed distance to the circle's rim in target pixels; a one-pixel linear
    // ramp centred on the rim is the pixel's coverage (a box filter).
    let d = length(local) - radius;
    let disc = clamp(0.5 - d, 0.0, 1.0);
    let ring_half = 0.5 * OUTLINE_PX;
    let ring = clamp(0.5 - (abs(d + ring_half) - ring_half), 0.0, 1.0);
    // Textured outline: the band where the atlas alpha crosses one half, about
    // a target pixel wide whatever the sprite's scale.
    let hollow = clamp(1.0 - abs(coverage - 0.5) / coverage_band, 0.0, 1.0);

    let sdf = (flags & FLAG_SDF_CIRCLE) != 0u;
    let outline = (flags & FLAG_OUTLINE) != 0u;
    let shape = select(select(coverage, hollow, outline), select(disc, ring, outline), sdf);
    let a = shape * in.color.a;
    return vec4<f32>(in.color.rgb * a, a);
}

// The background is two draws. The fill is one opaque quad of a flat colour
// (the cheapest a software rasteriser can shade a full screen: a procedural
// grid in this pass cost 2 ms per 1280x720 frame on llvmpipe). The lines are
// thin instanced quads blended on top, one per grid line plus the four
// border lines, so only the pixels near a line are shaded.

// One quad (4-vertex strip) covering the playfield.
@vertex
fn vs_fill(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    return to_clip(vec2<f32>(f32(vertex & 1u), f32(vertex >> 1u)) * view.playfield);
}

@fragment
fn fs_fill() -> @location(0) vec4<f32> {
    return view.background;
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    // Distance from the line's centre across it, in units of the line's
    // half-width: coverage falls linearly from 1 at 0 to 0 at 1.
    @location(0) across: f32,
    @location(1) @interpolate(flat) color: vec4<f32>,
}

// Instance i of (vertical grid lines, horizontal grid lines, 4 border lines),
// expanded to a 4-vertex strip. The counts follow from the playfield size, as
// in `grid_line_count` in sprites.rs. Grid lines are a tent two target pixels
// wide centred on every multiple of GRID_SPACING; border lines a ramp two
// target pixels deep inside each edge (their outer half is clipped away).
@vertex
fn vs_line(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> LineOut {
    let columns = u32(floor(view.playfield.x / GRID_SPACING)) + 1u;
    let rows = u32(floor(view.playfield.y / GRID_SPACING)) + 1u;
    var vertical = true;
    var at = 0.0;
    var half_width = 1.0;
    var color = view.grid_line;
    if instance < columns {
        at = f32(instance) * GRID_SPACING;
    } else if instance < columns + rows {
        vertical = false;
        at = f32(instance - columns) * GRID_SPACING;
    } else {
        let edge = instance - columns - rows;
        vertical = edge < 2u;
        at = select(view.playfield.y, view.playfield.x, vertical) * f32(edge & 1u);
        half_width = 2.0;
        color = view.border;
    }
    let side = f32(vertex & 1u) * 2.0 - 1.0;
    let along = f32(vertex >> 1u) * select(view.playfield.x, view.playfield.y, vertical);
    let offset = at + side * half_width * view.px;
    var out: LineOut;
    out.clip = to_clip(select(vec2<f32>(along, offset), vec2<f32>(offset, along), vertical));
    out.across = side;
    out.color = color;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    let coverage = clamp(1.0 - abs(in.across), 0.0, 1.0);
    return vec4<f32>(in.color.rgb * coverage, coverage);
}
