//! A model of the measured setup: what the tour saw of this machine's frame
//! costs, how its presents wait for the display and how precisely its loop
//! wakes, turned into a virtual-monitor [`Model`] for the card's predictions.
//!
//! A card's predictions used to come from the `desktop` preset whatever the
//! machine: a swap chain two presents deep, while an emulated vblank and a
//! browser's requestAnimationFrame show each frame at the first refresh after
//! it is ready (one deep). Latency then differed by a whole refresh and the
//! strategies whose figures hang on when the loop wakes (catch-up, fuzzy)
//! by far more. The tour now measures the setup and predicts on it.
//!
//! What the tour samples of a frame, and how, is [`super::sampler`]'s.
//!
//! A [`Cost`] is uniform between two bounds, so each figure is kept as its
//! 10th and 90th percentile: the middle 80 % of what was measured, without
//! the one-off stalls that a prediction should not copy into every frame.
//!
//! Worked example (the test `a_sixty_hertz_grid_with_four_ms_of_work_is_one_deep`, in [`super::sampler`]):
//! frames start 0.2 ms after each vblank of a 60 Hz grid, work 4 ms and are
//! shown at the next vblank, 16.467 ms after they start: depth
//! round(16.467 / 16.667) = 1, work 4–4 ms, wake 200–200 µs.

use serde::{Deserialize, Serialize};

use crate::monitor::{Compositor, Cost, Model, Presentation, Preset, Stall};
use crate::time::{Rate, ms_to_nanos};

/// The fewest probe frames a model is made from (half a second at 60 Hz).
pub(crate) const MIN_FRAMES: usize = 30;

/// The least display jitter a model keeps, ms: a panel's vblanks, and a
/// browser's frame clock, keep to tens of microseconds.
pub(crate) const MIN_JITTER_MS: f64 = 0.1;

/// The deepest present queue the model takes from a measurement; deeper
/// readings are a loop that fell behind, not a swap chain.
pub(crate) const MAX_DEPTH: u32 = 4;

/// What a tour measured of the setup a monitor ran on (see the module docs).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MeasuredSetup {
    /// Probe frames measured.
    pub(crate) frames: u64,
    /// Presents that wait for a vblank, this one included (1: each frame is
    /// shown at the first refresh after it is ready).
    pub queue_depth: u32,
    /// A frame's own work (updates, render, submit; not the wait for the
    /// display), ms: 10th and 90th percentile.
    pub(crate) work_ms: [f64; 2],
    /// From a vblank to the start of the next frame, ms: 10th and 90th percentile.
    pub(crate) wake_ms: [f64; 2],
    /// How late a strategy's sleep ended, ms: 10th and 90th percentile;
    /// null when no strategy slept.
    pub(crate) sleep_late_ms: Option<[f64; 2]>,
    /// Time between stalls (frames that missed a vblank), ms, on average;
    /// null when no probe frame missed one.
    pub(crate) stall_every_ms: Option<f64>,
    /// How long a stall held a frame beyond its refresh, ms: 10th and 90th percentile.
    pub(crate) stall_ms: Option<[f64; 2]>,
    /// Their least, 10th, 20th … 90th percentile and most, ms: the model
    /// draws a tenth of the stalls within each tenth ([`Stall::skewed`]);
    /// null on older cards (one uniform draw from the 10th to the 90th).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stall_deciles_ms: Option<[f64; 11]>,
    /// Time between late wake-ups (the probe's wake-ups beyond their 90th
    /// percentile), ms, on average; null when none was measured.
    pub(crate) late_wake_every_ms: Option<f64>,
    /// How much later than the median wake-up they came, ms: 10th and 90th percentile.
    pub(crate) late_wake_ms: Option<[f64; 2]>,
    /// Their deciles, ms, as [`MeasuredSetup::stall_deciles_ms`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) late_wake_deciles_ms: Option<[f64; 11]>,
    /// Share of the probe's frames shown a refresh or more after the refresh
    /// they were meant for (0 to 1): a machine that cannot keep up with the refresh.
    pub(crate) missed_share: Option<f64>,
    /// How far each vblank strays from the grid, ms: the half-width of a
    /// uniform draw whose differences have the spread of the probe's
    /// one-refresh display intervals (a uniform draw of half-width `a` has a
    /// variance of a²/3, a difference of two twice that, so a = σ·√1.5);
    /// null where it is under [`MIN_JITTER_MS`] (a panel's own vblanks).
    pub(crate) display_jitter_ms: Option<f64>,
    /// The frames of the pass with vsync off, where it ran; null on older
    /// cards, whose predictions with vsync off took the vsynced frames' work.
    pub(crate) vsync_off: Option<UnpacedSetup>,
    /// The compositor between the window and the panel, with where its
    /// figures come from; null: direct (no compositor stage), as on older cards.
    pub(crate) compositor: Option<Compositor>,
    /// What the tour measured or assumed of the compositor, and why, in words.
    pub(crate) compositor_note: Option<String>,
    /// Each measured run's own costs, where it had enough frames: its
    /// strategy's prediction draws them instead of the tour's (see
    /// [`RunCosts`]); empty on older cards.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) runs: Vec<RunCosts>,
}

