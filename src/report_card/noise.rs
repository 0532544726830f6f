//! The noise of a figure, beneath the agreement ([`super::judge`]) and the
//! choice of a best ([`super::choice`]): how far two figures may lie apart
//! and still count as one, with a count's own noise for events counted in a
//! run (2·√n for n expected, joined in quadrature).

/// Judder this close counts as equal, ms: a quarter pixel for an object
/// moving 1000 px/s, below what anyone sees.
pub(crate) const JUDDER_TIE_MS: f64 = 0.25;

/// How far a measurement may lie from its prediction and still agree: `abs + rel · |predicted|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tolerance {
    /// The absolute part, in the metric's unit.
    pub(crate) abs: f64,
    /// The relative part, a fraction of the prediction.
    pub(crate) rel: f64,
    /// For a rate of events counted over this many minutes (0: not a
    /// count), the count's own noise, two standard deviations of a Poisson
    /// count, 2·√(predicted events) as a rate, joins the relative part (the
    /// two are independent: their sum of squares).
    pub(crate) counted_minutes: f64,
}

/// Whether `measured` lies within `tol` of `predicted`.
pub(crate) fn within(measured: f64, predicted: f64, tol: Tolerance) -> bool {
    let noise = if tol.counted_minutes > 0.0 {
        2.0 * (predicted.max(0.0) * tol.counted_minutes).sqrt() / tol.counted_minutes
    } else {
        0.0
    };
    (measured - predicted).abs() <= tol.abs + (tol.rel * predicted.abs()).hypot(noise)
}
