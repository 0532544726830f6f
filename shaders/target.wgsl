// Shared by every shader of timestep-lab (prepended when the module is
// built, see `render::shader_source`): how to write colours for the target.
//
// Colours are authored in gamma space (straight sRGB). On a non-sRGB target
// they are written as they are; on an sRGB target (TARGET_SRGB, set per
// pipeline) they are linearised first so the stored bytes are the same. A
// pipeline constant rather than a uniform, so the conversion is compiled out
// where it is not needed.

override TARGET_SRGB: bool = false;

// The inverse sRGB transfer function.
fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}
