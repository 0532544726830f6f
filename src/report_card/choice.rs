//! The best-strategy rule, picked only outside the noise: one rule for a
//! column's best, a card's best, the simulator's predicted pick and the ship
//! line (which feeds it each strategy's worst screen).
//!
//! Among candidates at the right speed (the caller keeps those,
//! [`super::judge::eligible`]), four steps each keep the candidates within
//! the noise of the step's leader; a step where none has the figure is
//! skipped, one where some lack it keeps those that have it:
//!
//! 1. **hitches per minute**, fewest: within the agreement's counting noise
//!    ([`super::judge::within`]: one hitch in the run, then 25 % joined in
//!    quadrature with 2·√n for the n hitches of the leader's rate in the
//!    candidate's length). Where the machine's own missed refreshes set a
//!    floor (the card's probe, before any strategy ran), the leader is
//!    never below the floor: hitches within noise of it are the machine's;
//! 2. **judder**, least: within [`super::judge::JUDDER_TIE_MS`] (a quarter
//!    pixel at 1000 px/s) or two standard errors of the difference, each an
//!    RMS over n frames, RMS/√(2n) (the RMS of n normal draws);
//! 3. **new pictures**, most, as a share of the refresh: within
//!    [`MISSING_SHARE`] of the most (the page's rule for a dropped refresh
//!    in ten). Steps 1 and 2 have kept only the steadiest, so a strategy that
//!    shows a new picture less often than one as steady loses here;
//! 4. **latency**, lowest: within two standard errors of the difference of
//!    two means over n frames, σ/√n, σ from the run's own spread
//!    ((p95 − mean) / 1.645, a normal tail).
//!
//! Those left tie; the **tie-breaker** is the lowest latency, then the
//! first in the caller's order, and the words say it is one.
//!
//! Worked example (the test `eleven_and_thirteen_hitches_in_three_seconds_tie`):
//! variable 11 hitches in 3 s (220/min), auto 13 (260/min). The leader's
//! count is 11: one hitch is 20/min, 25 % of 220 is 55, 2·√11 = 6.63
//! hitches = 132.7/min; 20 + √(55² + 132.7²) = 163.6, and 260 − 220 = 40
//! is inside it: a tie. 24 hitches (480/min) would not be (260 > 163.6).
//!
//! ```text
//! 240 Hz, 3 s, vsync on        hitches      judder   shown fps   latency
//! fixed-fps                    2 (40/min)   0.000     60.0       20.0
//! interpolated                 8 (161/min)  0.050    237.0       12.0
//!   step 1: leader 40/min, n = 2: 20 + √(10² + 56.6²) = 77.5; 161 − 40 = 121 > 77.5: fixed-fps alone
//!   → fixed-fps, and its line says what it gives up: a new picture every 4th refresh, 60 of 240
//!   with the machine's floor of 180/min (1.25 % of 240 Hz missed): both within noise of 180 (the
//!   machine's), judder 0.000 and 0.050 tie (< 0.25), shown 60 < 0.9 · 237: interpolated
//! ```

use super::keep_up::MISSING_SHARE;
use super::noise::{JUDDER_TIE_MS, Tolerance, within};

/// Standard errors between two figures' difference that still count as noise.
const NOISE_SIGMAS: f64 = 2.0;

/// A normal distribution's 95th percentile, in standard deviations: a
/// run's latency σ is (p95 − mean) / this.
const P95_SIGMAS: f64 = 1.645;

/// A figure and its own standard error (0 where unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Spread {
    /// The figure.
    pub(crate) value: f64,
    /// One standard error of it.
    pub(crate) error: f64,
}

impl Spread {
    /// An RMS over `frames` frames: its standard error is RMS/√(2n).
    pub(crate) fn rms(value: f64, frames: Option<u64>) -> Spread {
        let error = frames.filter(|&n| n > 0).map_or(0.0, |n| value / (2.0 * n as f64).sqrt());
        Spread { value, error }
    }

    /// A mean over `frames` frames whose 95th percentile is `p95`: σ/√n, σ = (p95 − mean)/1.645.
    pub(crate) fn mean(value: f64, p95: Option<f64>, frames: Option<u64>) -> Spread {
        let error = match (p95, frames) {
            (Some(p95), Some(n)) if n > 0 && p95 > value => (p95 - value) / P95_SIGMAS / (n as f64).sqrt(),
            _ => 0.0,
        };
        Spread { value, error }
    }

