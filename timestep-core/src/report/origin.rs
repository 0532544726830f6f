//! What produced a run's frames: the report's `model`, a type where the
//! JSON has a name.
//!
//! ```text
//!   virtual monitor ── a preset ──────────► glaiel, desktop, slow, spiky, pacing-answer
//!                  ├── a measured setup ──► this setup      (a report card's predictions)
//!                  └── a capture ─────────► trace
//!   real display ──── the window or page ─► window
//!                  └── one lane of lanes ─► lanes
//! ```
//!
//! Readers decide on the variant, never on the text; a name this build does
//! not know (a report from a later version) loads as [`RunModel::Other`] and
//! is only shown.

use crate::monitor::Preset;

/// What produced a run's frames (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunModel {
    /// The virtual monitor on one of its presets.
    Preset(Preset),
    /// The virtual monitor on a model of a setup a report card's tour measured.
    Setup,
    /// The virtual monitor replaying a capture's frame times.
    Trace,
    /// A real window, or a web page.
    Window,
    /// One lane of a window's lane mode: a strategy fed the window's frames.
    Lanes,
    /// A name this build does not know; empty while nobody has named the model.
    Other(String),
}

impl Default for RunModel {
    /// No model named yet (an empty name).
    fn default() -> RunModel {
        RunModel::Other(String::new())
    }
}

impl RunModel {
    /// The models that are not presets, each with its name in reports.
    pub const NAMED: [RunModel; 4] = [RunModel::Setup, RunModel::Trace, RunModel::Window, RunModel::Lanes];

    /// The name reports write: the preset's name, `this setup`, `trace`, `window`, `lanes`.
    pub fn name(&self) -> &str {
        match self {
            RunModel::Preset(preset) => preset.name(),
            RunModel::Setup => "this setup",
            RunModel::Trace => "trace",
            RunModel::Window => "window",
            RunModel::Lanes => "lanes",
            RunModel::Other(name) => name,
        }
    }

    /// The model a report names (a preset by its name or an alias); [`RunModel::Other`] for any other name.
    pub fn parse(name: &str) -> RunModel {
        RunModel::NAMED
            .into_iter()
            .find(|m| m.name() == name)
            .or_else(|| Preset::parse(name).ok().map(RunModel::Preset))
            .unwrap_or_else(|| RunModel::Other(name.to_owned()))
    }

    /// Whether the run's frames came from a real display (the window, or a lane of it).
    pub fn is_measured(&self) -> bool {
        matches!(self, RunModel::Window | RunModel::Lanes)
    }
}

impl std::fmt::Display for RunModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for RunModel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for RunModel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RunModel, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(RunModel::parse(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn every_model_reads_back_from_its_name() {
        let all = Preset::ALL.into_iter().map(RunModel::Preset).chain(RunModel::NAMED);
        for model in all {
            assert_eq!(RunModel::parse(model.name()), model, "{model}");
        }
        assert_eq!(RunModel::parse("laptop"), RunModel::Other("laptop".to_owned()), "an unknown name is kept");
        assert_eq!(RunModel::default().name(), "", "unnamed");
    }

    #[test]
    fn a_model_is_written_and_read_as_its_name() {
        let json = serde_json::to_string(&[RunModel::Window, RunModel::Preset(Preset::Glaiel)]).expect("JSON");
        assert_eq!(json, r#"["window","glaiel"]"#);
        let back: Vec<RunModel> = serde_json::from_str(r#"["lanes","this setup","spiky"]"#).expect("names");
        assert_eq!(back, [RunModel::Lanes, RunModel::Setup, RunModel::Preset(Preset::Spiky)]);
    }

    #[test]
    fn the_registry_s_definition_of_model_names_every_model_that_is_not_a_preset() {
        for model in RunModel::NAMED {
            let quoted = format!("`{}`", model.name());
            assert!(crate::report::registry::MODEL.definition.contains(&quoted), "{quoted} is not in the definition");
        }
    }

    #[test]
    fn only_the_window_and_its_lanes_are_measured() {
        assert!(RunModel::Window.is_measured() && RunModel::Lanes.is_measured());
        assert!(!RunModel::Trace.is_measured() && !RunModel::Setup.is_measured());
        assert!(!RunModel::Preset(Preset::Desktop).is_measured());
    }
}
