//! A swap chain's per-frame metrics (PresentMon's DisplayedTime, AnimationError, DisplayLatency) and its figures.

use super::{CaptureChain, CaptureFrame, FrameMetrics, SimSource, Ticks, ticks_to_ms, ticks_to_nanos};
use crate::metrics::{FrameSample, FrameStats, Metrics};
use crate::monitor::trace::RefreshEstimate;
use crate::time::{Nanos, Rate};
use std::collections::{BTreeMap, VecDeque};

/// Computes PresentMon's per-frame metrics of one swap chain's rows (see the module docs).
///
/// ```
/// use timestep_core::monitor::presentmon::{CaptureFrame, SimSource, frame_metrics};
///
/// // 10 ticks per ms: CPU starts 0, 100, 300 ticks; screens 400, 500, 600.
/// let frame = |cpu: i64, screen: i64| CaptureFrame {
///     line: 0, frame_type: "Application".into(), frame_time: None, present_start: None,
///     cpu_start: Some(cpu), screen: Some(screen), sim: Some((cpu, SimSource::CpuStart)),
///     seed: None, dropped: false, tears: false, costs: Default::default(), reported: Default::default(),
/// };
/// let m = frame_metrics(&[frame(0, 400), frame(100, 500), frame(300, 600)]);
/// assert_eq!(m[2].animation_error, Some(100), "the sim moved 200 ticks, the screen 100");
/// assert_eq!(m[0].displayed_time, Some(100));
/// assert_eq!(m[2].displayed_time, None, "the last displayed frame has no successor");
/// ```
pub fn frame_metrics(frames: &[CaptureFrame]) -> Vec<FrameMetrics> {
    let mut out = vec![FrameMetrics::default(); frames.len()];
    let mut previous_screen: Option<(usize, Ticks)> = None;
    for (i, frame) in frames.iter().enumerate() {
        let Some(screen) = frame.screen else { continue };
        out[i].display_latency = frame.cpu_start.map(|c| screen - c);
        if let Some((p, before)) = previous_screen {
            let delta = screen - before;
            out[p].displayed_time = (delta > 0).then_some(delta);
            out[i].display_change = (delta > 0).then_some(delta);
        }
        previous_screen = Some((i, screen));
    }
    // (sim, screen, source) of the previous displayed application frame.
    let mut previous: Option<(Option<(Ticks, SimSource)>, Ticks)> = None;
    for (i, frame) in frames.iter().enumerate() {
        let Some(screen) = frame.screen else { continue };
        if !frame.is_application() {
            continue;
        }
        let before = match previous {
            Some((Some((sim, source)), screen_j)) => Some((sim, source, screen_j)),
            Some((None, _)) => None,
            None => frame.seed.zip(frame.sim).map(|((sim, screen_j), (_, source))| (sim, source, screen_j)),
        };
        if let (Some((sim, source)), Some((sim_j, source_j, screen_j))) = (frame.sim, before) {
            let (ds, dd) = (sim - sim_j, screen - screen_j);
            if source == source_j && ds > 0 && dd > 0 {
                out[i].animation_error = Some(ds - dd);
            }
        }
        previous = Some((frame.sim, screen));
    }
    out
}

/// A swap chain's figures in this crate's vocabulary (the registry's).
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureFigures {
    /// Rows of the swap chain.
    pub frames: usize,
    /// Displayed frames.
    pub displayed: usize,
    /// Frames marked not displayed (dropped).
    pub dropped: usize,
    /// Displayed frames a frame generator made.
    pub generated: usize,
    /// Frames that tear.
    pub tearing: usize,
    /// Displayed frames per second over the capture.
    pub fps: Option<f64>,
    /// The display changes' own estimate (none when the frames tear): its
    /// `off_grid` count says how many do not fall on a refresh grid (VRR).
    pub measured: Option<RefreshEstimate>,
    /// The refresh grid the frames were shown on (see [`RefreshEstimate::grid`]).
    pub refresh: Option<Rate>,
    /// Refreshes each displayed frame stayed, in order (with a refresh).
    pub refreshes_per_frame: Vec<u64>,
    /// Display changes more than a quarter refresh off the grid, of those measured.
    pub off_grid: (usize, usize),
    /// The crate's motion, latency and pacing figures: display time = screen,
    /// content = sim time, input = CPU start (so latency = DisplayLatency).
    pub stats: Option<FrameStats>,
    /// Application frames with an AnimationError.
    pub animation_errors: usize,
    /// RMS of the AnimationError, ms.
    pub animation_error_rms_ms: Option<f64>,
    /// The largest |AnimationError|, ms, and its row's line.
    pub animation_error_max: Option<(f64, u64)>,
    /// Mean and population σ of DisplayedTime, ms.
    pub displayed_time_mean_std_ms: Option<(f64, f64)>,
    /// Mean and population σ of the present intervals, ms.
    pub frame_time_mean_std_ms: Option<(f64, f64)>,
    /// Frames queued ahead of a present, mean and max (presented, not yet on screen).
    pub queue_depth: Option<(f64, u64)>,
}

