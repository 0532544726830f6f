//! The page's WebGL2 shaders, written at build time (the `webgl` feature on wasm32 only).
//!
//! The lab's own WebGL2 back-end (`src/platform/web/webgl/`) carries no shader
//! translator: naga here, on the build machine, turns each WGSL module the
//! renderer makes (`shaders/target.wgsl` and a body, as `render::shader_module`
//! joins them) into GLSL ES 3.00, one program stage per entry point, with the
//! pipeline constants at their defaults (`TARGET_SRGB` false: the canvas is
//! `Rgba8Unorm`). With them go the names the GLSL gives the uniform blocks and
//! the sampled textures, which the back-end binds by name after linking (GLSL ES
//! 3.00 has no `layout(binding)`). The page finds a module by a hash of its WGSL,
//! so a shader changed at run time, or joined differently, is an error on the
//! page's console, never a wrong picture.
//!
//! Everything else builds nothing here.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "webgl")]
    webgl::main();
}

#[cfg(feature = "webgl")]
mod webgl {
    use naga::back::glsl;
    use std::fmt::Write as _;
    use std::path::PathBuf;

    /// The shader bodies the renderer uses, each joined after `target.wgsl`.
    const MODULES: [&str; 2] = ["sprite.wgsl", "overlay.wgsl"];

    pub(super) fn main() {
        let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
        if !wasm {
            return;
        }
        if let Err(message) = write_shaders() {
            eprintln!("WebGL2 shaders: {message}");
            std::process::exit(1);
        }
    }

    /// FNV-1a over the WGSL's bytes: the key the back-end looks a module up by
    /// (the same function is in `src/platform/web/webgl/shaders.rs`).
    fn wgsl_key(source: &str) -> u64 {
        source.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
    }

    fn write_shaders() -> Result<(), String> {
        let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
        let read = |name: &str| {
            let path = root.join("shaders").join(name);
            println!("cargo:rerun-if-changed={}", path.display());
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let target = read("target.wgsl")?;
        let mut out = String::from("// Written by build.rs from shaders/*.wgsl: do not edit.\n&[\n");
        for name in MODULES {
            let source = format!("{target}\n{}", read(name)?);
            let module =
                naga::front::wgsl::parse_str(&source).map_err(|e| format!("{name}: {}", e.emit_to_string(&source)))?;
            let info =
                naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
                    .validate(&module)
                    .map_err(|e| format!("{name}: {}", e.emit_to_string(&source)))?;
            for entry in &module.entry_points {
                write_stage(&mut out, name, wgsl_key(&source), &module, &info, entry)?;
            }
        }
        out.push_str("]\n");
        let dest = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?).join("webgl_shaders.rs");
        std::fs::write(&dest, out).map_err(|e| format!("{}: {e}", dest.display()))
    }

    /// A sampled texture's name, its binding and its sampler's.
    type TextureBinding = (String, (u32, u32), Option<(u32, u32)>);

    /// One entry point as a `ShaderStage` literal.
    fn write_stage(
        out: &mut String,
        name: &str,
        key: u64,
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        entry: &naga::EntryPoint,
    ) -> Result<(), String> {
        let fail = |e: &dyn std::fmt::Display| format!("{name} {}: {e}", entry.name);
        let constants = naga::back::PipelineConstants::default();
        let (module, info) = naga::back::pipeline_constants::process_overrides(
            module,
            info,
            Some((entry.stage, &entry.name)),
            &constants,
        )
        .map_err(|e| fail(&e))?;
        let options = glsl::Options {
            version: glsl::Version::Embedded { version: 300, is_webgl: true },
            // The canvas is drawn straight into: no Y flip (see the back-end's module docs).
            writer_flags: glsl::WriterFlags::empty(),
            binding_map: Default::default(),
            zero_initialize_workgroup_memory: false,
        };
        let pipeline =
            glsl::PipelineOptions { shader_stage: entry.stage, entry_point: entry.name.clone(), multiview: None };
        let mut glsl = String::new();
        let mut writer = glsl::Writer::new(&mut glsl, &module, &info, &options, &pipeline, Default::default())
            .map_err(|e| fail(&e))?;
        let reflection = writer.write().map_err(|e| fail(&e))?;
        let binding = |handle: naga::Handle<naga::GlobalVariable>| {
            module.global_variables[handle].binding.as_ref().map(|b| (b.group, b.binding)).unwrap_or_default()
        };
        let mut blocks: Vec<(String, (u32, u32))> =
            reflection.uniforms.iter().map(|(&handle, block)| (block.clone(), binding(handle))).collect();
        blocks.sort();
        let mut textures: Vec<TextureBinding> = reflection
            .texture_mapping
            .iter()
            .map(|(texture, mapping)| (texture.clone(), binding(mapping.texture), mapping.sampler.map(binding)))
            .collect();
        textures.sort();
        let stage = match entry.stage {
            naga::ShaderStage::Vertex => "Vertex",
            naga::ShaderStage::Fragment => "Fragment",
            other => return Err(fail(&format!("a {other:?} stage has no place in WebGL2"))),
        };
        let _ = writeln!(out, "    ShaderStage {{");
        let _ = writeln!(out, "        module: {name:?},\n        wgsl_key: {key:#x},");
        let _ = writeln!(out, "        stage: Stage::{stage},\n        entry_point: {:?},", entry.name);
        let _ = writeln!(out, "        uniform_blocks: &[");
        for (block, (group, binding)) in blocks {
            let _ = writeln!(out, "            ({block:?}, Slot {{ group: {group}, binding: {binding} }}),");
        }
        let _ = writeln!(out, "        ],\n        textures: &[");
        for (texture, (group, binding), sampler) in textures {
            let (sg, sb) = sampler.ok_or_else(|| fail(&format!("texture {texture} has no sampler")))?;
            let _ = writeln!(
                out,
                "            ({texture:?}, Slot {{ group: {group}, binding: {binding} }}, Slot {{ group: {sg}, binding: {sb} }}),"
            );
        }
        let _ = writeln!(out, "        ],\n        glsl: {glsl:?},\n    }},");
        Ok(())
    }
}