    /// Whether `self` lies below `other` beyond the noise: `other` is not within noise above it.
    pub(crate) fn below_beyond_noise(self, other: Spread, least: f64) -> bool {
        !other.within_above(self, least)
    }

    /// Whether `self` is within noise above `leader`: ≤ leader + max(`least`, 2·√(e₁² + e₂²)).
    fn within_above(self, leader: Spread, least: f64) -> bool {
        self.value <= leader.value + least.max(NOISE_SIGMAS * self.error.hypot(leader.error))
    }
}

/// What a candidate brings to the rule.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Candidate {
    /// Strategy id.
    pub(crate) name: String,
    /// Hitches per minute, and the tolerance of a count of its length (the agreement's).
    pub(crate) hitches: Option<(f64, Tolerance)>,
    /// Judder, ms.
    pub(crate) judder: Option<Spread>,
    /// New pictures as a share of the refreshes (0 to 1).
    pub(crate) shown: Option<f64>,
    /// Latency, ms.
    pub(crate) latency: Option<Spread>,
}

/// A step of the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Fewest hitches, within counting noise (or the machine's floor).
    Hitches,
    /// Least judder, within its noise.
    Judder,
    /// Most new pictures, within a dropped refresh in ten.
    Shown,
    /// Lowest latency, within its noise.
    Latency,
    /// Still tied: the lowest latency, then the first in order.
    TieBreaker,
}

/// What one step did: the candidates (indices) it kept and those it dropped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Outcome {
    /// The step.
    pub(crate) step: Step,
    /// Kept, the leader first.
    pub(crate) kept: Vec<usize>,
    /// Dropped.
    pub(crate) dropped: Vec<usize>,
}

/// The rule's answer: the pick and what each step did.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Choice {
    /// The pick (an index into the candidates).
    pub(crate) best: usize,
    /// Each step that ran, in order (the tie-breaker only where two or more were left).
    pub(crate) steps: Vec<Outcome>,
}

impl Choice {
    /// The step that dropped candidate `i`; `None` for the pick.
    pub(crate) fn dropped_at(&self, i: usize) -> Option<Step> {
        self.steps.iter().find(|o| o.dropped.contains(&i)).map(|o| o.step)
    }

    /// The candidates that tied on hitches (kept by step 1, two or more), the leader first.
    pub(crate) fn hitch_tie(&self) -> Option<&[usize]> {
        self.steps.iter().find(|o| o.step == Step::Hitches).map(|o| o.kept.as_slice()).filter(|k| k.len() > 1)
    }

    /// The candidates left for the tie-breaker (two or more), if it ran.
    pub(crate) fn tie_breaker(&self) -> Option<&Outcome> {
        self.steps.iter().find(|o| o.step == Step::TieBreaker)
    }

    /// Whether `i` is the pick or tied with it until the tie-breaker.
    pub(crate) fn ties_with_best(&self, i: usize) -> bool {
        i == self.best || self.tie_breaker().is_some_and(|o| o.kept.contains(&i) || o.dropped.contains(&i))
    }
}

/// One step over `set`: keeps those `keep(value, leader)` says; the leader is the least by `key`.
fn step<T: Copy>(
    set: Vec<usize>,
    step: Step,
    value: impl Fn(usize) -> Option<T>,
    leader: impl Fn(&[(usize, T)]) -> Option<(usize, T)>,
    keep: impl Fn(T, T) -> bool,
    steps: &mut Vec<Outcome>,
) -> Vec<usize> {
    let known: Vec<(usize, T)> = set.iter().filter_map(|&i| value(i).map(|v| (i, v))).collect();
    let Some((lead, lv)) = leader(&known) else { return set };
    let mut kept = vec![lead];
    kept.extend(known.iter().filter(|&&(i, v)| i != lead && keep(v, lv)).map(|&(i, _)| i));
    kept.sort_by_key(|i| (*i != lead, set.iter().position(|j| j == i)));
    let dropped: Vec<usize> = set.iter().copied().filter(|i| !kept.contains(i)).collect();
    steps.push(Outcome { step, kept: kept.clone(), dropped });
    kept
}

/// The least (or with `most`, the greatest) of `known` by `key`, the first on equal keys.
fn extreme<T: Copy>(known: &[(usize, T)], key: impl Fn(T) -> f64, most: bool) -> Option<(usize, T)> {
    known.iter().copied().reduce(|a, b| {
        let (ka, kb) = (key(a.1), key(b.1));
        if (most && kb > ka) || (!most && kb < ka) { b } else { a }
    })
}

