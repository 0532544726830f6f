//! Facts a person reads from a capture by hand, each with its evidence: the
//! display's refresh (a grid the display changes fall on), its cadence, VRR
//! or tearing, and whether the sample is large enough for a verdict.
//!
//! The refresh is the **longest period of which the display-change intervals
//! are whole multiples**. A fixed-refresh display changes the picture only on
//! a vblank, so each interval is a whole number of refreshes; PresentMon
//! times those changes to a few µs (the residuals of csgo, RE2, Far Cry and
//! Heaven around their grids are under 0.05 ms RMS). [`GRID_TOLERANCE_MS`] is
//! five times that; an interval that falls anywhere lands within it of a
//! multiple of a period P by chance with probability 2 · 0.25 / P (6 % at
//! 8.33 ms, 20 % at the shortest period tried, [`MIN_PERIOD_MS`]), so a grid
//! needs [`ON_GRID_SHARE`] of the intervals on it. A shorter candidate
//! replaces a longer one only where it puts significantly more intervals on
//! its grid than chance would: a 30 fps cap on a 120 Hz display (25.0, 33.3
//! and 41.7 ms: 3, 4 and 5 refreshes) reads 120 Hz, not 30.
//!
//! With no grid and frames that do not tear, the display followed the game:
//! VRR. With frames that tear, display changes follow the frame rate and the
//! refresh cannot be read from them.

use std::collections::BTreeMap;

use timestep_core::monitor::presentmon::{CaptureChain, FrameMetrics, ticks_to_ms};

/// How far from a whole number of refreshes an interval may be, ms (see the module docs).
pub(crate) const GRID_TOLERANCE_MS: f64 = 0.25;

/// The shortest refresh period tried, ms (400 Hz).
pub(crate) const MIN_PERIOD_MS: f64 = 2.5;

/// The share of display changes that must fall on a grid.
pub(crate) const ON_GRID_SHARE: f64 = 0.9;

/// Displayed application frames below which a verdict rests on too little:
/// the relative standard error of an RMS over n values is about 1/√(2n),
/// 10 % at 50 frames.
pub(crate) const MIN_FRAMES: usize = 50;

/// Display changes below which no grid is looked for.
const MIN_INTERVALS: usize = 8;

/// One display change: the interval since the previous displayed frame, and the row's line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Interval {
    pub(crate) ms: f64,
    pub(crate) line: u64,
}

/// The display changes of frames that do not tear.
pub(crate) fn display_intervals(chain: &CaptureChain, metrics: &[FrameMetrics], hz: u64) -> Vec<Interval> {
    chain
        .frames
        .iter()
        .zip(metrics)
        .filter(|(f, _)| !f.tears)
        .filter_map(|(f, m)| m.display_change.map(|t| Interval { ms: ticks_to_ms(t, hz), line: f.line }))
        .collect()
}

/// A refresh grid the display changes fall on.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Grid {
    /// The period, ms.
    pub(crate) period_ms: f64,
    /// Display changes within [`GRID_TOLERANCE_MS`] of a whole number of periods.
    pub(crate) on_grid: usize,
    /// Display changes measured.
    pub(crate) intervals: usize,
    /// Lines of the first display changes off the grid.
    pub(crate) off_lines: Vec<u64>,
}

impl Grid {
    /// The refresh rate, Hz.
    pub(crate) fn hz(&self) -> f64 {
        1000.0 / self.period_ms
    }

    /// Whole refreshes of `ms`.
    pub(crate) fn refreshes(&self, ms: f64) -> u64 {
        (ms / self.period_ms).round().max(0.0) as u64
    }
}

/// Intervals on `period`'s grid, and the least-squares period of those.
fn fit(intervals: &[Interval], period: f64) -> (usize, f64) {
    let (mut on, mut sum, mut count) = (0usize, 0.0, 0.0);
    for i in intervals {
        let n = (i.ms / period).round();
        if n >= 1.0 && (i.ms - n * period).abs() <= GRID_TOLERANCE_MS {
            on += 1;
            sum += i.ms;
            count += n;
        }
    }
    (on, if count > 0.0 { sum / count } else { period })
}

