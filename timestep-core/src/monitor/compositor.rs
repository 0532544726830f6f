//! The compositor stage: what happens between a window's present and the
//! panel when a compositor (DWM, WindowServer, Mutter, KWin, Weston) shows it.
//!
//! A compositor repaints once a refresh. Its repaint for vblank `k` begins a
//! *latch* time before the vblank; it takes the newest buffer the window
//! committed at or before that instant, and the picture it composes is shown
//! at vblank `k`, or `delay` refreshes later (the compositor's own queue). A
//! buffer committed after the repaint began waits for the next one:
//!
//! ```text
//! vblanks   |V0                |V1                |V2                |V3     60 Hz, latch 7 ms, delay 0
//! repaints          R1 = V1 − 7 ms ^         R2 ^                R3 ^
//! commit A       ^ 9.000 ms  ── latched at R1 ──▶ shown at V1 (16.667 ms)
//! commit B          ^ 10.000 ms ─── misses R1, latched at R2 ───▶ shown at V2 (33.333 ms)
//! ```
//!
//! - **FIFO (vsync on)**: the compositor takes one queued present a repaint,
//!   the oldest, so each frame gets its own repaint, after its predecessor's.
//!   The window's queue slot frees when its frame is latched, so a present
//!   that blocks wakes at a repaint, not at a vblank.
//! - **Mailbox or Immediate (vsync off)**: present never waits, and the newest
//!   buffer committed before a repaint wins; the buffers it replaces are never
//!   shown. A composited window never tears: one frame a refresh at most.
//! - **Direct** ([`Composition::Direct`], no compositor: fullscreen with direct
//!   scanout, an X server without one) is the display model without this stage.
//!
//! Three worked examples, checked by the tests below (60 Hz: vblanks at 0,
//! 16 666 667, 33 333 334, 50 000 000 and 66 666 667 ns; latch 7 ms, delay 0,
//! so repaints begin at 9 666 667, 26 333 334, 43 000 000 and 59 666 667 ns):
//!
//! 1. A buffer committed at 9 000 000 ns, just before repaint 1 begins, is
//!    shown at vblank 1, 16 666 667 ns: 7 666 667 ns after its commit. One
//!    committed at 9 666 667 ns, exactly as the repaint begins, still makes it.
//! 2. A buffer committed at 10 000 000 ns, 333 333 ns after repaint 1 began,
//!    waits for repaint 2 and is shown at vblank 2, 33 333 334 ns: 23 333 334
//!    ns after its commit, a whole refresh more than example 1 for 1 ms. With
//!    delay 1 both move one vblank later (33 333 334 and 50 000 000 ns).
//! 3. Vsync off at twice the refresh: buffers committed every 8 333 333 ns from
//!    2 000 000 ns (2 000 000, 10 333 333, 18 666 666, 26 999 999, 35 333 332,
//!    43 666 665). Their repaints are 1, 2, 2, 3, 3 and 4: the third replaces
//!    the second, the fifth the fourth. Shown: the first at 16 666 667, the
//!    third at 33 333 334, the fifth at 50 000 000, the sixth at 66 666 667;
//!    2 of 6 never shown, one frame each refresh, 14.67 ms from commit to
//!    display for the three that made the next repaint. Without a compositor
//!    each would be shown (torn in) at its commit.
//!
//! Where the figures come from is part of the value ([`CompositorSource`]):
//! the documented default of a known compositor ([`KnownCompositor`]), a
//! value given by hand, one measured on the setup (Wayland's presentation
//! feedback gives commit and display times), or an assumption where the
//! platform says nothing.

use crate::time::{NANOS_PER_MS, Nanos, ms_to_nanos};
use crate::vblank::VblankGrid;
use std::fmt;

/// The longest latch accepted: 1 s, Weston's own upper bound on `repaint-window`.
pub const MAX_LATCH: Nanos = 1_000 * NANOS_PER_MS;

