//! Every report field's name is written once in the code, in the core's
//! registry (`timestep-core/src/report/registry.rs`): everything else reads
//! it from there. Tests and comments aside.
//!
//! One word has other meanings of the same spelling: `vsync` as
//! `--present-mode vsync` (the app's alias table), as the pacer's
//! present-mode label, and as a compositor's presentation flag.

use std::path::{Path, PathBuf};
use timestep_lab::report::registry::all_fields;

/// Where a field's name may appear as a string besides the registry, and why.
const OTHER_MEANINGS: [(&str, &str); 3] = [
    ("src/app/config.rs", "vsync"),          // the present mode alias `--present-mode vsync`
    ("timestep-core/src/pacer.rs", "vsync"), // the pacer's present-mode label
    ("timestep-core/src/feedback.rs", "vsync"), // the compositor's presentation flag
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code before its unit tests, without comment lines.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable source file");
    let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap_or_default();
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_report_field_name_is_written_once_in_the_code_in_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("timestep-core/src"), &mut files);
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|p| (p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/"), code(p)))
        .collect();
    let mut report = Vec::new();
    for field in all_fields() {
        let quoted = format!("\"{}\"", field.name);
        let places: Vec<String> = sources
            .iter()
            .filter(|(file, _)| !OTHER_MEANINGS.contains(&(file.as_str(), field.name)))
            .flat_map(|(file, code)| std::iter::repeat_n(file.clone(), code.matches(&quoted).count()))
            .collect();
        if places != ["timestep-core/src/report/registry.rs"] {
            report.push(format!("{}: {places:?}", field.name));
        }
    }
    assert!(report.is_empty(), "names written outside the registry, or more than once:\n{}", report.join("\n"));
}
