//! A diagnosis card: what `timestep-lab diagnose` found in a game's capture,
//! as `diagnosis.json` and a self-contained `diagnosis.html` (plots of the
//! animation error, display times and frame times over the capture).
//!
//! The JSON's `strategies` are the capture's frame times replayed through
//! the ten strategies (simulator runs, as `simulate --format json` writes
//! them), so `compare` and the page read a diagnosis card as those runs,
//! beside screen cards ([`super::comparison::parse_source`]).

pub(crate) mod budget;
pub(crate) mod facts;
pub(crate) mod generation;
pub(crate) mod reported;
pub(crate) mod verdict;

use super::html::page;
use super::markup::escape;
use super::plots::{INK, MEASURED, REFERENCE};
use super::schema::RunRecord;
use crate::report::trim_number;
use crate::run_chart::PlotError;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

/// The `schema` of a diagnosis card.
pub const DIAGNOSIS_SCHEMA: &str = "timestep-lab/diagnosis";

/// The version this build writes and reads.
pub const DIAGNOSIS_VERSION: u32 = 1;

/// One figure: its name, its reading in words, and its value where it is a number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// `judder`, `display pattern`, …
    pub name: String,
    /// The reading, in words (`3.40 ms RMS`).
    pub reading: String,
    /// The value, where the figure is one number.
    pub value: Option<f64>,
}

/// Per-frame series over the capture (one entry per row of the swap chain; `null`: no value).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The file's line of each row.
    pub line: Vec<u64>,
    /// The present interval, ms.
    pub frame_time_ms: Vec<Option<f64>>,
    /// DisplayedTime, ms.
    pub displayed_time_ms: Vec<Option<f64>>,
    /// AnimationError, ms.
    pub animation_error_ms: Vec<Option<f64>>,
}

/// What `diagnose` found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiagnosisCard {
    /// [`DIAGNOSIS_SCHEMA`].
    pub schema: String,
    /// [`DIAGNOSIS_VERSION`].
    pub version: u32,
    /// The capture file as given.
    pub capture: String,
    /// Its layout, in words.
    pub layout: String,
    /// The swap chain diagnosed.
    pub swap_chain: String,
    /// The refresh grid, Hz.
    pub refresh_hz: Option<f64>,
    /// The figures, in the order printed.
    pub figures: Vec<Figure>,
    /// The verdict: one finding a line, with its evidence.
    pub verdict: Vec<String>,
    /// What the capture cannot tell.
    pub cannot_tell: Vec<String>,
    /// The fix, in words.
    pub fix: Vec<String>,
    /// The capture's frame times through the ten strategies.
    pub strategies: Vec<RunRecord>,
    /// The series plotted.
    pub series: Series,
}

impl DiagnosisCard {
    /// The card as pretty JSON with a final newline.
    ///
    /// # Errors
    /// Only if serde fails.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }

    /// The card as a self-contained page.
    ///
    /// # Errors
    /// Only if plotters fails to draw.
    pub fn to_html(&self) -> Result<String, PlotError> {
        let mut body = format!(
            "<h1>Diagnosis of {}</h1>\n<p>{} · {}</p>\n",
            escape(&self.swap_chain),
            escape(&self.capture),
            escape(&self.layout)
        );
        body.push_str("<h2>Figures</h2>\n<table>\n");
        for f in &self.figures {
            body.push_str(&format!("<tr><th>{}</th><td>{}</td></tr>\n", escape(&f.name), escape(&f.reading)));
        }
        body.push_str("</table>\n");
        for (title, lines) in
            [("Verdict", &self.verdict), ("What the capture cannot tell", &self.cannot_tell), ("The fix", &self.fix)]
        {
            body.push_str(&format!("<h2>{title}</h2>\n<ul>\n"));
            for line in lines {
                body.push_str(&format!("<li>{}</li>\n", escape(line)));
            }
            body.push_str("</ul>\n");
        }
        let period = self.refresh_hz.filter(|hz| *hz > 0.0).map(|hz| 1000.0 / hz);
        body.push_str("<h2>Over the capture</h2>\n");
        let s = &self.series;
        for (values, axis, reference) in [
            (&s.animation_error_ms, "animation error (ms)", Some(0.0)),
            (&s.displayed_time_ms, "displayed time (ms)", period),
            (&s.frame_time_ms, "frame time (ms)", period),
        ] {
            body.push_str(&series_svg(&s.line, values, axis, reference)?);
        }
        Ok(page(&format!("Diagnosis: {}", self.swap_chain), &body))
    }
}

/// A value per row against its line, with a reference line (0, or the refresh period).
fn series_svg(lines: &[u64], values: &[Option<f64>], axis: &str, reference: Option<f64>) -> Result<String, PlotError> {
    let err = |e: &dyn std::fmt::Display| PlotError::Draw(e.to_string());
    let points: Vec<(f64, f64)> =
        lines.iter().zip(values).filter_map(|(&l, v)| v.filter(|v| v.is_finite()).map(|v| (l as f64, v))).collect();
    let (x0, x1) = (lines.first().copied().unwrap_or(0) as f64, lines.last().copied().unwrap_or(1) as f64);
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let lo = points.iter().map(|p| p.1).chain(reference).fold(0.0, f64::min);
    let hi = points.iter().map(|p| p.1).chain(reference).fold(1.0, f64::max);
    let pad = (hi - lo) * 0.05;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (1060, 240)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(x0..x1, (lo - pad)..(hi + pad))
            .map_err(|e| err(&e))?;
        let fmt_x = |v: &f64| format!("{v:.0}");
        let fmt_y = |v: &f64| trim_number(*v, 1);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(12)
            .y_labels(6)
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .x_desc("line of the capture")
            .y_desc(axis)
            .label_style(("sans-serif", 12).into_font().color(&INK))
            .axis_desc_style(("sans-serif", 12).into_font().color(&INK))
            .draw()
            .map_err(|e| err(&e))?;
        if let Some(r) = reference {
            chart
                .draw_series(std::iter::once(PathElement::new([(x0, r), (x1, r)], REFERENCE.stroke_width(1))))
                .map_err(|e| err(&e))?;
        }
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 1, MEASURED.filled()))).map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    let start = buf.find("<svg").unwrap_or(0);
    Ok(format!("<figure role=\"img\" aria-label=\"{}\">{}</figure>\n", escape(axis), &buf[start..]))
}
