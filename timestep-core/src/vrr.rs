//! Variable refresh rate (VRR) displays: the range a panel refreshes in, and
//! its rule for when a frame is scanned out.
//!
//! A fixed display refreshes on a grid ([`crate::vblank`]); a VRR panel
//! (G-Sync, FreeSync, VESA Adaptive-Sync, HDMI VRR, Apple ProMotion) starts
//! scanning a frame out when the frame arrives, within a range `[min, max]`:
//!
//! - a frame ready at `t` starts scanout at `max(t, last scanout start + 1/max)`:
//!   frames faster than `max` wait, as on a fixed `max` Hz display;
//! - with no new frame by the last scanout start + `1/min`, the panel repeats
//!   the frame it shows (a self-refresh); a frame that arrives while that
//!   repeat is being scanned (`1/max` long) waits for it;
//! - low-framerate compensation (LFC), which drivers offer only where
//!   `max ≥ 2 · min` (AMD's FreeSync rule; VESA's Adaptive-Sync tiers ask for
//!   at least 60–144 Hz): below `min`, each frame is scanned `k` times at `k`
//!   times the frame rate, `k` chosen from the latest interval between frames,
//!   so a steady rate below the range never meets a repeat.
//!
//! ```text
//! vrr:48-144, frames every 22.2 ms (45 Hz, below the range):
//! no LFC   |F0·········|r (1/48 later)|F1 waits for r's scanout   |F2 … every other frame 5.6 ms late
//! LFC      |F0····|r0····|F1····|r1····|F2                          each frame twice, 11.1 ms apart
//! ```
//!
//! Sources: VESA Adaptive-Sync Display CTS v1.1 (2022) and its tiers; AMD's
//! FreeSync LFC requirement; Blur Busters' G-SYNC 101 (a frame at the ceiling
//! queues as with plain vsync). Platforms do not report VRR reliably, so the
//! lab also detects it from present intervals ([`crate::refresh`]).
//!
//! Repeats are refreshes: the virtual monitor's pattern writes each as a `0`,
//! as it writes a fixed display's refresh without a new frame.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;
use core::str::FromStr;

use crate::time::{Nanos, Rate, RateError};

/// Why a refresh (`60`, `59.94`, `vrr:48-144`) was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RefreshError {
    /// A rate (fixed, or one end of a range) is not a rate.
    #[error(transparent)]
    Rate(#[from] RateError),
    /// `vrr:` without `MIN-MAX`.
    #[error("'{0}' is not a VRR range (expected vrr:MIN-MAX, e.g. vrr:48-144, or vrr:48-144:no-lfc)")]
    Malformed(String),
    /// The range's ends in the wrong order, or equal.
    #[error("{0}: the lowest refresh ({1}) must be below the highest ({2})")]
    NotIncreasing(String, Rate, Rate),
}

/// The range a VRR panel refreshes in, `min < max`, and whether it
/// compensates low frame rates (LFC).
///
/// ```
/// use timestep_core::vrr::VrrRange;
/// let range: VrrRange = "vrr:48-144".parse().unwrap();
/// assert_eq!((range.min().hz(), range.max().hz(), range.lfc()), (48.0, 144.0, true));
/// assert_eq!(range.to_string(), "vrr:48-144");
/// assert!(!"vrr:48-90".parse::<VrrRange>().unwrap().lfc(), "LFC needs max ≥ 2 × min");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VrrRange {
    min: Rate,
    max: Rate,
    /// LFC asked for (by default; `:no-lfc` turns it off).
    lfc_asked: bool,
}

impl VrrRange {
    /// The range `min`–`max`, with LFC where the range allows it.
    ///
    /// # Errors
    /// [`RefreshError::NotIncreasing`] unless `min < max`.
    pub fn new(min: Rate, max: Rate) -> Result<VrrRange, RefreshError> {
        if !less(min, max) {
            return Err(RefreshError::NotIncreasing(format!("vrr:{}-{}", bare(min), bare(max)), min, max));
        }
        Ok(VrrRange { min, max, lfc_asked: true })
    }

    /// The same range without low-framerate compensation.
    #[must_use]
    pub fn without_lfc(self) -> VrrRange {
        VrrRange { lfc_asked: false, ..self }
    }

