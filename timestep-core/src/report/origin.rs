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
//! not know (a report from a later version) loads as [`RunOrigin::Other`] and
//! is only shown.

use core::fmt;

/// The named machine models of the virtual monitor (their models are
/// `Preset::model` in the monitor): named here, below the monitor, because a
/// run's origin names them.
///
/// ```
/// use timestep_core::monitor::Preset;
/// let preset: Preset = "glaiel".parse().unwrap();
/// assert_eq!((preset, preset.to_string()), (Preset::Glaiel, "glaiel".to_owned()));
/// assert_eq!(Preset::PacingAnswer.name(), "pacing-answer", "the command line's name");
/// assert_eq!(Preset::parse("seed000"), Ok(Preset::PacingAnswer), "its old name is an alias");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Preset {
    /// The monitor simulator of Tyler Glaiel's "How to make your game run at 60fps".
    Glaiel,
    /// A typical desktop: queued presents, sloppy sleeps, 2–8 ms renders.
    Desktop,
    /// A machine whose render takes longer than a 60 Hz refresh.
    Slow,
    /// `desktop` plus a 30–100 ms stall about every 2 s.
    Spiky,
    /// The frame-pacing answer's worked timeline (the adaptive render interval): no noise, exact sleeps.
    PacingAnswer,
}

impl Preset {
    /// All presets, in help order.
    pub const ALL: [Preset; 5] = [Preset::Glaiel, Preset::Desktop, Preset::Slow, Preset::Spiky, Preset::PacingAnswer];

    /// The name it parses from and prints as (`glaiel`).
    pub fn name(self) -> &'static str {
        match self {
            Preset::Glaiel => "glaiel",
            Preset::Desktop => "desktop",
            Preset::Slow => "slow",
            Preset::Spiky => "spiky",
            Preset::PacingAnswer => "pacing-answer",
        }
    }

    /// Other names the command line takes for this preset: a name it had before.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Preset::PacingAnswer => &["seed000"],
            Preset::Glaiel | Preset::Desktop | Preset::Slow | Preset::Spiky => &[],
        }
    }

    /// Looks a preset up by name or alias.
    ///
    /// # Errors
    /// An unknown name; the message lists the valid ones.
    pub fn parse(text: &str) -> Result<Preset, String> {
        let text = text.trim();
        Preset::ALL
            .into_iter()
            .find(|p| {
                std::iter::once(p.name()).chain(p.aliases().iter().copied()).any(|n| n.eq_ignore_ascii_case(text))
            })
            .ok_or_else(|| {
                let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
                format!("unknown model '{text}' (expected one of: {})", names.join(", "))
            })
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Preset {
    type Err = String;

    /// As [`Preset::parse`].
    fn from_str(text: &str) -> Result<Preset, String> {
        Preset::parse(text)
    }
}

/// What produced a run's frames (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunOrigin {
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

impl Default for RunOrigin {
    /// No model named yet (an empty name).
    fn default() -> RunOrigin {
        RunOrigin::Other(String::new())
    }
}

impl RunOrigin {
    /// The models that are not presets, each with its name in reports.
    pub const NAMED: [RunOrigin; 4] = [RunOrigin::Setup, RunOrigin::Trace, RunOrigin::Window, RunOrigin::Lanes];

    /// The name reports write: the preset's name, `this setup`, `trace`, `window`, `lanes`.
    pub fn name(&self) -> &str {
        match self {
            RunOrigin::Preset(preset) => preset.name(),
            RunOrigin::Setup => "this setup",
            RunOrigin::Trace => "trace",
            RunOrigin::Window => "window",
            RunOrigin::Lanes => "lanes",
            RunOrigin::Other(name) => name,
        }
    }

    /// The model a report names (a preset by its name or an alias); [`RunOrigin::Other`] for any other name.
    pub fn parse(name: &str) -> RunOrigin {
        RunOrigin::NAMED
            .into_iter()
            .find(|m| m.name() == name)
            .or_else(|| Preset::parse(name).ok().map(RunOrigin::Preset))
            .unwrap_or_else(|| RunOrigin::Other(name.to_owned()))
    }

    /// Whether the run's frames came from a real display (the window, or a lane of it).
    pub fn is_measured(&self) -> bool {
        matches!(self, RunOrigin::Window | RunOrigin::Lanes)
    }
}

impl std::fmt::Display for RunOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for RunOrigin {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for RunOrigin {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RunOrigin, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(RunOrigin::parse(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn every_model_reads_back_from_its_name() {
        let all = Preset::ALL.into_iter().map(RunOrigin::Preset).chain(RunOrigin::NAMED);
        for model in all {
            assert_eq!(RunOrigin::parse(model.name()), model, "{model}");
        }
        assert_eq!(RunOrigin::parse("laptop"), RunOrigin::Other("laptop".to_owned()), "an unknown name is kept");
        assert_eq!(RunOrigin::default().name(), "", "unnamed");
    }

    #[test]
    fn a_model_is_written_and_read_as_its_name() {
        let json = serde_json::to_string(&[RunOrigin::Window, RunOrigin::Preset(Preset::Glaiel)]).expect("JSON");
        assert_eq!(json, r#"["window","glaiel"]"#);
        let back: Vec<RunOrigin> = serde_json::from_str(r#"["lanes","this setup","spiky"]"#).expect("names");
        assert_eq!(back, [RunOrigin::Lanes, RunOrigin::Setup, RunOrigin::Preset(Preset::Spiky)]);
    }

    #[test]
    fn the_registry_s_definition_of_model_names_every_model_that_is_not_a_preset() {
        for model in RunOrigin::NAMED {
            let quoted = format!("`{}`", model.name());
            assert!(crate::report::registry::MODEL.definition.contains(&quoted), "{quoted} is not in the definition");
        }
    }

    #[test]
    fn only_the_window_and_its_lanes_are_measured() {
        assert!(RunOrigin::Window.is_measured() && RunOrigin::Lanes.is_measured());
        assert!(!RunOrigin::Trace.is_measured() && !RunOrigin::Setup.is_measured());
        assert!(!RunOrigin::Preset(Preset::Desktop).is_measured());
    }
}