/// The longest period of which the display changes are whole multiples (see the module docs).
pub(crate) fn display_grid(intervals: &[Interval]) -> Option<Grid> {
    if intervals.len() < MIN_INTERVALS {
        return None;
    }
    let mut sorted: Vec<f64> = intervals.iter().map(|i| i.ms).collect();
    sorted.sort_by(f64::total_cmp);
    // The shortest common interval: one refresh or a whole number of them.
    let base = sorted[sorted.len() / 10];
    let needed = (ON_GRID_SHARE * intervals.len() as f64).ceil() as usize;
    let mut chosen: Option<(f64, usize)> = None;
    for k in 1..=32u32 {
        let mut period = base / f64::from(k);
        if period < MIN_PERIOD_MS {
            break;
        }
        let mut on = 0;
        for _ in 0..3 {
            let (n, refined) = fit(intervals, period);
            on = n;
            period = refined;
        }
        if on < needed {
            continue;
        }
        let off = intervals.len() - on;
        match chosen {
            None => chosen = Some((period, off)),
            // Shorter: only for significantly more than chance puts on its grid.
            Some((_, off_before)) => {
                let chance = off_before as f64 * 2.0 * GRID_TOLERANCE_MS / period;
                if (off_before - off.min(off_before)) as f64 > (2.0 * chance).max(2.0) {
                    chosen = Some((period, off));
                }
            }
        }
    }
    let (period_ms, _) = chosen?;
    let (on_grid, _) = fit(intervals, period_ms);
    let off_lines = intervals
        .iter()
        .filter(|i| {
            let n = (i.ms / period_ms).round();
            n < 1.0 || (i.ms - n * period_ms).abs() > GRID_TOLERANCE_MS
        })
        .take(5)
        .map(|i| i.line)
        .collect();
    Some(Grid { period_ms, on_grid, intervals: intervals.len(), off_lines })
}

/// How many refreshes each frame stayed on a grid, and how unevenly.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cadence {
    /// Refreshes per display change, in order.
    pub(crate) refreshes: Vec<u64>,
    /// Display changes by refreshes.
    pub(crate) counts: BTreeMap<u64, usize>,
    /// The first line of the sequence.
    pub(crate) first_line: u64,
    /// RMS of the display changes about their mean, ms: how unevenly a
    /// steady frame rate is shown.
    pub(crate) spread_ms: f64,
}

impl Cadence {
    /// `4 4 3 5 4…`: the first `n` refreshes per frame.
    pub(crate) fn sequence(&self, n: usize) -> String {
        let mut text = self.refreshes.iter().take(n).map(u64::to_string).collect::<Vec<_>>().join(" ");
        if self.refreshes.len() > n {
            text.push('…');
        }
        text
    }

    /// Refresh counts that hold at least 1 % of the display changes, most common first.
    pub(crate) fn usual(&self) -> Vec<(u64, usize)> {
        let total = self.refreshes.len().max(1);
        let mut usual: Vec<(u64, usize)> =
            self.counts.iter().map(|(&n, &c)| (n, c)).filter(|&(_, c)| c * 100 >= total).collect();
        usual.sort_by_key(|&(n, c)| (std::cmp::Reverse(c), n));
        usual
    }
}

/// The cadence of `intervals` on `grid`.
pub(crate) fn cadence(intervals: &[Interval], grid: &Grid) -> Option<Cadence> {
    let first_line = intervals.first()?.line;
    let refreshes: Vec<u64> = intervals.iter().map(|i| grid.refreshes(i.ms)).collect();
    let mut counts = BTreeMap::new();
    for &n in &refreshes {
        *counts.entry(n).or_insert(0) += 1;
    }
    let mean = intervals.iter().map(|i| i.ms).sum::<f64>() / intervals.len() as f64;
    let spread_ms = (intervals.iter().map(|i| (i.ms - mean).powi(2)).sum::<f64>() / intervals.len() as f64).sqrt();
    Some(Cadence { refreshes, counts, first_line, spread_ms })
}

/// How the display showed the frames.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Sync {
    /// On a fixed refresh grid.
    Grid(Grid),
    /// No grid, no tearing: the display followed the game; the 10th and
    /// 90th percentiles of the display changes, ms, and how many.
    Vrr { p10_ms: f64, p90_ms: f64, intervals: usize },
    /// Most frames tear: display changes follow the frame rate.
    Tearing { tearing: usize, frames: usize },
    /// Too few display changes to tell.
    Unknown { intervals: usize },
}