    /// The lowest refresh: a frame is repeated after `1/min`.
    pub fn min(&self) -> Rate {
        self.min
    }

    /// The highest refresh: frames never start scanout closer than `1/max`.
    pub fn max(&self) -> Rate {
        self.max
    }

    /// Whether low-framerate compensation is in effect: asked for, and `max ≥ 2 · min`.
    pub fn lfc(&self) -> bool {
        self.lfc_asked && !less(self.max, self.min.scaled(2, 1))
    }

    /// Whether `rate` lies within the range.
    pub fn contains(&self, rate: Rate) -> bool {
        !less(rate, self.min) && !less(self.max, rate)
    }

    /// The shortest time between two scanout starts: `1/max`, rounded up.
    pub fn min_interval(&self) -> Nanos {
        self.max.tick_time_ceil(1)
    }

    /// The longest time the panel shows one scanout before it refreshes: `1/min`, rounded down.
    pub fn max_interval(&self) -> Nanos {
        self.min.tick_time(1)
    }

    /// How people read it: `vrr 48–144 Hz`.
    pub fn label(&self) -> String {
        format!("vrr {}–{}", bare(self.min), self.max)
    }
}

/// `a < b`, exactly.
fn less(a: Rate, b: Rate) -> bool {
    u128::from(a.num()) * u128::from(b.den()) < u128::from(b.num()) * u128::from(a.den())
}

/// `59.94` for 59.94 Hz: a rate as the command line writes it.
fn bare(rate: Rate) -> String {
    rate.to_string().trim_end_matches(" Hz").to_owned()
}

impl fmt::Display for VrrRange {
    /// `vrr:48-144`, `vrr:48-144:no-lfc` when LFC was turned off on a range that has it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = if !self.lfc_asked && (VrrRange { lfc_asked: true, ..*self }).lfc() { ":no-lfc" } else { "" };
        write!(f, "vrr:{}-{}{suffix}", bare(self.min), bare(self.max))
    }
}

impl FromStr for VrrRange {
    type Err = RefreshError;

    /// `vrr:48-144`, `vrr:40.5-143.86`, `vrr:48-144:no-lfc` (case and blanks do not matter).
    fn from_str(text: &str) -> Result<VrrRange, RefreshError> {
        let malformed = || RefreshError::Malformed(text.trim().to_owned());
        let lower = text.trim().to_ascii_lowercase();
        let body = lower.strip_prefix("vrr:").ok_or_else(malformed)?;
        let (body, lfc) = match body.strip_suffix(":no-lfc") {
            Some(body) => (body, false),
            None => (body, true),
        };
        let (min, max) = body.split_once('-').ok_or_else(malformed)?;
        if min.trim().is_empty() || max.trim().is_empty() {
            return Err(malformed());
        }
        let range = VrrRange::new(Rate::parse(min)?, Rate::parse(max)?)?;
        Ok(if lfc { range } else { range.without_lfc() })
    }
}

/// A display's refresh: a fixed rate, or a VRR range.
///
/// ```
/// use timestep_core::Rate;
/// use timestep_core::vrr::Refresh;
/// let list: Vec<Refresh> = ["60", "59.94", "vrr:48-144"].iter().map(|s| s.parse().unwrap()).collect();
/// assert_eq!(list[1], Refresh::Fixed(Rate::new(60000, 1001).unwrap()));
/// assert_eq!(list[2].rate(), Rate::from_hz(144), "a VRR panel's fastest refresh");
/// assert_eq!(list.iter().map(ToString::to_string).collect::<Vec<_>>(), ["60 Hz", "59.94 Hz", "vrr:48-144"]);
/// assert!("vrr:144-48".parse::<Refresh>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refresh {
    /// A fixed grid at this rate.
    Fixed(Rate),
    /// A panel that refreshes when a frame arrives, within this range.
    Vrr(VrrRange),
}

impl Refresh {
    /// The fastest the display refreshes: the fixed rate, or the range's maximum
    /// (what a VRR monitor reports as its mode).
    pub fn rate(&self) -> Rate {
        match self {
            Refresh::Fixed(rate) => *rate,
            Refresh::Vrr(range) => range.max(),
        }
    }