/// What one measured run met of the machine: its frames' own work and
/// stalls, its sleeps' lateness, and with vsync off its frames as
/// [`UnpacedSetup`] reads them. Its strategy's prediction draws these in
/// place of the whole tour's figures.
///
/// A machine that is busy with something else comes in bursts of seconds
/// (lockstep alone at an emulated 240 Hz, 8 s at a time on the 2-core CI
/// machine: 11, 12, 15, 22, 30, 94 and 181 of 1920 refreshes missed), so
/// the tour's costs, pooled, are too many stalls for the runs that met
/// none and too few for the run that met the burst. A prediction is the
/// model's answer to "what does this strategy do on a machine with these
/// costs", and the costs each run met are the ones its measurement shows.
/// How promptly the loop wakes after a vblank is the run's too, but the
/// prediction's start phases stay set from the probe's wake-up, and the
/// queue and the display are the probe's: catch-up at an emulated 60 Hz,
/// where a tick's boundary lies within the wake-ups' spread, went from
/// agreeing (121 to 1906 hitches a minute over the phases, 124 to 246
/// measured) to not (854 to 2338) when its run's wake-up set its phases as
/// well as its draws.
///
/// A frame's work beyond the 90th percentile is a stall too: the middle
/// 80 % drawn uniformly never reaches the tenth between the 90th percentile
/// and a refresh, and at 144 Hz that tenth makes the hitches (`variable`
/// measured 2 in 2 s, predicted none: its run met no stall, no wake-up
/// later than 1.6 ms, and its work's 90th percentile was 2.0 ms against a
/// 6.9 ms refresh).
///
/// ```text
/// vsync on:  work  = each frame's own work, 10th–90th percentile
///            stall = a frame whose own work reached the tour's deadline
///                    (a refresh less the usual wake-up) or lay beyond the
///                    90th percentile: its excess over the run's median work,
///                    one every (the run's time / stalls)
///            wake  = a frame that followed one that did not sleep: its start
///                    less the display of the one before (as the probe's), its
///                    10th–90th percentile drawn as the run's wake-up, and those beyond
///                    the 90th drawn as late wake-ups at their rate in the run's
///                    time. A wake-up a refresh or more late is one too (the
///                    probe leaves them out, as it reads how promptly the loop
///                    wakes): at an emulated 240 Hz, snapped measured 604
///                    hitches a minute and was predicted 30 without them
/// vsync off: frames that did not sleep, as UnpacedSetup (a run whose frames
///            all slept, fixed-fps and paced, keeps the pass's)
/// both:      late  = how late each sleep ended, 10th–90th percentile
/// ```
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RunCosts {
    /// The run's strategy (its name).
    pub(crate) strategy: String,
    /// The run's pass: vsync on or off.
    pub(crate) vsync: bool,
    /// Frames measured.
    pub(crate) frames: u64,
    /// With vsync on, a frame's own work, ms: 10th and 90th percentile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) work_ms: Option<[f64; 2]>,
    /// With vsync on, time between stalls, ms; null when the run met none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stall_every_ms: Option<f64>,
    /// With vsync on, how long a stall held a frame beyond the run's median work, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stall_ms: Option<[f64; 2]>,
    /// Their deciles, ms, as [`MeasuredSetup::stall_deciles_ms`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stall_deciles_ms: Option<[f64; 11]>,
    /// With vsync on, how long after a vblank its frames that did not sleep
    /// started, ms: 10th and 90th percentile, which the prediction draws (its
    /// start phases stay the probe's); null where too few did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) wake_ms: Option<[f64; 2]>,
    /// With vsync on, time between its late wake-ups (beyond the 90th percentile), ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) late_wake_every_ms: Option<f64>,
    /// How much later than the median wake-up they came, ms: 10th and 90th percentile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) late_wake_ms: Option<[f64; 2]>,
    /// Their deciles, ms, as [`MeasuredSetup::stall_deciles_ms`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) late_wake_deciles_ms: Option<[f64; 11]>,
    /// How late the run's sleeps ended, ms; null where it slept too seldom to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sleep_late_ms: Option<[f64; 2]>,
    /// With vsync off, the run's frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) vsync_off: Option<UnpacedSetup>,
}

