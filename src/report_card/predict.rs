//! The simulator's prediction for a measured display: every strategy run on
//! the virtual monitor's `desktop` model at the refresh rate the tour measured.
//!
//! A report card puts the prediction beside each measured figure, so a
//! reader sees whether the real machine behaves like a typical desktop (and
//! where it does not, that something on it is unusual: a compositor, a
//! driver's queue, a busy CPU).
//!
//! Run length: [`PREDICTION_LENGTH`], 60 s of simulated display time per
//! strategy. Measured on the 2-core CI machine (debug build,
//! `simulate --strategy all --model desktop --refresh 144 --seconds S`):
//! all ten strategies take 0.07 s at S = 10, 0.15 s at 60, 0.3 s at 120.
//! Judder across seeds 0–2 spreads ±40 % at 10 s and ±20 % at 60 s (the
//! interpolated run: 0.62/0.90/0.90 ms at 10 s, 0.44/0.54/0.50 ms at 60 s);
//! 60 s keeps a prediction well inside the agreement tolerance for a tenth
//! of a second of work.

use super::schema::RunRecord;
use crate::monitor::{Preset, RunSpec, Stop};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{NANOS_PER_SEC, Nanos, Rate};

/// The model predictions run on: a typical desktop (queued presents, sloppy sleeps, 2–8 ms renders).
pub const PREDICTION_MODEL: Preset = Preset::Desktop;

/// Simulated display time per prediction (see the module docs for the measurement).
pub const PREDICTION_LENGTH: Nanos = 60 * NANOS_PER_SEC;

/// The noise seed of every prediction, so a card's predictions are reproducible.
pub const PREDICTION_SEED: u64 = 0;

/// The run that predicts `strategy` on a display of `refresh` with vsync on or off.
pub fn prediction_spec(strategy: StrategyId, refresh: Rate, vsync: bool, config: StrategyConfig) -> RunSpec {
    RunSpec::new(strategy, PREDICTION_MODEL)
        .with_config(config)
        .with_refresh(refresh)
        .with_vsync(vsync)
        .with_seed(PREDICTION_SEED)
        .with_stop(Stop::Duration(PREDICTION_LENGTH))
}

/// Predicts every strategy in `strategies` on a display of `refresh` (the
/// measured rate) with vsync on or off, with the tour's strategy settings
/// (`config`: tick rate, fuzzy variant…). One record per strategy, in order,
/// its `vsync_requested` set to `vsync` so it pairs with the measured pass.
pub fn predict(refresh: Rate, vsync: bool, config: StrategyConfig, strategies: &[StrategyId]) -> Vec<RunRecord> {
    strategies
        .iter()
        .map(|&strategy| {
            let outcome = crate::sim::simulate(&prediction_spec(strategy, refresh, vsync, config));
            RunRecord { vsync_requested: Some(vsync), ..RunRecord::from(&outcome.report()) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_is_the_desktop_model_at_the_measured_refresh() {
        let refresh = Rate::new(60000, 1001).unwrap();
        let records = predict(refresh, true, StrategyConfig::default(), &[StrategyId::Lockstep, StrategyId::Fuzzy]);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].strategy, "lockstep");
        assert_eq!(records[1].strategy, "fuzzy");
        for r in &records {
            assert_eq!(r.model.as_deref(), Some("desktop"));
            assert_eq!((r.vsync, r.vsync_requested), (Some(true), Some(true)));
            assert_eq!(r.refresh_hz, Some(refresh.hz()));
            let covered = r.system_time_s.expect("a run covers display time");
            assert!((59.9..60.1).contains(&covered), "60 s of display time, got {covered}");
        }
        // Lockstep on 59.94 Hz runs one tick per refresh: 0.1 % slow.
        let drift = records[0].drift_ms_per_min().expect("lockstep has a speed");
        assert!((drift - (-60_000.0 / 1001.0)).abs() < 1.0, "lockstep at 59.94 Hz loses 60 ms a minute: {drift}");
    }

    #[test]
    fn predictions_are_reproducible() {
        let run = || predict(Rate::from_hz(144), false, StrategyConfig::default(), &[StrategyId::Interpolated]);
        assert_eq!(run(), run());
    }
}
