//! `simulate --trace`: reading a capture, and the display it is replayed on
//! (its measured refresh and its vsync win over the flags that contradict them).

use std::path::Path;

use super::Vsync;
use crate::error::CliError;
use crate::monitor::{
    Composition, KnownCompositor, Model, NOMINAL_TOLERANCE, Trace, TraceDisplay, TraceOptions, read_trace,
};
use crate::report::trim_number;
use crate::vrr::Refresh;

fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// Reads `--trace` (with `--trace-app`).
///
/// # Errors
/// [`CliError::Usage`]: `--trace FILE: ` and the reader's one-line error.
pub(super) fn load_trace(path: &Path, app: Option<String>) -> Result<Trace, CliError> {
    let options = app.map_or_else(TraceOptions::default, |app| TraceOptions::default().with_app(app));
    read_trace(path, &options).map_err(|e| usage(format!("--trace {}: {e}", path.display())))
}

/// The refreshes and vsync a trace is replayed at, and the notices to print.
///
/// A capture with display-change times was shown at a refresh it measures:
/// that is the default, and a `--refresh` more than 1 % away from it is
/// refused (its display changes would land on the wrong grid). A capture
/// that fixes vsync (synced or tearing) refuses the other `--vsync`: the
/// display times come from the capture, and the report must not say otherwise.
///
/// # Errors
/// [`CliError::Usage`] naming the flag the capture contradicts.
pub(super) fn trace_display(
    trace: &Trace,
    given_refresh: Option<&[Refresh]>,
    given_vsync: Option<Vsync>,
    model: &Model,
) -> Result<(Vec<Refresh>, bool, Vec<String>), CliError> {
    let mut notices: Vec<String> = trace.selection_notice().into_iter().collect();
    notices.push(trace.display_notice());
    let refreshes = match (given_refresh, trace.refresh()) {
        (None, Some(measured)) => vec![Refresh::Fixed(measured)],
        (Some(given), Some(measured)) => {
            if let Some(vrr) = given.iter().find_map(Refresh::vrr) {
                return Err(usage(format!(
                    "--refresh {vrr}: the capture was shown on a fixed {:.3} Hz grid (measured from its display \
                     changes); replay a plain list of frame times on a VRR display instead",
                    measured.hz()
                )));
            }
            let far =
                given.iter().map(Refresh::rate).find(|r| (r.hz() / measured.hz() - 1.0).abs() > NOMINAL_TOLERANCE);
            if let Some(far) = far {
                return Err(usage(format!(
                    "--refresh {}: the capture was shown at {:.3} Hz (measured from its display changes); leave \
                     --refresh out to replay at that rate, or give one within 1 % of it",
                    trim_number(far.hz(), 3),
                    measured.hz()
                )));
            }
            given.to_vec()
        }
        (Some(given), None) => given.to_vec(),
        (None, None) => {
            if trace.display() == TraceDisplay::Tearing {
                notices.push(format!(
                    "the capture's display changes follow its frame rate: refreshes are counted at {} Hz (set \
                     --refresh to the display's rate)",
                    trim_number(model.default_refresh.hz(), 3)
                ));
            }
            vec![Refresh::Fixed(model.default_refresh)]
        }
    };
    let vsync = match (given_vsync, trace.vsync()) {
        (Some(given), Some(fixed)) if (given == Vsync::On) != fixed => {
            let (flag, was) = if fixed { ("off", "were v-synced") } else { ("on", "tore (vsync off)") };
            return Err(usage(format!(
                "--vsync {flag}: the capture's frames {was} and are shown as captured; leave --vsync out"
            )));
        }
        (_, Some(fixed)) => fixed,
        (Some(given), None) => given == Vsync::On,
        (None, None) => model.default_vsync,
    };
    Ok((refreshes, vsync, notices))
}

/// The compositor a trace is replayed through, and the notice that says so.
///
/// A capture whose frames DWM composed (PresentMon's `PresentMode`
/// "Composed: Flip") goes through the compositor stage, `dwm` unless
/// `--compositor` names another (or `none`); a capture that tore was scanned
/// out directly and refuses one.
///
/// # Errors
/// [`CliError::Usage`]: a compositor given for a capture that tore.
pub(super) fn trace_composition(
    trace: &Trace,
    given: Option<Composition>,
) -> Result<(Composition, Option<String>), CliError> {
    if trace.display() == TraceDisplay::Tearing && given.is_some_and(|c| c != Composition::Direct) {
        return Err(usage(
            "--compositor: the capture's frames tore, so no compositor showed them (scanned out directly); leave \
             --compositor out",
        ));
    }
    if !trace.composed() {
        return Ok((given.unwrap_or_default(), None));
    }
    let composition = match given {
        Some(given) => given,
        None => KnownCompositor::Dwm.compositor().map_or(Composition::Direct, Composition::Composited),
    };
    let notice = match composition {
        Composition::Direct => "the capture's frames were composed (PresentMode \"Composed: …\"), replayed without \
                                a compositor as --compositor none asks"
            .to_owned(),
        Composition::Composited(c) => format!(
            "the capture's frames were composed (PresentMode \"Composed: …\"): the replay goes through the \
             compositor stage, {c}{}",
            if given.is_none() { " (--compositor to choose another, none for direct scanout)" } else { "" }
        ),
    };
    Ok((composition, Some(notice)))
}