/// The most refreshes a compositor may hold a picture: beyond a few, it is a
/// queue no desktop keeps (DWM and the Wayland compositors keep one or none).
pub const MAX_DELAY_REFRESHES: u32 = 8;

/// A compositor between the window and the panel: its repaint begins `latch`
/// ns before each vblank, and what it latched is shown `delay_refreshes`
/// vblanks after the one it repainted for (see the module docs).
///
/// ```
/// use timestep_core::monitor::{Compositor, CompositorSource, KnownCompositor};
///
/// let weston = KnownCompositor::Weston.compositor().unwrap();
/// assert_eq!((weston.latch, weston.delay_refreshes), (7_000_000, 0), "weston.ini's default repaint-window");
/// assert_eq!(weston.source, CompositorSource::Known(KnownCompositor::Weston));
/// let given: Compositor = "4.5:1".parse().unwrap();
/// assert_eq!((given.latch, given.delay_refreshes, given.source), (4_500_000, 1, CompositorSource::Given));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Compositor {
    /// How long before each vblank the repaint begins, ns: a buffer committed
    /// later waits for the next repaint.
    pub latch: Nanos,
    /// Refreshes between the vblank a repaint was for and the one that shows it.
    pub delay_refreshes: u32,
    /// Where these figures come from.
    pub source: CompositorSource,
    /// Whether the window draws its next frame only once the compositor has
    /// latched its last one: Wayland's frame callback, which winit's redraw
    /// requests wait for. With vsync off such a window presents at most once
    /// a repaint and none of its buffers is replaced; its frame starts at a
    /// repaint and is shown after the next (Weston 10 here, repaint-window
    /// 15 ms: 33.1 ms from a frame's start to its display against the 17.2
    /// the compositor's latch alone gives). Measured, never assumed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub throttles: bool,
}

/// For serde (which passes a reference): a compositor that does not throttle its windows says nothing of it.
fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a compositor model's figures come from: what a report and a card say about them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CompositorSource {
    /// A known compositor's documented default ([`KnownCompositor::source`] names the document).
    Known(KnownCompositor),
    /// Given by hand (`--compositor 7:0`).
    Given,
    /// Measured on the setup: the display's presentation feedback gave each
    /// frame's commit and display times (Wayland's `wp_presentation`).
    Measured,
    /// Assumed: the platform does not say, and the figure is the caller's choice
    /// (the measured setup says which and why).
    Assumed,
}

impl CompositorSource {
    /// The name reports write: `weston`, `given`, `measured`, `assumed`.
    pub fn name(self) -> &'static str {
        match self {
            CompositorSource::Known(known) => known.name(),
            CompositorSource::Given => "given",
            CompositorSource::Measured => "measured",
            CompositorSource::Assumed => "assumed",
        }
    }
}

impl fmt::Display for CompositorSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The compositors this crate can name. Only some have a figure a source gives:
/// [`KnownCompositor::compositor`] says so, or why not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum KnownCompositor {
    /// Weston, the reference Wayland compositor.
    Weston,
    /// Windows' Desktop Window Manager, for a "Composed: Flip" present.
    Dwm,
    /// GNOME's compositor.
    Mutter,
    /// KDE Plasma's compositor.
    Kwin,
    /// macOS's WindowServer.
    WindowServer,
}

impl KnownCompositor {
    /// Every compositor this crate names, in help order.
    pub const ALL: [KnownCompositor; 5] = [
        KnownCompositor::Weston,
        KnownCompositor::Dwm,
        KnownCompositor::Mutter,
        KnownCompositor::Kwin,
        KnownCompositor::WindowServer,
    ];