impl CaptureFigures {
    /// The figures of `chain` with its `metrics` ([`frame_metrics`]).
    pub fn of(chain: &CaptureChain, metrics: &[FrameMetrics], hz: u64) -> CaptureFigures {
        let frames = &chain.frames;
        let ms = |t: Ticks| ticks_to_ms(t, hz);
        let displayed: Vec<&CaptureFrame> = frames.iter().filter(|f| f.screen.is_some()).collect();
        let tearing = frames.iter().filter(|f| f.tears).count();
        let intervals: Vec<Nanos> =
            metrics.iter().filter_map(|m| m.display_change).map(|t| ticks_to_nanos(t, hz)).collect();
        let measured = if tearing * 2 > frames.len() { None } else { RefreshEstimate::from_intervals(&intervals) };
        let refresh = measured.and_then(|m| m.grid(&intervals));
        let screens: Vec<Ticks> = displayed.iter().filter_map(|f| f.screen).collect();
        let fps = match (screens.first(), screens.last()) {
            (Some(a), Some(b)) if b > a => Some((screens.len() - 1) as f64 * hz as f64 / (b - a) as f64),
            _ => None,
        };
        let origin = frames.iter().flat_map(|f| [f.cpu_start, f.screen, f.present_start]).flatten().min().unwrap_or(0);
        let refreshes_per_frame = refresh
            .map(|r| {
                let tick = |t: Ticks| r.nearest_tick(ticks_to_nanos(t - origin, hz));
                screens.windows(2).map(|w| tick(w[1]).saturating_sub(tick(w[0]))).collect()
            })
            .unwrap_or_default();
        let errors: Vec<(f64, u64)> =
            frames.iter().zip(metrics).filter_map(|(f, m)| m.animation_error.map(|e| (ms(e), f.line))).collect();
        let rms =
            (!errors.is_empty()).then(|| (errors.iter().map(|(e, _)| e * e).sum::<f64>() / errors.len() as f64).sqrt());
        let max = errors.iter().copied().max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
        let mean_std = |values: &[f64]| {
            (!values.is_empty()).then(|| {
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / values.len() as f64;
                (mean, var.sqrt())
            })
        };
        let shown: Vec<f64> = metrics.iter().filter_map(|m| m.displayed_time).map(ms).collect();
        let presented: Vec<f64> = frames.iter().filter_map(|f| f.frame_time).filter(|&t| t > 0).map(ms).collect();
        CaptureFigures {
            frames: frames.len(),
            displayed: displayed.len(),
            dropped: frames.iter().filter(|f| f.dropped).count(),
            generated: displayed.iter().filter(|f| !f.is_application()).count(),
            tearing,
            fps,
            measured,
            refresh,
            refreshes_per_frame,
            off_grid: (
                refresh.map_or(0, |r| {
                    let period = r.period() as f64;
                    intervals
                        .iter()
                        .filter(|&&q| ((q as f64 / period) - (q as f64 / period).round()).abs() > 0.25)
                        .count()
                }),
                intervals.len(),
            ),
            stats: motion_stats(frames, hz, refresh, origin),
            animation_errors: errors.len(),
            animation_error_rms_ms: rms,
            animation_error_max: max,
            displayed_time_mean_std_ms: mean_std(&shown),
            frame_time_mean_std_ms: mean_std(&presented),
            queue_depth: queue_depth(frames),
        }
    }

