//! Helpers shared by the report-card tests of the `cli`, `report` and `window`
//! binaries (`#[path = "../support/report_card/mod.rs"] mod report_card;` in each `main.rs`).

#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod chromium;

use std::path::PathBuf;
use timestep_lab::monitor::Preset;
use timestep_lab::report_card::comparison::{Source, load};
use timestep_lab::report_card::{ReportCard, SyntheticMonitor, synthetic_card};
use timestep_lab::strategy::{StrategyConfig, StrategyId};
use timestep_lab::time::Rate;

/// The two committed fixtures: a 60 Hz monitor of the desktop model and a
/// 144 Hz one of the spiky model (stalls, so measurement and prediction differ).
pub const FIXTURES: [(&str, u64, Preset, u64); 2] =
    [("60hz.json", 60, Preset::Desktop, 1), ("144hz.json", 144, Preset::Spiky, 2)];

/// `tests/data/report_card/NAME`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card").join(name)
}

/// The fixtures as `compare`'s sources, named by their files.
pub fn fixture_sources() -> Vec<(String, Source)> {
    FIXTURES.iter().map(|(name, ..)| (name.to_string(), load(&fixture(name)).expect("the fixture loads"))).collect()
}

/// Both fixtures' monitors on one card.
pub fn fixtures_card() -> ReportCard {
    let mut card = ReportCard::read(&fixture(FIXTURES[0].0)).expect("the fixture loads");
    card.monitors.extend(ReportCard::read(&fixture(FIXTURES[1].0)).expect("the fixture loads").monitors);
    card
}

/// The simulated monitor behind fixture `i` (its index is `i + 1`).
pub fn fixture_monitor(i: usize) -> SyntheticMonitor {
    let (_, hz, preset, seed) = FIXTURES[i];
    SyntheticMonitor {
        index: i as u32 + 1,
        name: format!("virtual {hz} Hz ({preset})"),
        refresh: Rate::from_hz(hz),
        preset,
        seed,
    }
}

/// A card with every strategy on the given simulated monitors.
pub fn card(monitors: &[SyntheticMonitor]) -> ReportCard {
    synthetic_card(monitors, &StrategyId::ALL, StrategyConfig::default())
}

/// A fresh scratch directory unique to this test process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timestep-lab-report-card-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}
