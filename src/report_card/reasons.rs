//! A reason in words for every pick of `compare`: why a column's best won,
//! why each other strategy missed, and which one strategy to ship for every
//! screen compared.
//!
//! The words come from one place each: figures by the registry's names,
//! units and decimals (through [`Metric`]); what a strategy does and costs
//! from its info (`StrategyInfo::summary`, what it does, and `StrategyInfo::trades`);
//! whether it keeps a fixed step from [`StrategyId::keeps_a_fixed_step`];
//! and the rule from [`judge`]. No output keeps its own copy.
//!
//! **Ship this.** Among the strategies that ran on every screen that
//! supports a verdict, at the right speed on each ([`judge::eligible`]),
//! take the fewest hitches per minute on its worst screen (ties within
//! [`judge::HITCH_TIE_PER_MIN`]), then the least judder on its worst screen
//! (ties within [`judge::JUDDER_TIE_MS`]), then the lowest worst latency. Its
//! weakest screen is the one with the most hitches (then judder). Where it
//! does not keep a fixed step, a second pick does (the same rule among
//! those that do).
//!
//! ```text
//!               60 Hz             144 Hz            phone 60 Hz        worst        pick
//!             h/min judder lat  h/min judder lat  h/min judder lat   h/min judder
//! variable      0   0.10  20     0   0.05  12     0   0.10  30        0    0.10   1st (least hitches, judder)
//! interpolated  0   0.20  30     0   0.30  25     2   0.20  40        2    0.30   2nd (keeps a fixed step)
//! catch-up      0   0.00  16    40   4.20  10     0   0.50  30       40    4.20
//! lockstep      0   0.00  15     — off speed at 144 Hz —             out
//! ```

use super::judge::{self, Metric};
use super::schema::RunRecord;
use crate::report::trim_number;
use crate::strategy::StrategyId;

/// `judder 0.120 ms`: a figure by its registry words, number and unit; `judder not measured` when unknown.
pub(crate) fn figure(metric: Metric, run: &RunRecord) -> String {
    let field = metric.field();
    match metric.value(run) {
        Some(v) => format!("{} {}", field.words(), field.with_unit(&field.number(v))),
        None => format!("{} not measured", field.words()),
    }
}

/// The three figures of a run: `hitches 0.00/min, judder 0.120 ms, latency 25.000 ms`.
fn figures(run: &RunRecord) -> String {
    [Metric::Hitches, Metric::Judder, Metric::Latency].map(|m| figure(m, run)).join(", ")
}

/// What the strategy does and costs, from its info; the id where it is not one of ours.
pub(crate) fn known_for(strategy: &str) -> Option<&'static str> {
    StrategyId::parse(strategy).ok().map(|id| id.info().summary)
}

/// What the strategy trades away, from its info.
pub(crate) fn cost(strategy: &str) -> Option<&'static str> {
    StrategyId::parse(strategy).ok().map(|id| id.info().trades)
}

/// `60 ticks on 144 refreshes: 0 or 1 updates a refresh`, from the run's pattern, when it varies.
fn pattern_words(run: &RunRecord) -> Option<String> {
    let pattern = run.pattern.as_deref()?;
    let mut digits: Vec<char> = pattern.chars().filter(char::is_ascii_digit).collect();
    digits.sort_unstable();
    digits.dedup();
    if digits.len() < 2 {
        return None;
    }
    let counts: Vec<String> = digits.iter().map(char::to_string).collect();
    let (last, first) = counts.split_last()?;
    let on = match (run.tick_rate, run.refresh_hz) {
        (Some(t), Some(r)) => format!("{} ticks on {} refreshes: ", trim_number(t, 2), trim_number(r, 2)),
        _ => String::new(),
    };
    Some(format!("{on}{} or {last} updates a refresh", first.join(", ")))
}

/// Why `best` is the column's best: its figures, its pattern where it varies, what it is known to do.
pub(crate) fn best_reason(best: &RunRecord) -> String {
    let mut parts = vec![figures(best)];
    parts.extend(pattern_words(best));
    parts.extend(known_for(&best.strategy).map(str::to_owned));
    parts.join("; ")
}

/// Why `run` is not the column's best (`best`), by the first step of the rule it fails.
pub(crate) fn miss_reason(run: &RunRecord, best: &RunRecord, max_drift: f64) -> String {
    let step = if !judge::eligible(run, max_drift) {
        match run.drift_ms_per_min() {
            Some(d) => {
                let drift = &crate::report::registry::DRIFT_MS_PER_MIN;
                let (words, shown) = (drift.words(), drift.with_unit(&trim_number(d, 1)));
                format!("off speed: {words} {shown} (|{words}| > {})", drift.with_unit(&trim_number(max_drift, 3)))
            }
            None => "its speed was not measured".to_owned(),
        }
    } else {
        let worse = |metric: Metric, tie: f64| match (metric.value(run), metric.value(best)) {
            (Some(a), Some(b)) if a > b + tie => {
                Some(format!("{} against {}", figure(metric, run), metric.format(Some(b))))
            }
            (None, Some(_)) => Some(figure(metric, run)),
            _ => None,
        };
        worse(Metric::Hitches, judge::HITCH_TIE_PER_MIN)
            .map(|w| format!("more hitches: {w}"))
            .or_else(|| worse(Metric::Judder, judge::JUDDER_TIE_MS).map(|w| format!("more judder: {w}")))
            .or_else(|| worse(Metric::Latency, 0.0).map(|w| format!("later: {w}")))
            .unwrap_or_else(|| "equal figures; the first in key order is named".to_owned())
    };
    let mut parts = vec![step];
    parts.extend(pattern_words(run));
    parts.extend(cost(&run.strategy).map(str::to_owned));
    parts.join("; ")
}