    /// The name the command line takes (`weston`).
    pub fn name(self) -> &'static str {
        match self {
            KnownCompositor::Weston => "weston",
            KnownCompositor::Dwm => "dwm",
            KnownCompositor::Mutter => "mutter",
            KnownCompositor::Kwin => "kwin",
            KnownCompositor::WindowServer => "windowserver",
        }
    }

    /// Its model, where a source gives its figures; otherwise why none is
    /// known (one line, for an error message).
    ///
    /// # Errors
    /// The compositor whose latch is not one published figure: what is known instead.
    pub fn compositor(self) -> Result<Compositor, &'static str> {
        let source = CompositorSource::Known(self);
        match self {
            // weston.ini(5), [core] repaint-window: "The default value is 7
            // milliseconds"; the repaint aims at the next vblank (delay 0).
            // Measured here under Weston 10 (docs/compositors.md).
            KnownCompositor::Weston => {
                Ok(Compositor { latch: 7 * NANOS_PER_MS, delay_refreshes: 0, source, throttles: false })
            }
            // DWM's latch is not published. Microsoft's and Unity's docs on the
            // DXGI flip model: independent flip (no composition) "reduces input
            // latency by one frame". Latch 0 and one refresh of delay is that
            // frame, and no more: where within the refresh DWM samples is assumed.
            KnownCompositor::Dwm => Ok(Compositor { latch: 0, delay_refreshes: 1, source, throttles: false }),
            // Mutter's frame clock: before 3.38 (commit 592fbee0) it began
            // compositing "refresh interval minus 2 ms" before the vblank; since,
            // it computes its max render time from measured render times.
            KnownCompositor::Mutter => Err("Mutter computes its repaint time from measured render times (since GNOME \
                                            3.38; before, one refresh minus 2 ms): no one figure is known"),
            // KWin's RenderLoop (Plasma 5.21): compositing as close to the vblank
            // as its render-time estimate allows, with a latency setting (default "Medium").
            KnownCompositor::Kwin => Err("KWin schedules its repaint from an estimate of its render time and a \
                                          latency setting (since Plasma 5.21): no one figure is known"),
            // Apple documents neither WindowServer's repaint nor its queue.
            KnownCompositor::WindowServer => {
                Err("Apple publishes neither WindowServer's repaint time nor its queue: not yet measured")
            }
        }
    }

    /// Where its figures, or the lack of them, are documented (one line).
    pub fn source(self) -> &'static str {
        match self {
            KnownCompositor::Weston => "weston.ini(5), [core] repaint-window (default 7 ms)",
            KnownCompositor::Dwm => {
                "Microsoft's DXGI flip model docs and Unity's manual: independent flip saves one frame of latency; \
                 the latch is assumed"
            }
            KnownCompositor::Mutter => "Mutter commit 592fbee0 (dynamic max render time, GNOME 3.38)",
            KnownCompositor::Kwin => "KWin's RenderLoop (Plasma 5.21) and its compositing scheduling notes",
            KnownCompositor::WindowServer => "none published",
        }
    }

    /// Looks a compositor up by name, in any case.
    pub fn parse(text: &str) -> Option<KnownCompositor> {
        KnownCompositor::ALL.into_iter().find(|k| k.name().eq_ignore_ascii_case(text.trim()))
    }
}

impl fmt::Display for KnownCompositor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Compositor {
    /// A compositor whose repaint begins `latch` ns before each vblank and
    /// shows its picture `delay_refreshes` vblanks later, given by hand.
    pub const fn new(latch: Nanos, delay_refreshes: u32) -> Compositor {
        Compositor { latch, delay_refreshes, source: CompositorSource::Given, throttles: false }
    }

    /// The same compositor, throttling the window to its repaints (see [`Compositor::throttles`]).
    pub const fn throttling(self) -> Compositor {
        Compositor { throttles: true, ..self }
    }

    /// The same figures from `source`.
    pub const fn with_source(self, source: CompositorSource) -> Compositor {
        Compositor { source, ..self }
    }

