//! `diagnose`: each capture of tests/data/trace/ diagnosed through the binary
//! (no panic, figures without NaN, what it cannot compute named), the
//! frames CSV and the card it writes, `compare` reading the card, and bad
//! input refused as the trace reader refuses it.

use crate::binary::{assert_usage_error, run};
use std::path::PathBuf;

fn data(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "trace", name].iter().collect();
    path.to_str().expect("utf-8 path").to_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timestep-lab-diagnose-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

fn diagnose(args: &[&str]) -> String {
    let mut argv = vec!["diagnose"];
    argv.extend_from_slice(args);
    let out = run(&argv);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{argv:?}: {stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn every_capture_of_the_project_gets_a_diagnosis_with_a_verdict_a_fix_and_what_it_cannot_tell() {
    let captures = [
        "capframex_re2.first300.csv",
        "ocat_metroexodus.first300.csv",
        "pm1_10_lowercase.csv",
        "pm1_csgo_dropped.first300.csv",
        "pm1_multi_swapchain.csv",
        "pm2_0_frametime.csv",
        "pm2_4_msbetween.csv",
        "synthetic_144hz.csv",
    ];
    for name in captures {
        let text = diagnose(&[&data(name)]);
        for section in [
            "diagnosis of ",
            "judder",
            "display pattern",
            "queue depth",
            "verdict:\n- ",
            "what the capture cannot tell:\n- ",
            "fix:\n- ",
        ] {
            assert!(text.contains(section), "{name}: no '{section}' in:\n{text}");
        }
        for bad in ["NaN", "inf ", "panicked"] {
            assert!(!text.contains(bad), "{name}: '{bad}' in:\n{text}");
        }
        let table = text.split("through the ten strategies:\n").nth(1).unwrap_or("");
        assert_eq!(table.lines().count(), 11, "{name}: a header and the ten strategies:\n{text}");
    }
}

#[test]
fn a_1x_capture_names_the_sim_time_it_cannot_see_and_a_plain_list_the_metrics_it_cannot_compute() {
    let text = diagnose(&[&data("pm1_csgo_dropped.first300.csv")]);
    assert!(text.contains("a 1.x capture has no app timing"), "{text}");
    let plain = scratch("plain.csv");
    std::fs::write(&plain, "16.7\n16.6\n33.4\n16.7\n16.6\n").expect("write");
    let text = diagnose(&[plain.to_str().expect("utf-8")]);
    assert!(text.contains("DisplayedTime, DisplayLatency and AnimationError: the file has frame times only"), "{text}");
    assert!(text.contains("judder") && text.contains("unknown"), "{text}");
}

#[test]
fn frames_writes_presentmon_s_columns_one_row_per_frame_of_the_swap_chain() {
    let out = scratch("frames.csv");
    diagnose(&[&data("pm2_0_frametime.csv"), "--app", "Presenter.exe", "--frames", out.to_str().expect("utf-8")]);
    let text = std::fs::read_to_string(&out).expect("the frames CSV");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(timestep_core::monitor::presentmon::FRAMES_HEADER),
        "PresentMon's names: DisplayedTime, AnimationError, …"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() >= 5, "{text}");
    assert!(rows.iter().all(|r| r[1] == "Presenter.exe" && r.len() == 12), "{text}");
    assert!(rows.iter().any(|r| r[10] != "NA"), "some AnimationError: {text}");
}

#[test]
fn out_writes_a_card_that_compare_reads_beside_other_runs() {
    let dir = scratch("card");
    diagnose(&[&data("synthetic_144hz.csv"), "--out", dir.to_str().expect("utf-8")]);
    let json = dir.join("diagnosis.json");
    let card: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON")).expect("valid");
    assert_eq!(card["schema"], "timestep-lab/diagnosis");
    assert_eq!(card["strategies"].as_array().map(Vec::len), Some(10), "the ten strategies");
    let html = std::fs::read_to_string(dir.join("diagnosis.html")).expect("HTML");
    assert_eq!(html.matches("<svg").count(), 3, "animation error, display times, frame times");
    let out = run(&["compare", json.to_str().expect("utf-8")]);
    assert!(out.status.success(), "compare: {}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("interpolated"), "the replay's strategies: {table}");
}

#[test]
fn several_games_ask_for_app_naming_them_and_dwm_is_not_one() {
    let csv = scratch("two_games.csv");
    let mut text = String::from(
        "Application,ProcessID,SwapChainAddress,Dropped,TimeInSeconds,MsBetweenPresents,MsInPresentAPI,MsUntilDisplayed\n",
    );
    for i in 0..20 {
        let t = f64::from(i) * 0.016_7;
        text.push_str(&format!("a.exe,1,0x1,0,{t:.4},16.7,0.1,20.0\nb.exe,2,0x2,0,{t:.4},16.7,0.1,20.0\ndwm.exe,3,0x3,0,{t:.4},16.7,0.1,16.0\n"));
    }
    std::fs::write(&csv, text).expect("write");
    let path = csv.to_str().expect("utf-8");
    let args = ["diagnose", path];
    assert_usage_error(
        &args,
        &run(&args),
        "several games: a.exe (20 frames), b.exe (20 frames); choose one with --app",
    );
    assert!(diagnose(&[path, "--app", "B.EXE"]).contains("diagnosis of b.exe"));
    let args = ["diagnose", path, "--app", "c.exe"];
    assert_usage_error(
        &args,
        &run(&args),
        "--app c.exe: not in the capture; its applications: a.exe (20 frames), b.exe (20 frames), dwm.exe (20 frames)",
    );
}

#[test]
fn bad_input_is_one_line_naming_the_line_as_the_trace_reader_says() {
    let csv = scratch("bad.csv");
    for (row, says) in [
        ("g.exe,-16.7,10", "line 3: MsBetweenPresents -16.7 ms must be a finite, non-negative number"),
        ("g.exe,16.7,ten", "line 3: MsUntilDisplayed 'ten' is not a number"),
        ("g.exe,20000,10", "line 3: frame time 20000 ms is above the 10000 ms limit"),
    ] {
        let text = format!("Application,MsBetweenPresents,MsUntilDisplayed\ng.exe,16.7,10\n{row}\n");
        std::fs::write(&csv, text).expect("write");
        let args = ["diagnose", csv.to_str().expect("utf-8")];
        assert_usage_error(&args, &run(&args), says);
    }
    let args = ["diagnose", "/nonexistent/capture.csv"];
    assert_usage_error(&args, &run(&args), "cannot read trace");
}

#[test]
fn a_capture_over_its_budget_exits_1_naming_the_line_and_the_junit_xml_names_the_figure() {
    // synthetic_144hz: judder 1.056 ms RMS, 143.88 hitches/min, latency 14.903 ms (mean).
    let xml = scratch("over.xml");
    let args = [
        "diagnose",
        &data("synthetic_144hz.csv"),
        "--budget",
        "judder=0.5ms,hitches=1000/min,latency=50ms",
        "--junit",
        xml.to_str().expect("utf-8"),
    ];
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("budget:\n- judder 1.056 ms: over the budget (judder <= 0.5 ms)\n"), "{stdout}");
    assert!(stdout.contains("- hitches 143.88/min: within hitches <= 1000/min\n"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("over budget: judder 1.056 ms: over the budget (judder <= 0.5 ms)"), "{stderr}");
    let text = std::fs::read_to_string(&xml).expect("the JUnit XML");
    assert!(text.contains("tests=\"3\" failures=\"1\""), "{text}");
    assert!(text.contains("<testcase name=\"judder &lt;= 0.5 ms\" classname=\"diagnose.budget\">\n      <failure message=\"judder 1.056 ms:"), "{text}");
}

#[test]
fn a_capture_within_its_budget_exits_0_and_the_junit_xml_has_no_failure() {
    let xml = scratch("within.xml");
    let text = diagnose(&[
        &data("synthetic_144hz.csv"),
        "--budget",
        "judder=2ms,hitches=200/min,latency=50ms",
        "--junit",
        xml.to_str().expect("utf-8"),
    ]);
    assert!(text.contains("- latency 14.903 ms: within latency <= 50 ms"), "{text}");
    let xml = std::fs::read_to_string(&xml).expect("the JUnit XML");
    assert!(xml.contains("tests=\"3\" failures=\"0\"") && !xml.contains("<failure"), "{xml}");
}

#[test]
fn a_wrong_budget_is_one_line_and_exit_2() {
    let args = ["diagnose", &data("synthetic_144hz.csv"), "--budget", "judder=2"];
    assert_usage_error(&args, &run(&args), "--budget 'judder=2': judder takes ms (judder=1ms)");
}

/// `diagnose` of `text` (written to a scratch file): exit 2 with one line on stderr, or exit 0.
fn hostile(name: &str, text: &str, app: Option<&str>) -> (Option<i32>, String, String) {
    let path = scratch(name);
    std::fs::write(&path, text).expect("write");
    let mut args = vec!["diagnose", path.to_str().expect("utf-8")];
    if let Some(app) = app {
        args.extend(["--app", app]);
    }
    let out = run(&args);
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    match out.status.code() {
        Some(2) => assert_eq!(stderr.lines().count(), 1, "{name}: one line: {stderr}"),
        Some(0) => assert!(!stdout.contains("NaN") && !stdout.contains("inf "), "{name}: {stdout}"),
        other => panic!("{name}: exit {other:?}: {stderr}"),
    }
    (out.status.code(), stdout, stderr)
}

#[test]
fn an_empty_file_a_header_without_rows_and_a_file_of_only_dwm_exit_2_with_one_line() {
    let capture = std::fs::read_to_string(data("pm2_4_msbetween.csv")).expect("the capture");
    let header = capture.lines().next().expect("a header");
    assert_eq!(hostile("empty.csv", "", None).0, Some(2));
    let (code, _, stderr) = hostile("header.csv", &format!("{header}\n"), None);
    assert_eq!((code, stderr.contains("no frame times")), (Some(2), true), "{stderr}");
    let dwm: Vec<&str> = capture.lines().filter(|l| l.starts_with("dwm.exe")).collect();
    let (code, stdout, stderr) = hostile("dwm.csv", &format!("{header}\n{}\n", dwm.join("\n")), None);
    // Only the compositor: its frames are what there is, named as such.
    assert!(code == Some(2) || stdout.starts_with("diagnosis of dwm.exe"), "{stdout}{stderr}");
}

#[test]
fn each_column_renamed_in_turn_exits_2_with_one_line_or_says_unknown_never_0() {
    let capture = std::fs::read_to_string(data("pm2_4_msbetween.csv")).expect("the capture");
    let (header, rows) = capture.split_once('\n').expect("a header");
    let columns: Vec<&str> = header.trim_start_matches('\u{feff}').split(',').collect();
    for column in &columns {
        let renamed: Vec<String> =
            columns.iter().map(|c| if c == column { format!("Renamed{c}") } else { (*c).to_owned() }).collect();
        let text = format!("{}\n{rows}", renamed.join(","));
        let (code, stdout, _) = hostile(&format!("renamed_{column}.csv"), &text, Some("Presenter.exe"));
        if *column == "MsUntilDisplayed" {
            assert_eq!(code, Some(0));
            assert!(stdout.contains("displayed, dropped and generated unknown"), "{stdout}");
            assert!(!stdout.contains("never displayed"), "no frame reads as dropped: {stdout}");
        }
        if *column == "AllowsTearing" {
            assert!(
                stdout.contains("tearing") && stdout.contains("unknown: no SyncInterval or AllowsTearing column"),
                "{stdout}"
            );
        }
    }
}

#[test]
fn a_v2_metrics_file_without_display_latency_says_its_displayed_frames_are_unknown_not_0() {
    let capture = std::fs::read_to_string(data("pm2_0_frametime.csv")).expect("the capture");
    assert!(capture.contains("DisplayLatency"), "a --v2_metrics file");
    let text = capture.replacen("DisplayLatency", "Renamed", 1);
    let (code, stdout, stderr) = hostile("v2_no_latency.csv", &text, Some("Presenter.exe"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("(PresentMon 2.x (--v2_metrics)"), "{stdout}");
    assert!(stdout.contains("displayed, dropped and generated unknown"), "{stdout}");
    assert!(!stdout.contains(", 0 displayed,"), "{stdout}");
}
