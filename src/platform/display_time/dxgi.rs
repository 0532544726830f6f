//! Windows: DXGI's frame statistics on the swap chain wgpu's DX12 back-end
//! made (`surface.as_hal::<Dx12>()` → `swap_chain()`, FLIP_DISCARD).
//!
//! ```text
//!   after each Present:   GetLastPresentCount() = p   (frame n is present p)
//!   each poll:            GetFrameStatistics() = { PresentCount P, PresentRefreshCount R,
//!                                                  SyncRefreshCount S, SyncQPCTime Q }
//!   present P was shown at refresh R; refresh S began at QPC time Q, so
//!   P's time = Q − (S − R) × period, the period measured as
//!   (Q − Q₀) / (S − S₀) since the first statistics (after the last disjoint)
//! ```
//!
//! Every count is a `UINT` that wraps: differences are taken modulo 2³².
//! Presents between two shown ones whose refreshes are adjacent were never
//! shown (one refresh shows one present); elsewhere a present not named by
//! any statistics gets no word and its frame stays an estimate.
//! `DXGI_ERROR_FRAME_STATISTICS_DISJOINT` (a mode change, another monitor)
//! restarts the period's measurement and the refresh count. Microsoft warns
//! that the figures are unreliable across several monitors; the bitblt model
//! in a window has none (wgpu makes flip-model chains).

use std::collections::VecDeque;

use timestep_core::feedback::{Feedback, FeedbackFlags};

use super::PresentKinds;
use crate::time::{NANOS_PER_SEC, Nanos};

/// The fields of `DXGI_FRAME_STATISTICS` the lab uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FrameStatistics {
    /// The present count of the last present shown.
    pub(crate) present_count: u32,
    /// The refresh it was shown on.
    pub(crate) present_refresh_count: u32,
    /// The refresh sampled at `sync_qpc_time`.
    pub(crate) sync_refresh_count: u32,
    /// When refresh `sync_refresh_count` began, QPC ticks.
    pub(crate) sync_qpc_time: i64,
}

/// What one `GetFrameStatistics` call returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sample {
    /// Statistics.
    Stats(FrameStatistics),
    /// `DXGI_ERROR_FRAME_STATISTICS_DISJOINT`: the counters restarted.
    Disjoint,
    /// No statistics yet (another error, or all zero before the first vblank).
    Missing,
}

/// Presents awaiting their statistics that are kept at most.
const PENDING: usize = 64;

/// Turns frame statistics into display times on the lab's clock.
#[derive(Clone, Debug)]
pub(crate) struct Converter {
    /// `(frame, present count)`, oldest first, not yet answered.
    pending: VecDeque<(u64, u32)>,
    /// The last statistics that named a new present.
    last: Option<FrameStatistics>,
    /// The first statistics since the last disjoint: `(sync refresh, QPC)`.
    anchor: Option<(u32, i64)>,
    /// The lab clock's zero, QPC ticks.
    qpc_zero: i64,
    /// QPC ticks per second.
    qpc_hz: u64,
    kinds: PresentKinds,
    /// Refreshes that showed no new present, between shown ones.
    repeated: u64,
}

/// Whether count `a` comes before `b`, modulo 2³².
fn before(a: u32, b: u32) -> bool {
    let d = b.wrapping_sub(a);
    d != 0 && d < 1 << 31
}

impl Converter {
    /// A converter for a lab clock whose zero is `qpc_zero` on a QPC of `qpc_hz` ticks a second.
    pub(crate) fn new(qpc_zero: i64, qpc_hz: u64) -> Converter {
        Converter {
            pending: VecDeque::with_capacity(PENDING),
            last: None,
            anchor: None,
            qpc_zero,
            qpc_hz: qpc_hz.max(1),
            kinds: PresentKinds::default(),
            repeated: 0,
        }
    }