    /// `LATCH_MS[:DELAY]`: the latch in ms (0–1000) and the delay in whole
    /// refreshes (0–8, default 0).
    ///
    /// # Errors
    /// A one-line message naming what is wrong.
    pub fn parse(text: &str) -> Result<Compositor, String> {
        let text = text.trim();
        let (latch_text, delay_text) = match text.split_once(':') {
            Some((latch, delay)) => (latch.trim(), Some(delay.trim())),
            None => (text, None),
        };
        let latch_ms: f64 = latch_text
            .parse()
            .map_err(|_| format!("'{latch_text}' is not a latch in ms (expected LATCH_MS[:DELAY])"))?;
        let max_ms = (MAX_LATCH / NANOS_PER_MS) as f64;
        if !(0.0..=max_ms).contains(&latch_ms) {
            return Err(format!("latch {latch_text} ms is out of range: it must be 0–{max_ms} ms"));
        }
        let delay_refreshes = match delay_text {
            None => 0,
            Some(d) => d
                .parse::<u32>()
                .ok()
                .filter(|&d| d <= MAX_DELAY_REFRESHES)
                .ok_or_else(|| format!("delay '{d}' is not a whole number of refreshes 0–{MAX_DELAY_REFRESHES}"))?,
        };
        Ok(Compositor::new(ms_to_nanos(latch_ms), delay_refreshes))
    }

    /// The refresh whose repaint latches a buffer committed at `commit`: the
    /// first vblank `k` with `V_k − latch ≥ commit` (a commit exactly as the
    /// repaint begins makes it).
    #[inline]
    pub fn repaint_for(&self, grid: &VblankGrid, commit: Nanos) -> u64 {
        grid.at_or_after(commit.saturating_add(self.latch))
    }

    /// When the repaint for vblank `k` begins.
    #[inline]
    pub fn repaint_time(&self, grid: &VblankGrid, k: u64) -> Nanos {
        grid.time_of(k).saturating_sub(self.latch)
    }

    /// When what the repaint for vblank `k` latched is shown.
    #[inline]
    pub fn shown_time(&self, grid: &VblankGrid, k: u64) -> Nanos {
        grid.time_of(k.saturating_add(u64::from(self.delay_refreshes)))
    }
}

impl std::str::FromStr for Compositor {
    type Err = String;

    /// As [`Compositor::parse`].
    fn from_str(text: &str) -> Result<Compositor, String> {
        Compositor::parse(text)
    }
}

impl fmt::Display for Compositor {
    /// `weston (latch 7 ms, delay 0)`, `given (latch 4.5 ms, delay 1)`,
    /// `measured (latch 15.9 ms, delay 0, a frame a repaint)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let latch = crate::report::trim_number(self.latch as f64 / NANOS_PER_MS as f64, 3);
        let throttles = if self.throttles { ", a frame a repaint" } else { "" };
        write!(f, "{} (latch {latch} ms, delay {}{throttles})", self.source, self.delay_refreshes)
    }
}

/// The suffix of a compositor that holds the window until it repaints (`weston+held`).
const HELD: &str = "+held";

/// How a run's frames reach the panel: directly, or through a compositor.
///
/// ```
/// use timestep_core::monitor::Composition;
///
/// assert_eq!(Composition::parse("none"), Ok(Composition::Direct));
/// assert_eq!(Composition::default(), Composition::Direct, "today's model unless one is chosen");
/// let weston = Composition::parse("Weston").unwrap();
/// assert_eq!(weston.compositor().map(|c| c.latch), Some(7_000_000));
/// assert!(Composition::parse("kwin").unwrap_err().contains("no one figure is known"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Composition {
    /// No compositor: a present is shown at the next vblank (vsync on, behind
    /// the frames queued before it) or at once, tearing (vsync off).
    #[default]
    Direct,
    /// A compositor between the window and the panel.
    Composited(Compositor),
}

impl Composition {
    /// The compositor, if any.
    pub fn compositor(self) -> Option<Compositor> {
        match self {
            Composition::Direct => None,
            Composition::Composited(c) => Some(c),
        }
    }