    /// The display pattern: the shortest repeating cycle of refreshes per
    /// frame that fits 90 % of the frames (`2-3-2-3-2`), else `None`.
    pub fn display_cycle(&self) -> Option<Vec<u64>> {
        display_cycle(&self.refreshes_per_frame)
    }

    /// How many frames stayed each number of refreshes.
    pub fn refresh_counts(&self) -> BTreeMap<u64, usize> {
        let mut counts = BTreeMap::new();
        for &n in &self.refreshes_per_frame {
            *counts.entry(n).or_insert(0) += 1;
        }
        counts
    }
}

/// The shortest cycle (1 to 12 frames) that the sequence repeats on 90 % of its frames.
pub fn display_cycle(sequence: &[u64]) -> Option<Vec<u64>> {
    if sequence.len() < 4 {
        return None;
    }
    (1..=12usize.min(sequence.len() / 2)).find_map(|p| {
        let same = sequence.windows(p + 1).filter(|w| w[0] == w[p]).count();
        (same * 10 >= (sequence.len() - p) * 9).then(|| {
            // The most frequent window of p frames, rotated to start with the
            // lowest count (of such rotations the greatest: 2-3-2-3-2, not
            // 2-2-3-2-3): one reading of the cycle whatever the capture's first frame.
            let mut windows: BTreeMap<Vec<u64>, usize> = BTreeMap::new();
            for w in sequence.windows(p) {
                let mut cycle = w.to_vec();
                let low = cycle.iter().copied().min().unwrap_or(0);
                let start = (0..p).filter(|&i| cycle[i] == low).max_by_key(|&i| {
                    let mut c = cycle.clone();
                    c.rotate_left(i);
                    c
                });
                cycle.rotate_left(start.unwrap_or(0));
                *windows.entry(cycle).or_insert(0) += 1;
            }
            windows
                .into_iter()
                .max_by_key(|(c, n)| (*n, std::cmp::Reverse(c.clone())))
                .map(|(c, _)| c)
                .unwrap_or_default()
        })
    })
}

/// The crate's [`Metrics`] fed the displayed application frames with a sim
/// time: display = screen, content = sim, input = CPU start.
///
/// The content clock is one timeline from 0: each frame adds its sim step
/// over the previous recorded frame. Where the sim's source changes (a game's
/// app timing starts or stops: `AnimationTime` in ms since the session
/// against `CPUStartQPC` in QPC ticks) the two sims share no origin, so that
/// frame's step is the screen's (as PresentMon writes no AnimationError
/// there); a sim that goes back is treated the same.
fn motion_stats(frames: &[CaptureFrame], hz: u64, refresh: Option<Rate>, origin: Ticks) -> Option<FrameStats> {
    let mut metrics: Option<Metrics> = None;
    let mut count = 0;
    let mut content: Ticks = 0;
    let mut previous: Option<(Ticks, SimSource, Ticks)> = None;
    for frame in frames.iter().filter(|f| f.is_application()) {
        let (Some(screen), Some(cpu), Some((sim, source))) = (frame.screen, frame.cpu_start, frame.sim) else {
            continue;
        };
        if let Some((sim_j, source_j, screen_j)) = previous {
            let step = sim - sim_j;
            content += if source == source_j && step >= 0 { step } else { (screen - screen_j).max(0) };
        }
        previous = Some((sim, source, screen));
        let display_time = ticks_to_nanos(screen - origin, hz);
        let m = metrics.get_or_insert_with(|| Metrics::new(display_time, refresh));
        let content_time = ticks_to_nanos(content, hz);
        m.record(&FrameSample {
            updates: 1,
            shown_updates: 1,
            content_time,
            input_time: ticks_to_nanos(cpu - origin, hz),
            display_time,
            game_time: content_time,
            repeats: 0,
        });
        count += 1;
    }
    (count >= 2).then(|| metrics.map(|m| m.stats())).flatten()
}

