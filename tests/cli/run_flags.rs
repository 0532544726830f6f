//! `timestep-lab run` (the default command): bad input is refused before any
//! window or GPU is touched, with one line on stderr and exit code 2.

use crate::binary::{assert_usage_error, run};

#[test]
fn bad_run_flags_exit_2_with_one_line_on_stderr() {
    let cases: &[(&[&str], &str)] = &[
        (&["--tick-rate", "0"], "--tick-rate"),
        (&["--tick-rate", "-5"], "--tick-rate"),
        (&["--tick-rate", "NaN"], "--tick-rate"),
        (&["--tick-rate", "5000"], "--tick-rate"),
        (&["run", "--tick-rate", "-5"], "--tick-rate"),
        (&["--strategy", "warp"], "warp"),
        (&["--present-mode", "sometimes"], "--present-mode"),
        (&["--sprites", "-3"], "--sprites"),
        (&["--exit-after", "-1"], "--exit-after"),
        (&["--emulate-refresh", "0"], "--emulate-refresh"),
        (&["--emulate-refresh", "-60"], "--emulate-refresh"),
        (&["--window-size", "wide"], "--window-size"),
        (&["--fuzzy-variant", "58-60"], "--fuzzy-variant"),
        // One range in every message: 1–1000 Hz, not the parser's old 0.001..=10000.
        (&["--tick-rate", "99999999999999999999"], "--tick-rate: 99999999999999999999 is outside 1–1000 Hz"),
        (&["--emulate-refresh", "1000.5"], "--emulate-refresh: 1000.5 is outside 1–1000 Hz"),
        // The limit is named, not "must be a positive number".
        (&["--exit-after", "1e8"], "at most 10000000 s"),
        (&["--exit-after", "0"], "--exit-after"),
        (&["--monitor", "0"], "--monitor"),
        (&["--seed", "x"], "--seed"),
        (&["--sprites", "1000001"], "--sprites"),
        (&["--emulate-jitter-us", "5"], "--emulate-jitter-us: needs --emulate-refresh"),
        (&["--emulate-jitter-us", "100001", "--emulate-refresh", "60"], "--emulate-jitter-us"),
        (&["--present-mode", "FIFO-RELAXEDX"], "--present-mode"),
        (&["--window-size", "0x10"], "--window-size"),
        (&["--stats-json", ""], "--stats-json"),
        // PNG bytes under a .jpg name mislead every viewer: refused, with the fix.
        (&["--screenshot", "shot.jpg"], "write shot.png"),
        (&["--screenshot", "shot"], "--screenshot"),
        (&["run", "--screenshot", "shot.jpeg"], "--screenshot"),
    ];
    for (args, mentions) in cases {
        assert_usage_error(args, &run(args), mentions);
    }
}

#[test]
fn without_a_display_the_demo_points_to_simulate() {
    let out = run(&["--exit-after", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "no display is not a usage error; stderr: {stderr}");
    assert!(stderr.contains("timestep-lab simulate"), "the message should point to simulate: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains(".cargo") && !stderr.contains(".rs:"), "no source paths from winit's error: {stderr}");
}

#[test]
fn present_modes_keep_their_spellings_and_aliases() {
    // Valid values get past the flags: the run stops only at the missing display (exit 1).
    for mode in ["fifo", "vsync", "mailbox", "immediate", "fifo-relaxed", "fiforelaxed", "auto", "FIFO"] {
        let out = run(&["--present-mode", mode, "--exit-after", "1"]);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
