//! Every report field is defined once, in the core's registry
//! (`timestep-core/src/report/registry.rs`): its name, its label (words and
//! unit) and its decimals. Everything else reads them from there. Tests and
//! comments aside, the code must not
//!
//! - write a field's name as a string (`"judder_ms"`);
//! - write a field's label or unit by hand: a string with the field's words
//!   and, a few characters on, its unit (`"judder ms"`, `"latency {} ms"`,
//!   `"{} hitches/min"`, `"|drift| > {} ms/min"`);
//! - format a field's value with its own decimals or unit: a format macro
//!   whose arguments name the field (`.judder_ms`, `JUDDER_MS`) and whose
//!   format string has a precision (`{:.2}`) or the unit; or a field next to
//!   a literal count (`num(figure(&JUDDER_MS), 2)`, `(&JUDDER_MS, 2)`).
//!
//! One word has other meanings of the same spelling: `vsync` as
//! `--present-mode vsync` (the app's alias table), as the pacer's
//! present-mode label, and as a compositor's presentation flag.

use regex::Regex;
use std::path::{Path, PathBuf};
use timestep_lab::report::registry::all_fields;
use timestep_lab::report::{Field, Section};

/// Where a field's name may appear as a string besides the registry, and why.
const OTHER_MEANINGS: [(&str, &str); 3] = [
    ("src/app/config.rs", "vsync"),          // the present mode alias `--present-mode vsync`
    ("timestep-core/src/pacer.rs", "vsync"), // the pacer's present-mode label
    ("timestep-core/src/feedback.rs", "vsync"), // the compositor's presentation flag
];

/// The one file that may spell the fields out.
const REGISTRY: &str = "timestep-core/src/report/registry.rs";

/// How many characters a hand-written label may put between a field's words and its unit.
const LABEL_GAP: usize = 24;

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

/// Code before its unit tests, without comment lines.
fn strip(text: &str) -> String {
    let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap_or_default();
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Every Rust source file of the app and the core: (path from the package root, code).
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("timestep-core/src"), &mut files);
    files
        .iter()
        .map(|p| {
            let name = p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
            (name, strip(&std::fs::read_to_string(p).expect("a readable source file")))
        })
        .collect()
}

/// The string literals of `code` (plain and raw), without their quotes.
fn literals(code: &str) -> Vec<&str> {
    let re = Regex::new(r##"r#"(?s:(.*?))"#|"((?:[^"\\]|\\.)*)""##).expect("a valid pattern");
    re.captures_iter(code).filter_map(|c| c.get(1).or_else(|| c.get(2))).map(|m| m.as_str()).collect()
}

/// Every formatting macro call in `code`: the line before it (`(Metric::Judder, Some(v)) =>`)
/// and its balanced-parenthesis arguments.
fn format_calls(code: &str) -> Vec<(&str, &str)> {
    let start = Regex::new(r"\b(?:format|write|writeln|print|println|eprint|eprintln|format_args|panic)!\(")
        .expect("a valid pattern");
    start
        .find_iter(code)
        .filter_map(|m| {
            let mut depth = 1;
            for (i, c) in code[m.end()..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 1 => {
                        let line_start = code[..m.start()].rfind('\n').map_or(0, |n| n + 1);
                        return Some((&code[line_start..m.start()], &code[m.end()..m.end() + i]));
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            None
        })
        .collect()
}

/// One file's parts the checks read: its string literals and its formatting calls.
struct Parsed<'a> {
    code: &'a str,
    literals: Vec<&'a str>,
    calls: Vec<(&'a str, &'a str)>,
}

impl<'a> Parsed<'a> {
    fn new(code: &'a str) -> Parsed<'a> {
        Parsed { code, literals: literals(code), calls: format_calls(code) }
    }
}

/// The patterns that find one field written by hand.
struct Patterns {
    name: &'static str,
    /// The words and the unit in one string: `judder ms`, `latency {} ms`, `{} hitches/min`.
    label: Option<Regex>,
    /// The field's value in a call's arguments or the line before it: `.judder_ms`, `JUDDER_MS`,
    /// or its words as a name (`Metric::Judder`).
    value: Regex,
    /// A placeholder followed by the unit, in a format string: `{} ms`.
    unit: Option<Regex>,
    /// The static beside a literal count: `(&JUDDER_MS, 2)`, `num(figure(&JUDDER_MS), 2)`.
    beside: Regex,
}

impl Patterns {
    fn new(field: &Field) -> Patterns {
        let words = regex::escape(&field.words());
        let unit = regex::escape(field.unit);
        let upper = field.name.to_uppercase();
        let has_unit = !field.unit.is_empty();
        let re = |pattern: String| Regex::new(&pattern).expect("a valid pattern");
        Patterns {
            name: field.name,
            label: has_unit.then(|| {
                re(format!(
                    r"(?i)\b{words}\b.{{0,{LABEL_GAP}}}?(?:^|[\s\d}}]){unit}(?:$|[^\w/])|\b{words}{unit}(?:$|[^\w/])"
                ))
            }),
            value: re(format!(r"\.{}\b|\b{upper}\b|\b{}\b", field.name, camel(&field.words()))),
            unit: has_unit.then(|| re(format!(r"\}}\s?{unit}(?:$|[^\w/])"))),
            beside: re(format!(r"\b{upper}\b\)?\s*,\s*\d+\s*\)")),
        }
    }

    /// What in `file` writes the field's label, unit or decimals by hand, one line per finding.
    fn find(&self, file: &Parsed<'_>) -> Vec<String> {
        let name = self.name;
        let mut found = Vec::new();
        if let Some(label) = &self.label {
            for literal in file.literals.iter().filter(|l| label.is_match(l)) {
                found.push(format!("the label of {name} by hand: \"{literal}\""));
            }
        }
        let precision = precision();
        for (before, call) in &file.calls {
            let Some(string_end) = call.find("\",").or_else(|| call.rfind('"')) else { continue };
            let (format_string, args) = call.split_at(string_end);
            if !self.value.is_match(args) && !self.value.is_match(before) {
                continue;
            }
            if precision.is_match(format_string) {
                found.push(format!("decimals of {name} by hand: {}", call.trim()));
            }
            if self.unit.as_ref().is_some_and(|unit| unit.is_match(format_string)) {
                found.push(format!("the unit of {name} by hand: {}", call.trim()));
            }
        }
        for m in self.beside.find_iter(file.code) {
            found.push(format!("decimals of {name} by hand: {}", m.as_str()));
        }
        found
    }
}

/// Words as a type's or variant's name: `judder p99` → `JudderP99`.
fn camel(words: &str) -> String {
    words
        .split(' ')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |first| first.to_uppercase().chain(c).collect())
        })
        .collect()
}

