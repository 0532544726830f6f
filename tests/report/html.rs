//! `report.html` from synthetic cards: one SVG per plot, nothing external, n/a for the unknown.

use crate::harness::{self, tests};
use crate::report_card::{FIXTURES, card, fixture, fixture_monitor, fixture_sources, fixtures_card, scratch};
use timestep_lab::report_card::comparison::compare;
use timestep_lab::report_card::judge::MAX_DRIFT_MS_PER_MIN;
use timestep_lab::report_card::{
    Machine, MonitorCard, PresentModeCheck, ReportCard, RunRecord, report_html, write_report_html,
};

/// The plots a card's page must hold: a histogram per present mode with
/// intervals, the frame trace, and one bar chart per vsync pass, per monitor.
fn expected_plots(card: &ReportCard) -> usize {
    card.monitors
        .iter()
        .map(|m| {
            let histograms = m.present_modes.iter().filter(|p| p.intervals.is_some()).count();
            let trace = usize::from(m.frame_trace.as_ref().is_some_and(|t| !t.intervals_ms.is_empty()));
            let mut passes: Vec<Option<bool>> =
                m.runs.iter().chain(&m.predictions).map(RunRecord::vsync_pass).collect();
            passes.sort_unstable();
            passes.dedup();
            histograms + trace + passes.len()
        })
        .sum()
}

fn two_monitor_card() -> ReportCard {
    card(&[fixture_monitor(0), fixture_monitor(1)])
}

fn a_card_from_simulator_runs_at_60_and_144_hz_has_one_svg_per_plot() {
    let card = two_monitor_card();
    let html = report_html(&card).expect("the page renders");
    let expected = expected_plots(&card);
    assert_eq!(expected, 2 * (2 + 1 + 2), "two monitors: two histograms, a trace, two passes each");
    assert_eq!(html.matches("<svg").count(), expected, "one <svg> per plot");
    assert_eq!(html.matches("</svg>").count(), expected, "every <svg> is closed");
    assert!(
        html.contains("Monitor 1 · virtual 60 Hz (desktop)") && html.contains("Monitor 2 · virtual 144 Hz (spiky)")
    );
    assert!(html.contains("Strategies, vsync on") && html.contains("Strategies, vsync off"));
    assert!(html.contains("vsync in effect (simulated)"), "the verdict sentence of each present mode");
}

fn the_page_references_nothing_outside_itself() {
    let html = report_html(&two_monitor_card()).expect("the page renders");
    for external in ["http:", "https:", "//", "<script", "<link", "<img", "src=", "url(", "@import"] {
        let allowed = external == "//" && !html.contains("://");
        assert!(allowed || !html.contains(external), "the page contains '{external}'");
    }
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
}

fn unknown_figures_read_n_a_and_never_nan() {
    let mut card = ReportCard::new(Machine::this_build());
    card.monitors.push(MonitorCard {
        index: 3,
        present_modes: vec![PresentModeCheck { mode: "Fifo".to_owned(), vsync: None, ..PresentModeCheck::default() }],
        runs: vec![RunRecord { strategy: "fuzzy".to_owned(), vsync_requested: Some(true), ..RunRecord::default() }],
        ..MonitorCard::default()
    });
    let html = report_html(&card).expect("a card of unknowns still renders");
    assert!(html.contains("n/a"), "unknown figures read n/a");
    assert!(html.contains("cannot tell"), "an unknown vsync verdict says so");
    assert!(html.contains("Fifo: no presents measured"));
    assert!(html.contains("No measured run keeps the right speed"), "no drift known: no best strategy");
    assert!(!html.contains("NaN") && !html.contains("inf"), "no NaN or inf reaches the page");
    assert_eq!(html.matches("<svg").count(), 1, "only the bar chart: no intervals, no trace");
}

fn write_report_html_writes_the_page_and_names_a_bad_path() {
    let dir = scratch("html");
    let path = dir.join("report.html");
    let card = ReportCard::read(&fixture(FIXTURES[0].0)).expect("the fixture loads");
    write_report_html(&card, &path).expect("written");
    let written = std::fs::read_to_string(&path).expect("readable");
    assert_eq!(written, report_html(&card).expect("renders"));
    let err = write_report_html(&card, &dir.join("missing/report.html")).expect_err("no such directory").to_string();
    assert!(err.contains("missing/report.html") && !err.contains('\n'), "{err}");
}

fn compare_html_has_one_chart_per_vsync_pass_and_nothing_external() {
    let comparison = compare(&fixture_sources(), MAX_DRIFT_MS_PER_MIN);
    let html = comparison.to_html().expect("renders");
    assert_eq!(comparison.tables.len(), 2, "vsync on and off");
    assert_eq!(html.matches("<svg").count(), 2, "one chart per pass");
    assert!(!html.contains("http") && !html.contains("<script"));
    assert!(html.contains("monitor 1 (60 Hz)") && html.contains("monitor 2 (144 Hz)"));
}

/// Writes the fixtures' pages to `target/report-card-sample/` to look at
/// (the README's screenshots are taken from these).
/// Run on request only (`-- --ignored`).
fn write_sample_pages() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/report-card-sample");
    std::fs::create_dir_all(&dir).expect("the directory");
    write_report_html(&fixtures_card(), &dir.join("report.html")).expect("written");
    let html = compare(&fixture_sources(), MAX_DRIFT_MS_PER_MIN).to_html().expect("renders");
    std::fs::write(dir.join("compare.html"), html).expect("written");
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut trials = tests![
        a_card_from_simulator_runs_at_60_and_144_hz_has_one_svg_per_plot,
        the_page_references_nothing_outside_itself,
        unknown_figures_read_n_a_and_never_nan,
        write_report_html_writes_the_page_and_names_a_bad_path,
        compare_html_has_one_chart_per_vsync_pass_and_nothing_external,
    ];
    trials.push(harness::on_request(harness::name(module_path!(), "write_sample_pages"), write_sample_pages));
    trials
}