/// At each application frame's present, how many earlier displayed
/// application frames of the chain were not on screen yet. Generated frames
/// are the frame generator's, inserted between two application frames after
/// the game presented: they are not the game's queue.
fn queue_depth(frames: &[CaptureFrame]) -> Option<(f64, u64)> {
    let mut pending: VecDeque<Ticks> = VecDeque::new();
    let (mut sum, mut max, mut n) = (0u64, 0u64, 0u64);
    for frame in frames.iter().filter(|f| f.is_application()) {
        let Some(present) = frame.present_start else { continue };
        pending.retain(|&s| s > present);
        if frame.screen.is_some() || n > 0 {
            let depth = pending.len() as u64;
            sum += depth;
            max = max.max(depth);
            n += 1;
        }
        if let Some(screen) = frame.screen {
            pending.push_back(screen);
        }
    }
    (n > 0 && frames.iter().any(|f| f.screen.is_some())).then(|| (sum as f64 / n as f64, max))
}

#[cfg(test)]
mod tests {
    use super::super::FrameCosts;
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// An application frame at 10 MHz: CPU start and screen in µs.
    fn frame(cpu_us: i64, screen_us: Option<i64>) -> CaptureFrame {
        CaptureFrame {
            line: 0,
            frame_type: "Application".to_owned(),
            frame_time: None,
            present_start: Some(cpu_us * 10),
            cpu_start: Some(cpu_us * 10),
            screen: screen_us.map(|s| s * 10),
            sim: Some((cpu_us * 10, SimSource::CpuStart)),
            seed: None,
            dropped: screen_us.is_none(),
            tears: false,
            costs: FrameCosts::default(),
            reported: Default::default(),
        }
    }

    fn errors(frames: &[CaptureFrame]) -> Vec<Option<Ticks>> {
        frame_metrics(frames).iter().map(|m| m.animation_error.map(|t| t / 10)).collect()
    }

    #[test]
    fn sixty_fps_on_144_hz_shows_2_3_2_3_2_refreshes_and_an_animation_error_of_a_fraction_of_a_refresh() {
        // Frames every 16 667 µs from 0; each shows at the first 144 Hz vblank
        // (6 944.4 µs apart) at least 10 ms after its CPU start.
        let vblank = |n: i64| (n * 1_000_000 + 72) / 144;
        let frames: Vec<CaptureFrame> = (0..11)
            .map(|i| {
                let cpu = i * 16_667;
                let n = (0..).find(|&n| vblank(n) >= cpu + 10_000).unwrap_or(0);
                frame(cpu, Some(vblank(n)))
            })
            .collect();
        let screens: Vec<i64> = frames.iter().map(|f| f.screen.unwrap_or(0) / 10).collect();
        assert_eq!(&screens[..6], &[13_889, 27_778, 48_611, 62_500, 83_333, 97_222], "vblanks 2, 4, 7, 9, 12, 14");
        // Sim moves 16 667 µs a frame; the screen 2 or 3 refreshes (13 889 or 20 833 µs).
        let (two, three) = (Some(16_667 - 13_889), Some(16_667 - 20_833));
        assert_eq!(
            &errors(&frames)[..6],
            &[None, two, three, two, three, two],
            "+2 778 µs where a frame stayed 2 refreshes, −4 166 µs where it stayed 3"
        );
        let m = frame_metrics(&frames);
        let chain = CaptureChain { app: "game.exe".into(), pid: "1".into(), address: "0x1".into(), frames };
        let figures = CaptureFigures::of(&chain, &m, 10_000_000);
        assert_eq!(figures.display_cycle(), Some(vec![2, 3, 2, 3, 2]), "12 refreshes per 5 frames: {figures:?}");
    }