    /// `none`, a known compositor's name, or `LATCH_MS[:DELAY]`; either of
    /// the last two with `+held` for a compositor that holds the window until
    /// it repaints ([`Compositor::throttles`]: Wayland's frame callback).
    ///
    /// ```
    /// use timestep_core::monitor::Composition;
    ///
    /// let held = Composition::parse("weston+held").unwrap().compositor().unwrap();
    /// assert!(held.throttles && held.latch == 7_000_000);
    /// assert!(Composition::parse("none+held").unwrap_err().contains("holds no window"));
    /// ```
    ///
    /// # Errors
    /// A one-line message: a bad value, or a named compositor whose figures
    /// no source gives (and what is known of it).
    pub fn parse(text: &str) -> Result<Composition, String> {
        let trimmed = text.trim();
        let cut = trimmed.len().saturating_sub(HELD.len());
        if trimmed.get(cut..).is_some_and(|tail| tail.eq_ignore_ascii_case(HELD)) {
            let rest = trimmed.get(..cut).unwrap_or_default();
            return match Composition::parse(rest)? {
                Composition::Direct => Err(format!("'{trimmed}': no compositor holds no window (drop {HELD})")),
                Composition::Composited(c) => Ok(Composition::Composited(c.throttling())),
            };
        }
        if text.trim().eq_ignore_ascii_case("none") {
            return Ok(Composition::Direct);
        }
        if let Some(known) = KnownCompositor::parse(text) {
            return known
                .compositor()
                .map(Composition::Composited)
                .map_err(|why| format!("{}: {why}; give LATCH_MS[:DELAY] instead", known.name()));
        }
        if text.trim().starts_with(|c: char| c.is_ascii_alphabetic()) {
            let names: Vec<&str> = KnownCompositor::ALL.iter().map(|k| k.name()).collect();
            return Err(format!(
                "'{}' is not a compositor (expected none, LATCH_MS[:DELAY] or one of: {})",
                text.trim(),
                names.join(", ")
            ));
        }
        Compositor::parse(text).map(Composition::Composited)
    }
}

impl std::str::FromStr for Composition {
    type Err = String;

    /// As [`Composition::parse`].
    fn from_str(text: &str) -> Result<Composition, String> {
        Composition::parse(text)
    }
}

impl fmt::Display for Composition {
    /// `none`, or the compositor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Composition::Direct => f.write_str("none"),
            Composition::Composited(c) => c.fmt(f),
        }
    }
}

/// A compositor's repaints on a fixed grid, with the buffer waiting for the
/// next one: which refresh shows each committed buffer, and how many
/// buffers a newer one replaced before they were shown.
///
/// ```
/// use timestep_core::monitor::{Compositor, CompositorStage};
/// use timestep_core::vblank::VblankGrid;
/// use timestep_core::Rate;
///
/// let mut stage = CompositorStage::new(Compositor::new(7_000_000, 0), VblankGrid::new(Rate::from_hz(60), 0));
/// assert_eq!(stage.newest(9_000_000), (16_666_667, false), "before repaint 1 began: vblank 1");
/// assert_eq!(stage.newest(10_000_000), (33_333_334, false), "after it began: vblank 2");
/// assert_eq!(stage.newest(20_000_000), (33_333_334, true), "replaces the buffer waiting for repaint 2");
/// assert_eq!(stage.replaced(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompositorStage {
    compositor: Compositor,
    grid: VblankGrid,
    /// The repaint the newest committed buffer waits for (or was latched at).
    latest: Option<u64>,
    replaced: u64,
}

impl CompositorStage {
    /// `compositor` repainting for the vblanks of `grid`, nothing committed yet.
    pub fn new(compositor: Compositor, grid: VblankGrid) -> CompositorStage {
        CompositorStage { compositor, grid, latest: None, replaced: 0 }
    }

    /// The compositor.
    pub fn compositor(&self) -> Compositor {
        self.compositor
    }

    /// A buffer committed at `commit` with vsync on (FIFO): the compositor
    /// takes one present a repaint, so it gets the first repaint it makes
    /// after its predecessor's. Returns that repaint's vblank index.
    pub fn queue(&mut self, commit: Nanos) -> u64 {
        let mut k = self.compositor.repaint_for(&self.grid, commit);
        if let Some(last) = self.latest {
            k = k.max(last + 1);
        }
        self.latest = Some(k);
        k
    }