    /// Frame `frame`'s Present made it present `count` (`GetLastPresentCount` after it).
    pub(crate) fn presented(&mut self, frame: u64, count: u32) {
        if self.pending.len() == PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((frame, count));
    }

    /// Shown and never-shown counts (DXGI's flip model: a shown present is a flip).
    pub(crate) fn kinds(&self) -> PresentKinds {
        self.kinds
    }

    /// Refreshes that repeated a present because no newer one was ready.
    pub(crate) fn repeated(&self) -> u64 {
        self.repeated
    }

    /// Takes one `GetFrameStatistics` result; hands `take` the feedback it settles.
    pub(crate) fn sample(&mut self, sample: Sample, take: &mut dyn FnMut(Feedback)) -> u64 {
        let stats = match sample {
            Sample::Stats(s) if s.sync_qpc_time > 0 => s,
            Sample::Stats(_) | Sample::Missing => return 0,
            Sample::Disjoint => {
                self.anchor = None;
                self.last = None;
                return 0;
            }
        };
        let anchor = *self.anchor.get_or_insert((stats.sync_refresh_count, stats.sync_qpc_time));
        if self.last.is_some_and(|l| !before(l.present_count, stats.present_count)) {
            return 0;
        }
        // Presents strictly between the last shown and this one: never shown when no refresh lay between.
        let adjacent =
            self.last.is_some_and(|l| stats.present_refresh_count.wrapping_sub(l.present_refresh_count) == 1);
        if let Some(l) = self.last {
            let refreshes = stats.present_refresh_count.wrapping_sub(l.present_refresh_count);
            let presents = stats.present_count.wrapping_sub(l.present_count);
            self.repeated += u64::from(refreshes.saturating_sub(presents));
        }
        let mut n = 0;
        while let Some(&(frame, count)) = self.pending.front() {
            if !before(count, stats.present_count) {
                break;
            }
            self.pending.pop_front();
            if adjacent && self.last.is_some_and(|l| before(l.present_count, count)) {
                self.kinds.skip += 1;
                take(Feedback::discarded(frame));
                n += 1;
            }
        }
        let period = self.period(anchor, stats);
        let shown_qpc = match (stats.sync_refresh_count.wrapping_sub(stats.present_refresh_count), period) {
            (0, _) => Some(i128::from(stats.sync_qpc_time) * period.map_or(1, |p| p.1)),
            (behind, Some((num, den))) => Some(i128::from(stats.sync_qpc_time) * den - i128::from(behind) * num),
            (_, None) => None,
        };
        let den = period.map_or(1, |p| p.1);
        self.last = Some(stats);
        self.kinds.flip += 1;
        if self.pending.front().is_some_and(|&(_, count)| count == stats.present_count)
            && let (Some((frame, _)), Some(qpc)) = (self.pending.pop_front(), shown_qpc)
        {
            let at = self.nanos(qpc, den);
            let refresh = period.map_or(0, |(num, den)| self.nanos_of_ticks(num, den));
            take(Feedback::displayed(frame, at).with_refresh(refresh).with_flags(FeedbackFlags::VSYNC));
            n += 1;
        }
        n
    }

    /// QPC ticks per refresh as `(ticks, refreshes)` since the anchor; `None` before a second refresh.
    fn period(&self, anchor: (u32, i64), stats: FrameStatistics) -> Option<(i128, i128)> {
        let refreshes = stats.sync_refresh_count.wrapping_sub(anchor.0);
        let ticks = stats.sync_qpc_time - anchor.1;
        (refreshes > 0 && ticks > 0).then(|| (i128::from(ticks), i128::from(refreshes)))
    }

    /// `qpc / den` ticks on the lab's clock, ns (floored; 0 before the zero).
    fn nanos(&self, qpc: i128, den: i128) -> Nanos {
        let since = qpc - i128::from(self.qpc_zero) * den;
        let ns = since.max(0) * i128::from(NANOS_PER_SEC) / (den * i128::from(self.qpc_hz));
        Nanos::try_from(ns).unwrap_or(Nanos::MAX)
    }

