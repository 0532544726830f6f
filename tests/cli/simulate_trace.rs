//! `simulate --trace`: real captures (tests/data/trace/, see SOURCES.md) replayed
//! through the binary. The expected numbers are each capture's own single-app,
//! displayed-frames view (tests/data/trace/FACTS.md, written by analyze.py): the
//! swap chain with the most rows, its displayed and not-displayed frames, and
//! the refresh its display-change intervals imply. Refreshes covered are the
//! capture's own too: 1 for the first displayed frame plus, for each later
//! one, its display-change interval in whole refreshes.

use crate::binary::{assert_usage_error, run};
use serde_json::Value;
use std::path::PathBuf;

fn data(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "trace", name].iter().collect();
    path.to_str().expect("utf-8 path").to_owned()
}

fn scratch(name: &str, text: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("timestep-lab-trace-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scratch trace");
    path.to_str().expect("utf-8 path").to_owned()
}

/// Replays `trace` with `extra` flags; returns the JSON run and stderr.
fn replay(trace: &str, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["simulate", "--trace", trace, "--format", "json"];
    args.extend_from_slice(extra);
    let out = run(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    let runs: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    (runs[0].clone(), stderr)
}

fn refused(trace: &str, extra: &[&str], mentions: &str) {
    let mut args = vec!["simulate", "--trace", trace];
    args.extend_from_slice(extra);
    assert_usage_error(&args, &run(&args), mentions);
}

/// `(trace_app, trace_frames, trace_dropped)` of a run.
fn chosen(run: &Value) -> (&str, u64, u64) {
    (
        run["trace_app"].as_str().expect("trace_app"),
        run["trace_frames"].as_u64().expect("trace_frames"),
        run["trace_dropped"].as_u64().expect("trace_dropped"),
    )
}

fn count(run: &Value, field: &str) -> u64 {
    run[field].as_u64().unwrap_or_else(|| panic!("{field} in {run}"))
}

/// The replay's refresh within 0.05 % of the capture's `1000 / median` (the
/// replay takes the mean period over whole refreshes, so they differ a little).
fn assert_refresh(run: &Value, implied_hz: f64) {
    let hz = run["trace_refresh_hz"].as_f64().expect("trace_refresh_hz");
    assert!((hz / implied_hz - 1.0).abs() < 5e-4, "measured {hz} Hz, the capture implies {implied_hz}: {run}");
    assert_eq!(run["refresh_hz"].as_f64(), Some(hz), "the replay runs at the measured refresh");
    assert_eq!(run["vsync"], true, "{run}");
}

#[test]
fn a_multi_swap_chain_capture_replays_its_largest_swap_chain_and_names_the_others() {
    let (run, stderr) = replay(&data("pm1_multi_swapchain.csv"), &[]);
    // FACTS.md: dwm.exe pid 1268: 210 frames, 9 not displayed, 201 displayed, 16.68 ms -> 59.952 Hz.
    assert_eq!(chosen(&run), ("dwm.exe", 201, 9), "{run}");
    assert_refresh(&run, 59.952);
    assert_eq!((count(&run, "vsyncs"), count(&run, "skipped_renders")), (318, 117), "1 + 317 refreshes spanned");
    let notice = stderr.lines().find(|l| l.contains("replaying dwm.exe")).expect("a notice names the choice");
    assert!(notice.contains("Presenter.exe (pid 10792") && notice.contains("--trace-app"), "{notice}");
    let (presenter, _) = replay(&data("pm1_multi_swapchain.csv"), &["--trace-app", "presenter.exe"]);
    // The first of Presenter.exe's 19-row swap chains: pid 10792, 1 not displayed, 59.9538 Hz.
    assert_eq!(chosen(&presenter), ("Presenter.exe", 18, 1), "{presenter}");
    assert_refresh(&presenter, 59.9538);
    refused(&data("pm1_multi_swapchain.csv"), &["--trace-app", "doom.exe"], "'doom.exe' is not in the capture");
}

#[test]
fn dropped_frames_merge_into_the_next_displayed_frame() {
    let (run, _) = replay(&data("pm1_csgo_dropped.first300.csv"), &[]);
    // FACTS.md: csgo.exe: 300 frames, 148 not displayed, 152 displayed, 16.666 ms -> 60.0024 Hz;
    // every displayed frame one refresh after the previous: 152 refreshes, none skipped.
    assert_eq!(chosen(&run), ("csgo.exe", 152, 148), "{run}");
    assert_refresh(&run, 60.0024);
    assert_eq!((count(&run, "vsyncs"), count(&run, "skipped_renders")), (152, 0), "{run}");
    // Counted from the refresh before the first frame's: 152 refreshes (the capture's presents sum to 2.532 s).
    let seconds = run["system_time_s"].as_f64().expect("system_time_s");
    assert!((seconds - 152.0 / 60.0024).abs() < 1e-4, "152 refreshes: {run}");
}

#[test]
fn a_144_hz_capture_replays_on_its_own_refresh_and_a_60_hz_grid_is_refused() {
    let trace = data("synthetic_144hz.csv");
    let (run, stderr) = replay(&trace, &[]);
    // FACTS.md: Synthetic144.exe: 600 frames, 4 not displayed, 596 displayed, 6.944 ms -> 144.0092 Hz;
    // 5 frames stay two refreshes: 1 + 600 refreshes, 5 without a new frame.
    assert_eq!(chosen(&run), ("Synthetic144.exe", 596, 4), "{run}");
    assert_refresh(&run, 144.0092);
    assert!(stderr.contains("refresh 144.009 Hz (a 144 Hz display)"), "the measured refresh is printed: {stderr}");
    assert_eq!((count(&run, "vsyncs"), count(&run, "skipped_renders")), (601, 5), "{run}");
    assert_eq!(count(&run, "double_updates"), 0, "60 Hz ticks on 144 Hz: never two in one refresh: {run}");
    refused(&trace, &["--refresh", "60"], "--refresh 60: the capture was shown at 144.009 Hz");
    let (near, _) = replay(&trace, &["--refresh", "144"]);
    assert_eq!(near["refresh_hz"].as_f64(), Some(144.0), "a --refresh within 1 % is used");
}

#[test]
fn a_capture_that_fixes_vsync_refuses_the_other_setting() {
    refused(
        &data("pm1_csgo_dropped.first300.csv"),
        &["--vsync", "off"],
        "--vsync off: the capture's frames were v-synced",
    );
    let (on, _) = replay(&data("pm1_csgo_dropped.first300.csv"), &["--vsync", "on"]);
    assert_eq!(on["vsync"], true);
    // OCAT's Metro Exodus capture tears (AllowsTearing 1, SyncInterval 0): no refresh to measure.
    let ocat = data("ocat_metroexodus.first300.csv");
    let (tearing, stderr) = replay(&ocat, &[]);
    assert_eq!(chosen(&tearing), ("MetroExodus.exe", 300, 0), "{tearing}");
    assert_eq!((tearing["vsync"].clone(), tearing["trace_refresh_hz"].clone()), (Value::Bool(false), Value::Null));
    assert!(stderr.contains("refreshes are counted at 60 Hz (set --refresh"), "{stderr}");
    refused(&ocat, &["--vsync", "on"], "--vsync on: the capture's frames tore");
}

#[test]
fn each_capture_format_is_read() {
    // (file, app, displayed, not displayed, implied Hz) from FACTS.md.
    let cases = [
        ("capframex_re2.first300.csv", "re2.exe", 126, 174, 119.8179), // `//` lines, 120 Hz
        ("pm1_10_lowercase.csv", "dwm.exe", 26, 0, 59.9733),           // 1.10: msBetweenPresents, reordered
        ("pm2_0_frametime.csv", "dwm.exe", 25, 0, 59.9715),            // 2.0: BOM, FrameTime, DisplayedTime
        ("pm2_4_msbetween.csv", "dwm.exe", 25, 0, 59.9751),            // 2.4: BOM, NA cells
    ];
    for (file, app, displayed, dropped, hz) in cases {
        let (run, _) = replay(&data(file), &[]);
        assert_eq!(chosen(&run), (app, displayed, dropped), "{file}: {run}");
        assert_refresh(&run, hz);
    }
    // PresentMon 2.x: Presenter.exe's 7 rows, 3 never displayed (NA), as 1.10 counts 8 rows with 3 dropped.
    for file in ["pm2_0_frametime.csv", "pm2_4_msbetween.csv"] {
        let (run, _) = replay(&data(file), &["--trace-app", "Presenter.exe"]);
        assert_eq!(chosen(&run), ("Presenter.exe", 4, 3), "{file}: {run}");
    }
}

#[test]
fn a_plain_list_with_a_bom_and_crlf_keeps_every_frame_and_honours_vsync() {
    let plain = scratch("plain.csv", b"\xef\xbb\xbf16.6\r\n16.8\r\n16.6\r\n");
    let (run, stderr) = replay(&plain, &["--vsync", "off"]);
    assert_eq!(run["trace_frames"], 3, "the BOM does not eat the first frame: {run}");
    assert_eq!((run["trace_app"].clone(), run["trace_refresh_hz"].clone()), (Value::Null, Value::Null));
    assert_eq!(run["vsync"], false, "a plain list has no display times: --vsync applies");
    assert!(stderr.contains("no display-change times"), "{stderr}");
}

#[test]
fn ambiguous_or_out_of_range_traces_are_one_line_errors_naming_the_line() {
    let cases: [(&str, &[u8], &str); 7] = [
        (
            "comma.csv",
            b"16.6\n16,683\n",
            "line 2: frame time '16,683' has a decimal comma; write it with a point (16.683)",
        ),
        ("indexed.csv", b"1,16.7\n2,16.6\n", "line 1: 2 fields in a trace without a header"),
        ("semicolons.csv", b"frame;ms\n1;16,7\n", "line 1: semicolon-separated values are not supported"),
        ("stall.csv", b"ms\n16.6\n12000\n", "line 3: frame time 12000 ms is above the 10000 ms limit"),
        ("zeros.csv", b"0\n0\n0\n", "lines 1-3: every frame time is 0 ms"),
        ("quoted.csv", b"MsBetweenPresents\n\"16,7\"\n", "line 2: MsBetweenPresents '16,7' has a decimal comma"),
        ("header.csv", b"Application,ms\ngame.exe,16.6\n", "line 1: the header has no MsBetweenPresents or FrameTime"),
    ];
    for (name, text, mentions) in cases {
        refused(&scratch(name, text), &[], mentions);
    }
}

#[test]
fn an_endless_stream_stops_at_once() {
    refused("/dev/zero", &[], "line 1 is longer than 64 KiB");
}

#[test]
fn a_composed_capture_replays_through_the_compositor_stage_and_says_so() {
    // csgo.exe's frames were "Composed: Copy with GPU GDI": DWM composed them.
    let csgo = data("pm1_csgo_dropped.first300.csv");
    let (run, stderr) = replay(&csgo, &[]);
    assert_eq!((run["compositor"].as_str(), run["compositor_delay"].as_u64()), (Some("dwm"), Some(1)), "{run}");
    assert_eq!(run["frames_replaced"].as_u64(), Some(0), "v-synced frames are never replaced: {run}");
    let notice = stderr.lines().find(|l| l.contains("composed")).expect("a notice says the frames were composed");
    assert!(notice.contains("compositor stage, dwm (latch 0 ms, delay 1)") && notice.contains("none"), "{notice}");
    let (direct, stderr) = replay(&csgo, &["--compositor", "none"]);
    assert!(direct.get("compositor").is_none(), "--compositor none replays it directly: {direct}");
    assert!(stderr.contains("replayed without a compositor"), "{stderr}");
    // A frame fixed-fps holds back past its captured present still makes the
    // repaint that latched it under a 7 ms repaint window; directly it is one refresh late.
    let skipped = |extra: &[&str]| {
        let mut args = vec!["--strategy", "fixed-fps"];
        args.extend_from_slice(extra);
        count(&replay(&csgo, &args).0, "skipped_renders")
    };
    assert_eq!((skipped(&["--compositor", "none"]), skipped(&["--compositor", "weston"])), (1, 0));
    // Metro Exodus ran in independent flip, scanned out directly, and tore.
    let ocat = data("ocat_metroexodus.first300.csv");
    assert!(replay(&ocat, &[]).0.get("compositor").is_none(), "independent flip: direct");
    refused(&ocat, &["--compositor", "weston"], "--compositor: the capture's frames tore");
}
