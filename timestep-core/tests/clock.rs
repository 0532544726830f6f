//! The real clock on the platform it runs on: std's natively, the page's
//! `performance.now()` (through `web-time`) in the browser, where std's
//! `Instant::now()` panics ("time not implemented on this platform"). On
//! wasm32 these run in headless Chromium (`tests/chromium.rs`).

#![cfg(feature = "std")]

use std::time::Duration;

use timestep_core::time::{Clock, RealClock};
use timestep_core::{Instant, Pacer, Present, Rate, StrategyId};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// Reads `clock` until it has moved on from `from` (the page's clock ticks in
/// steps of 5–100 µs), at most a million reads.
fn next_reading(clock: &RealClock, from: u64) -> u64 {
    (0..1_000_000).map(|_| clock.now()).find(|&t| t > from).unwrap_or_else(|| panic!("the clock stuck at {from} ns"))
}

#[test]
fn the_core_s_instant_is_the_page_s_clock_in_the_browser_and_std_s_elsewhere() {
    let name = std::any::type_name::<Instant>();
    if cfg!(target_arch = "wasm32") {
        assert!(name.starts_with("web_time::"), "the browser's Instant is web-time's, not {name}");
    } else {
        assert!(name.starts_with("std::"), "the native Instant is std's, not {name}");
    }
}

#[test]
fn a_real_clock_starts_near_zero_and_moves_forward() {
    let clock = RealClock::new();
    let first = clock.now();
    assert!(first < 1_000_000_000, "a new clock reads {first} ns, not about 0");
    let later = next_reading(&clock, first);
    assert!(later > first, "monotonic: {first} then {later}");
    let at = clock.instant_at(later);
    assert!(at <= Instant::now(), "the instant of a past reading is not in the future");
}

#[test]
fn a_pacer_runs_frames_on_the_real_clock() {
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(1000));
    let clock = RealClock::new();
    let start = Instant::now();
    let mut reading = 0;
    let mut updates = 0;
    while pacer.game_time() < Duration::from_millis(5) {
        reading = next_reading(&clock, reading);
        let frame = pacer.advance(Instant::now());
        updates += frame.updates().count();
        updates += pacer.presented(Present::at(Instant::now())).count();
        if let Some(wake) = pacer.finish(Instant::now()) {
            assert!(wake >= start, "a wake time on the same clock");
        }
        assert!(start.elapsed() < Duration::from_secs(10), "5 ms of game time within 10 s");
    }
    assert_eq!(updates as u64, pacer.total_updates(), "every update the pacer counted was handed out");
    assert!(pacer.total_updates() >= 5, "1 ms ticks over 5 ms: {} updates", pacer.total_updates());
}
