//! Process CPU use, for the overlay.
//!
//! On Linux the kernel counts the CPU time of the whole process (all threads) in
//! `/proc/self/stat`, fields 14 (`utime`) and 15 (`stime`), in clock ticks. Two readings give
//! CPU time used over wall time elapsed:
//!
//! ```text
//!   reading A            reading B
//!   |<------ wall 500 ms ------>|
//!   ticks 1200             ticks 1230      -> 30 ticks = 300 ms of CPU -> 60 % of one core
//! ```
//!
//! Readings are taken at most every [`SAMPLE_INTERVAL`]; in between, [`CpuSampler::sample`]
//! returns the last value without touching the file system. Elsewhere it returns `None`.

use std::time::Duration;

use crate::time::Instant;

/// Clock ticks per second of `/proc` times. This is the kernel's `USER_HZ`, part of the Linux
/// user-space ABI and 100 on every architecture Rust targets (what `sysconf(_SC_CLK_TCK)`
/// returns), so it is a constant rather than a libc call.
pub(crate) const USER_HZ: u64 = 100;

/// Shortest time between two readings. At 100 ticks per second a reading every 500 ms resolves
/// CPU use to 2 % of a core, and the overlay's number stays readable instead of flickering.
pub(crate) const SAMPLE_INTERVAL: Duration = Duration::from_millis(500);

/// Percent of one core used between two readings; `None` if no wall time passed or the counter
/// went backwards.
pub(crate) fn cpu_percent(ticks_before: u64, ticks_after: u64, wall: Duration) -> Option<f64> {
    let ticks = ticks_after.checked_sub(ticks_before)?;
    if wall.is_zero() {
        return None;
    }
    let cpu = Duration::from_nanos(ticks.saturating_mul(1_000_000_000 / USER_HZ));
    Some(cpu.as_secs_f64() / wall.as_secs_f64() * 100.0)
}

/// Where CPU ticks are read from: this process's `/proc/self/stat`, or a test's numbers.
type TickSource = fn(&mut String) -> Option<u64>;

/// Samples this process's CPU use; cheap to call every frame.
#[derive(Debug)]
pub(crate) struct CpuSampler {
    last: Option<(Instant, u64)>,
    percent: Option<f64>,
    buf: String,
    source: TickSource,
}

impl CpuSampler {
    /// A sampler of this process, with no reading yet.
    pub(crate) fn new() -> Self {
        Self::with_source(crate::platform::read_own_cpu_ticks)
    }

    /// A sampler reading ticks from `source` (given a reusable text buffer).
    fn with_source(source: TickSource) -> Self {
        Self { last: None, percent: None, buf: String::with_capacity(512), source }
    }

    /// CPU use in percent of one core between the last two readings, taking a new reading if
    /// [`SAMPLE_INTERVAL`] has passed since the previous one. `None` until two readings exist,
    /// and always `None` where `/proc/self/stat` can't be read.
    pub(crate) fn sample(&mut self, now: Instant) -> Option<f64> {
        if let Some((at, _)) = self.last
            && now.saturating_duration_since(at) < SAMPLE_INTERVAL
        {
            return self.percent;
        }
        let Some(ticks) = (self.source)(&mut self.buf) else {
            self.last = None;
            self.percent = None;
            return None;
        };
        if let Some((at, before)) = self.last {
            self.percent = cpu_percent(before, ticks, now.saturating_duration_since(at));
        }
        self.last = Some((now, ticks));
        self.percent
    }

    /// The last computed value, without reading anything.
    #[cfg(test)]
    pub(crate) fn last_percent(&self) -> Option<f64> {
        self.percent
    }
}

impl Default for CpuSampler {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_is_cpu_time_over_wall_time() {
        let half_second = Duration::from_millis(500);
        assert_eq!(cpu_percent(1200, 1230, half_second), Some(60.0));
        assert_eq!(cpu_percent(0, 100, half_second), Some(200.0), "two busy threads: 200 % of one core");
        assert_eq!(cpu_percent(10, 5, half_second), None, "counter went backwards");
        assert_eq!(cpu_percent(5, 10, Duration::ZERO), None, "no wall time");
    }

    #[test]
    fn sampler_needs_two_readings_and_reuses_the_last_value_in_between() {
        use std::sync::atomic::{AtomicU64, Ordering};
        static TICKS: AtomicU64 = AtomicU64::new(1200);
        let mut sampler = CpuSampler::with_source(|_| Some(TICKS.load(Ordering::Relaxed)));
        let t0 = Instant::now();
        assert_eq!(sampler.sample(t0), None, "one reading is not a rate");
        TICKS.store(1215, Ordering::Relaxed);
        assert_eq!(sampler.sample(t0 + Duration::from_millis(100)), None, "too soon for a new reading");
        TICKS.store(1230, Ordering::Relaxed);
        assert_eq!(sampler.sample(t0 + SAMPLE_INTERVAL), Some(60.0), "30 ticks in 500 ms: 60 % of a core");
        TICKS.store(1290, Ordering::Relaxed);
        let between = t0 + SAMPLE_INTERVAL + Duration::from_millis(1);
        assert_eq!(sampler.sample(between), Some(60.0), "between readings the last value stands");
        assert_eq!(sampler.last_percent(), Some(60.0));
    }

    #[test]
    fn a_source_that_cannot_be_read_gives_none() {
        let mut sampler = CpuSampler::with_source(|_| None);
        let t0 = Instant::now();
        assert_eq!(sampler.sample(t0), None);
        assert_eq!(sampler.sample(t0 + SAMPLE_INTERVAL), None);
    }
}