/// A placeholder with a precision: `{:.2}`, `{v:>8.1}`.
fn precision() -> &'static Regex {
    static PRECISION: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    PRECISION.get_or_init(|| Regex::new(r"\{[^{}]*:[^{}]*\.\d+[^{}]*\}").expect("a valid pattern"))
}

/// The fields whose labels, units and decimals are checked: the figures (a run's
/// settings, the refresh and tick rates, are spoken of everywhere as settings).
fn figures() -> impl Iterator<Item = &'static Field> {
    all_fields().filter(|f| f.section != Section::Setting)
}

/// What in `code` writes `field`'s label, unit or decimals by hand.
fn hand_written(field: &Field, code: &str) -> Vec<String> {
    Patterns::new(field).find(&Parsed::new(code))
}

#[test]
fn every_report_field_name_is_written_once_in_the_code_in_the_registry() {
    let sources = sources();
    let mut report = Vec::new();
    for field in all_fields() {
        let quoted = format!("\"{}\"", field.name);
        let places: Vec<String> = sources
            .iter()
            .filter(|(file, _)| !OTHER_MEANINGS.contains(&(file.as_str(), field.name)))
            .flat_map(|(file, code)| std::iter::repeat_n(file.clone(), code.matches(&quoted).count()))
            .collect();
        if places != [REGISTRY] {
            report.push(format!("{}: {places:?}", field.name));
        }
    }
    assert!(report.is_empty(), "names written outside the registry, or more than once:\n{}", report.join("\n"));
}

#[test]
fn no_label_unit_or_decimal_count_of_a_figure_is_written_beside_the_registry() {
    let sources = sources();
    assert!(sources.len() > 100, "the sources are read ({})", sources.len());
    let patterns: Vec<Patterns> = figures().map(Patterns::new).collect();
    assert!(patterns.len() > 20, "the registry's figures are read ({})", patterns.len());
    let mut report = Vec::new();
    for (file, code) in sources.iter().filter(|(file, _)| file != REGISTRY) {
        let parsed = Parsed::new(code);
        for p in &patterns {
            report.extend(p.find(&parsed).into_iter().map(|f| format!("{file}: {f}")));
        }
    }
    assert!(report.is_empty(), "written by hand instead of read from the registry:\n{}", report.join("\n"));
}

/// The copies this check was written against: each must be found.
#[test]
fn a_planted_copy_of_a_label_a_unit_or_decimals_is_found() {
    let field = |name: &str| all_fields().find(|f| f.name == name).expect("a registry field");
    let (judder, hitches, latency, drift) =
        (field("judder_ms"), field("hitches_per_min"), field("latency_ms"), field("drift_ms_per_min"));
    for (field, planted) in [
        (judder, r#"fn label() -> &'static str { "judder ms" }"#),
        (judder, r#"let s = format!("judder {} ms · {h} hitches/min", number(j, 2));"#),
        (hitches, r#"let s = format!("judder {} ms · {h} hitches/min", number(j, 2));"#),
        (latency, r#"let t = format!("latency {} ms", number(lane.latency_ms, 1));"#),
        (drift, r#"writeln!(out, "{}: judder ms; ! |drift| > {} ms/min", pass, max)"#),
        (judder, r#"let v = format!("{:.2}", stats.judder_ms);"#),
        (judder, r#"let v = format!("{v:>8} ms", v = stats.judder_ms);"#),
        (judder, r#"static METRICS: [(&Field, usize); 1] = [(&JUDDER_MS, 2)];"#),
        (judder, r#"vec![num(figure(&JUDDER_MS), 2)]"#),
        (judder, r#"(Metric::Judder, Some(v)) => format!("{v:.2}"),"#),
    ] {
        assert!(!hand_written(field, planted).is_empty(), "{}: not found in {planted}", field.name);
    }
    for (field, derived) in [
        (judder, r#"let s = format!("{} · {}", JUDDER_MS.reading(j), HITCHES_PER_MIN.reading(h));"#),
        (judder, r#"let v = format!("{:>8}", field.number(stats.judder_ms));"#),
        (latency, r#"let note = "each frame waits 58 ms for its go-ahead";"#),
    ] {
        assert_eq!(hand_written(field, derived), Vec::<String>::new(), "{}: {derived}", field.name);
    }
}