    #[test]
    fn a_variable_step_timed_by_cpu_start_with_one_50_ms_stall_errs_by_the_stall_then_not_at_all() {
        // 60 Hz, each frame shown 2 refreshes after its CPU start. Frame 3's CPU
        // work takes 50 ms longer: it shows 4 refreshes after frame 2 with a sim
        // one step (16.667 ms) ahead, 50 ms behind the screen; frame 4 starts when
        // frame 3 returns, 66.668 ms after it, and its step (CPU start to CPU
        // start) makes up the 50 ms in one refresh.
        let period = 16_667;
        let cpu = [0, period, 2 * period, 3 * period, 3 * period + 50_000 + period, 3 * period + 50_000 + 2 * period];
        let screens = [2 * period, 3 * period, 4 * period, 8 * period, 9 * period, 10 * period];
        let frames: Vec<CaptureFrame> = cpu.iter().zip(screens).map(|(&c, s)| frame(c, Some(s))).collect();
        assert_eq!(
            errors(&frames),
            vec![None, Some(0), Some(0), Some(-50_001), Some(16_667 + 50_000 - period), Some(0)],
            "the stalled frame moves 1 step in 4 refreshes (−50 ms), the next catches up (+50 ms)"
        );
        let m = frame_metrics(&frames);
        assert_eq!(m[2].displayed_time, Some(4 * period * 10), "frame 2 stays on screen through the stall");
    }

    #[test]
    fn a_fixed_step_without_interpolation_errs_by_a_tick_when_two_updates_land_in_one_frame() {
        // 60 Hz ticks drawn on a 59.94 Hz display: sim advances 1 tick a frame,
        // except frame 3 which runs 2 ticks; every frame shows 1 refresh later.
        let tick = 16_667;
        let refresh = 16_683;
        let sims = [0, tick, 2 * tick, 4 * tick, 5 * tick];
        let frames: Vec<CaptureFrame> = sims
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let mut f = frame(i as i64 * refresh, Some((i as i64 + 1) * refresh));
                f.sim = Some((s * 10, SimSource::App));
                f
            })
            .collect();
        assert_eq!(
            errors(&frames),
            vec![None, Some(tick - refresh), Some(tick - refresh), Some(2 * tick - refresh), Some(tick - refresh)],
            "−16 µs a frame, and +1 tick less 16 µs where two updates land"
        );
    }

    #[test]
    fn dropped_and_generated_frames_have_no_animation_error_and_a_source_switch_is_na() {
        let mut frames = vec![frame(0, Some(20_000)), frame(10_000, None), frame(20_000, Some(40_000))];
        frames.push(CaptureFrame { frame_type: "Intel XeSS-FG".into(), sim: None, ..frame(25_000, Some(45_000)) });
        let mut switched = frame(30_000, Some(60_000));
        switched.sim = Some((5, SimSource::App));
        frames.push(switched);
        frames.push(CaptureFrame { sim: Some((100_005, SimSource::App)), ..frame(40_000, Some(70_000)) });
        let m = frame_metrics(&frames);
        let ae: Vec<Option<Ticks>> = m.iter().map(|x| x.animation_error).collect();
        assert_eq!(ae, vec![None, None, Some(0), None, None, Some(0)], "{m:?}");
        let shown: Vec<Option<Ticks>> = m.iter().map(|x| x.displayed_time.map(|t| t / 10)).collect();
        assert_eq!(shown, vec![Some(20_000), None, Some(5_000), Some(15_000), Some(10_000), None]);
    }

    #[test]
    fn a_sim_that_switches_from_app_timing_to_cpu_start_keeps_one_content_timeline() {
        // Six frames 16 667 µs apart, each on screen 20 ms after its CPU start.
        // The first three carry app timing (AnimationTime: 0, 16.667, 33.334 ms
        // since the session), the last three none, so their sim is the CPU
        // start in QPC ticks, about 1 000 s: one step of that size would be a
        // hitch of 1 000 s in a capture of 0.1 s. The step at the switch is
        // the screen's, so the motion is even: no judder, no hitch.
        let frames: Vec<CaptureFrame> = (0..6)
            .map(|i| {
                let cpu = 1_000_000_000 + i * 16_667;
                let mut f = frame(cpu, Some(cpu + 20_000));
                if i < 3 {
                    f.sim = Some((i * 166_670, SimSource::App));
                }
                f
            })
            .collect();
        let m = frame_metrics(&frames);
        let chain = CaptureChain { app: "game.exe".into(), pid: "1".into(), address: "0x1".into(), frames };
        let stats = CaptureFigures::of(&chain, &m, 10_000_000).stats.expect("motion stats");
        assert_eq!((stats.judder_ms, stats.hitches, stats.max_hitch_ms), (0.0, 0, 0.0), "{stats:?}");
    }
}
