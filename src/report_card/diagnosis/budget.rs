//! A budget for a game's CI: `--budget judder=2ms,hitches=5/min,latency=50ms`
//! checked against a diagnosis, one line per limit, and the same as JUnit XML
//! (one test case per limit; CI systems read that format).
//!
//! A figure the capture cannot give (no display times: judder unknown) breaks
//! its limit: a budget that cannot be checked does not pass.

use super::super::markup::escape;
use crate::report::registry::{Field, HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS};
use crate::report::trim_number;

/// A figure a budget can limit: the game's judder (ms RMS), hitches per
/// minute, and mean latency from CPU start to screen (ms), as the registry names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budgeted {
    Judder,
    Hitches,
    Latency,
}

impl Budgeted {
    const ALL: [Budgeted; 3] = [Budgeted::Judder, Budgeted::Hitches, Budgeted::Latency];

    fn field(self) -> &'static Field {
        match self {
            Budgeted::Judder => &JUDDER_MS,
            Budgeted::Hitches => &HITCHES_PER_MIN,
            Budgeted::Latency => &LATENCY_MS,
        }
    }

    /// The key a budget writes: the registry's words.
    fn key(self) -> String {
        self.field().words()
    }

    /// `judder=2ms`: an example limit, the unit as a budget writes it (no space).
    fn example(self, value: u32) -> String {
        format!("{}={value}{}", self.key(), self.field().unit)
    }

    /// `judder=2ms,hitches=5/min,latency=50ms`.
    fn examples() -> String {
        [Budgeted::Judder.example(2), Budgeted::Hitches.example(5), Budgeted::Latency.example(50)].join(",")
    }
}

/// One limit: a figure at most `max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limit {
    pub(crate) figure: Budgeted,
    pub(crate) max: f64,
}

impl Limit {
    /// `judder <= 2 ms`.
    pub(crate) fn name(&self) -> String {
        format!("{} <= {}", self.figure.key(), self.figure.field().with_unit(&trim_number(self.max, 3)))
    }
}

/// Parses `judder=2ms,hitches=5/min,latency=50ms` (each key at most once, any order).
///
/// # Errors
/// One line naming the part that is wrong.
pub(crate) fn parse(spec: &str) -> Result<Vec<Limit>, String> {
    let mut limits: Vec<Limit> = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| format!("'{part}': write a limit as KEY=VALUE ({})", Budgeted::Judder.example(2)))?;
        let key = key.trim().to_ascii_lowercase();
        let figure = Budgeted::ALL.into_iter().find(|f| f.key() == key).ok_or_else(|| {
            let keys = Budgeted::ALL.map(Budgeted::key).join(", ");
            format!("'{key}': not a budgeted figure ({keys})")
        })?;
        let unit = figure.field().unit;
        let number = value
            .trim()
            .strip_suffix(unit)
            .ok_or_else(|| format!("'{part}': {} takes {unit} ({})", figure.key(), figure.example(1)))?;
        let max: f64 = number
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("'{part}': '{}' is not a non-negative number", number.trim()))?;
        if limits.iter().any(|l| l.figure == figure) {
            return Err(format!("'{part}': {} is limited twice", figure.key()));
        }
        limits.push(Limit { figure, max });
    }
    if limits.is_empty() {
        return Err(format!("an empty budget: give at least one limit ({})", Budgeted::examples()));
    }
    Ok(limits)
}

/// A limit against the capture's figure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Check {
    pub(crate) limit: Limit,
    /// The figure; `None`: the capture cannot give it.
    pub(crate) value: Option<f64>,
}

impl Check {
    /// Within the limit (an unknown figure is not).
    pub(crate) fn passes(&self) -> bool {
        self.value.is_some_and(|v| v <= self.limit.max)
    }

    /// `judder 3.07 ms RMS: over the budget of 2 ms` (one line).
    pub(crate) fn line(&self) -> String {
        let limit = self.limit.name();
        match self.value {
            Some(v) if self.passes() => format!("{}: within {limit}", self.limit.figure.field().reading(v)),
            Some(v) => format!("{}: over the budget ({limit})", self.limit.figure.field().reading(v)),
            None => format!("{} unknown: this capture cannot check {limit}", self.limit.figure.key()),
        }
    }
}

