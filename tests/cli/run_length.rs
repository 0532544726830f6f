//! Run length: a run over the frame budget is refused before it starts,
//! naming the limit and the longest run that fits; an accepted run runs to
//! its stop condition.

use crate::binary::{assert_usage_error, run};
use timestep_lab::monitor::MAX_FRAMES;

#[test]
fn runs_over_the_frame_budget_are_refused_up_front_naming_the_limit() {
    let limit = format!("{MAX_FRAMES} frames per run");
    let cases: [(&[&str], &str); 4] = [
        // The advertised maximum of --seconds: a year is 1.9e9 frames at 60 Hz.
        (&["simulate", "--seconds", "31536000"], "--seconds: catch-up @ 60 Hz would take about 1.9e9 frames"),
        (&["simulate", "--updates", "18446744073709551615"], "--updates: catch-up @ 60 Hz"),
        (&["simulate", "--strategy", "all", "--seconds", "31536000"], "--seconds: lockstep @ 60 Hz"),
        // A model whose frames cost nothing: every frame would be charged 1 ns.
        (&["simulate", "--model", "seed000", "--render-ms", "0", "--update-ms", "0", "--seconds", "1000"], "--seconds"),
    ];
    for (args, mentions) in cases {
        let out = run(args);
        assert_usage_error(args, &out, mentions);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&limit), "names the limit: {stderr}");
        assert!(stderr.contains(" fit)"), "names what fits: {stderr}");
        assert!(out.stdout.is_empty(), "refused before any run: {}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn slow_updates_run_to_the_end_without_a_false_reason() {
    // 10 s per update: the game runs at 1/600 of real time, but each frame
    // still runs updates, so the run is short in frames and must finish.
    let out = run(&["simulate", "--update-ms", "10000", "--updates", "1000", "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("time barely moves") && !stderr.contains("stopped early"), "{stderr}");
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let updates = runs[0]["total_updates"].as_u64().expect("total_updates");
    assert!(updates >= 1000, "ran to its stop condition: {updates} updates");
}