    /// `num / den` ticks as ns.
    fn nanos_of_ticks(&self, num: i128, den: i128) -> Nanos {
        Nanos::try_from(num * i128::from(NANOS_PER_SEC) / (den * i128::from(self.qpc_hz))).unwrap_or(0)
    }
}

/// The source on Windows: the statistics of the swap chain wgpu's DX12 back-end made.
#[cfg(windows)]
mod imp {
    use timestep_core::feedback::Feedback;
    use wgpu::hal::api::Dx12;
    use windows::Win32::Graphics::Dxgi::{
        DXGI_ERROR_FRAME_STATISTICS_DISJOINT, DXGI_FRAME_STATISTICS, IDXGISwapChain3,
    };
    use windows::Win32::System::Performance::{QueryPerformanceCounter, QueryPerformanceFrequency};

    use super::{Converter, FrameStatistics, Sample};
    use crate::platform::display_time::{DisplayTimes, Gives, Gpu, PresentKinds};
    use crate::time::{Clock as _, NANOS_PER_SEC, RealClock};

    /// Frame statistics, matched to the window's presents by their counts.
    struct DxgiFrameStatistics {
        converter: Converter,
    }

    /// The swap chain behind `gpu`'s surface, fetched again each time (a
    /// reconfigure may make another); `None` before the first configure or on another back-end.
    #[expect(unsafe_code, reason = "wgpu-hal's DX12 surface gives its swap chain through as_hal")]
    fn swap_chain(gpu: Gpu<'_>) -> Option<IDXGISwapChain3> {
        // SAFETY: the swap chain is only read (counts and statistics); wgpu keeps owning it.
        unsafe { gpu.surface.as_hal::<Dx12>() }.and_then(|surface| surface.swap_chain())
    }

    /// The source, where the window's surface is DX12's.
    ///
    /// # Errors
    /// Another back-end, or no performance counter.
    #[expect(unsafe_code, reason = "QueryPerformanceCounter and QueryPerformanceFrequency write through pointers")]
    pub(crate) fn open(gpu: Gpu<'_>, clock: &RealClock) -> Result<Box<dyn DisplayTimes>, String> {
        // SAFETY: as in `swap_chain`.
        if unsafe { gpu.surface.as_hal::<Dx12>() }.is_none() {
            return Err("not a DX12 surface".to_owned());
        }
        let mut hz = 0i64;
        let mut qpc = 0i64;
        let before = clock.now();
        // SAFETY: both write one i64 each, to locals.
        unsafe {
            QueryPerformanceFrequency(&mut hz).map_err(|e| format!("QueryPerformanceFrequency: {e}"))?;
            QueryPerformanceCounter(&mut qpc).map_err(|e| format!("QueryPerformanceCounter: {e}"))?;
        }
        let after = clock.now();
        let hz = u64::try_from(hz).ok().filter(|hz| *hz > 0).ok_or("no performance counter")?;
        // The lab's zero, in ticks: now less the lab time elapsed, converted.
        let since_zero = u128::from(before + (after - before) / 2) * u128::from(hz) / u128::from(NANOS_PER_SEC);
        let qpc_zero = qpc.saturating_sub(i64::try_from(since_zero).unwrap_or(i64::MAX));
        Ok(Box::new(DxgiFrameStatistics { converter: Converter::new(qpc_zero, hz) }))
    }

    impl DisplayTimes for DxgiFrameStatistics {
        fn name(&self) -> &'static str {
            "dxgi-frame-statistics"
        }

        fn gives(&self) -> Gives {
            Gives { display_time: true, refresh: true, skipped: true, copied: false }
        }