/// How `chain` was shown, from its display changes and tearing flags.
pub(crate) fn sync(chain: &CaptureChain, intervals: &[Interval]) -> Sync {
    let tearing = chain.frames.iter().filter(|f| f.tears).count();
    if tearing * 2 > chain.frames.len() {
        return Sync::Tearing { tearing, frames: chain.frames.len() };
    }
    if let Some(grid) = display_grid(intervals) {
        return Sync::Grid(grid);
    }
    if intervals.len() < MIN_INTERVALS {
        return Sync::Unknown { intervals: intervals.len() };
    }
    let mut sorted: Vec<f64> = intervals.iter().map(|i| i.ms).collect();
    sorted.sort_by(f64::total_cmp);
    Sync::Vrr { p10_ms: sorted[sorted.len() / 10], p90_ms: sorted[sorted.len() * 9 / 10], intervals: sorted.len() }
}

/// The share of a frame a processor must be busy to be what limits it: the
/// rest of a CPU-bound frame is the present call and the hand-off to the
/// driver, well under a tenth of a frame in the captures here.
pub(crate) const BOUND_SHARE: f64 = 0.9;

/// GPU utilisation (a tool's own column, per frame) at which the GPU is the limit.
pub(crate) const BOUND_UTIL_PCT: f64 = 95.0;

/// What the application frames cost: medians, ms (utilisation in %).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Load {
    /// The game's frame interval (CPU start to CPU start of application frames).
    pub(crate) frame_ms: f64,
    pub(crate) cpu_ms: Option<f64>,
    pub(crate) gpu_ms: Option<f64>,
    pub(crate) gpu_util_pct: Option<f64>,
    /// Application frames with a present interval.
    pub(crate) frames: usize,
}

/// The middle value (the upper of the two middle ones); `None` for none.
pub(crate) fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// The medians of the application frames' costs, where the file has any.
pub(crate) fn load(chain: &CaptureChain, hz: u64) -> Option<Load> {
    let apps: Vec<_> = chain.frames.iter().filter(|f| f.is_application()).collect();
    // The game's frame: CPU start to CPU start of its own frames (with frame
    // generation, its present interval is to the generated frame before it).
    let starts: Vec<i64> = apps.iter().filter_map(|f| f.cpu_start.or(f.present_start)).collect();
    let frame: Vec<f64> =
        starts.windows(2).map(|w| w[1] - w[0]).filter(|&t| t > 0).map(|t| ticks_to_ms(t, hz)).collect();
    let frames = frame.len();
    let cpu = median(apps.iter().filter_map(|f| f.costs.cpu_busy).map(|t| ticks_to_ms(t, hz)).collect());
    let gpu = median(apps.iter().filter_map(|f| f.costs.gpu_busy).map(|t| ticks_to_ms(t, hz)).collect());
    let util = median(apps.iter().filter_map(|f| f.costs.gpu_util_permille).map(|u| f64::from(u) / 10.0).collect());
    let frame_ms = median(frame)?;
    (cpu.is_some() || gpu.is_some() || util.is_some()).then_some(Load {
        frame_ms,
        cpu_ms: cpu,
        gpu_ms: gpu,
        gpu_util_pct: util,
        frames,
    })
}