/// What the pass with vsync off measured of its frames (frames that did not
/// sleep: each starts when the one before it has presented).
///
/// ```text
///   frame   = next start − start               (steps, render, the loop itself, the present call)
///   present = the present call                  (Immediate or Mailbox: it returns when the buffer is handed over)
///   work    = median frame − median present, ± a;  present = median present ± a
///             (a: each draw's half-width, so that their sum has the frames' spread)
///   slow    = a frame longer than the median by more than 2a (beyond the sum's reach):
///             one every (time covered / slow frames), its excess over the median
/// ```
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UnpacedSetup {
    /// Frames measured.
    pub(crate) frames: u64,
    /// A frame's work, its present call left out, ms: the range drawn from.
    pub(crate) work_ms: [f64; 2],
    /// The present call, ms: the range drawn from.
    pub(crate) present_ms: [f64; 2],
    /// Time between slow frames, ms, on average; null when none.
    pub(crate) slow_every_ms: Option<f64>,
    /// How much longer than the median a slow frame took, ms: 10th and 90th percentile.
    pub(crate) slow_ms: Option<[f64; 2]>,
    /// Their deciles, ms, as [`MeasuredSetup::stall_deciles_ms`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) slow_deciles_ms: Option<[f64; 11]>,
    /// The compositor that paced these frames, where each waited for the
    /// repaint that latched the one before (Wayland's frame callback): its
    /// `latch` and delay put each frame's display where the median was, a
    /// repaint after the one it started at. The frames above are then their
    /// own work, the wait left out; null where the window was not held. The
    /// predictions of both passes run through it (the hold is the platform's,
    /// whatever the present mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) compositor: Option<Compositor>,
}

impl MeasuredSetup {
    /// The virtual monitor's model of this setup at `refresh`, for the pass
    /// with vsync on or off.
    ///
    /// Update costs are in the measured work (the probe runs lockstep: one
    /// update a frame), so a model update costs nothing. Each measured
    /// figure's middle 80 % is drawn uniformly, and its top 10 % comes as
    /// occasional events (stalls, late wake-ups, slow frames) at their
    /// measured rate, every half to one and a half times their mean
    /// interval: at 144 Hz half a refresh is 3.5 ms, and a wake-up or a frame
    /// that much longer than usual is a hitch that the middle 80 % alone
    /// never draws. With vsync off the frames and the present call are the
    /// pass's own where it ran (a present that returns at once is not free:
    /// 0.5 ms on Xvfb), else the vsynced work and the `desktop` preset's present.
    pub(crate) fn model(&self, refresh: Rate, vsync: bool) -> Model {
        let desktop = Preset::Desktop.model();
        let mut model = desktop;
        model.stall = occasional(self.stall_every_ms, self.stall_ms, self.stall_deciles_ms);
        model.late_wake = occasional(self.late_wake_every_ms, self.late_wake_ms, self.late_wake_deciles_ms);
        model.update = Cost::ZERO;
        model.render = between(self.work_ms);
        model.vblank_wake = self.usual_wake();
        model.sleep_overshoot = self.sleep_late_ms.map_or(desktop.sleep_overshoot, between);
        model.presentation = Presentation::Queued { depth: self.queue_depth.clamp(1, MAX_DEPTH) };
        model.default_refresh = refresh;
        model.default_vsync = true;
        model.display_jitter = self.display_jitter_ms.map(|a| Cost::around(0, ms_to_ns(a)));
        if let Some(off) = self.vsync_off.as_ref().filter(|_| !vsync) {
            model.render = between(off.work_ms);
            model.present_immediate = between(off.present_ms);
            model.stall = occasional(off.slow_every_ms, off.slow_ms, off.slow_deciles_ms);
        }
        model
    }