/// The rule (module docs) over `candidates`, all at the right speed; `floor`
/// is the machine's own hitches per minute, where known. `None` without candidates.
pub(crate) fn choose(candidates: &[Candidate], floor: Option<f64>) -> Option<Choice> {
    if candidates.is_empty() {
        return None;
    }
    let mut steps = Vec::new();
    let c = candidates;
    let set: Vec<usize> = (0..c.len()).collect();
    let set = step(
        set,
        Step::Hitches,
        |i| c[i].hitches,
        |known| extreme(known, |h| h.0, false).map(|(i, (v, tol))| (i, (v.max(floor.unwrap_or(0.0)), tol))),
        |(v, tol), (lead, _)| v <= lead || within(v, lead, tol),
        &mut steps,
    );
    let set = step(
        set,
        Step::Judder,
        |i| c[i].judder,
        |known| extreme(known, |s| s.value, false),
        |v, lead| v.within_above(lead, JUDDER_TIE_MS),
        &mut steps,
    );
    let set = step(
        set,
        Step::Shown,
        |i| c[i].shown,
        |known| extreme(known, |s| s, true),
        |v, most| v >= MISSING_SHARE * most,
        &mut steps,
    );
    let set = step(
        set,
        Step::Latency,
        |i| c[i].latency,
        |known| extreme(known, |s| s.value, false),
        |v, lead| v.within_above(lead, 0.0),
        &mut steps,
    );
    let best = if set.len() > 1 {
        let by_latency = |i: &usize| c[*i].latency.map_or(f64::INFINITY, |l| l.value);
        let best =
            set.iter().copied().reduce(|a, b| if by_latency(&b) < by_latency(&a) { b } else { a }).unwrap_or(set[0]);
        let dropped = set.iter().copied().filter(|&i| i != best).collect();
        steps.push(Outcome { step: Step::TieBreaker, kept: vec![best], dropped });
        best
    } else {
        set[0]
    };
    Some(Choice { best, steps })
}