    /// A buffer committed at `commit` with vsync off (Mailbox, Immediate):
    /// the newest buffer before a repaint wins. Returns when it is shown and
    /// whether it replaced the buffer committed before it (which is then never shown).
    pub fn newest(&mut self, commit: Nanos) -> (Nanos, bool) {
        let k = self.compositor.repaint_for(&self.grid, commit);
        let replaces = self.latest == Some(k);
        self.replaced += u64::from(replaces);
        self.latest = Some(k);
        (self.compositor.shown_time(&self.grid, k), replaces)
    }

    /// When the repaint for vblank `k` begins.
    pub fn repaint_time(&self, k: u64) -> Nanos {
        self.compositor.repaint_time(&self.grid, k)
    }

    /// When what the repaint for vblank `k` latched is shown.
    pub fn shown_time(&self, k: u64) -> Nanos {
        self.compositor.shown_time(&self.grid, k)
    }

    /// Buffers replaced before they were shown, so far.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Rate;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const MS: Nanos = NANOS_PER_MS;

    fn weston_at_60() -> CompositorStage {
        CompositorStage::new(Compositor::new(7 * MS, 0), VblankGrid::new(Rate::from_hz(60), 0))
    }

    #[test]
    fn a_buffer_committed_just_before_the_repaint_begins_is_shown_at_that_vblank() {
        let mut stage = weston_at_60();
        assert_eq!(stage.repaint_time(1), 9_666_667, "16 666 667 − 7 000 000");
        let k = stage.queue(9_000_000);
        assert_eq!((k, stage.shown_time(k)), (1, 16_666_667), "7 666 667 ns after its commit");
        let mut exactly = weston_at_60();
        assert_eq!(exactly.queue(9_666_667), 1, "committed as the repaint begins: still latched");
    }

    #[test]
    fn a_buffer_committed_just_after_the_repaint_began_waits_a_whole_refresh_more() {
        let mut stage = weston_at_60();
        let k = stage.queue(10_000_000);
        assert_eq!((k, stage.shown_time(k)), (2, 33_333_334), "23 333 334 ns after its commit");
        let mut late_by_one = weston_at_60();
        assert_eq!(late_by_one.queue(9_666_668), 2, "1 ns after the repaint began");
        let delayed = Compositor::new(7 * MS, 1);
        let grid = VblankGrid::new(Rate::from_hz(60), 0);
        let before = delayed.repaint_for(&grid, 9_000_000);
        let after = delayed.repaint_for(&grid, 10_000_000);
        assert_eq!(
            (delayed.shown_time(&grid, before), delayed.shown_time(&grid, after)),
            (33_333_334, 50_000_000),
            "a delay of 1 shows each one vblank later"
        );
    }

    #[test]
    fn vsync_off_at_twice_the_refresh_shows_the_newest_buffer_once_a_refresh_and_replaces_the_others() {
        let mut stage = weston_at_60();
        let commits: Vec<Nanos> = (0..6).map(|n| 2_000_000 + n * 8_333_333).collect();
        assert_eq!(commits, [2_000_000, 10_333_333, 18_666_666, 26_999_999, 35_333_332, 43_666_665]);
        let fates: Vec<(Nanos, bool)> = commits.iter().map(|&c| stage.newest(c)).collect();
        assert_eq!(
            fates,
            [
                (16_666_667, false),
                (33_333_334, false),
                (33_333_334, true),
                (50_000_000, false),
                (50_000_000, true),
                (66_666_667, false),
            ],
            "repaints 1, 2, 2, 3, 3, 4: the third buffer replaces the second, the fifth the fourth"
        );
        assert_eq!(stage.replaced(), 2, "2 of 6 never shown");
        let latency: Vec<Nanos> = [0, 2, 4].iter().map(|&i| fates[i].0 - commits[i]).collect();
        assert_eq!(
            latency,
            [14_666_667, 14_666_668, 14_666_668],
            "commit to display of those that made the next repaint"
        );
    }

