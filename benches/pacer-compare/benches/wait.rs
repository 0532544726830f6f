//! How precisely a frame loop wakes, and what the waiting costs: timestep-core's
//! `sleep_until` beside the `spin_sleep` crate and `std::thread::sleep`, at
//! 60, 144 and 240 Hz frame periods, in one run.
//!
//! ```text
//!   deadline   = the next point of start + k × period after now (a frame limit's grid)
//!   wait until deadline k                 (each waiter in turn, for WAIT_SECONDS at each rate)
//!   wake error = woken − deadline         (p50, p99, max over the frames)
//!   CPU        = the thread's CPU time / wall time, as a share of one core
//! ```
//!
//! A bench binary, not a timed test: the figures are the machine's, and a
//! busy machine wakes late. `cargo bench -p pacer-compare --bench wait`
//! (`WAIT_SECONDS=10` for steadier tails; the README has the table and how
//! it was run).
#![expect(clippy::print_stdout, reason = "a bench binary prints its table")]

use std::time::{Duration, Instant};

use spin_sleep::{SpinSleeper, SpinStrategy};
use timestep_core::{DEFAULT_SPIN, Rate, sleep_until};

/// One way to wait until a deadline.
struct Waiter {
    name: String,
    wait: Box<dyn Fn(Instant)>,
}

fn waiters() -> Vec<Waiter> {
    let us = |d: Duration| d.as_micros();
    let mut list = Vec::new();
    for spin in [Duration::from_micros(250), Duration::from_micros(500), Duration::from_millis(1)] {
        let default = if spin == DEFAULT_SPIN { " (DEFAULT_SPIN)" } else { "" };
        list.push(Waiter {
            name: format!("timestep-core sleep_until, spin {} µs{default}", us(spin)),
            wait: Box::new(move |deadline| sleep_until(deadline, spin)),
        });
    }
    list.push(Waiter {
        name: "spin_sleep::sleep_until (its default: 125 µs, yield)".to_owned(),
        wait: Box::new(spin_sleep::sleep_until),
    });
    // The same split of sleeping and spinning as the default spin: the same
    // CPU, with spin_sleep's own way to spin (yield) and ours (a spin-loop hint).
    let accuracy = u32::try_from(DEFAULT_SPIN.as_nanos()).unwrap_or(u32::MAX);
    for (how, strategy) in [("yield", SpinStrategy::YieldThread), ("spin-loop hint", SpinStrategy::SpinLoopHint)] {
        list.push(Waiter {
            name: format!("spin_sleep, {} µs, {how}", us(DEFAULT_SPIN)),
            wait: Box::new(move |deadline| {
                SpinSleeper::new(accuracy).with_spin_strategy(strategy).sleep_until(deadline)
            }),
        });
    }
    list.push(Waiter {
        name: "std::thread::sleep".to_owned(),
        wait: Box::new(|deadline| std::thread::sleep(deadline.saturating_duration_since(Instant::now()))),
    });
    list
}

/// The calling thread's CPU time (user and system).
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// The wake error the issue's goal allows at the 99th percentile.
const ON_TIME: Duration = Duration::from_micros(50);

/// What one waiter did at one frame period.
struct Measured {
    /// The share of frames woken within [`ON_TIME`] of their deadline.
    on_time: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
    cpu: f64,
}

fn measure(waiter: &Waiter, period: Duration, frames: u32) -> Measured {
    let mut errors = Vec::with_capacity(frames as usize);
    let (start, cpu_start) = (Instant::now(), thread_cpu());
    let mut k = 0;
    for _ in 0..frames {
        // The next point of the grid after now, as a frame limit wakes: a
        // late wake makes one late frame, not a run of them.
        let since = start.elapsed().as_nanos() / period.as_nanos().max(1);
        k = (k + 1).max(u32::try_from(since).unwrap_or(u32::MAX).saturating_add(1));
        let deadline = start + period * k;
        (waiter.wait)(deadline);
        errors.push(Instant::now().saturating_duration_since(deadline));
    }
    let (wall, cpu) = (start.elapsed(), thread_cpu() - cpu_start);
    errors.sort_unstable();
    let at = |q: f64| errors[((errors.len() - 1) as f64 * q).round() as usize];
    let on_time = errors.partition_point(|&e| e <= ON_TIME) as f64 / errors.len() as f64;
    Measured { on_time, p50: at(0.5), p99: at(0.99), max: at(1.0), cpu: cpu.as_secs_f64() / wall.as_secs_f64() }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes flags.
    let seconds: u32 = std::env::var("WAIT_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    println!(
        "{seconds} s of frames per waiter and rate (WAIT_SECONDS); wake error after the deadline, CPU of one core"
    );
    println!();
    println!("| waiter | rate | ≤ 50 µs | p50 µs | p99 µs | max µs | CPU % |");
    println!("|---|---|---|---|---|---|---|");
    let waiters = waiters();
    for hz in [60, 144, 240] {
        let period = Rate::from_hz(hz).period_duration();
        for waiter in &waiters {
            let m = measure(waiter, period, seconds * u32::try_from(hz).unwrap_or(60));
            let us = |d: Duration| d.as_secs_f64() * 1e6;
            println!(
                "| {} | {hz} Hz | {:.1} % | {:.0} | {:.0} | {:.0} | {:.1} |",
                waiter.name,
                m.on_time * 100.0,
                us(m.p50),
                us(m.p99),
                us(m.max),
                m.cpu * 100.0
            );
        }
    }
}