    /// The fixed grid's rate, `None` for VRR.
    pub fn fixed(&self) -> Option<Rate> {
        match self {
            Refresh::Fixed(rate) => Some(*rate),
            Refresh::Vrr(_) => None,
        }
    }

    /// The VRR range, `None` for a fixed grid.
    pub fn vrr(&self) -> Option<VrrRange> {
        match self {
            Refresh::Fixed(_) => None,
            Refresh::Vrr(range) => Some(*range),
        }
    }

    /// How people read it: `60 Hz`, `vrr 48–144 Hz`.
    pub fn label(&self) -> String {
        match self {
            Refresh::Fixed(rate) => rate.to_string(),
            Refresh::Vrr(range) => range.label(),
        }
    }
}

impl From<Rate> for Refresh {
    fn from(rate: Rate) -> Refresh {
        Refresh::Fixed(rate)
    }
}

impl From<VrrRange> for Refresh {
    fn from(range: VrrRange) -> Refresh {
        Refresh::Vrr(range)
    }
}

impl fmt::Display for Refresh {
    /// `60 Hz`, `59.94 Hz`, `vrr:48-144`: each parses back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refresh::Fixed(rate) => rate.fmt(f),
            Refresh::Vrr(range) => range.fmt(f),
        }
    }
}

impl FromStr for Refresh {
    type Err = RefreshError;

    /// `60`, `59.94`, `60000/1001`, `vrr:48-144`.
    fn from_str(text: &str) -> Result<Refresh, RefreshError> {
        if text.trim().get(..4).is_some_and(|p| p.eq_ignore_ascii_case("vrr:")) {
            return Ok(Refresh::Vrr(text.parse()?));
        }
        Ok(Refresh::Fixed(Rate::parse(text)?))
    }
}

/// A VRR panel's scanouts: when each frame starts to be shown, and how many
/// self-refreshes came before it. See the module docs for the rule.
///
/// ```
/// use timestep_core::vrr::{VrrPanel, VrrRange};
/// let mut panel = VrrPanel::new("vrr:48-144".parse::<VrrRange>().unwrap());
/// assert_eq!(panel.show(0), 0);
/// assert_eq!(panel.show(10_000_000), 10_000_000, "within the range: shown when ready");
/// assert_eq!(panel.show(12_000_000), 16_944_445, "faster than 144 Hz: waits 1/144 s after the last");
/// assert_eq!((panel.show(55_000_000), panel.repeats()), (55_000_000, 1), "a self-refresh 1/48 s after the last");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VrrPanel {
    range: VrrRange,
    /// `1/max`, rounded up, and `1/min`, rounded down.
    min_interval: Nanos,
    max_interval: Nanos,
    /// Scanout start of the latest new frame; `None` before the first.
    shown: Option<Nanos>,
    /// LFC's interval between the latest frame's scans and how many of them
    /// (`k` ≥ 1 scans: the frame, then `k − 1` repeats that far apart).
    lfc_interval: Nanos,
    lfc_scans: u64,
    /// When the latest frame arrived (LFC predicts the next interval from it).
    arrived: Option<Nanos>,
    /// Self-refreshes between the previous new frame and the latest.
    repeats: u32,
}

impl VrrPanel {
    /// A panel refreshing within `range`, nothing shown yet.
    pub fn new(range: VrrRange) -> VrrPanel {
        VrrPanel {
            range,
            min_interval: range.min_interval(),
            max_interval: range.max_interval(),
            shown: None,
            lfc_interval: range.max_interval(),
            lfc_scans: 1,
            arrived: None,
            repeats: 0,
        }
    }

    /// The range.
    pub fn range(&self) -> VrrRange {
        self.range
    }

    /// A frame ready at `ready` (vsync on): when its scanout starts.
    pub fn show(&mut self, ready: Nanos) -> Nanos {
        let Some(shown) = self.shown else {
            return self.start(ready, ready, 0);
        };
        let (repeats, last_scan) = self.repeats_before(shown, ready);
        let at = ready.max(last_scan.saturating_add(self.min_interval));
        self.start(ready, at, repeats)
    }