        fn presenting(&mut self, _frame: u64, _gpu: Gpu<'_>) {}

        #[expect(unsafe_code, reason = "IDXGISwapChain::GetLastPresentCount")]
        fn presented(&mut self, frame: u64, gpu: Gpu<'_>) {
            // SAFETY: a read of the swap chain's count, on the thread that presents.
            if let Some(count) = swap_chain(gpu).and_then(|chain| unsafe { chain.GetLastPresentCount() }.ok()) {
                self.converter.presented(frame, count);
            }
        }

        #[expect(unsafe_code, reason = "IDXGISwapChain::GetFrameStatistics writes the statistics through a pointer")]
        fn poll(&mut self, gpu: Gpu<'_>, take: &mut dyn FnMut(Feedback)) -> u64 {
            let Some(chain) = swap_chain(gpu) else { return 0 };
            let mut stats = DXGI_FRAME_STATISTICS::default();
            // SAFETY: writes one DXGI_FRAME_STATISTICS, to a local.
            let sample = match unsafe { chain.GetFrameStatistics(&mut stats) } {
                Ok(()) => Sample::Stats(FrameStatistics {
                    present_count: stats.PresentCount,
                    present_refresh_count: stats.PresentRefreshCount,
                    sync_refresh_count: stats.SyncRefreshCount,
                    sync_qpc_time: stats.SyncQPCTime,
                }),
                Err(e) if e.code() == DXGI_ERROR_FRAME_STATISTICS_DISJOINT => Sample::Disjoint,
                Err(_) => Sample::Missing,
            };
            let n = self.converter.sample(sample, take);
            log::trace!("dxgi: {} refreshes so far repeated a present", self.converter.repeated());
            n
        }

        fn kinds(&self) -> Option<PresentKinds> {
            Some(self.converter.kinds())
        }

        fn silence(&self, presents: u64) -> String {
            format!(
                "DXGI's frame statistics named none of the window's {presents} presents (a bitblt-model or \
                 remote swap chain has none)"
            )
        }
    }
}

#[cfg(windows)]
pub(crate) use imp::open;

