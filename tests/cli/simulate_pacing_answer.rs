//! The frame-pacing answer's worked timeline (`--model pacing-answer`, once `seed000`):
//! render 3 ms, update 1 ms, 5 ms ticks, a 16 ms interval.
//!
//! ```text
//! R0(1.00) U5 U10 U15 U20 W16 R16(0.20) U25 U30 U35 W32 R32(0.40)
//! ```
//! At R16 the previous state is tick 15 and the current tick 20, so the
//! picture is drawn at proportion (16 − 15) / (20 − 15) = 0.2; at R32,
//! (32 − 30) / (35 − 30) = 0.4. R0 draws the initial state as it is (1.00).

use std::process::Command;
use timestep_lab::monitor::{Event, Preset, RunSpec, Stop, TIMELINE_EVENTS};
use timestep_lab::sim::simulate;
use timestep_lab::strategy::{StrategyConfig, StrategyId, View};
use timestep_lab::time::Rate;

const EXPECTED: &str = "R0(1.00) U5 U10 U15 U20 W16 R16(0.20) U25 U30 U35 W32 R32(0.40)";

fn paced_pacing_answer() -> RunSpec {
    RunSpec::new(StrategyId::Paced, Preset::PacingAnswer)
        .with_config(StrategyConfig::default().with_tick_rate(Rate::from_hz(200)))
        .with_stop(Stop::Updates(40))
        .with_timeline(TIMELINE_EVENTS)
}

#[test]
fn paced_on_the_pacing_answer_model_reproduces_the_worked_timeline() {
    let outcome = simulate(&paced_pacing_answer());
    let text = outcome.timeline.to_string();
    assert!(text.starts_with(EXPECTED), "timeline:\n{text}\nexpected it to start with:\n{EXPECTED}");
}

#[test]
fn paced_draws_the_frame_at_16_ms_at_proportion_0_2() {
    let outcome = simulate(&paced_pacing_answer());
    let render_16 = outcome.timeline.events().iter().find_map(|e| match e {
        Event::Render { at: 16_000_000, view } => Some(*view),
        _ => None,
    });
    match render_16 {
        Some(View::Interpolate { alpha }) => assert!((alpha - 0.2).abs() < 1e-6, "alpha {alpha} at R16"),
        other => panic!("expected an interpolated render at 16 ms, got {other:?}"),
    }
}

#[test]
fn the_binary_prints_the_timeline() {
    let output = Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
        .args(["simulate", "--strategy", "paced", "--model", "pacing-answer", "--tick-rate", "200", "--timeline"])
        .args(["--updates", "40"])
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find(|l| l.starts_with("timeline")).expect("a timeline line");
    let events = line.split_once(": ").map(|(_, e)| e).unwrap_or("");
    assert!(events.starts_with(EXPECTED), "timeline line: {line}");
}
