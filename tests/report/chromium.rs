//! `report.html` and `compare.html` opened in headless Chromium: no console
//! error, and a screenshot that is not blank.
//!
//! A machine without `chromium` reports the tests as ignored, not passed
//! (the binary runs under libtest-mimic for this); with
//! `TIMESTEP_LAB_REQUIRE_GPU` set (CI) a missing browser is a failure.

use crate::harness;
use crate::report_card::chromium::{browser_or_skip, check_html, console_lines, screenshot};
use crate::report_card::{fixture_sources, fixtures_card, scratch};
use libtest_mimic::{Completion, Failed, Trial};
use timestep_lab::report_card::comparison::compare;
use timestep_lab::report_card::judge::MAX_DRIFT_MS_PER_MIN;

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<Trial> {
    let name = |test| harness::name(module_path!(), test);
    vec![
        Trial::ignorable_test(name("report_html_renders_in_headless_chromium_without_console_errors"), || {
            check_page("report", &report_page)
        }),
        Trial::ignorable_test(name("compare_html_renders_in_headless_chromium_without_console_errors"), || {
            check_page("compare", &compare_page)
        }),
        Trial::ignorable_test(name("a_page_with_a_script_error_is_caught_by_the_console_check"), check_the_check),
    ]
}

/// Both fixtures' monitors on one card.
fn report_page() -> String {
    timestep_lab::report_card::report_html(&fixtures_card()).expect("the page renders")
}

fn compare_page() -> String {
    compare(&fixture_sources(), MAX_DRIFT_MS_PER_MIN).to_html().expect("the page renders")
}

fn check_page(name: &str, page: &dyn Fn() -> String) -> Result<Completion, Failed> {
    let browser = match browser_or_skip()? {
        Ok(browser) => browser,
        Err(skipped) => return Ok(skipped),
    };
    let dir = scratch(&format!("chromium-{name}"));
    let html = dir.join(format!("{name}.html"));
    std::fs::write(&html, page()).map_err(|e| format!("cannot write {}: {e}", html.display()))?;
    check_html(&browser, &html, &dir)?;
    Ok(Completion::Completed)
}

/// The console check sees errors in this Chromium's log format: a page that
/// throws must be caught, or the checks above would pass for nothing.
fn check_the_check() -> Result<Completion, Failed> {
    let browser = match browser_or_skip()? {
        Ok(browser) => browser,
        Err(skipped) => return Ok(skipped),
    };
    let dir = scratch("chromium-broken");
    let html = dir.join("broken.html");
    let page =
        "<!DOCTYPE html><html><body><p>broken</p><script>console.error('boom'); notDefined();</script></body></html>";
    std::fs::write(&html, page).map_err(|e| format!("cannot write {}: {e}", html.display()))?;
    let log = screenshot(&browser, &html, &dir.join("broken.png"), &dir)?;
    let console = console_lines(&log);
    let caught = console.iter().any(|l| l.contains("boom")) && console.iter().any(|l| l.contains("Uncaught"));
    if !caught {
        return Err(format!("the console check missed a console.error and an uncaught exception:\n{log}").into());
    }
    Ok(Completion::Completed)
}
