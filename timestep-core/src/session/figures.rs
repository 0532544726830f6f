//! What a [`Session`] gives out: every number a HUD shows and the run's
//! (or the live setting's) [`RunReport`].

use crate::host::Simulation;
use crate::hud::LoopFigures;
use crate::report::{DisplayFacts, IntervalHistogram, RunReport, VrrInfo};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, nanos_to_secs};

use super::{Folded, HUD_TEXT_INTERVAL, LiveOrigin, Session, UNKNOWN_MONITOR};

impl<W: Simulation> Session<W> {
    /// Fills every number a HUD shows; the sentences at most every [`HUD_TEXT_INTERVAL`].
    pub fn fill_hud(&mut self, hud: &mut LoopFigures, now: Nanos) {
        let live = self.measures.live();
        let totals = live.totals();
        hud.double_updates = totals.double_updates;
        hud.skipped_renders = totals.skipped_renders;
        hud.repeated_frames = totals.repeated_frames;
        hud.stats = totals.stats;
        hud.present_histogram.clone_from(live.present_histogram());
        hud.fps = self.rates.fps;
        hud.ups = self.rates.ups;
        hud.paused = self.paused;
        hud.frame_times_ms.clone_from(&self.frame_times);
        hud.pattern.clear();
        hud.pattern.extend(live.recent_pattern());
        if now < self.hud_text_at {
            return;
        }
        self.hud_text_at = now.saturating_add(HUD_TEXT_INTERVAL);
        let info = self.pacer.strategy().info();
        hud.strategy_name = info.name;
        hud.strategy_summary = info.summary;
        hud.strategy_source = info.source;
        hud.strategy_status = self.pacer.status();
        hud.tick_rate_hz = self.pacer.config().tick_rate.hz();
        hud.present_mode_requested.clone_from(&self.display.present_mode_requested);
        hud.present_mode_actual.clone_from(&self.display.present_mode.name);
        hud.monitor_name = self.display.monitor.clone().unwrap_or_else(|| UNKNOWN_MONITOR.to_owned());
        hud.reported_refresh_hz = self.display.reported.map(Rate::hz);
        hud.emulated_refresh_hz = self.display.emulated.map(Rate::hz);
        hud.present_cadence_hz = self.pacer.meter_mut().measured().map(|m| m.hz());
        hud.vsync_verdict = self.verdict().text;
        hud.display_time_source = self.display_time_source();
    }

    /// The run's report: the figures both front ends write.
    pub fn report(&mut self, now: Nanos) -> RunReport {
        let mut folded = self.measures.folded;
        folded.add(&self.measures.run.totals());
        let whole = LiveOrigin { at: self.start, ..LiveOrigin::default() };
        self.assemble(MetricsRef::Run, folded, whole, now)
    }

    /// A report of the live figures: the part of the run since the setting
    /// (strategy, tick rate, present mode, pause, monitor) last changed, as
    /// a HUD shows it; the entry of one strategy in a comparison. Equal
    /// to [`Session::report`] while the run has had one setting.
    pub fn live_report(&mut self, now: Nanos) -> RunReport {
        let Some(live) = &self.measures.live else { return self.report(now) };
        let mut folded = Folded::default();
        folded.add(&live.totals());
        let origin = self.measures.live_origin;
        self.assemble(MetricsRef::Live, folded, origin, now)
    }

