//! Frame generation where the file has no `FrameType` column: read from the
//! pattern a frame generator leaves in the other columns.
//!
//! A generator (XeSS-FG, DLSS-FG, FSR-FG) makes its frames from two of the
//! game's and presents them in the game's swap chain. PresentMon 2.x writes a
//! generated frame's row with the **CPU start of the application frame it
//! precedes** and no CPU or GPU work of its own (`MsCPUBusy`, `MsGPUBusy`,
//! `MsBetweenAppStart` all `0.0000`). In IPMAuxTestData's `test_case_8`
//! (XeSS-FG, one generated frame before each of the game's):
//!
//! ```text
//! FrameType      CPUStartQPC  MsCPUBusy  MsBetweenPresents
//! Intel XeSS-FG  38502271397     0.0000             7.7436
//! Application    38502271397     7.8001             0.1482
//! Intel XeSS-FG  38502350223     0.0000             8.4570
//! Application    38502350223     8.5227             0.1555
//! ```
//!
//! The rule ([`shared_cpu_start`]): a present whose CPU start is the next
//! present's **to the tick** and that carries no CPU work (0 or NA) is the
//! generator's. A game cannot start two frames at one QPC tick, and its own
//! frames carry CPU work: with FrameType hidden the rule finds 2 506 of
//! test_case_8's 2 506 generated frames and 1 826 of test_case_10_v2's 1 826
//! (XeSS-FG, up to two before each of the game's), and none in any other
//! capture of the corpus (`tests/diagnose/`). There is no threshold on a
//! count: each frame carries its own evidence, and the capture's figures
//! (queue depth, animation error, what limits the game) leave those frames out
//! as they do the FrameType-marked ones.
//!
//! A file without a CPU start of its own (PresentMon 1.x, FrameView, whose CPU
//! start is derived from the previous present) cannot show that pattern. A
//! FrameView log with NVIDIA's PC latency shows another
//! ([`latency_alternation`]): with DLSS-FG the frames alternate between the
//! game's and the generator's, and `MsPCLatency` between two levels one
//! present interval apart (Starfield, DLSS-FG on: 61.9 and 77.4 ms medians,
//! 1 745 of 1 802 neighbouring pairs alternate by at least half a present
//! interval; Remnant II without it: 0 of 896). That says frame generation
//! is on, but not which of each pair is the generator's: those frames stay
//! the game's in the figures, and the diagnosis says so.

use super::facts::median;
use timestep_core::monitor::presentmon::{CaptureChain, CaptureFrame, ticks_to_ms};

/// The frame type given to frames found by [`shared_cpu_start`].
pub(crate) const GENERATED_BY_PATTERN: &str = "Generated (pattern)";

/// The share of neighbouring pairs of PC latencies that must alternate for
/// [`latency_alternation`]: with a generator every other present, all do
/// (97 % in the Starfield log, the rest broken by dropped frames); without one
/// a jump of half a present interval is rare (none of Remnant II's 896) and
/// two in opposite directions rarer still.
pub(crate) const ALTERNATING_SHARE: f64 = 0.5;

/// Neighbouring pairs below which no alternation is looked for.
const MIN_PAIRS: usize = 50;

/// Indices of the presents that share their CPU start with the next present
/// of the chain and carry no CPU work (see the module docs).
pub(crate) fn shared_cpu_start(frames: &[CaptureFrame]) -> Vec<usize> {
    frames
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].cpu_start.is_some() && w[0].cpu_start == w[1].cpu_start && w[0].costs.cpu_busy.is_none())
        .map(|(i, _)| i)
        .collect()
}

/// `chain` with the frames [`shared_cpu_start`] finds marked
/// [`GENERATED_BY_PATTERN`], where the file has no `FrameType` column and
/// the pattern finds any; `None` (no copy) otherwise.
pub(crate) fn mark(chain: &CaptureChain, frame_type_known: bool) -> Option<CaptureChain> {
    if frame_type_known {
        return None;
    }
    let found = shared_cpu_start(&chain.frames);
    if found.is_empty() {
        return None;
    }
    let mut chain = chain.clone();
    for &i in &found {
        chain.frames[i].frame_type = GENERATED_BY_PATTERN.to_owned();
        chain.frames[i].sim = None;
    }
    Some(chain)
}

/// Frames marked by [`mark`].
pub(crate) fn marked(chain: &CaptureChain) -> usize {
    chain.frames.iter().filter(|f| f.frame_type == GENERATED_BY_PATTERN).count()
}

/// PC latencies that alternate between two levels, present after present.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Alternation {
    /// Neighbouring pairs of rows with a PC latency measured.
    pub(crate) pairs: usize,
    /// Pairs that alternate by at least half a present interval.
    pub(crate) alternating: usize,
    /// Median PC latency of the rows above their neighbours, and of those below, ms.
    pub(crate) high_ms: f64,
    pub(crate) low_ms: f64,
    /// Half the median present interval, ms: the least step counted.
    pub(crate) step_ms: f64,
}

