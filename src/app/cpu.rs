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

use crate::platform::Instant;

/// Clock ticks per second of `/proc` times. This is the kernel's `USER_HZ`, part of the Linux
/// user-space ABI and 100 on every architecture Rust targets (what `sysconf(_SC_CLK_TCK)`
/// returns), so it is a constant rather than a libc call.
pub const USER_HZ: u64 = 100;

/// Shortest time between two readings. At 100 ticks per second a reading every 500 ms resolves
/// CPU use to 2 % of a core, and the overlay's number stays readable instead of flickering.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(500);

/// Total CPU ticks (`utime + stime`) from the text of a `/proc/<pid>/stat` file.
///
/// The process name (field 2) is in parentheses and may itself contain spaces and parentheses,
/// so fields are counted from the *last* `)`.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // After the name: field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
    let mut fields = after_name.split_ascii_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    utime.checked_add(stime)
}

/// Percent of one core used between two readings; `None` if no wall time passed or the counter
/// went backwards.
pub fn cpu_percent(ticks_before: u64, ticks_after: u64, wall: Duration) -> Option<f64> {
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
pub struct CpuSampler {
    last: Option<(Instant, u64)>,
    percent: Option<f64>,
    buf: String,
    source: TickSource,
}

impl CpuSampler {
    /// A sampler of this process, with no reading yet.
    pub fn new() -> Self {
        Self::with_source(crate::platform::read_own_cpu_ticks)
    }

    /// A sampler reading ticks from `source` (given a reusable text buffer).
    fn with_source(source: TickSource) -> Self {
        Self { last: None, percent: None, buf: String::with_capacity(512), source }
    }

    /// CPU use in percent of one core between the last two readings, taking a new reading if
    /// [`SAMPLE_INTERVAL`] has passed since the previous one. `None` until two readings exist,
    /// and always `None` where `/proc/self/stat` can't be read.
    pub fn sample(&mut self, now: Instant) -> Option<f64> {
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
    pub fn last_percent(&self) -> Option<f64> {
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

    /// A line in the shape `cat /proc/self/stat` prints (utime 7, stime 3).
    const PLAIN: &str = "4242 (cat) R 4100 4242 4100 34816 4242 4194304 113 0 0 0 7 3 0 0 20 0 1 0 \
                         123456 5812224 229 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    #[test]
    fn parses_utime_plus_stime_from_a_plain_line() {
        assert_eq!(parse_cpu_ticks(PLAIN), Some(10));
    }

    #[test]
    fn parses_a_process_name_with_spaces_and_parentheses() {
        let line = "77 (my (odd) game ) ) S 1 77 77 0 -1 4194560 5000 0 0 0 1234 567 0 0 20 0 9 0 \
                    99 1000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
        assert_eq!(parse_cpu_ticks(line), Some(1801), "fields are counted from the last ')'");
    }

    #[test]
    fn rejects_truncated_or_garbled_lines() {
        assert_eq!(parse_cpu_ticks(""), None);
        assert_eq!(parse_cpu_ticks("12 (x"), None, "no closing parenthesis");
        assert_eq!(parse_cpu_ticks("12 (x) R 1 2 3"), None, "too few fields");
        assert_eq!(parse_cpu_ticks("12 (x) R 1 2 3 4 5 6 7 8 9 10 ten 0"), None, "utime not a number");
    }

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