    /// How long after a vblank the probe's loop woke: the model's wake-up,
    /// and where every prediction's start phases are set, whatever its run's own.
    pub(crate) fn usual_wake(&self) -> Cost {
        between(self.wake_ms)
    }

    /// [`MeasuredSetup::model`] for `strategy`'s run of the pass with vsync
    /// on or off, with the costs that run met where the card has them ([`RunCosts`]).
    pub(crate) fn model_for(&self, strategy: &str, refresh: Rate, vsync: bool) -> Model {
        let mut model = self.model(refresh, vsync);
        let Some(run) = self.runs.iter().find(|r| r.strategy == strategy && r.vsync == vsync) else { return model };
        if let Some(late) = run.sleep_late_ms {
            model.sleep_overshoot = between(late);
        }
        match (vsync, run.work_ms, run.vsync_off.as_ref()) {
            (true, Some(work), _) => {
                model.render = between(work);
                model.stall = occasional(run.stall_every_ms, run.stall_ms, run.stall_deciles_ms);
                if let Some(wake) = run.wake_ms {
                    model.vblank_wake = between(wake);
                    model.late_wake = occasional(run.late_wake_every_ms, run.late_wake_ms, run.late_wake_deciles_ms);
                }
            }
            (false, _, Some(off)) => {
                model.render = between(off.work_ms);
                model.present_immediate = between(off.present_ms);
                model.stall = occasional(off.slow_every_ms, off.slow_ms, off.slow_deciles_ms);
            }
            _ => {}
        }
        model
    }

    /// Whether the machine kept up with the refresh in the probe: a sentence
    /// saying it did not when its frames missed more refreshes than
    /// [`super::keep_up::keeps_up`] allows (the page's rule, one for both),
    /// naming the strategies that render every refresh.
    pub(crate) fn keeping_up(&self, refresh_hz: f64, every_refresh: &[&str]) -> Option<String> {
        let missed = self.missed_share.filter(|m| !super::keep_up::keeps_up(1.0 - m))?;
        let period = 1000.0 / refresh_hz;
        let strategies =
            if every_refresh.is_empty() { String::new() } else { format!(": {}", every_refresh.join(", ")) };
        Some(format!(
            "this machine does not keep up with {} Hz: {:.0} % of the lockstep probe's frames missed their refresh \
             (a frame's work {:.1}–{:.1} ms and its wake-up {:.1}–{:.1} ms against a {period:.1} ms refresh); the \
             strategies that render every refresh drop frames in the measurement and in the prediction alike{strategies}",
            crate::report::trim_number(refresh_hz, 3),
            missed * 100.0,
            self.work_ms[0],
            self.work_ms[1],
            self.wake_ms[0],
            self.wake_ms[1],
        ))
    }
}

/// A card's `[lo, hi]` ms as a uniform [`Cost`].
fn between([lo, hi]: [f64; 2]) -> Cost {
    Cost::between(ms_to_ns(lo), ms_to_ns(hi))
}

/// Events about `every` ms apart (half to one and a half times that) of
/// `length` (10th to 90th percentile), where both were measured: a tenth
/// within each tenth where the `deciles` were ([`Stall::skewed`]).
fn occasional(every: Option<f64>, length: Option<[f64; 2]>, deciles: Option<[f64; 11]>) -> Option<Stall> {
    match (every, length) {
        (Some(every), Some(length)) if every > 0.0 => {
            let every = ms_to_ns(every);
            let every = Cost::between(every / 2, every + every / 2);
            let ordered = |d: &[f64; 11]| d.windows(2).all(|w| w[0] <= w[1]);
            Some(match deciles.filter(ordered) {
                Some(d) => {
                    let mut inner = [0; 9];
                    for (ns, &ms) in inner.iter_mut().zip(&d[1..10]) {
                        *ns = ms_to_ns(ms);
                    }
                    Stall::skewed(every, between([d[0], d[10]]), inner)
                }
                None => Stall::new(every, between(length)),
            })
        }
        _ => None,
    }
}

