//! The simulator's prediction for a measured display: every strategy run on
//! the virtual monitor at the refresh rate the tour measured, on a model of
//! the measured setup ([`super::setup`]: its frame work, how many presents
//! queue, how late the loop wakes), or on the `desktop` model where the tour
//! could not measure it.
//!
//! A report card puts the prediction beside each measured figure, so a
//! reader sees whether the real machine does what its own measured costs
//! say it should (and where it does not, that something the model leaves
//! out is at work: a compositor, a stall, another process).
//!
//! Run length: [`PREDICTION_LENGTH`], 60 s of simulated display time per
//! strategy. Measured on the 2-core CI machine (debug build,
//! `simulate --strategy all --model desktop --refresh 144 --seconds S`):
//! all ten strategies take 0.07 s at S = 10, 0.15 s at 60, 0.3 s at 120.
//! Judder across seeds 0–2 spreads ±40 % at 10 s and ±20 % at 60 s (the
//! interpolated run: 0.62/0.90/0.90 ms at 10 s, 0.44/0.54/0.50 ms at 60 s);
//! 60 s keeps a prediction well inside the agreement tolerance for a tenth
//! of a second of work.

use super::schema::{PredictionRange, RunRecord};
use super::setup::MeasuredSetup;
use crate::monitor::{Composition, Preset, RunSpec, Stop};
use crate::report::RunOrigin;
use crate::report::registry::JUDDER_MS;
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{NANOS_PER_SEC, Nanos, Rate};
use crate::vrr::{Refresh, VrrRange};

/// The model predictions run on when the setup was not measured: a typical
/// desktop (queued presents, sloppy sleeps, 2–8 ms renders).
pub(crate) const PREDICTION_MODEL: Preset = Preset::Desktop;

/// Simulated display time per prediction (see the module docs for the measurement).
pub(crate) const PREDICTION_LENGTH: Nanos = 60 * NANOS_PER_SEC;

/// The noise seed of every prediction, so a card's predictions are reproducible.
pub(crate) const PREDICTION_SEED: u64 = 0;

/// The display a prediction runs on: the measured refresh, and whether the
/// game learnt it from the display (a reported rate, or an emulated grid) or
/// not (a browser page, a window under Xvfb): without it, fuzzy and auto start
/// strict and measure the refresh from their frames, as they did in the
/// measured runs (in a page's tour, one hitch at the start of a 3 s run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PredictedDisplay {
    /// The measured refresh rate (a VRR panel's maximum).
    pub(crate) refresh: Rate,
    /// Whether the game was told the refresh rate.
    pub(crate) reported: bool,
    /// The VRR range, where the tour saw one: the prediction runs on a VRR panel.
    pub(crate) vrr: Option<VrrRange>,
    /// The rate the display reported where its frames came at another
    /// (`refresh`): what the measured strategies were told.
    pub(crate) told: Option<Rate>,
}

impl PredictedDisplay {
    /// A display of `refresh` that reports it.
    pub(crate) fn reporting(refresh: Rate) -> PredictedDisplay {
        PredictedDisplay { refresh, reported: true, vrr: None, told: None }
    }
}

/// Runs per strategy on a measured setup, each starting at another point of
/// the refresh (see the module docs).
pub(crate) const SETUP_STARTS: u64 = 8;

/// The run that predicts `strategy` on `display` with vsync on
/// or off, on the model of `setup` (the `desktop` model without one), the
/// `k`-th of [`SETUP_STARTS`] (seed `k`): with a setup, its first frame starts
/// the measured wake-up after a vblank, then `(k + ½)/n` of a refresh later;
/// without, on a vblank. A strategy that paces itself (fixed-fps, paced) keeps
/// the phase its first frame gave its ticks, and a measured run starts
/// wherever the tour's switch fell: at 240 Hz fixed-fps's 2 ms frames make
/// their vblank from some phases and miss it from others (a run at one phase
/// measured 8 hitches in 2 s where the wake-up's own phase predicted none).
pub(crate) fn prediction_spec(
    strategy: StrategyId,
    display: PredictedDisplay,
    vsync: bool,
    config: StrategyConfig,
    setup: Option<&MeasuredSetup>,
    k: u64,
    length: Nanos,
) -> RunSpec {
    let refresh = display.refresh;
    let spec = RunSpec::new(strategy, PREDICTION_MODEL)
        .with_config(config)
        .with_refresh(display.vrr.map_or(Refresh::Fixed(refresh), Refresh::Vrr))
        .with_reported_refresh(display.reported)
        .with_vsync(vsync)
        .with_seed(PREDICTION_SEED + k)
        .with_stop(Stop::Duration(length));
    let spec = match display.told {
        Some(told) => spec.with_reported_rate(told),
        None => spec,
    };
    let Some(setup) = setup else { return spec };
    let model = setup.model_for(strategy.name(), refresh, vsync);
    // The start phases hang on the probe's wake-up, whatever the run's own
    // (which the model draws): see `RunCosts`.
    let wake = setup.usual_wake();
    let (lo, hi) = (u64::try_from(wake.lo).unwrap_or(0), u64::try_from(wake.hi).unwrap_or(0));
    let period = refresh.period().max(1);
    let phase = lo.midpoint(hi) + period * (2 * k + 1) / (2 * SETUP_STARTS);
    let start = crate::monitor::start_after_vblank(refresh, 0, phase % period);
    // A compositor that held the window (Wayland's frame callback: read from
    // the pass with vsync off, where the hold is the only wait) holds it with
    // vsync on too: winit's redraw waits for the callback whatever the present mode.
    let held = setup.vsync_off.as_ref().and_then(|off| off.compositor);
    let composition = setup.compositor.or(held).map_or(Composition::Direct, Composition::Composited);
    spec.with_model(model).with_start(start).with_composition(composition)
}

