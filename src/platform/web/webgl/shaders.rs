//! The GLSL ES that build.rs wrote from the renderer's WGSL, and the programs linked from it.
//!
//! GLSL ES 3.00 has no `layout(binding)`: after linking, each uniform block
//! is pointed at its binding's slot and each sampler uniform at its texture's
//! unit, by the names naga gave them. A binding's slot is fixed by its group
//! and number ([`Slot::gl_index`]), so bind groups need no pipeline to bind.

use web_sys::{WebGl2RenderingContext as Gl, WebGlProgram};

/// A binding: its group and number, as the WGSL declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) group: u32,
    pub(super) binding: u32,
}

/// Bindings per group in the fixed numbering: WebGL2 promises 24 uniform
/// buffer bindings and 16 fragment texture units, so three groups of up to
/// eight fit (the lab uses two, with three bindings at most).
const PER_GROUP: u32 = 8;

impl Slot {
    /// The uniform buffer binding or texture unit of this binding.
    pub(super) fn gl_index(self) -> u32 {
        self.group * PER_GROUP + self.binding
    }
}

/// A program stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    Vertex,
    Fragment,
}

/// One entry point of one module, as build.rs wrote it.
#[derive(Debug)]
pub(super) struct ShaderStage {
    /// The WGSL file's name, for messages.
    pub(super) module: &'static str,
    /// [`wgsl_key`] of the module's whole WGSL.
    pub(super) wgsl_key: u64,
    pub(super) stage: Stage,
    pub(super) entry_point: &'static str,
    /// Uniform block names and their bindings.
    pub(super) uniform_blocks: &'static [(&'static str, Slot)],
    /// Sampler uniform names, their texture's binding and their sampler's.
    pub(super) textures: &'static [(&'static str, Slot, Slot)],
    pub(super) glsl: &'static str,
}

/// Every stage of every module the renderer makes, written at build time.
const STAGES: &[ShaderStage] = include!(concat!(env!("OUT_DIR"), "/webgl_shaders.rs"));

/// FNV-1a over the WGSL's bytes (as build.rs computes it).
pub(super) fn wgsl_key(source: &str) -> u64 {
    source.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The stages of the module whose WGSL has `key`, if build.rs translated it.
pub(super) fn module(key: u64) -> Option<&'static [ShaderStage]> {
    let first = STAGES.iter().position(|s| s.wgsl_key == key)?;
    let count = STAGES[first..].iter().take_while(|s| s.wgsl_key == key).count();
    Some(&STAGES[first..first + count])
}

/// `module`'s stage of `kind` named `entry` (the only one of its kind when
/// `None`), if it was written for `constants`: build.rs writes every pipeline
/// constant at its default (false, 0), which is what the page's targets ask for.
pub(super) fn stage(
    module: &'static [ShaderStage],
    kind: Stage,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> Option<&'static ShaderStage> {
    if constants.iter().any(|&(_, value)| value != 0.0) {
        return None;
    }
    let mut candidates = module.iter().filter(|s| s.stage == kind && entry.is_none_or(|e| e == s.entry_point));
    let found = candidates.next()?;
    (entry.is_some() || candidates.next().is_none()).then_some(found)
}

/// A linked program and the texture units its samplers take their sampler from.
#[derive(Debug)]
pub(super) struct Program {
    gl: Gl,
    pub(super) raw: WebGlProgram,
    /// Each sampled texture's unit and the binding of the sampler it is sampled with.
    pub(super) samplers: Vec<(u32, Slot)>,
}

impl Program {
    /// Compiles and links `vertex` and `fragment`, and points their uniform blocks
    /// and samplers at their slots.
    ///
    /// # Errors
    /// The browser's compile or link log, when it refuses them.
    pub(super) fn link(gl: &Gl, vertex: &ShaderStage, fragment: &ShaderStage) -> Result<Program, String> {
        let compile = |kind, stage: &ShaderStage| {
            let shader = gl.create_shader(kind).ok_or("no shader object (is the context lost?)")?;
            gl.shader_source(&shader, stage.glsl);
            gl.compile_shader(&shader);
            if gl.get_shader_parameter(&shader, Gl::COMPILE_STATUS).as_bool() == Some(true) {
                return Ok(shader);
            }
            let log = gl.get_shader_info_log(&shader).unwrap_or_default();
            gl.delete_shader(Some(&shader));
            Err(format!("{} {} does not compile: {log}", stage.module, stage.entry_point))
        };
        let vs = compile(Gl::VERTEX_SHADER, vertex)?;
        let linked = compile(Gl::FRAGMENT_SHADER, fragment).and_then(|fs| {
            let raw = gl.create_program();
            if let Some(raw) = &raw {
                gl.attach_shader(raw, &vs);
                gl.attach_shader(raw, &fs);
                gl.link_program(raw);
            }
            gl.delete_shader(Some(&fs));
            raw.ok_or_else(|| "no program object (is the context lost?)".to_owned())
        });
        gl.delete_shader(Some(&vs));
        let raw = linked?;
        if gl.get_program_parameter(&raw, Gl::LINK_STATUS).as_bool() != Some(true) {
            let log = gl.get_program_info_log(&raw).unwrap_or_default();
            gl.delete_program(Some(&raw));
            return Err(format!("{} does not link: {log}", vertex.module));
        }
        gl.use_program(Some(&raw));
        let mut samplers = Vec::new();
        for stage in [vertex, fragment] {
            for &(name, slot) in stage.uniform_blocks {
                let index = gl.get_uniform_block_index(&raw, name);
                if index != Gl::INVALID_INDEX {
                    gl.uniform_block_binding(&raw, index, slot.gl_index());
                }
            }
            for &(name, texture, sampler) in stage.textures {
                if let Some(location) = gl.get_uniform_location(&raw, name) {
                    gl.uniform1i(Some(&location), texture.gl_index() as i32);
                    samplers.push((texture.gl_index(), sampler));
                }
            }
        }
        Ok(Program { gl: gl.clone(), raw, samplers })
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        self.gl.delete_program(Some(&self.raw));
    }
}
