//! The vsync verdict: is vsync in effect, in one sentence a player can
//! read. The meter ([`super::RefreshMeter`]) measures the presents; this
//! file holds only the rules that judge its measurements (an emulated grid,
//! a mode without vsync, the compositor's word, a variable refresh, the
//! display's rate, a compositor's pacing, frames not paced, self-paced
//! frames), each one judge, asked in order.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;

use super::{CompositorWord, MIN_SAMPLES, MIN_SETTLE_SAMPLES, MIN_VSYNC_PERIOD, Measured, VrrSeen};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, nanos_to_ms};
use crate::vrr::VrrRange;

/// Median time in present above which a self-paced strategy's presents are
/// taken as blocked by the display: far above a present's own cost, far
/// below a refresh.
pub(crate) const MIN_BLOCKED: Nanos = 2_000_000;
/// Share of the interval a frame must spend blocked in acquire + present for
/// the display (not the CPU) to be what paces it.
pub(crate) const MIN_BLOCKED_SHARE: f64 = 0.2;
/// Largest relative spread (interquartile range / median) of a vsync-paced interval.
pub(crate) const MAX_SPREAD: f64 = 0.1;

/// The answer to "is vsync in effect?", with a sentence to show a player.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Verdict {
    /// `Some(true)`: frames are paced by a (real or emulated) refresh;
    /// `Some(false)`: they are not; `None`: cannot tell yet.
    pub vsync: Option<bool>,
    /// E.g. "Fifo requested, frames every 2.0 ms: vsync not in effect".
    pub text: String,
}

/// What the verdict knows of the display besides the meter's own
/// measurements: what the frames asked for and what the platform says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct VerdictFacts<'a> {
    /// Name of the present mode in effect (`Fifo`).
    pub mode: &'a str,
    /// Whether that mode asks for vsync.
    pub mode_is_vsync: bool,
    /// The emulated refresh, when one paces the presents.
    pub emulated: Option<Rate>,
    /// The emulated VRR gate, when `--emulate-refresh vrr:MIN-MAX` is on.
    pub emulated_vrr: Option<VrrRange>,
    /// The monitor's refresh as the platform reports it, in Hz.
    pub reported_hz: Option<f64>,
}

/// What the verdict is about: the display's facts and the meter's measurements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct VerdictInput<'a> {
    /// What the platform says and what the frames asked for.
    pub facts: VerdictFacts<'a>,
    /// The measurement, if there are enough samples.
    pub measured: Option<Measured>,
    /// Unpaced intervals seen (to explain a missing measurement).
    pub samples: usize,
    /// A second of presents has gone by: the verdict must not say "measuring" any more.
    pub settled: bool,
    /// Median time every recent present blocked (paced frames included).
    pub median_blocked: Option<Nanos>,
    /// What the intervals show of a variable refresh.
    pub vrr: Option<VrrSeen>,
    /// What the display's own feedback said, if it said anything.
    pub word: Option<CompositorWord>,
}

fn ordinal(n: u64) -> String {
    match n {
        1 => "every refresh".to_owned(),
        2 => "every 2nd refresh".to_owned(),
        3 => "every 3rd refresh".to_owned(),
        n => format!("every {n}th refresh"),
    }
}