/// What limits the frame rate, in words with its figures.
pub(crate) fn bound(load: &Load) -> String {
    let share = |ms: f64| 100.0 * ms / load.frame_ms;
    let frame = format!("a {:.2} ms frame (median of {})", load.frame_ms, load.frames);
    let part = |what: &str, ms: Option<f64>| {
        ms.map_or_else(|| format!("{what} busy unknown"), |ms| format!("{what} busy {ms:.2} ms ({:.0} %)", share(ms)))
    };
    let (cpu, gpu) = (part("CPU", load.cpu_ms), part("GPU", load.gpu_ms));
    let busy = |ms: Option<f64>| ms.is_some_and(|ms| ms >= BOUND_SHARE * load.frame_ms);
    match (load.cpu_ms, load.gpu_ms, load.gpu_util_pct) {
        _ if busy(load.cpu_ms) && busy(load.gpu_ms) => {
            format!("CPU- and GPU-bound alike: {cpu}, {gpu} of {frame}; both must get lighter to raise the frame rate")
        }
        (_, Some(g), _) if g >= BOUND_SHARE * load.frame_ms => {
            format!("GPU-bound: {gpu} of {frame}, {cpu}; a lighter GPU load raises the frame rate")
        }
        (Some(c), _, _) if c >= BOUND_SHARE * load.frame_ms => {
            format!("CPU-bound: {cpu} of {frame}, {gpu}; the CPU's work sets the frame rate")
        }
        (Some(_), Some(_), _) => format!(
            "neither CPU- nor GPU-bound: {cpu}, {gpu} of {frame}; the frame waits for something else (a frame cap, \
             vsync or a queue)"
        ),
        (_, _, Some(u)) if u >= BOUND_UTIL_PCT => format!("GPU-bound: GPU utilisation {u:.0} % (median) at {frame}"),
        (_, _, Some(u)) => {
            format!("not GPU-bound: GPU utilisation {u:.0} % (median) at {frame}; the CPU or a frame cap sets the rate")
        }
        _ => format!("what limits it is unknown: {cpu}, {gpu} of {frame}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_times_say_which_processor_limits_the_frame() {
        let load = |cpu, gpu, util| Load { frame_ms: 10.0, cpu_ms: cpu, gpu_ms: gpu, gpu_util_pct: util, frames: 100 };
        assert_eq!(
            bound(&load(Some(5.0), Some(9.6), None)),
            "GPU-bound: GPU busy 9.60 ms (96 %) of a 10.00 ms frame (median of 100), CPU busy 5.00 ms (50 %); a \
             lighter GPU load raises the frame rate"
        );
        assert!(bound(&load(Some(9.5), Some(2.0), None)).starts_with("CPU-bound: CPU busy 9.50 ms (95 %)"));
        assert!(bound(&load(Some(4.0), Some(3.0), None)).starts_with("neither CPU- nor GPU-bound"));
        assert!(bound(&load(None, None, Some(99.0))).starts_with("GPU-bound: GPU utilisation 99 %"));
        assert!(bound(&load(None, None, Some(56.0))).starts_with("not GPU-bound: GPU utilisation 56 %"));
    }

    fn intervals(ms: &[f64]) -> Vec<Interval> {
        ms.iter().enumerate().map(|(i, &ms)| Interval { ms, line: i as u64 + 2 }).collect()
    }

    #[test]
    fn a_30_fps_cap_on_120_hz_reads_120_hz_with_a_3_4_5_cadence() {
        // 100 frames, 4 refreshes of 8.333 ms each, but every 10th stays 3
        // and the one after it 5: 10 % at 25.0 ms and 10 % at 41.7 ms. A 30 Hz
        // grid holds 80 %; 120 Hz holds all.
        let p = 1000.0 / 120.0;
        let ms: Vec<f64> = (0..100)
            .map(|i| match i % 10 {
                0 => 3.0 * p,
                1 => 5.0 * p,
                _ => 4.0 * p,
            })
            .collect();
        let iv = intervals(&ms);
        let grid = display_grid(&iv).expect("a grid");
        assert!((grid.hz() - 120.0).abs() < 1e-6, "{grid:?}");
        assert_eq!((grid.on_grid, grid.intervals), (100, 100));
        let cadence = cadence(&iv, &grid).expect("a cadence");
        assert_eq!(cadence.sequence(5), "3 5 4 4 4…");
        assert_eq!(cadence.usual(), vec![(4, 80), (3, 10), (5, 10)]);
        // Mean 33.33 ms; 20 % of the changes 8.33 ms off it: RMS 8.33·√0.2 = 3.73 ms.
        assert!((cadence.spread_ms - p * 0.2f64.sqrt()).abs() < 1e-9, "{}", cadence.spread_ms);
    }

    #[test]
    fn a_steady_30_fps_on_a_fixed_grid_reads_the_longest_period_that_holds_them() {
        // Every change is 33.333 ms: 30, 60 and 120 Hz all hold them; the longest is the reading.
        let iv = intervals(&[1000.0 / 30.0; 40]);
        assert!((display_grid(&iv).expect("a grid").hz() - 30.0).abs() < 1e-6);
    }

    #[test]
    fn display_changes_spread_continuously_are_no_grid_and_without_tearing_vrr() {
        // 14.2 to 14.9 ms in steps of 0.01 ms (a game uncapped on a VRR display).
        let ms: Vec<f64> = (0..70).map(|i| 14.2 + f64::from(i) * 0.01).collect();
        let iv = intervals(&ms);
        assert_eq!(display_grid(&iv), None);
        let chain = CaptureChain { app: "g.exe".into(), pid: "1".into(), address: "0x1".into(), frames: vec![] };
        assert!(matches!(sync(&chain, &iv), Sync::Vrr { intervals: 70, .. }), "{:?}", sync(&chain, &iv));
    }
}
