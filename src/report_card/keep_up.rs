//! Whether a loop keeps up with the screen's refresh: one rule for a page
//! (its probe's frames against the screen's refresh) and a window (its
//! probe's missed share), beneath the card's schema, its setup and the
//! evidence a comparison rests on (see [`super::evidence`] for the threshold).

/// A page that draws less than this share of the screen's refreshes is said
/// to miss them ([`super::evidence`]'s docs).
pub const MISSING_SHARE: f64 = 0.9;

/// Whether a loop that drew `drawn_share` of the screen's refreshes keeps up:
/// at least [`MISSING_SHARE`] of them. One rule for the page (its probe's frames
/// against the screen's refresh) and the window (its probe's missed share).
pub fn keeps_up(drawn_share: f64) -> bool {
    drawn_share >= MISSING_SHARE
}
