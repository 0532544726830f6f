//! `timestep-lab run` (the default command): bad input is refused before any
//! window or GPU is touched, with one line on stderr and exit code 2.

mod cli_support;
use cli_support::{assert_usage_error, run};

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
}