/// Whether the rows' `MsPCLatency` alternates (see the module docs): each
/// row's latency against the mean of its neighbours' is its step; a pair of
/// neighbouring steps alternates when both are at least half the median
/// present interval and of opposite sign. `None`: too few rows with a PC
/// latency, or fewer than [`ALTERNATING_SHARE`] of the pairs alternate.
pub(crate) fn latency_alternation(frames: &[CaptureFrame], hz: u64) -> Option<Alternation> {
    let step_ms =
        median(frames.iter().filter_map(|f| f.frame_time).filter(|&t| t > 0).map(|t| ticks_to_ms(t, hz)).collect())?
            / 2.0;
    let latency: Vec<Option<f64>> = frames.iter().map(|f| f.reported.pc_latency.map(|t| ticks_to_ms(t, hz))).collect();
    let steps: Vec<Option<(f64, f64)>> = latency
        .windows(3)
        .map(|w| match w {
            [Some(a), Some(b), Some(c)] => Some((b - (a + c) / 2.0, *b)),
            _ => None,
        })
        .collect();
    let (mut pairs, mut alternating) = (0, 0);
    let (mut high, mut low) = (Vec::new(), Vec::new());
    for w in steps.windows(2) {
        let [Some((x, _)), Some((y, latency))] = w else { continue };
        pairs += 1;
        if x.abs() >= step_ms && y.abs() >= step_ms && (*x > 0.0) != (*y > 0.0) {
            alternating += 1;
            if *y > 0.0 { high.push(*latency) } else { low.push(*latency) }
        }
    }
    if pairs < MIN_PAIRS || (alternating as f64) < ALTERNATING_SHARE * pairs as f64 {
        return None;
    }
    Some(Alternation { pairs, alternating, high_ms: median(high)?, low_ms: median(low)?, step_ms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use timestep_core::monitor::presentmon::{FrameCosts, SimSource};

    const HZ: u64 = 10_000_000;

    /// A present at 10 MHz: CPU start in µs, CPU busy in µs (0: none).
    fn present(cpu_us: i64, busy_us: i64) -> CaptureFrame {
        CaptureFrame {
            line: 0,
            frame_type: "Application".to_owned(),
            frame_time: Some(80_000),
            present_start: Some(cpu_us * 10 + busy_us * 10),
            cpu_start: Some(cpu_us * 10),
            screen: Some(cpu_us * 10 + 200_000),
            sim: Some((cpu_us * 10, SimSource::CpuStart)),
            seed: None,
            dropped: false,
            tears: false,
            costs: FrameCosts { cpu_busy: (busy_us > 0).then_some(busy_us * 10), ..FrameCosts::default() },
            reported: Default::default(),
        }
    }

    #[test]
    fn a_present_sharing_the_next_one_s_cpu_start_with_no_cpu_work_is_the_generator_s() {
        // test_case_8's pattern by hand: the game starts a frame every 16 ms
        // and works 8 ms on it; XeSS-FG presents one frame before each, with
        // the CPU start of the game's frame it precedes and no CPU work. The
        // first row is the game's (its generated predecessor is before the file).
        let frames = vec![
            present(0, 8_000),
            present(16_000, 0),
            present(16_000, 8_000),
            present(32_000, 0),
            present(32_000, 8_000),
            // A game frame with no CPU busy column value (NA) but its own CPU start: not a pattern.
            present(48_000, 0),
            present(64_000, 8_000),
        ];
        assert_eq!(shared_cpu_start(&frames), vec![1, 3], "rows 1 and 3 share the next row's CPU start");
    }

    #[test]
    fn two_generated_frames_before_the_game_s_are_both_found_and_busy_twins_are_not() {
        // test_case_10_v2's pattern: up to two generated presents before each of the game's.
        let frames =
            vec![present(0, 0), present(0, 0), present(0, 12_000), present(14_000, 12_000), present(14_000, 12_000)];
        // Rows 3 and 4 share a CPU start but row 3 did CPU work: the game's, not a generator's.
        assert_eq!(shared_cpu_start(&frames), vec![0, 1]);
    }

    #[test]
    fn marking_keeps_a_file_s_frame_type_and_otherwise_takes_the_pattern_s_frames_off_the_game() {
        let frames = vec![present(0, 8_000), present(16_000, 0), present(16_000, 8_000)];
        let chain = CaptureChain { app: "g.exe".into(), pid: "1".into(), address: "0x1".into(), frames };
        assert_eq!(mark(&chain, true), None, "the file's FrameType is the evidence where it has one");
        let found = mark(&chain, false).expect("a frame found");
        assert_eq!(marked(&found), 1);
        assert!(!found.frames[1].is_application() && found.frames[1].sim.is_none(), "{:?}", found.frames[1]);
    }

    fn with_pc_latency(ms: &[f64]) -> Vec<CaptureFrame> {
        ms.iter()
            .enumerate()
            .map(|(i, &l)| {
                let mut f = present(i as i64 * 15_500, 5_000);
                f.frame_time = Some(155_000);
                f.reported.pc_latency = Some((l * 10_000.0).round() as i64);
                f
            })
            .collect()
    }

    #[test]
    fn pc_latency_alternating_by_a_present_interval_is_frame_generation_and_steady_latency_is_not() {
        // Starfield with DLSS-FG by hand: presents 15.5 ms apart, PC latency
        // 62 and 77.5 ms in turn. Each inner row is 15.5 ms above or below its
        // neighbours' mean; half a present interval is 7.75 ms.
        let ms: Vec<f64> = (0..100).map(|i| if i % 2 == 0 { 62.0 } else { 77.5 }).collect();
        let a = latency_alternation(&with_pc_latency(&ms), HZ).expect("an alternation");
        assert_eq!((a.pairs, a.alternating), (97, 97));
        assert_eq!((a.high_ms, a.low_ms, a.step_ms), (77.5, 62.0, 7.75));
        // Remnant II without it: latency wandering 1 ms about 41 ms.
        let steady: Vec<f64> = (0..100).map(|i| 41.0 + f64::from(i % 3)).collect();
        assert_eq!(latency_alternation(&with_pc_latency(&steady), HZ), None);
    }
}