    /// A frame presented at `at` with vsync off: scanned out at once, tearing
    /// through any scanout in progress.
    pub fn tear(&mut self, at: Nanos) -> Nanos {
        let repeats = self.shown.map_or(0, |shown| self.repeats_before(shown, at).0);
        self.start(at, at, repeats)
    }

    /// Self-refreshes between the previous new frame and the latest one.
    pub fn repeats(&self) -> u32 {
        self.repeats
    }

    /// The repeats of the frame shown at `shown` that start before `t`, and
    /// the start of the latest scan (the frame's or a repeat's) before `t`.
    fn repeats_before(&self, shown: Nanos, t: Nanos) -> (u32, Nanos) {
        if t <= shown {
            return (0, shown);
        }
        let since = t - shown - 1;
        // LFC's repeats, `lfc_interval` apart, then the panel's own every `1/min`.
        let lfc = (since / self.lfc_interval.max(1)).min(self.lfc_scans - 1);
        let mut last = shown + lfc * self.lfc_interval;
        let mut n = lfc;
        if lfc == self.lfc_scans - 1 {
            let more = (t - 1 - last) / self.max_interval.max(1);
            last += more * self.max_interval;
            n += more;
        }
        (u32::try_from(n).unwrap_or(u32::MAX), last)
    }

    /// The frame that arrived at `ready` starts scanout at `at`, after `repeats` repeats.
    fn start(&mut self, ready: Nanos, at: Nanos, repeats: u32) -> Nanos {
        (self.lfc_interval, self.lfc_scans) = (self.max_interval, 1);
        if let Some(previous) = self.arrived
            && self.range.lfc()
        {
            // The next frame is expected one latest interval after this one;
            // the scans until then are spread evenly, so a frame on time meets
            // no repeat (a frame shown late leaves less to fill).
            let expected = ready.saturating_add(ready.saturating_sub(previous));
            let left = expected.saturating_sub(at);
            if left > self.max_interval {
                // The fewest scans that bring the rate back into the range;
                // `max ≥ 2 · min` keeps them at least `1/max` apart.
                let k = left.div_ceil(self.max_interval);
                (self.lfc_interval, self.lfc_scans) = ((left / k).max(self.min_interval), k);
            }
        }
        self.arrived = Some(ready);
        self.shown = Some(at);
        self.repeats = repeats;
        at
    }
}