/// Each limit against the figures (`None`: unknown).
pub(crate) fn check(
    limits: &[Limit],
    judder_ms: Option<f64>,
    hitches_per_min: Option<f64>,
    latency_ms: Option<f64>,
) -> Vec<Check> {
    limits
        .iter()
        .map(|&limit| Check {
            limit,
            value: match limit.figure {
                Budgeted::Judder => judder_ms,
                Budgeted::Hitches => hitches_per_min,
                Budgeted::Latency => latency_ms,
            },
        })
        .collect()
}

/// XML text: [`escape`] without the characters XML 1.0 forbids (controls other than tab, LF, CR).
fn xml(text: &str) -> String {
    escape(&text.chars().filter(|&c| c >= ' ' || matches!(c, '\t' | '\n' | '\r')).collect::<String>())
}

/// The checks as JUnit XML: a suite named after the capture, a test case per limit.
pub(crate) fn junit(capture: &str, checks: &[Check]) -> String {
    let failures = checks.iter().filter(|c| !c.passes()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"timestep-lab diagnose\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">\n",
        checks.len()
    ));
    out.push_str(&format!(
        "  <testsuite name=\"budget of {}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n",
        xml(capture),
        checks.len()
    ));
    for c in checks {
        out.push_str(&format!("    <testcase name=\"{}\" classname=\"diagnose.budget\"", xml(&c.limit.name())));
        if c.passes() {
            out.push_str(&format!(">\n      <system-out>{}</system-out>\n    </testcase>\n", xml(&c.line())));
        } else {
            out.push_str(&format!(
                ">\n      <failure message=\"{}\" type=\"budget\">{}</failure>\n    </testcase>\n",
                xml(&c.line()),
                xml(&c.line())
            ));
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_reads_each_figure_with_its_unit() {
        let limits = parse("judder=2ms, hitches=5/min,latency=50ms").expect("a budget");
        assert_eq!(
            limits,
            vec![
                Limit { figure: Budgeted::Judder, max: 2.0 },
                Limit { figure: Budgeted::Hitches, max: 5.0 },
                Limit { figure: Budgeted::Latency, max: 50.0 },
            ]
        );
        assert_eq!(limits[1].name(), "hitches <= 5/min");
    }

    #[test]
    fn a_wrong_budget_is_one_line_naming_the_part() {
        assert_eq!(parse("judder=2").unwrap_err(), "'judder=2': judder takes ms (judder=1ms)");
        assert_eq!(parse("stutter=2ms").unwrap_err(), "'stutter': not a budgeted figure (judder, hitches, latency)");
        assert_eq!(parse("hitches=-1/min").unwrap_err(), "'hitches=-1/min': '-1' is not a non-negative number");
        assert_eq!(parse("judder=1ms,judder=2ms").unwrap_err(), "'judder=2ms': judder is limited twice");
        assert!(parse("").is_err());
    }

    #[test]
    fn an_unknown_figure_breaks_its_limit_and_the_xml_names_the_figure_over_budget() {
        let limits = parse("judder=2ms,hitches=5/min,latency=50ms").expect("a budget");
        let checks = check(&limits, Some(3.07), Some(4.0), None);
        assert_eq!(checks.iter().map(Check::passes).collect::<Vec<_>>(), vec![false, true, false]);
        assert_eq!(checks[0].line(), "judder 3.070 ms: over the budget (judder <= 2 ms)");
        assert_eq!(checks[2].line(), "latency unknown: this capture cannot check latency <= 50 ms");
        let xml = junit("a<b>&\u{1}.csv", &checks);
        assert!(xml.contains("tests=\"3\" failures=\"2\""), "{xml}");
        assert!(xml.contains("<failure message=\"judder 3.070 ms: over the budget (judder &lt;= 2 ms)\""), "{xml}");
        assert!(xml.contains("budget of a&lt;b&gt;&amp;.csv"), "escaped, the control character left out: {xml}");
    }
}
