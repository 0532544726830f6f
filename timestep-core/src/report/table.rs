//! The one aligned text table every printed report uses (the simulator's
//! run table, its sweep table), and the one number formatter of labels.
//!
//! ```text
//! let mut t = Table::new(["strategy", "hz"]).left(&[0]);     strategy     hz
//! t.push(["fuzzy", "59.94"]);                            ──►  fuzzy     59.94
//! ```

use std::fmt::Write as _;

/// An aligned text table: columns as wide as their widest cell, two spaces
/// apart, numbers right-aligned and the columns named by [`Table::left`]
/// left-aligned; no trailing spaces.
///
/// ```
/// use timestep_core::report::Table;
/// let mut table = Table::new(["strategy", "hz"]).left(&[0]);
/// table.push(["lockstep", "60"]);
/// table.push(["interpolated", "144"]);
/// assert_eq!(table.to_string(), "strategy       hz\nlockstep       60\ninterpolated  144\n");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    left: Vec<usize>,
}

impl Table {
    /// A table with this header row.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Table {
        Table { header: header.into_iter().map(Into::into).collect(), rows: Vec::new(), left: Vec::new() }
    }

    /// Left-aligns the columns at these indices (names; everything else is a number).
    #[must_use]
    pub fn left(mut self, columns: &[usize]) -> Table {
        self.left = columns.to_vec();
        self
    }

    /// Adds a row; missing cells are empty.
    pub fn push<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cell = |row: &[String], c: usize| row.get(c).map_or("", String::as_str).to_owned();
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                std::iter::once(&self.header).chain(&self.rows).map(|r| cell(r, c).chars().count()).max().unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (c, &w) in widths.iter().enumerate() {
                let text = cell(row, c);
                if self.left.contains(&c) {
                    let _ = write!(line, "{text:<w$}  ");
                } else {
                    let _ = write!(line, "{text:>w$}  ");
                }
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

/// `value` with at most `decimals` decimals and the trailing zeros after the
/// decimal point dropped: `59.94`, `144`, `16.67`. The one number formatter of
/// every label the reports, the app and its pages print.
///
/// A value that is not finite (an undefined figure: no frames, no time) is
/// [`NOT_A_FIGURE`], never `NaN` or `inf`.
pub fn trim_number(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return NOT_A_FIGURE.to_owned();
    }
    let text = format!("{value:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text }
}

/// What a table cell or a label shows for a figure that is undefined (no
/// frames, no time passed): never `NaN`, `inf` or an empty cell.
pub const NOT_A_FIGURE: &str = "n/a";

/// What a sentence says of a rate or a time that is not known (yet): a
/// screen whose refresh has not been measured, a page before its first frames.
pub const NOT_YET_MEASURED: &str = "not yet measured";

/// `59.94 Hz`, `144 Hz` (at most `decimals` decimals), or [`NOT_YET_MEASURED`]
/// for a rate that is unknown, not finite or not positive. The one way a
/// sentence or label says a rate.
pub fn hz_text(hz: Option<f64>, decimals: usize) -> String {
    match hz.filter(|hz| hz.is_finite() && *hz > 0.0) {
        Some(hz) => format!("{} Hz", trim_number(hz, decimals)),
        None => NOT_YET_MEASURED.to_owned(),
    }
}

/// `16.67 ms` (at most `decimals` decimals), or [`NOT_YET_MEASURED`] for a
/// time that is unknown or not finite. The one way a sentence or label says a time.
pub fn ms_text(ms: Option<f64>, decimals: usize) -> String {
    match ms.filter(|ms| ms.is_finite()) {
        Some(ms) => format!("{} ms", trim_number(ms, decimals)),
        None => NOT_YET_MEASURED.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn trim_number_drops_trailing_zeros_only_after_a_decimal_point() {
        assert_eq!(trim_number(16.6667, 2), "16.67");
        assert_eq!(trim_number(60.0, 2), "60");
        assert_eq!(trim_number(100.0, 0), "100");
        assert_eq!(trim_number(59.94006, 3), "59.94");
    }

    #[test]
    fn an_unknown_or_undefined_figure_never_reads_nan_inf_or_nothing() {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(trim_number(value, 2), "n/a", "{value} in a cell");
            assert_eq!(hz_text(Some(value), 2), "not yet measured", "{value} Hz in a sentence");
            assert_eq!(ms_text(Some(value), 2), "not yet measured", "{value} ms in a sentence");
        }
        assert_eq!(hz_text(None, 2), "not yet measured");
        assert_eq!(hz_text(Some(0.0), 2), "not yet measured", "a screen is never 0 Hz");
        assert_eq!(ms_text(None, 1), "not yet measured");
        assert_eq!(hz_text(Some(59.94006), 2), "59.94 Hz");
        assert_eq!(ms_text(Some(16.6667), 2), "16.67 ms");
    }

    #[test]
    fn a_table_aligns_names_left_and_numbers_right_without_trailing_spaces() {
        let mut table = Table::new(["strategy", "hz", "model"]).left(&[0, 2]);
        table.push(["fuzzy", "59.94", "glaiel"]);
        table.push(["catch-up", "144", "desktop"]);
        assert_eq!(table.to_string(), "strategy     hz  model\nfuzzy     59.94  glaiel\ncatch-up    144  desktop\n");
    }
}