/// Not Windows: no DXGI.
///
/// # Errors
/// Always.
#[cfg(all(not(windows), not(target_arch = "wasm32")))]
pub(crate) fn open(
    _gpu: super::Gpu<'_>,
    _clock: &crate::time::RealClock,
) -> Result<Box<dyn super::DisplayTimes>, String> {
    Err("not Windows".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// QPC at 10 MHz, the lab's zero at tick 5 000 000 (0.5 s); a 60 Hz display: 500 000 ticks per 3 refreshes.
    fn converter() -> Converter {
        Converter::new(5_000_000, 10_000_000)
    }

    fn stats(present: u32, present_refresh: u32, sync_refresh: u32, qpc: i64) -> Sample {
        Sample::Stats(FrameStatistics {
            present_count: present,
            present_refresh_count: present_refresh,
            sync_refresh_count: sync_refresh,
            sync_qpc_time: qpc,
        })
    }

    fn run(c: &mut Converter, sample: Sample) -> Vec<Feedback> {
        let mut out = Vec::new();
        c.sample(sample, &mut |f| out.push(f));
        out
    }

    fn shown(frame: u64, at: Nanos, refresh: Nanos) -> Feedback {
        Feedback::displayed(frame, at).with_refresh(refresh).with_flags(FeedbackFlags::VSYNC)
    }

    /// Frames 1 to 7 are presents 41 to 47:
    ///
    /// ```text
    /// P   R     S     Q (ticks)    → frame  D = (Q − (S−R)·period − 5 000 000) / 10 MHz
    /// 41  1000  1000  20 000 000      1     1 500 000 000 ns  (S = R: Q itself; no period yet)
    /// 42  1001  1003  20 500 000      2     period 500 000/3: Q − 2·500 000/3 = 60 500 000/3 ticks
    ///                                        → 45 500 000/3 ticks after the zero = 1 516 666 666 ns (floored)
    /// 44  1003  1003  20 500 000      4     1 550 000 000 ns; present 43 (frame 3): two refreshes for two
    ///                                        presents, it may have shown at 1002: no word, an estimate
    /// 45  1006  1006  21 000 000      5     1 600 000 000 ns; refreshes 1004 and 1005 repeated present 44
    /// 47  1007  1007  21 166 667      7     1 616 666 700 ns; present 46 (frame 6) lay between two shown on
    ///                                        adjacent refreshes: never shown
    /// ```
    /// The refresh is 500 000/3 ticks = 16 666 666 ns until 1006, then 1 166 667/7 ticks = 16 666 671 ns.
    #[test]
    fn statistics_time_each_shown_present_and_find_the_never_shown_and_the_repeated_refreshes() {
        let mut c = converter();
        for (frame, count) in (1..=7).zip(41..) {
            c.presented(frame, count);
        }
        assert_eq!(run(&mut c, stats(41, 1000, 1000, 20_000_000)), [shown(1, 1_500_000_000, 0)]);
        assert_eq!(run(&mut c, stats(42, 1001, 1003, 20_500_000)), [shown(2, 1_516_666_666, 16_666_666)]);
        assert_eq!(run(&mut c, stats(42, 1001, 1004, 20_666_667)), [], "the same present again: nothing new");
        assert_eq!(run(&mut c, stats(44, 1003, 1003, 20_500_000)), [shown(4, 1_550_000_000, 16_666_666)]);
        assert_eq!(run(&mut c, stats(45, 1006, 1006, 21_000_000)), [shown(5, 1_600_000_000, 16_666_666)]);
        assert_eq!(c.repeated(), 2, "refreshes 1004 and 1005 showed present 44 again");
        assert_eq!(
            run(&mut c, stats(47, 1007, 1007, 21_166_667)),
            [Feedback::discarded(6), shown(7, 1_616_666_700, 16_666_671)]
        );
        assert_eq!(c.kinds(), PresentKinds { copy: 0, flip: 5, skip: 1 });
    }

    /// Disjoint (the window moved to a 144 Hz monitor): the counts restart
    /// and the period is measured again; present 48 (frame 8) is shown one
    /// refresh before the sync point, with no period yet: no word.
    /// Present 49 (frame 9) at S = R: Q − zero = 17 069 444 ticks = 1 706 944 400 ns,
    /// refresh 69 444 ticks / 1 = 6 944 400 ns.
    #[test]
    fn disjoint_statistics_restart_the_period_and_missing_ones_change_nothing() {
        let mut c = converter();
        c.presented(7, 47);
        c.presented(8, 48);
        c.presented(9, 49);
        assert_eq!(run(&mut c, stats(47, 1007, 1007, 21_166_667)).len(), 1);
        assert_eq!(run(&mut c, Sample::Missing), []);
        assert_eq!(run(&mut c, Sample::Disjoint), []);
        assert_eq!(run(&mut c, stats(48, 8, 9, 22_000_000)), [], "behind the sync point, no period yet");
        assert_eq!(run(&mut c, stats(49, 10, 10, 22_069_444)), [shown(9, 1_706_944_400, 6_944_400)]);
    }

    /// Present counts and refresh counts wrap at 2³²: present 0xFFFF_FFFF
    /// on refresh 0xFFFF_FFFF, then present 1 on refresh 0 (adjacent), so
    /// present 0 was never shown.
    #[test]
    fn counters_that_wrap_still_order_the_presents() {
        let mut c = converter();
        c.presented(1, u32::MAX);
        c.presented(2, 0);
        c.presented(3, 1);
        assert_eq!(run(&mut c, stats(u32::MAX, u32::MAX, u32::MAX, 10_000_000)), [shown(1, 500_000_000, 0)]);
        assert_eq!(
            run(&mut c, stats(1, 0, 0, 10_166_667)),
            [Feedback::discarded(2), shown(3, 516_666_700, 16_666_700)]
        );
    }
}