/// One way of telling whether vsync is in effect: an answer when its
/// evidence is there, `None` to leave it to the next.
type Judge = fn(&VerdictInput<'_>) -> Option<Verdict>;

/// The judges in the order they are asked; the first that answers decides.
/// What is known by construction comes first (an emulated grid, a mode
/// without vsync), then what the presents show, strongest evidence first.
/// New evidence about the display (a compositor's own word, a variable
/// refresh) is one more judge in this list, placed by how much it is to
/// be trusted.
const JUDGES: [Judge; 9] = [
    emulated_grid,
    emulated_vrr_gate,
    vsync_not_asked,
    compositor_feedback,
    variable_refresh,
    at_display_rate,
    compositor_paced,
    not_paced,
    self_paced,
];

/// Decides whether vsync is in effect and says so in one sentence; where
/// the display's feedback did not decide, the sentence ends with what it said.
pub(crate) fn verdict(input: &VerdictInput<'_>) -> Verdict {
    let mut verdict = JUDGES.iter().find_map(|judge| judge(input)).unwrap_or_else(|| cannot_tell(input));
    if let Some(word) = input.word.filter(|w| w.samples >= MIN_SETTLE_SAMPLES)
        && let Some(interval) = word.interval
        && !verdict.text.contains(COMPOSITOR_SHOWED)
    {
        let refresh = word.refresh.map(|p| format!(", refresh {:.2} Hz", hz_of(p))).unwrap_or_default();
        verdict.text.push_str(&format!(
            "; {COMPOSITOR_SHOWED} every {:.1} ms ({} of {} on a vblank, {} discarded){refresh}",
            nanos_to_ms(interval),
            word.vsync,
            word.shown,
            word.discarded
        ));
    }
    verdict
}

/// How a verdict says what the display's feedback showed.
const COMPOSITOR_SHOWED: &str = "the compositor showed frames";

/// "frames every 16.7 ms (60.0 Hz)".
fn every(m: &Measured) -> String {
    format!("frames every {:.1} ms ({:.1} Hz)", nanos_to_ms(m.period), m.hz())
}

/// ", monitor reports 60.00 Hz".
fn reported(facts: &VerdictFacts<'_>) -> String {
    match facts.reported_hz {
        Some(hz) => format!(", monitor reports {hz:.2} Hz"),
        None => ", monitor reports no refresh rate".to_owned(),
    }
}

/// A share of the measured interval.
fn share(ns: Nanos, m: &Measured) -> f64 {
    ns as f64 / m.period.max(1) as f64
}

/// Presents block for a good part of a steady interval at a display's rate.
fn is_display_paced(m: &Measured) -> bool {
    m.period >= MIN_VSYNC_PERIOD
        && share(m.blocked.saturating_add(m.throttled), m) >= MIN_BLOCKED_SHARE
        && m.spread <= MAX_SPREAD
}

/// Frames wait for the compositor's go-ahead for a good part of the interval.
fn is_compositor_paced(m: &Measured) -> bool {
    m.period >= MIN_VSYNC_PERIOD && share(m.throttled, m) >= MIN_BLOCKED_SHARE
}

/// An emulated grid paces the frames by construction.
fn emulated_grid(input: &VerdictInput<'_>) -> Option<Verdict> {
    let VerdictFacts { mode, emulated, .. } = input.facts;
    let rate = emulated?;
    let text = match input.measured {
        Some(m) => format!("emulated {rate} vblank grid over {mode}: {}", every(&m)),
        None if input.settled => format!("emulated {rate} vblank grid over {mode} (the strategy paces frames itself)"),
        None => format!("emulated {rate} vblank grid over {mode}: measuring…"),
    };
    Some(Verdict { vsync: Some(true), text })
}

/// An emulated VRR gate shows frames when they come, by construction.
fn emulated_vrr_gate(input: &VerdictInput<'_>) -> Option<Verdict> {
    let VerdictFacts { mode, emulated_vrr, .. } = input.facts;
    let range = emulated_vrr?;
    let text = match (input.vrr, input.measured) {
        (Some(seen), _) => format!(
            "emulated {range} gate over {mode}: VRR in effect: frames shown when ready, seen {:.0}–{:.0} Hz",
            seen.min_hz, seen.max_hz
        ),
        (None, Some(m)) => format!("emulated {range} gate over {mode}: VRR in effect: {}", every(&m)),
        (None, None) if input.settled => {
            format!("emulated {range} gate over {mode}: VRR in effect (the strategy paces frames itself)")
        }
        (None, None) => format!("emulated {range} gate over {mode}: measuring…"),
    };
    Some(Verdict { vsync: Some(true), text })
}

/// A mode that does not ask for vsync gets none, whatever paces the frames.
fn vsync_not_asked(input: &VerdictInput<'_>) -> Option<Verdict> {
    let mode = input.facts.mode;
    if input.facts.mode_is_vsync {
        return None;
    }
    let text = match input.measured {
        Some(m) => format!("{mode} requested (no vsync): {}{}", every(&m), reported(&input.facts)),
        None => format!("{mode} requested (no vsync)"),
    };
    Some(Verdict { vsync: Some(false), text })
}

/// Under a vsync mode, intervals spread between bounds and off any one
/// grid, and presents that return promptly: a VRR panel shows each frame
/// when it comes (module docs). Presents that block or wait for a
/// compositor are paced by something else.
fn variable_refresh(input: &VerdictInput<'_>) -> Option<Verdict> {
    let seen = input.vrr?;
    let m = input.measured?;
    if share(m.blocked.saturating_add(m.throttled), &m) >= MIN_BLOCKED_SHARE {
        return None;
    }
    let mode = input.facts.mode;
    Some(Verdict {
        vsync: Some(true),
        text: format!(
            "{mode} requested{}: VRR in effect: frames shown when ready, seen {:.0}–{:.0} Hz",
            reported(&input.facts),
            seen.min_hz,
            seen.max_hz
        ),
    })
}

/// The display said when it showed each frame: its vsync flag, or its
/// refresh against the intervals it showed frames at, decide; an inference
/// from the presents' timing never overrules it. Says nothing (the judges
/// after it infer, and [`verdict`] adds what it showed) until
/// [`MIN_SETTLE_SAMPLES`] intervals were shown, or when frames came off
/// its refresh without a vsync flag.
fn compositor_feedback(input: &VerdictInput<'_>) -> Option<Verdict> {
    let word = input.word.filter(|w| w.samples >= MIN_SETTLE_SAMPLES)?;
    let interval = word.interval?;
    let mode = input.facts.mode;
    let on_vblank = 2 * word.vsync > word.shown;
    let discarded = match word.discarded {
        0 => String::new(),
        n => format!(", {n} discarded"),
    };
    let shown = format!(
        "{mode} requested, {COMPOSITOR_SHOWED} every {:.1} ms ({} of {} on a vblank{discarded})",
        nanos_to_ms(interval),
        word.vsync,
        word.shown
    );
    let refreshes = word.refresh.map(|period| (interval as f64 / period.max(1) as f64, period));
    let whole = refreshes.filter(|(r, _)| r.round() >= 1.0 && (r - r.round()).abs() <= 0.1 * r.round());
    let (vsync, text) = match (on_vblank, word.refresh, whole) {
        (true, Some(period), Some((r, _))) => {
            (true, format!("{shown}, refresh {:.2} Hz: vsync in effect, {}", hz_of(period), ordinal(r.round() as u64)))
        }
        (true, _, _) => (true, format!("{shown}: vsync in effect")),
        (false, Some(period), Some((r, _))) => (
            true,
            format!(
                "{shown}, refresh {:.2} Hz: paced by the compositor's repaint, {} (it reports no vblank sync)",
                hz_of(period),
                ordinal(r.round() as u64)
            ),
        ),
        // Shown off its refresh without a vblank sync (Weston's x11 backend
        // repaints when a commit comes): the compositor does not pace these
        // frames, its frame callbacks may; the presents' timing tells.
        (false, _, _) => return None,
    };
    Some(Verdict { vsync: Some(vsync), text })
}

/// A period's rate in Hz.
fn hz_of(period: Nanos) -> f64 {
    NANOS_PER_SEC as f64 / period.max(1) as f64
}

/// The compositor hands out frame callbacks at its own repaint rate: a busy
/// one repaints slower (and less evenly) than the monitor refreshes.
fn compositor_paced(input: &VerdictInput<'_>) -> Option<Verdict> {
    let m = input.measured.filter(is_compositor_paced)?;
    let mode = input.facts.mode;
    Some(Verdict {
        vsync: Some(true),
        text: format!(
            "{mode} requested, {}{}: vsync in effect, paced by the compositor \
             (each frame waits {:.1} ms for its go-ahead)",
            every(&m),
            reported(&input.facts),
            nanos_to_ms(m.throttled)
        ),
    })
}

/// Presents that neither block for long nor wait for a compositor: no vsync.
fn not_paced(input: &VerdictInput<'_>) -> Option<Verdict> {
    let m = input.measured.filter(|m| !is_display_paced(m))?;
    let mode = input.facts.mode;
    Some(Verdict {
        vsync: Some(false),
        text: format!("{mode} requested, frames every {:.1} ms: vsync not in effect", nanos_to_ms(m.period)),
    })
}

/// Paced, but at no rate that tells vsync from a steady renderer.
fn cannot_tell(input: &VerdictInput<'_>) -> Verdict {
    let mode = input.facts.mode;
    let every = input.measured.map(|m| every(&m)).unwrap_or_default();
    let reported = reported(&input.facts);
    match input.facts.reported_hz {
        Some(_) => Verdict {
            vsync: None,
            text: format!("{mode} requested, {every}{reported}: paced, but not at the monitor's rate"),
        },
        None => Verdict {
            vsync: None,
            text: format!("{mode} requested, {every}{reported}: paced by rendering or vsync, cannot tell"),
        },
    }
}

/// A display-paced interval that is a whole number of reported refreshes
/// (or, unreported, a very regular common display rate): vsync in effect.
fn at_display_rate(input: &VerdictInput<'_>) -> Option<Verdict> {
    let m = input.measured.filter(is_display_paced)?;
    let mode = input.facts.mode;
    let (every, reported) = (every(&m), reported(&input.facts));
    match input.facts.reported_hz {
        Some(hz) => {
            let refreshes = m.period as f64 * hz / NANOS_PER_SEC as f64;
            let n = refreshes.round();
            (n >= 1.0 && (refreshes - n).abs() <= 0.1 * n).then(|| Verdict {
                vsync: Some(true),
                text: format!("{mode} requested, {every}{reported}: vsync in effect, {}", ordinal(n as u64)),
            })
        }
        // Without a reported rate a slow software renderer also blocks the
        // present steadily; only a very regular interval at a rate displays
        // really use is taken as vsync.
        None => (m.spread <= MAX_SPREAD_UNREPORTED && is_common_display_rate(m.hz())).then(|| Verdict {
            vsync: Some(true),
            text: format!("{mode} requested, {every}, present blocks{reported}: vsync likely in effect"),
        }),
    }
}

/// Without a measured interval, a vsync mode is "measuring" for at most a
/// second, then judged from how long presents block.
fn self_paced(input: &VerdictInput<'_>) -> Option<Verdict> {
    if input.measured.is_some() {
        return None;
    }
    let mode = input.facts.mode;
    if !input.settled {
        let text = if input.samples == 0 && input.median_blocked.is_none() {
            format!("{mode} requested: waiting for frames…")
        } else {
            format!("{mode} requested: measuring… ({}/{MIN_SAMPLES} frames)", input.samples)
        };
        return Some(Verdict { vsync: None, text });
    }
    Some(match input.median_blocked {
        Some(blocked) if blocked >= MIN_BLOCKED => Verdict {
            vsync: Some(true),
            text: format!(
                "{mode} requested, the strategy paces frames itself and present blocks {:.1} ms: vsync likely in effect",
                nanos_to_ms(blocked)
            ),
        },
        _ => Verdict {
            vsync: None,
            text: format!(
                "{mode} requested, the strategy paces frames itself and present returns at once: cannot tell"
            ),
        },
    })
}

/// Largest relative spread of the interval accepted as vsync when the
/// monitor reports no rate (real vblanks are regular to a fraction of a millisecond).
pub(crate) const MAX_SPREAD_UNREPORTED: f64 = 0.03;

/// Refresh rates displays actually run at, in Hz.
const COMMON_RATES: [f64; 18] = [
    23.976, 24.0, 25.0, 29.97, 30.0, 48.0, 50.0, 59.94, 60.0, 72.0, 75.0, 85.0, 90.0, 100.0, 120.0, 144.0, 165.0, 240.0,
];

/// Whether `hz` is within 1 % of a rate displays use.
pub(crate) fn is_common_display_rate(hz: f64) -> bool {
    COMMON_RATES.iter().any(|r| (hz - r).abs() <= 0.01 * r)
}