/// Predicts every strategy in `strategies` on `display` (the measured
/// rate, reported to the game or not) with vsync on or off, with the tour's strategy settings
/// (`config`: tick rate, fuzzy variant…).
///
/// Without a measured `setup`: one run per strategy on the `desktop` model,
/// [`PREDICTION_LENGTH`] long, and no ranges. With one: [`SETUP_STARTS`]
/// runs per strategy on its model, each as long as the measured runs
/// (`measured_length`: a strategy whose timing drifts through a bad phase
/// and out again, as catch-up does on a refresh a hair off its tick rate,
/// shows over 3 s what it does over 3 s, not what it averages over 60);
/// the record is the middle run (by hitches, then judder) and the range the
/// spread of all of them, because catch-up, fuzzy and their kin do what the
/// phase of their first frame lets them do, and a measurement has one phase.
/// Each run settles for `settle` first, as the measured runs do (a fresh
/// session takes over a display whose queue is full: [`RunSpec::settle`]).
/// One record per strategy, in order, its `vsync_requested` set to `vsync`
/// so it pairs with the measured pass, its `model` "this setup" or "desktop".
pub(crate) fn predict(
    display: PredictedDisplay,
    vsync: bool,
    config: StrategyConfig,
    strategies: &[StrategyId],
    setup: Option<&MeasuredSetup>,
    measured_length: Nanos,
    settle: Nanos,
) -> (Vec<RunRecord>, Vec<PredictionRange>) {
    let (runs, length) = if setup.is_some() { (SETUP_STARTS, measured_length) } else { (1, PREDICTION_LENGTH) };
    let mut records = Vec::with_capacity(strategies.len());
    let mut ranges = Vec::new();
    for &strategy in strategies {
        let mut all: Vec<RunRecord> = (0..runs)
            .map(|k| {
                let outcome = crate::sim::simulate(
                    &prediction_spec(strategy, display, vsync, config, setup, k, length).with_settle(settle),
                );
                let record = RunRecord::from(&outcome.report());
                let model = if setup.is_some() { Some(RunOrigin::Setup) } else { record.model.clone() };
                RunRecord { vsync_requested: Some(vsync), model, ..record }
            })
            .collect();
        if setup.is_some() {
            ranges.push(PredictionRange::of(&all));
        }
        all.sort_by(|a, b| {
            let key = |r: &RunRecord| (r.hitches_per_min().unwrap_or(0.0), r.figure(&JUDDER_MS).unwrap_or(0.0));
            key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
        });
        let middle = all.len().saturating_sub(1) / 2;
        if let Some(record) = all.into_iter().nth(middle) {
            records.push(record);
        }
    }
    (records, ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_is_the_desktop_model_at_the_measured_refresh() {
        let refresh = Rate::new(60000, 1001).unwrap();
        let (records, ranges) = predict(
            PredictedDisplay::reporting(refresh),
            true,
            StrategyConfig::default(),
            &[StrategyId::Lockstep, StrategyId::Fuzzy],
            None,
            0,
            0,
        );
        assert!(ranges.is_empty(), "one run each: no ranges");
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].strategy, "lockstep");
        assert_eq!(records[1].strategy, "fuzzy");
        for r in &records {
            assert_eq!(r.model, Some(RunOrigin::Preset(PREDICTION_MODEL)));
            assert_eq!((r.vsync, r.vsync_requested), (Some(true), Some(true)));
            assert_eq!(r.refresh_hz, Some(refresh.hz()));
            let covered = r.figure(&crate::report::registry::SYSTEM_TIME_S).expect("a run covers display time");
            assert!((59.9..60.1).contains(&covered), "60 s of display time, got {covered}");
        }
        // Lockstep on 59.94 Hz runs one tick per refresh: 0.1 % slow.
        let drift = records[0].drift_ms_per_min().expect("lockstep has a speed");
        assert!((drift - (-60_000.0 / 1001.0)).abs() < 1.0, "lockstep at 59.94 Hz loses 60 ms a minute: {drift}");
    }

    #[test]
    fn a_display_seen_as_vrr_is_predicted_on_a_vrr_panel() {
        let display =
            PredictedDisplay { vrr: "vrr:50-144".parse().ok(), ..PredictedDisplay::reporting(Rate::from_hz(144)) };
        let (records, _) = predict(display, true, StrategyConfig::default(), &[StrategyId::Auto], None, 0, 0);
        assert_eq!(
            (records[0].refresh_hz, records[0].vrr_min_hz, records[0].vrr_max_hz),
            (None, Some(50.0), Some(144.0))
        );
        let latency = records[0].figure(&crate::report::registry::LATENCY_MS).expect("a latency");
        assert!(latency < 20.0, "auto on VRR presents each frame on time: {latency} ms");
    }

    #[test]
    fn predictions_are_reproducible() {
        let run = || {
            predict(
                PredictedDisplay::reporting(Rate::from_hz(144)),
                false,
                StrategyConfig::default(),
                &[StrategyId::Interpolated],
                None,
                0,
                0,
            )
        };
        assert_eq!(run(), run());
    }
}