impl fmt::Display for VrrPanel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.range.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn range(text: &str) -> VrrRange {
        text.parse().expect("a valid range")
    }

    #[test]
    fn a_refresh_parses_fixed_rates_and_vrr_ranges_and_prints_them_back() {
        for text in ["vrr:48-144", "vrr:30-60", "vrr:40.5-143.856", "vrr:48-144:no-lfc"] {
            assert_eq!(text.parse::<Refresh>().map(|r| r.to_string()), Ok(text.to_owned()));
        }
        assert_eq!(" VRR:48-144 ".parse::<Refresh>().map(|r| r.to_string()), Ok("vrr:48-144".to_owned()));
        assert_eq!("vrr:48-90:no-lfc".parse::<Refresh>().map(|r| r.to_string()), Ok("vrr:48-90".to_owned()));
        assert_eq!("59.94".parse::<Refresh>(), Ok(Refresh::Fixed(Rate::new(60000, 1001).unwrap())));
        assert_eq!(range("vrr:48-144").label(), "vrr 48–144 Hz");
    }

    #[test]
    fn a_bad_range_says_what_is_wrong_in_one_line() {
        let err = |text: &str| text.parse::<Refresh>().expect_err(text).to_string();
        assert_eq!(err("vrr:144-48"), "vrr:144-48: the lowest refresh (144 Hz) must be below the highest (48 Hz)");
        assert_eq!(err("vrr:60-60"), "vrr:60-60: the lowest refresh (60 Hz) must be below the highest (60 Hz)");
        assert!(err("vrr:48").starts_with("'vrr:48' is not a VRR range (expected vrr:MIN-MAX"), "{}", err("vrr:48"));
        assert!(err("vrr:-144").contains("is not a VRR range"), "{}", err("vrr:-144"));
        assert_eq!(err("vrr:0-144"), "0 is not a positive, finite rate (expected 1–1000 Hz)");
        assert_eq!(err("vrr:48-2000"), "2000 is outside 1–1000 Hz");
        assert!(err("vrr:a-b").contains("is not a rate in Hz"), "{}", err("vrr:a-b"));
    }

    #[test]
    fn lfc_is_on_only_where_max_is_at_least_twice_min() {
        assert!(range("vrr:48-144").lfc());
        assert!(range("vrr:48-96").lfc(), "exactly twice");
        assert!(!range("vrr:48-95").lfc());
        assert!(!range("vrr:48-144").without_lfc().lfc());
        assert!(range("vrr:48-144").contains(Rate::from_hz(48)) && !range("vrr:48-144").contains(Rate::from_hz(145)));
    }

    /// Scanout starts of frames ready at `readies` on `range`, with the repeats before each.
    fn scans(range: VrrRange, readies: impl IntoIterator<Item = Nanos>) -> Vec<(Nanos, u32)> {
        let mut panel = VrrPanel::new(range);
        readies.into_iter().map(|t| (panel.show(t), panel.repeats())).collect()
    }

    #[test]
    fn frames_within_the_range_are_shown_when_ready_and_faster_ones_wait_for_the_ceiling() {
        let shown = scans(range("vrr:48-144"), [0, 10_000_000, 12_000_000, 13_000_000, 40_000_000]);
        // 1/144 s = 6 944 444.4 ns, rounded up: no two scans closer than the ceiling.
        assert_eq!(shown, [(0, 0), (10_000_000, 0), (16_944_445, 0), (23_888_890, 0), (40_000_000, 0)]);
    }

    #[test]
    fn without_a_frame_the_panel_repeats_after_1_over_min_and_a_frame_meeting_a_repeat_waits_for_it() {
        // vrr:48-144 without LFC, frames every 1/45 s (22 222 222 ns): the
        // repeat at 20 833 333 is scanned until 27 777 778, so frame 1 waits
        // 5 555 556 ns; frame 2 (44.4 ms) comes before the next repeat (48.6 ms).
        let readies = (0..5).map(|i| Rate::from_hz(45).tick_time(i));
        let shown = scans(range("vrr:48-144").without_lfc(), readies);
        assert_eq!(shown, [(0, 0), (27_777_778, 1), (44_444_444, 0), (72_222_222, 1), (88_888_888, 0)]);
    }

    #[test]
    fn with_lfc_a_steady_45_hz_is_scanned_twice_per_frame_and_never_meets_a_repeat() {
        let readies: Vec<Nanos> = (0..20).map(|i| Rate::from_hz(45).tick_time(i)).collect();
        let shown = scans(range("vrr:48-144"), readies.iter().copied());
        // Frame 1 meets the first repeat (nothing to predict from yet) and is
        // shown late, which leaves frame 2 no room for a repeat; from frame 3
        // on, each frame is shown when ready after one repeat at 90 Hz.
        assert_eq!(shown[1], (27_777_778, 1));
        assert_eq!(shown[2], (44_444_444, 0));
        for (i, (&ready, &(at, repeats))) in readies.iter().zip(&shown).enumerate().skip(3) {
            assert_eq!((at, repeats), (ready, 1), "frame {i}");
        }
    }

    #[test]
    fn lfc_triples_a_rate_that_doubling_leaves_below_the_range() {
        // 20 Hz on 48–144: 50 ms / 2 = 25 ms is still slower than 1/48 s; three scans 16.7 ms apart.
        let readies = (0..6).map(|i| i * 50_000_000);
        let shown = scans(range("vrr:48-144"), readies);
        assert_eq!(shown[5], (250_000_000, 2), "{shown:?}");
    }

    #[test]
    fn a_torn_frame_is_shown_at_once_and_counts_the_repeats_before_it() {
        let mut panel = VrrPanel::new(range("vrr:48-144").without_lfc());
        assert_eq!(panel.tear(0), 0);
        assert_eq!(panel.tear(1_000_000), 1_000_000, "vsync off: no wait for the ceiling");
        assert_eq!((panel.tear(50_000_000), panel.repeats()), (50_000_000, 2), "repeats at 21.8 and 42.7 ms");
    }
}