/// `2nd`, `3rd`, `4th`, `11th`, `21st`.
pub(crate) fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// How often a loop that shows `shown_fps` new pictures a second on a
/// screen of `refresh_hz` changes the picture, in words: `a new picture every
/// 4th refresh: 60 of 240`; `None` where it shows one every refresh (within
/// [`MISSING_SHARE`]) or a figure is unknown.
pub(crate) fn picture_rate_words(shown_fps: f64, refresh_hz: f64) -> Option<String> {
    if !(shown_fps.is_finite() && refresh_hz.is_finite() && shown_fps > 0.0 && refresh_hz > 0.0) {
        return None;
    }
    if shown_fps >= MISSING_SHARE * refresh_hz {
        return None;
    }
    let (shown, refresh) =
        (crate::report::trim_number(shown_fps.round(), 0), crate::report::trim_number(refresh_hz, 2));
    let every = refresh_hz / shown_fps;
    let n = every.round();
    if n >= 2.0 && (every - n).abs() <= 0.1 * n {
        Some(format!("a new picture every {} refresh: {shown} of {refresh}", ordinal(n as u64)))
    } else {
        Some(format!("a new picture on {shown} of {refresh} refreshes a second"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report_card::judge::HITCH_TOLERANCE;

    /// A candidate with `hitches` in a run of `seconds`, judder and latency without noise.
    fn cand(name: &str, hitches: f64, seconds: f64, judder: f64, shown: f64, latency: f64) -> Candidate {
        let minutes = seconds / 60.0;
        let per_min = hitches / minutes;
        let tol =
            Tolerance { abs: HITCH_TOLERANCE.abs.max(1.0 / minutes), counted_minutes: minutes, ..HITCH_TOLERANCE };
        Candidate {
            name: name.to_owned(),
            hitches: Some((per_min, tol)),
            judder: Some(Spread { value: judder, error: 0.0 }),
            shown: Some(shown),
            latency: Some(Spread { value: latency, error: 0.0 }),
        }
    }

    fn names(c: &[Candidate], choice: &Choice) -> String {
        c[choice.best].name.clone()
    }

    #[test]
    fn eleven_and_thirteen_hitches_in_three_seconds_tie() {
        // The module docs' example: 260 − 220 = 40 ≤ 163.6.
        let mut c = [cand("variable", 11.0, 3.0, 0.5, 1.0, 12.0), cand("auto", 13.0, 3.0, 0.5, 1.0, 13.0)];
        // Latency 12 and 13 ms, each known to ±1 ms: 2·√2 = 2.83 > 1, within noise too.
        for (c, l) in c.iter_mut().zip([12.0, 13.0]) {
            c.latency = Some(Spread { value: l, error: 1.0 });
        }
        let choice = choose(&c, None).expect("a pick");
        assert_eq!(choice.hitch_tie(), Some(&[0, 1][..]), "a tie on hitches");
        assert_eq!(choice.tie_breaker().map(|o| o.kept.clone()), Some(vec![0]), "latency 12 breaks it: a tie-breaker");
        assert!(choice.ties_with_best(1));
        // 24 hitches (480/min) are beyond it.
        let c = [cand("variable", 11.0, 3.0, 0.5, 1.0, 12.0), cand("auto", 24.0, 3.0, 0.5, 1.0, 10.0)];
        let choice = choose(&c, None).expect("a pick");
        assert_eq!((names(&c, &choice), choice.dropped_at(1)), ("variable".to_owned(), Some(Step::Hitches)));
    }

    #[test]
    fn fixed_fps_on_240_hertz_wins_on_hitches_alone_but_not_over_the_machines_floor() {
        // The module docs' 240 Hz card: 2 hitches in 3 s against 8; 161 − 40 = 121 > 77.5.
        let c = [
            cand("fixed-fps", 2.0, 3.0, 0.0, 60.0 / 240.0, 20.0),
            cand("interpolated", 8.0, 3.0, 0.05, 237.0 / 240.0, 12.0),
        ];
        let choice = choose(&c, None).expect("a pick");
        assert_eq!(names(&c, &choice), "fixed-fps");
        assert_eq!(
            picture_rate_words(60.0, 240.0).as_deref(),
            Some("a new picture every 4th refresh: 60 of 240"),
            "so its line says what it gives up"
        );
        // The machine missed 1.25 % of 240 refreshes: 180/min. Both are within noise of it.
        let choice = choose(&c, Some(180.0)).expect("a pick");
        assert_eq!(names(&c, &choice), "interpolated", "as steady, and a new picture every refresh");
        assert_eq!(choice.dropped_at(0), Some(Step::Shown));
    }

    #[test]
    fn judder_within_its_own_noise_ties() {
        // 0.9 and 1.3 ms RMS over 100 frames: errors 0.064 and 0.092, 2·√(sum of squares) = 0.224 < 0.4.
        let mut a = cand("a", 0.0, 3.0, 0.0, 1.0, 10.0);
        let mut b = cand("b", 0.0, 3.0, 0.0, 1.0, 9.0);
        (a.judder, b.judder) = (Some(Spread::rms(0.9, Some(100))), Some(Spread::rms(1.3, Some(100))));
        let c = [a.clone(), b.clone()];
        assert_eq!(choose(&c, None).map(|ch| ch.dropped_at(1)), Some(Some(Step::Judder)), "0.4 > 0.25 and 0.224");
        // Over 10 frames the errors are 0.201 and 0.291: 2·0.354 = 0.707 ≥ 0.4, a tie; b's latency wins.
        (a.judder, b.judder) = (Some(Spread::rms(0.9, Some(10))), Some(Spread::rms(1.3, Some(10))));
        let c = [a, b];
        assert_eq!(choose(&c, None).map(|ch| ch.best), Some(1));
    }

    #[test]
    fn latency_spread_is_the_runs_own() {
        // Mean 10, p95 13.29 over 100 frames: σ = 2, error 0.2; two such: 2·0.283 = 0.566.
        let s = Spread::mean(10.0, Some(10.0 + 2.0 * P95_SIGMAS), Some(100));
        assert!((s.error - 0.2).abs() < 1e-12, "{s:?}");
        let t = Spread { value: 10.5, ..s };
        assert!(t.within_above(s, 0.0) && !Spread { value: 10.6, ..s }.within_above(s, 0.0));
    }

    #[test]
    fn a_picture_rate_reads_as_every_nth_refresh_or_as_a_share() {
        assert_eq!(picture_rate_words(72.0, 144.0).as_deref(), Some("a new picture every 2nd refresh: 72 of 144"));
        assert_eq!(picture_rate_words(60.0, 144.0).as_deref(), Some("a new picture on 60 of 144 refreshes a second"));
        assert_eq!(picture_rate_words(140.0, 144.0), None, "every refresh, within a dropped one in ten");
        assert_eq!(ordinal(3), "3rd");
        assert_eq!(ordinal(12), "12th");
    }
}
