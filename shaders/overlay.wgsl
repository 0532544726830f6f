// The overlay's shader: egui meshes (positions in points, premultiplied
// gamma-space colours, one texture per mesh) blended over the scene.
//
// Everything stays in gamma space, as egui's own colours are: textures are
// uploaded as Rgba8Unorm (not sRGB), so a sample is already what the target
// wants, and the fragment stage is one sample and one multiply. On a software
// rasteriser that matters: the overlay covers a quarter of the window every
// frame, and a fragment stage with extra paths behind a uniform branch pays
// for all of them (llvmpipe runs both sides of a branch under a mask).
// Only sRGB targets compile in a conversion to linear (TARGET_SRGB, target.wgsl).

struct Screen {
    // Target size in points.
    size: vec2<f32>,
    _pad: vec2<f32>,
}

@group(0) @binding(0) var<uniform> screen: Screen;
@group(1) @binding(0) var mesh_texture: texture_2d<f32>;
@group(1) @binding(1) var mesh_sampler: sampler;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    // Premultiplied gamma-space RGBA.
    @location(1) color: vec4<f32>,
}

@vertex
fn vs_main(@location(0) pos: vec2<f32>, @location(1) uv: vec2<f32>, @location(2) color: vec4<f32>) -> VertexOut {
    var out: VertexOut;
    out.clip = vec4<f32>(2.0 * pos.x / screen.size.x - 1.0, 1.0 - 2.0 * pos.y / screen.size.y, 0.0, 1.0);
    out.uv = uv;
    out.color = color;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    var out = in.color * textureSample(mesh_texture, mesh_sampler, in.uv);
    if TARGET_SRGB {
        // Premultiplied: convert the straight colour, then premultiply again.
        let straight = out.rgb / max(out.a, 1e-6);
        out = vec4<f32>(srgb_to_linear(straight) * out.a, out.a);
    }
    return out;
}
