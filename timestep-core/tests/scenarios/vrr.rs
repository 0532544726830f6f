//! VRR displays on the virtual monitor: issue 24's worked examples, each
//! derived by hand first (in the test's comment), then checked.
//!
//! | run (`vrr:48-144` unless said)            | what must hold                                          |
//! |-------------------------------------------|---------------------------------------------------------|
//! | fixed-fps 100 Hz, glaiel                  | frames 10 ms apart: judder ≈ 0; on fixed 144 Hz ≈ 3.4 ms |
//! | fixed-fps 45 Hz, glaiel                   | LFC: each frame twice, no judder; without: 5.556 ms    |
//! | lockstep 60 Hz, glaiel                    | 144 frames a second, drift +84 000 ms/min               |
//! | interpolated, desktop                     | capped at 141: latency ≥ 5 ms lower; at 60: √2 σ judder |
//! | auto, glaiel and desktop                  | judder ≤ 0.5 ms, latency ≥ 5 ms below interpolated's    |
//! | fuzzy at frames of 60.9 fps               | told VRR: strict, right speed; not told: runs fast      |

use timestep_core::host::Simulation;
use timestep_core::monitor::{Preset, RunSpec, Stop, simulate};
use timestep_core::report::RunReport;
use timestep_core::strategy::{StrategyConfig, StrategyId};
use timestep_core::time::{NANOS_PER_SEC, Nanos, Rate};
use timestep_core::vrr::Refresh;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The figures do not depend on what the world does.
struct NoWorld;

impl Simulation for NoWorld {
    fn step(&mut self, _dt: Nanos) {}
}

fn vrr() -> Refresh {
    "vrr:48-144".parse().expect("a VRR range")
}

/// `strategy` at `tick` Hz on `refresh` with `preset`'s machine, for `seconds`.
fn run(strategy: StrategyId, tick: u64, refresh: Refresh, preset: Preset, seconds: u64) -> RunReport {
    let spec = RunSpec::new(strategy, preset)
        .with_config(StrategyConfig::default().with_tick_rate(Rate::from_hz(tick)))
        .with_refresh(refresh)
        .with_stop(Stop::Duration(seconds * NANOS_PER_SEC));
    simulate(&spec, &mut NoWorld).report()
}

#[test]
fn fixed_fps_at_100_hz_is_shown_every_10_ms_on_vrr_and_alternates_7_and_14_ms_on_a_fixed_144_hz() {
    // VRR: a frame starts every 10 ms and is ready 5.01 ms later (glaiel's
    // update and render): 100 Hz is inside 48–144, so each is shown when
    // ready, 10 ms apart, depicting a tick 10 ms on: j = 0 but for the
    // render's ±0.8 µs noise.
    let on_vrr = run(StrategyId::FixedFps, 100, vrr(), Preset::Glaiel, 10);
    assert!(on_vrr.stats.judder_ms < 0.002, "{}", on_vrr.stats.judder_ms);
    assert!(on_vrr.stats.present_interval_std_ms < 0.002, "{}", on_vrr.stats.present_interval_std_ms);
    assert_eq!(on_vrr.stats.hitches, 0);
    assert!(on_vrr.pattern.chars().all(|c| c == '1'), "no repeats: {}", on_vrr.pattern);
    // Fixed 144 Hz: each frame waits for the next 6.944 ms refresh, 1 or 2
    // refreshes after the last (1.44 on average: 56 % ones, 44 % twos);
    // j = 10 − 6.944 = 3.056 or 10 − 13.889 = −3.889 ms:
    // RMS = √(0.56 · 3.056² + 0.44 · 3.889²) = 3.447 ms.
    let on_144 = run(StrategyId::FixedFps, 100, Refresh::Fixed(Rate::from_hz(144)), Preset::Glaiel, 10);
    assert!((on_144.stats.judder_ms - 3.447).abs() < 0.06, "{}", on_144.stats.judder_ms);
}

#[test]
fn fixed_fps_at_45_hz_below_the_range_is_smooth_with_lfc_and_judders_without() {
    // 1/45 s = 22.222 ms between frames, longer than the panel's 1/48 s =
    // 20.833 ms. With LFC each frame is scanned twice, 11.1 ms apart, and the
    // next frame finds the panel free: judder 0, a repeat (`0`) after each
    // frame. Only frame 1 meets the first repeat, before the panel has an
    // interval to predict from: it waits for it, 5.556 ms.
    let lfc = run(StrategyId::FixedFps, 45, vrr(), Preset::Glaiel, 10);
    assert!(lfc.stats.judder_p99_ms < 0.01, "{}", lfc.stats.judder_p99_ms);
    assert!(lfc.pattern.starts_with("1011") && lfc.pattern[3..].starts_with("1010101010"), "{}", lfc.pattern);
    // Frames start every 22.2 ms below 10 s: 450; frame 2 has no repeat before it.
    assert_eq!((lfc.vsyncs, lfc.skipped_renders), (898, 448), "450 frames, 448 repeats");
    // Without LFC the panel repeats 1/48 s after each frame it shows, and
    // every other frame arrives while that repeat (1/144 s long) is scanned:
    // it waits 1/48 + 1/144 − 1/45 = 5.556 ms. j alternates ±5.556 ms.
    let no_lfc = run(StrategyId::FixedFps, 45, "vrr:48-144:no-lfc".parse().expect("range"), Preset::Glaiel, 10);
    assert!((no_lfc.stats.judder_ms - 5.556).abs() < 0.01, "{}", no_lfc.stats.judder_ms);
    assert!(no_lfc.pattern.starts_with("1011011011"), "{}", no_lfc.pattern);
}