/// Re-predicts saved cards with this build's model, to try a model change
/// on cards measured before it without measuring again:
/// `TIMESTEP_LAB_REPREDICT=a.json:b.json cargo test --lib repredict -- --ignored --nocapture`.
/// Each Xvfb (emulated grid) monitor's runs are judged against the card's own
/// predictions and against this build's, vsync on and off.
#[cfg(test)]
mod repredict {
    use super::*;
    use crate::report_card::judge;
    use crate::report_card::schema::ReportCard;

    #[test]
    #[ignore = "a tool: reads the cards named in TIMESTEP_LAB_REPREDICT"]
    fn repredict_saved_cards() {
        let Ok(paths) = std::env::var("TIMESTEP_LAB_REPREDICT") else { return };
        let length = 2 * NANOS_PER_SEC;
        let (mut before, mut after) = ([0usize; 2], [0usize; 2]);
        for path in paths.split(':').filter(|p| !p.is_empty()) {
            let text = std::fs::read_to_string(path).expect("a card");
            let card: ReportCard = serde_json::from_str(&text).expect("a card's JSON");
            for m in &card.monitors {
                let (Some(hz), Some(setup)) = (m.emulated_refresh_hz, m.setup.as_ref()) else { continue };
                let Some(rate) = crate::app::tour::rate_of_hz(hz) else { continue };
                let display = PredictedDisplay::reporting(rate);
                for (i, vsync) in [true, false].into_iter().enumerate() {
                    let runs: Vec<&RunRecord> = m.runs.iter().filter(|r| r.vsync_requested == Some(vsync)).collect();
                    let ran: Vec<StrategyId> =
                        StrategyId::ALL.into_iter().filter(|s| runs.iter().any(|r| r.strategy == s.name())).collect();
                    let old: Vec<&RunRecord> =
                        m.predictions.iter().filter(|r| r.vsync_requested == Some(vsync)).collect();
                    let old_ranges: Vec<&PredictionRange> =
                        m.prediction_ranges.iter().filter(|r| r.vsync_requested == Some(vsync)).collect();
                    let (records, ranges) = predict(
                        display,
                        vsync,
                        StrategyConfig::default(),
                        &ran,
                        Some(setup),
                        length,
                        crate::app::tour::SETTLE,
                    );
                    let new: Vec<&RunRecord> = records.iter().collect();
                    let new_ranges: Vec<&PredictionRange> = ranges.iter().collect();
                    let drift = judge::MAX_DRIFT_MS_PER_MIN;
                    let a = judge::agreement(&runs, &old, &old_ranges, Some(hz), drift);
                    let b = judge::agreement(&runs, &new, &new_ranges, Some(hz), drift);
                    before[i] += a.agreeing;
                    after[i] += b.agreeing;
                    let differs = |g: &judge::Agreement| {
                        g.differences.iter().map(|d| d.strategy.clone()).collect::<Vec<_>>().join(",")
                    };
                    println!(
                        "{path} {hz} Hz vsync {}: card {}/{} [{}] -> now {}/{} [{}]",
                        if vsync { "on" } else { "off" },
                        a.agreeing,
                        a.compared,
                        differs(&a),
                        b.agreeing,
                        b.compared,
                        differs(&b)
                    );
                    for (p, r) in new.iter().zip(&new_ranges) {
                        let meas = runs.iter().find(|m| m.strategy == p.strategy);
                        println!(
                            "    {:<12} hitches measured {:>8.1} predicted {:>8.1} range {:?}",
                            p.strategy,
                            meas.and_then(|m| m.hitches_per_min()).unwrap_or(f64::NAN),
                            p.hitches_per_min().unwrap_or(f64::NAN),
                            r.hitches_per_min
                        );
                    }
                }
            }
        }
        println!("total agreeing: card on {} off {} -> now on {} off {}", before[0], before[1], after[0], after[1]);
    }
}
