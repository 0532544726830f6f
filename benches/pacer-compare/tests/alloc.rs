//! One frame through the [`Pacer`] allocates nothing: 1 000 steady-state
//! frames of the benchmark's own frame ([`pacer_frame`]), counted by a
//! counting global allocator.
//!
//! The allocator is this test binary's own (a `#[global_allocator]` is one
//! per binary) and counts per thread, because the harness runs tests in
//! parallel threads: another test's allocations must not show in this count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use pacer_compare::{Ball, FRAME, TICK_HZ, pacer_frame};
use timestep_core::{Instant, Pacer, Rate, StrategyId};

/// Forwards to [`System`], counting `alloc` and `realloc` calls per thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread-local may already be gone while a thread exits.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

#[expect(unsafe_code, reason = "a GlobalAlloc impl is unsafe by definition; it only forwards to System")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations (and reallocations) this thread made while running `f`.
fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Runs frames `from..to` through the pacer on the synthetic clock that starts at `start`.
fn frames(pacer: &mut Pacer, ball: &mut Ball, start: Instant, from: u32, to: u32) {
    for k in from..to {
        std::hint::black_box(pacer_frame(pacer, ball, start + FRAME * k));
    }
}

#[test]
fn the_counting_allocator_sees_one_vec_as_one_allocation() {
    let n = allocations_during(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1, "one Vec of 16 bytes is one allocation");
}

#[test]
fn a_thousand_pacer_frames_after_a_warm_up_allocate_nothing() {
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(u64::from(TICK_HZ)));
    let mut ball = Ball::default();
    let start = Instant::now();
    // Warm-up: the refresh meter fills its window.
    frames(&mut pacer, &mut ball, start, 0, 300);
    let updates = pacer.updates();
    let allocations = allocations_during(|| frames(&mut pacer, &mut ball, start, 300, 1_300));
    assert_eq!(allocations, 0, "{allocations} heap allocations in 1000 steady-state frames");
    // 1000 frames of 16.67 ms are 16.67 s: 1000 ticks of 60 Hz, one fewer
    // than the frames' count rounded (1000.2 ticks) if the phase falls so.
    let stepped = pacer.updates() - updates;
    assert!((999..=1_001).contains(&stepped), "the pacer really stepped: {stepped} updates in 1000 frames");
    assert!(pacer.game_time() > Duration::from_secs(16), "the game clock ran: {:?}", pacer.game_time());
}