/// One screen's runs for the ship rule: its label and runs.
pub(crate) struct Screen<'a> {
    /// The column's label.
    pub(crate) label: &'a str,
    /// Its runs (one pass).
    pub(crate) runs: &'a [RunRecord],
}

/// A strategy's worst figures over the screens, and the screen where it is weakest.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Standing {
    /// Strategy id.
    pub(crate) strategy: String,
    /// Worst hitches per minute, judder and latency over the screens (unknown counts as none known).
    pub(crate) worst: [Option<f64>; 3],
    /// The screen with the most hitches, then judder.
    pub(crate) weakest: String,
}

/// The standing of every strategy that ran at the right speed on every screen, in `order`.
fn standings(order: &[String], screens: &[Screen<'_>], max_drift: f64) -> Vec<Standing> {
    let mut out = Vec::new();
    'strategy: for strategy in order {
        let mut worst = [None::<f64>; 3];
        let mut weakest: Option<(&str, f64, f64)> = None;
        for screen in screens {
            let Some(run) = screen.runs.iter().find(|r| &r.strategy == strategy) else { continue 'strategy };
            if !judge::eligible(run, max_drift) {
                continue 'strategy;
            }
            for (w, m) in worst.iter_mut().zip([Metric::Hitches, Metric::Judder, Metric::Latency]) {
                if let Some(v) = m.value(run) {
                    *w = Some(w.map_or(v, |x: f64| x.max(v)));
                }
            }
            let key = (Metric::Hitches.value(run).unwrap_or(0.0), Metric::Judder.value(run).unwrap_or(0.0));
            if weakest.is_none_or(|(_, h, j)| key.0 > h || (key.0 == h && key.1 > j)) {
                weakest = Some((screen.label, key.0, key.1));
            }
        }
        if let Some((label, _, _)) = weakest {
            out.push(Standing { strategy: strategy.clone(), worst, weakest: label.to_owned() });
        }
    }
    out
}

/// The ship rule's pick among `standings` (module docs), the first in order on a tie.
fn pick(standings: &[Standing]) -> Option<&Standing> {
    fn keep(c: Vec<&Standing>, k: usize, tie: f64) -> Vec<&Standing> {
        let Some(low) = c.iter().filter_map(|s| s.worst[k]).reduce(f64::min) else { return c };
        c.into_iter().filter(|s| s.worst[k].is_some_and(|v| v <= low + tie)).collect()
    }
    let c = keep(standings.iter().collect(), 0, judge::HITCH_TIE_PER_MIN);
    let c = keep(c, 1, judge::JUDDER_TIE_MS);
    keep(c, 2, 0.0).into_iter().next()
}

fn keeps_a_fixed_step(strategy: &str) -> bool {
    StrategyId::parse(strategy).is_ok_and(StrategyId::keeps_a_fixed_step)
}

/// `all 3 screens`, `the one screen`, `the 1 of 3 screens that support a verdict`.
fn screens_words(judged: usize, compared: usize) -> String {
    match (judged, compared) {
        (1, 1) => "the one screen".to_owned(),
        (j, c) if j == c => format!("all {j} screens"),
        (j, c) => format!("the {j} of {c} screens that support a verdict"),
    }
}

/// `ship this: …` over `screens` (those of `compared` columns that support a
/// verdict) and, where the pick does not keep a fixed step, a second line.
pub(crate) fn ship_lines(order: &[String], screens: &[Screen<'_>], compared: usize, max_drift: f64) -> Vec<String> {
    if screens.is_empty() {
        return vec!["ship this: no pick: no screen's card supports a verdict".to_owned()];
    }
    let all = standings(order, screens, max_drift);
    let Some(first) = pick(&all) else {
        return vec![format!(
            "ship this: no pick: no strategy ran at the right speed on {}",
            screens_words(screens.len(), compared)
        )];
    };
    let worst = |s: &Standing| {
        let [h, j, l] = s.worst;
        let f = |m: Metric, v: Option<f64>| {
            let field = m.field();
            v.map_or_else(
                || format!("{} not measured", field.words()),
                |v| format!("{} {}", field.words(), field.with_unit(&field.number(v))),
            )
        };
        format!("worst {}, {}, {}", f(Metric::Hitches, h), f(Metric::Judder, j), f(Metric::Latency, l))
    };
    let line = |label: &str, s: &Standing| {
        format!(
            "{label} {}: holds up on {} ({}); trades away: {}; weakest on {}",
            s.strategy,
            screens_words(screens.len(), compared),
            worst(s),
            cost(&s.strategy).unwrap_or("not known"),
            s.weakest
        )
    };
    let mut lines = vec![line("ship this:", first)];
    if !keeps_a_fixed_step(&first.strategy) {
        let fixed: Vec<Standing> = all.iter().filter(|s| keeps_a_fixed_step(&s.strategy)).cloned().collect();
        match pick(&fixed) {
            Some(second) => lines.push(line("with a fixed step:", second)),
            None => lines.push("with a fixed step: none held up on every screen".to_owned()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::registry::{HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS, SPEED_RATIO};

    fn run(strategy: &str, hitches: f64, judder: f64, latency: f64) -> RunRecord {
        RunRecord { strategy: strategy.to_owned(), ..RunRecord::default() }
            .with(&SPEED_RATIO, 1.0)
            .with(&HITCHES_PER_MIN, hitches)
            .with(&JUDDER_MS, judder)
            .with(&LATENCY_MS, latency)
    }

    fn off_speed(strategy: &str) -> RunRecord {
        run(strategy, 0.0, 0.0, 15.0).with(&SPEED_RATIO, 2.4)
    }

    /// The module docs' table, worked by hand: variable's worst screen has
    /// 0 hitches and 0.10 ms judder, interpolated's 2 and 0.30, catch-up's 40;
    /// lockstep is off speed at 144 Hz. Variable first (0 hitches), weakest on
    /// the phone (0 hitches, judder 0.10 ties 60 Hz; the first such screen in
    /// order is 60 Hz). Variable does not keep a fixed step: interpolated is
    /// second (2 hitches beat catch-up's 40).
    #[test]
    fn the_worked_example_ships_variable_and_interpolated_with_a_fixed_step() {
        // Per screen: (hitches/min, judder ms, latency ms) of lockstep, variable, catch-up, interpolated.
        let screen = |figures: [(f64, f64, f64); 4]| {
            let names = ["lockstep", "variable", "catch-up", "interpolated"];
            names.into_iter().zip(figures).map(|(n, (h, j, l))| run(n, h, j, l)).collect::<Vec<_>>()
        };
        let a = screen([(0.0, 0.0, 15.0), (0.0, 0.10, 20.0), (0.0, 0.0, 16.0), (0.0, 0.20, 30.0)]);
        let mut b = screen([(0.0, 0.0, 15.0), (0.0, 0.05, 12.0), (40.0, 4.2, 10.0), (0.0, 0.30, 25.0)]);
        b[0] = off_speed("lockstep");
        let c = screen([(0.0, 0.0, 15.0), (0.0, 0.10, 30.0), (0.0, 0.5, 30.0), (2.0, 0.20, 40.0)]);
        let screens = [
            Screen { label: "60 Hz", runs: &a },
            Screen { label: "144 Hz", runs: &b },
            Screen { label: "phone 60 Hz", runs: &c },
        ];
        let order: Vec<String> = ["lockstep", "variable", "catch-up", "interpolated"].map(str::to_owned).to_vec();
        let all = standings(&order, &screens, 120.0);
        let names: Vec<&str> = all.iter().map(|s| s.strategy.as_str()).collect();
        assert_eq!(names, ["variable", "catch-up", "interpolated"], "lockstep is off speed at 144 Hz");
        assert_eq!(all[0].worst, [Some(0.0), Some(0.10), Some(30.0)]);
        assert_eq!(all[2].weakest, "phone 60 Hz", "interpolated's 2 hitches are on the phone");
        let lines = ship_lines(&order, &screens, 3, 120.0);
        assert_eq!(
            lines,
            [
                "ship this: variable: holds up on all 3 screens (worst hitches 0.00/min, judder 0.100 ms, latency \
                 30.000 ms); trades away: a fixed step: physics and replays change with the frame rate; weakest on 60 Hz",
                "with a fixed step: interpolated: holds up on all 3 screens (worst hitches 2.00/min, judder 0.300 ms, \
                 latency 40.000 ms); trades away: one tick of latency; weakest on phone 60 Hz",
            ]
        );
    }

    #[test]
    fn a_miss_says_which_step_of_the_rule_it_failed_and_what_the_strategy_costs() {
        let best = run("interpolated", 0.0, 0.2, 30.0);
        assert_eq!(
            miss_reason(&run("catch-up", 40.0, 4.2, 10.0), &best, 120.0),
            "more hitches: hitches 40.00/min against 0.00; smooth motion where refresh and tick differ: 0/2-update frames \
             stutter"
        );
        assert!(miss_reason(&off_speed("lockstep"), &best, 120.0).starts_with("off speed: drift 84000 ms/min"));
        let mut patterned = run("catch-up", 0.0, 1.2, 10.0);
        (patterned.pattern, patterned.tick_rate, patterned.refresh_hz) =
            (Some("0101101".to_owned()), Some(60.0), Some(144.0));
        assert_eq!(
            miss_reason(&patterned, &best, 120.0),
            "more judder: judder 1.200 ms against 0.200; 60 ticks on 144 refreshes: 0 or 1 updates a refresh; smooth \
             motion where refresh and tick differ: 0/2-update frames stutter"
        );
    }
}
