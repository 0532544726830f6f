//! [`Cell`]: one typed value of a report, as a table, CSV and JSON write it.
//! Beneath both the report's data types and the registry that reads them.

use serde::Serialize;

use super::table::{NOT_A_FIGURE, trim_number};

/// One value of a [`Field`](super::Field), typed for formatting: what a table or CSV
/// cell prints, what JSON writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    /// A name (`catch-up`, `glaiel`, a pattern).
    Text(&'a str),
    /// A rate for people: at most three decimals, trailing zeros dropped (`59.94`, `144`); `n/a` when undefined.
    Hz(f64),
    /// On, off, or unknown (`?` in a table, `null` in JSON).
    OnOff(Option<bool>),
    /// A whole number.
    Count(u64),
    /// A measured figure, printed with the field's decimals; `n/a` in a table or CSV when undefined.
    Real(f64),
    /// No value (a trace field the capture does not have): an empty cell, `null` in JSON.
    Missing,
}

impl Cell<'_> {
    /// The cell as a table or CSV prints it, `decimals` for a [`Cell::Real`].
    pub fn format(&self, decimals: usize) -> String {
        match *self {
            Cell::Text(text) => text.to_owned(),
            Cell::Hz(value) => trim_number(value, 3),
            Cell::OnOff(Some(true)) => "on".to_owned(),
            Cell::OnOff(Some(false)) => "off".to_owned(),
            Cell::OnOff(None) => "?".to_owned(),
            Cell::Count(n) => n.to_string(),
            Cell::Real(value) if !value.is_finite() => NOT_A_FIGURE.to_owned(),
            Cell::Real(value) => format!("{value:.decimals$}"),
            Cell::Missing => String::new(),
        }
    }

    /// The cell as a number (rates, counts, figures); `None` for names, flags and missing values.
    pub fn number(&self) -> Option<f64> {
        match *self {
            Cell::Hz(value) | Cell::Real(value) => Some(value),
            Cell::Count(n) => Some(n as f64),
            Cell::Text(_) | Cell::OnOff(_) | Cell::Missing => None,
        }
    }
}

impl Serialize for Cell<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Cell::Text(text) => serializer.serialize_str(text),
            Cell::Hz(value) | Cell::Real(value) => serializer.serialize_f64(value),
            Cell::OnOff(flag) => flag.serialize(serializer),
            Cell::Count(n) => serializer.serialize_u64(n),
            Cell::Missing => serializer.serialize_none(),
        }
    }
}