    fn assemble(&mut self, which: MetricsRef, folded: Folded, origin: LiveOrigin, now: Nanos) -> RunReport {
        let game = self.game_time().saturating_sub(origin.game);
        let updates = self.pacer.total_updates().saturating_sub(origin.updates);
        let presented = self.presented.saturating_sub(origin.presented);
        let wall = now.saturating_sub(origin.at);
        // Rates over the time the loop ran: a pause or a hidden page ran no frames.
        let skipped = self.skipped.saturating_sub(origin.skipped);
        let running = wall.saturating_sub(skipped);
        let refresh = self.display.refresh();
        // Vsync known by construction (a virtual display) needs no verdict sentence.
        let (vsync, vsync_verdict) = match self.display.vsync {
            Some(known) => (Some(known), String::new()),
            None => {
                let verdict = self.verdict();
                (verdict.vsync, verdict.text)
            }
        };
        let measured = self.pacer.meter_mut().measured();
        let l = self.lateness;
        let counts = self.counts.since(origin.counts);
        let source = self.display_time_source();
        let word = self.pacer.compositor_word();
        let metrics = match which {
            MetricsRef::Run => &self.measures.run,
            MetricsRef::Live => self.measures.live(),
        };
        RunReport {
            strategy: self.pacer.strategy().name().to_owned(),
            refresh_hz: refresh.map_or(f64::NAN, Rate::hz),
            vsync,
            tick_rate: self.pacer.config().tick_rate.hz(),
            total_updates: updates,
            vsyncs: folded.vsyncs,
            double_updates: folded.double_updates,
            skipped_renders: folded.skipped_renders,
            repeated_frames: folded.repeated_frames,
            game_time_s: nanos_to_secs(game),
            system_time_s: nanos_to_secs(folded.system_time),
            pattern: metrics.pattern_prefix().to_owned(),
            present_interval_histogram: Some(IntervalHistogram::from(metrics.present_histogram())),
            display: Some(DisplayFacts {
                frames: self.frames.saturating_sub(origin.frames),
                presented,
                fps: per_second(presented, running),
                ups: per_second(updates, running),
                wall_time_s: nanos_to_secs(wall),
                present_cadence_hz: measured.map(|m| m.hz()),
                reported_refresh_hz: self.display.reported.map(Rate::hz),
                emulated_refresh_hz: self.display.emulated.map(Rate::hz),
                emulation_late_us_mean: (l.presents > 0).then(|| l.total as f64 / l.presents as f64 / 1000.0),
                emulation_late_us_max: (l.presents > 0).then(|| l.worst as f64 / 1000.0),
                vsync_verdict,
                present_mode_requested: self.display.present_mode_requested.clone(),
                present_mode_actual: self.display.present_mode.name.clone(),
                monitor: self.display.monitor.clone().unwrap_or_else(|| UNKNOWN_MONITOR.to_owned()),
                strategies_used: self.strategies_used.iter().map(|id| id.name().to_owned()).collect(),
                hidden_s: (self.hidden > 0).then(|| nanos_to_secs(self.hidden)),
                feedback_frames: counts.displayed,
                estimated_frames: counts.estimated,
                discarded_frames: counts.discarded,
                compositor_refresh_hz: word.and_then(|w| w.refresh).map(|p| NANOS_PER_SEC as f64 / p.max(1) as f64),
                display_time_blind_spot: source.blind_spot().to_owned(),
            }),
            display_time_source: source.label(),
            stats: metrics.stats(),
            vrr: self.display.vrr.map(VrrInfo::from),
            ..RunReport::default()
        }
    }
}

/// Which of the session's metrics a report is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MetricsRef {
    /// Since the start (or the last refresh-rate change).
    Run,
    /// Since the setting last changed.
    Live,
}

pub(super) fn per_second(count: u64, wall: Nanos) -> f64 {
    if wall == 0 { 0.0 } else { count as f64 * NANOS_PER_SEC as f64 / wall as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;
    use crate::session::tests::{Counter, display_60, glaiel_60, run};
    use crate::{StrategyConfig, StrategyId};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_hud_of_a_run_shows_the_figures_its_report_gives() {
        let mut session =
            Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 600);
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, display.clock());
        let report = session.report(display.clock());
        assert_eq!(hud.double_updates, report.double_updates, "doubles");
        assert_eq!(hud.skipped_renders, report.skipped_renders, "skips");
        assert_eq!(hud.repeated_frames, report.repeated_frames, "repeats");
        assert_eq!(hud.stats, report.stats, "one setting: the overlay's figures are the report's");
        let histogram = report.present_interval_histogram.as_ref().expect("a session reports its intervals");
        // The first frame runs no update: the second still shows its picture.
        let startup = report.stats.startup_ms;
        assert!((startup - 1000.0 / 60.0).abs() < 1e-3, "one refresh of start-up: {startup}");
        let intervals = histogram.counts.iter().sum::<u64>() + histogram.overflow;
        assert_eq!(intervals, 597, "600 frames, 599 intervals: from the third frame, the first that moves");
        assert_eq!(hud.present_histogram.total(), 597);
        assert!(report.double_updates > 50, "the article's naive timer double-updates at 60 Hz: {report:?}");
        assert_eq!(hud.strategy_name, "catch-up");
        assert_eq!(hud.reported_refresh_hz, Some(60.0));
        assert_eq!(hud.monitor_name, "test 60");
        let tail: String = report.pattern.chars().rev().take(5).collect();
        assert!(!tail.is_empty() && hud.pattern.len() == 120, "the overlay shows the last 120 digits");
    }

    #[test]
    fn the_live_report_covers_the_part_since_the_last_switch() {
        let mut session =
            Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 300);
        assert_eq!(session.live_report(display.clock()), session.report(display.clock()), "one setting so far");
        let updates_before = session.pacer().total_updates();
        session.set_strategy(StrategyId::Interpolated, display.clock());
        run(&mut session, &mut display, 200);
        let now = display.clock();
        let live = session.live_report(now);
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, now);
        let whole = session.report(now);
        assert_eq!(live.strategy, "interpolated");
        assert_eq!(live.total_updates, session.pacer().total_updates() - updates_before, "updates since the switch");
        assert_eq!(live.display.as_ref().map(|d| d.presented), Some(200));
        assert_eq!(whole.display.as_ref().map(|d| d.presented), Some(500));
        assert_eq!(live.vsyncs, session.live_metrics().totals().vsyncs);
        assert_eq!(hud.stats, live.stats, "the overlay shows the live report's figures");
        assert_eq!(live.pattern, session.live_metrics().pattern_prefix());
    }
}