    #[test]
    fn with_fifo_each_frame_gets_its_own_repaint_after_its_predecessors() {
        let mut stage = weston_at_60();
        let ks: Vec<u64> = [2_000_000, 3_000_000, 4_000_000].iter().map(|&c| stage.queue(c)).collect();
        assert_eq!(ks, [1, 2, 3], "one queued present a repaint");
        assert_eq!(stage.replaced(), 0, "FIFO replaces nothing");
    }

    #[test]
    fn a_latch_of_zero_and_no_delay_shows_a_frame_at_the_vblank_a_direct_display_would() {
        let grid = VblankGrid::new(Rate::from_hz(144), 0);
        let zero = Compositor::new(0, 0);
        for t in [0, 1, 6_944_444, 6_944_445, 6_944_446, 20_000_000] {
            let k = zero.repaint_for(&grid, t);
            assert_eq!((k, zero.shown_time(&grid, k)), grid.first_at_or_after(t), "commit at {t}");
        }
    }

    #[test]
    fn compositions_parse_from_none_a_name_or_latch_and_delay() {
        assert_eq!(Composition::parse(" NONE "), Ok(Composition::Direct));
        assert_eq!(Composition::parse("7"), Ok(Composition::Composited(Compositor::new(7 * MS, 0))));
        assert_eq!(Composition::parse("0.5:2"), Ok(Composition::Composited(Compositor::new(500_000, 2))));
        let dwm = Composition::parse("dwm").expect("dwm").compositor().expect("composited");
        assert_eq!((dwm.latch, dwm.delay_refreshes), (0, 1));
        assert_eq!(dwm.to_string(), "dwm (latch 0 ms, delay 1)");
        assert_eq!(Compositor::new(4_500_000, 1).to_string(), "given (latch 4.5 ms, delay 1)");
    }

    #[test]
    fn bad_compositions_are_one_line_errors_saying_what_is_wrong() {
        let cases = [
            ("-1", "latch -1 ms is out of range: it must be 0–1000 ms"),
            ("1001", "latch 1001 ms is out of range"),
            ("NaN", "'NaN' is not a compositor"),
            ("inf", "'inf' is not a compositor"),
            ("7:9", "delay '9' is not a whole number of refreshes 0–8"),
            ("7:-1", "delay '-1' is not a whole number"),
            ("7:x", "delay 'x' is not a whole number"),
            ("7ms", "'7ms' is not a latch in ms"),
            ("gamescope", "'gamescope' is not a compositor (expected none, LATCH_MS[:DELAY] or one of: weston, dwm"),
            ("mutter", "mutter: Mutter computes its repaint time from measured render times"),
            ("windowserver", "windowserver: Apple publishes neither"),
        ];
        for (text, expected) in cases {
            let err = Composition::parse(text).expect_err(text);
            assert!(err.starts_with(expected), "{text}: '{err}' should start with '{expected}'");
            assert!(!err.contains('\n'), "{text}: one line");
        }
    }

    #[test]
    fn a_composition_round_trips_through_json_with_its_source() {
        let weston = Composition::parse("weston").expect("weston");
        let json = serde_json::to_string(&weston).expect("JSON");
        assert_eq!(json, r#"{"composited":{"latch":7000000,"delay_refreshes":0,"source":{"known":"weston"}}}"#);
        assert_eq!(serde_json::from_str::<Composition>(&json).ok(), Some(weston));
        assert_eq!(serde_json::to_string(&Composition::Direct).ok().as_deref(), Some(r#""direct""#));
    }

    #[test]
    fn every_known_compositor_names_its_source() {
        for known in KnownCompositor::ALL {
            assert_eq!(KnownCompositor::parse(&known.name().to_uppercase()), Some(known));
            assert!(!known.source().is_empty(), "{known}");
        }
    }
}