/// `ms` (the card keeps microseconds) as a [`Cost`] bound: the core's
/// `ms_to_nanos`, whose rounding every other millisecond input takes.
pub(crate) fn ms_to_ns(ms: f64) -> i64 {
    i64::try_from(ms_to_nanos(ms)).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::CompositorSource;

    #[test]
    fn a_probe_that_misses_more_than_one_refresh_in_ten_says_the_machine_does_not_keep_up() {
        let setup = MeasuredSetup {
            work_ms: [3.1, 4.9],
            wake_ms: [0.5, 0.9],
            missed_share: Some(0.23),
            ..MeasuredSetup::default()
        };
        assert_eq!(
            setup.keeping_up(240.0, &["lockstep", "interpolated"]).as_deref(),
            Some(
                "this machine does not keep up with 240 Hz: 23 % of the lockstep probe's frames missed their refresh \
                 (a frame's work 3.1–4.9 ms and its wake-up 0.5–0.9 ms against a 4.2 ms refresh); the strategies that \
                 render every refresh drop frames in the measurement and in the prediction alike: lockstep, interpolated"
            )
        );
        let fine = MeasuredSetup { missed_share: Some(0.09), ..setup.clone() };
        assert_eq!(fine.keeping_up(240.0, &["lockstep"]), None, "9 refreshes missed in 100 are within the page's rule");
        let over = MeasuredSetup { missed_share: Some(0.11), ..setup.clone() };
        assert!(over.keeping_up(240.0, &["lockstep"]).is_some(), "11 in 100 are not");
        assert_eq!(MeasuredSetup::default().keeping_up(240.0, &["lockstep"]), None, "an old card says nothing");
    }

    #[test]
    fn a_setup_survives_json() {
        let setup = MeasuredSetup {
            frames: 120,
            queue_depth: 1,
            work_ms: [3.1, 4.25],
            wake_ms: [0.05, 0.4],
            sleep_late_ms: Some([0.01, 0.2]),
            stall_every_ms: Some(1000.0),
            stall_ms: Some([16.667, 33.333]),
            stall_deciles_ms: Some([16.0, 16.667, 17.0, 17.5, 18.0, 20.0, 21.0, 22.0, 25.0, 33.333, 40.0]),
            late_wake_every_ms: Some(250.0),
            late_wake_ms: Some([0.5, 3.0]),
            late_wake_deciles_ms: None,
            missed_share: Some(0.01),
            display_jitter_ms: Some(0.73),
            vsync_off: Some(UnpacedSetup {
                frames: 400,
                work_ms: [1.6, 2.0],
                present_ms: [0.4, 0.6],
                slow_every_ms: Some(25.0),
                slow_ms: Some([0.5, 1.5]),
                slow_deciles_ms: Some([0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 1.0, 1.5, 2.5]),
                compositor: Some(Compositor::new(300_000, 1).with_source(CompositorSource::Measured).throttling()),
            }),
            compositor: Some(Compositor::new(7_000_000, 0).with_source(CompositorSource::Measured)),
            compositor_note: Some("compositor: measured".to_owned()),
            runs: vec![
                RunCosts {
                    strategy: "snapped".to_owned(),
                    vsync: true,
                    frames: 480,
                    work_ms: Some([1.5, 2.0]),
                    stall_every_ms: Some(200.0),
                    stall_ms: Some([1.2, 4.8]),
                    stall_deciles_ms: Some([1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.1, 3.0, 4.8, 7.9]),
                    wake_ms: Some([0.7, 1.1]),
                    late_wake_every_ms: Some(49.8),
                    late_wake_ms: Some([0.28, 2.88]),
                    late_wake_deciles_ms: Some([0.2, 0.28, 0.3, 0.4, 0.6, 0.9, 1.1, 1.3, 1.6, 2.88, 4.0]),
                    sleep_late_ms: Some([0.05, 0.2]),
                    vsync_off: None,
                },
                RunCosts {
                    strategy: "paced".to_owned(),
                    vsync: false,
                    frames: 240,
                    vsync_off: Some(UnpacedSetup {
                        frames: 240,
                        work_ms: [1.0, 1.4],
                        present_ms: [0.3, 0.7],
                        slow_every_ms: None,
                        slow_ms: None,
                        slow_deciles_ms: None,
                        compositor: None,
                    }),
                    ..RunCosts::default()
                },
            ],
        };
        let text = serde_json::to_string(&setup).expect("plain data serializes");
        assert_eq!(serde_json::from_str::<MeasuredSetup>(&text).ok(), Some(setup));
    }
}
