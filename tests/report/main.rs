//! The report card: `report.json` (`schema`), `report.html` and
//! `compare.html` (`html`), and both pages in headless Chromium (`chromium`).
//!
//! Runs under libtest-mimic (`harness = false`, see `tests/support/harness.rs`)
//! so that a machine without Chromium reports those tests as ignored, or fails
//! them with `TIMESTEP_LAB_REQUIRE_GPU` set (CI).

#[path = "../support/harness.rs"]
mod harness;
#[path = "../support/report_card/mod.rs"]
mod report_card;

mod chromium;
mod html;
mod schema;

fn main() {
    harness::run([schema::trials(), html::trials(), chromium::trials()])
}