#[test]
fn lockstep_on_vrr_with_a_fast_machine_runs_at_the_ceiling_and_2_4_times_fast() {
    // glaiel's 5 ms frames are faster than 144 Hz: each waits for the
    // ceiling, 1/144 s (6 944 445 ns, rounded up) after the last, and steps one
    // 1/60 s tick: ŝ = 16 666 666.7 / 6 944 445 = 2.4, drift +84 000 ms/min.
    let r = run(StrategyId::Lockstep, 60, vrr(), Preset::Glaiel, 10);
    assert!((r.stats.drift_ms_per_min - 84_000.0).abs() < 0.1, "{}", r.stats.drift_ms_per_min);
    assert_eq!(r.vsyncs, 1_441, "144 frames a second for 10 s, and the first");
    assert!(r.stats.judder_ms < 1e-6, "{}", r.stats.judder_ms);
}

#[test]
fn interpolated_on_vrr_queues_at_the_ceiling_and_a_cap_shows_frames_when_ready() {
    let interpolated = |limit: Option<u64>, model| {
        let spec = RunSpec::new(StrategyId::Interpolated, Preset::Desktop)
            .with_model(model)
            .with_refresh(vrr())
            .with_frame_limit(limit.map(Rate::from_hz))
            .with_stop(Stop::Duration(20 * NANOS_PER_SEC));
        simulate(&spec, &mut NoWorld).report()
    };
    // Uncapped, desktop's 2–8 ms renders outrun 144 Hz: the queue of two
    // fills and the panel runs a steady 144 Hz, each frame waiting about
    // two refreshes in the queue. Capped at 141 the queue stays empty.
    let desktop = Preset::Desktop.model();
    let (uncapped, capped) = (interpolated(None, desktop), interpolated(Some(141), desktop));
    assert!((uncapped.stats.present_interval_mean_ms - 6.944).abs() < 0.01, "steady 144 Hz");
    assert!(
        capped.stats.latency_ms <= uncapped.stats.latency_ms - 5.0,
        "capped {} ms, uncapped {} ms",
        capped.stats.latency_ms,
        uncapped.stats.latency_ms
    );
    // Capped at 72 Hz every frame is shown when ready: frames start 13.9 ms
    // apart (plus 0.05–1 ms of wake overshoot) and their renders end 2–8 ms
    // in, so display intervals stay within 1/144 s and 1/48 s (no ceiling,
    // no repeat). Each depicts its own start (the overshoot moves picture and
    // display alike): j = −Δ(render). Without update costs (they would add 0,
    // 1 or 2 updates' worth as frames straddle ticks), render ~ U(2, 8) ms:
    // σ² = 6²/12 = 3 ms², the RMS of a difference of two = √(2 · 3) = 2.449 ms.
    let at_72 = interpolated(Some(72), desktop.with_update(0));
    assert!((at_72.stats.judder_ms - 2.449).abs() < 0.08, "{}", at_72.stats.judder_ms);
}

#[test]
fn auto_on_vrr_is_smooth_at_the_right_speed_and_well_below_interpolated_latency() {
    for preset in [Preset::Glaiel, Preset::Desktop] {
        let auto = run(StrategyId::Auto, 60, vrr(), preset, 20);
        let interpolated = run(StrategyId::Interpolated, 60, vrr(), preset, 20);
        let s = &auto.stats;
        assert!(s.judder_ms <= 0.5, "{preset}: judder {} ms", s.judder_ms);
        assert!(s.drift_ms_per_min.abs() < 1.0, "{preset}: drift {} ms/min", s.drift_ms_per_min);
        assert!(
            s.latency_ms <= interpolated.stats.latency_ms - 5.0,
            "{preset}: auto {} ms, interpolated {} ms",
            s.latency_ms,
            interpolated.stats.latency_ms
        );
        // Capped at 141 Hz: never at the ceiling.
        assert!(s.present_interval_mean_ms >= 1e3 / 141.0 - 0.01, "{preset}: {}", s.present_interval_mean_ms);
    }
}

#[test]
fn fuzzy_told_of_vrr_steps_strictly_and_keeps_the_speed_where_untold_it_runs_at_the_frame_rate() {
    // 16.4 ms renders on glaiel: frames every 16.43 ms (60.9 fps), shown when
    // ready, steady: fuzzy's detector takes them for a 60 Hz vsync and its
    // window each for one tick: the game runs at the frame rate,
    // 16.667 / 16.43 − 1 = 1.4 % fast (+860 ms/min). Told the display is VRR,
    // it steps strictly.
    let spec = RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
        .with_model(Preset::Glaiel.model().with_render(16_400_000))
        .with_refresh(vrr())
        .with_stop(Stop::Duration(20 * NANOS_PER_SEC));
    let told = simulate(&spec, &mut NoWorld).report();
    let untold = simulate(&spec.clone().with_reported_refresh(false), &mut NoWorld).report();
    assert!(told.stats.drift_ms_per_min.abs() < 5.0, "{}", told.stats.drift_ms_per_min);
    assert!(untold.stats.drift_ms_per_min > 500.0, "{}", untold.stats.drift_ms_per_min);
}
