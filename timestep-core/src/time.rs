//! Integer time: nanoseconds, exact rational rates, and clocks.
//!
//! Everything the core measures is a `u64` count of nanoseconds ([`Nanos`]).
//! Rates (tick rates, refresh rates) are exact rationals, so 59.94 Hz is
//! `60000/1001` Hz and the time of tick `n` is computed from `n` directly:
//!
//! ```text
//! tick_time(n) = floor(n * den * 1e9 / num)      (u128 intermediate)
//! ```
//!
//! Nothing is ever accumulated by adding a rounded period, so tick 10⁹ of a
//! 60 Hz clock lands on exactly the same nanosecond as `10⁹ / 60` seconds
//! (deWiTTERS' drift demo is why). Floats are derived from these integers at
//! the edges (alpha, shader uniforms, printed seconds) and never fed back.
//!
//! `RealClock` is the only place in the core that reads the OS clock (and
//! `Instant`, which a game passes in). Tests and the simulator use [`ManualClock`].
//!
//! At the edges, where a game speaks `std::time`, [`duration_to_nanos`] and
//! [`nanos_to_duration`] convert exactly (saturating past 584 years), and
//! `Instant` is `std::time::Instant` natively and the page's
//! `performance.now()` on wasm32, where std's clock panics.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;
use core::str::FromStr;
use core::time::Duration;

#[cfg(not(any(feature = "std", test)))]
use crate::float::Round as _;

/// A monotonic instant: `std::time::Instant`, except on wasm32, where std's
/// panics ("time not implemented on this platform") and `web_time`'s reads
/// the page's `performance.now()`.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub use std::time::Instant;
/// A monotonic instant: `std::time::Instant`, except on wasm32, where std's
/// panics ("time not implemented on this platform") and `web_time`'s reads
/// the page's `performance.now()`.
#[cfg(all(feature = "std", target_arch = "wasm32"))]
pub use web_time::Instant;

/// Nanoseconds, the one unit of time in the core.
pub type Nanos = u64;

/// Nanoseconds per second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Nanoseconds per millisecond.
pub const NANOS_PER_MS: u64 = 1_000_000;

/// A closed range of rates, compared exactly (as fractions, not floats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateRange {
    /// The lowest rate in the range.
    pub min: Rate,
    /// The highest rate in the range.
    pub max: Rate,
}

impl RateRange {
    /// Whether `rate` lies within `min..=max`.
    pub fn contains(&self, rate: Rate) -> bool {
        // a/b <= c/d  <=>  a·d <= c·b, exact in u128.
        let le = |x: Rate, y: Rate| x.num as u128 * y.den as u128 <= y.num as u128 * x.den as u128;
        le(self.min, rate) && le(rate, self.max)
    }
}

impl fmt::Display for RateRange {
    /// `1–1000 Hz`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let min = self.min.to_string();
        write!(f, "{}–{}", min.trim_end_matches(" Hz"), self.max)
    }
}

/// Every tick and refresh rate the core accepts from outside ([`Rate::new`],
/// [`Rate::parse`], and so every rate a user types): 1–1000 Hz. Below
/// 1 Hz nothing moves on screen; above 1000 Hz no display or game loop runs
/// (and a 1 ms period is where the nanosecond grid is still 6 digits deep).
pub const SUPPORTED_RATES: RateRange = RateRange { min: Rate::from_hz(1), max: Rate::from_hz(1000) };

/// Converts seconds (a float, from user input) to nanoseconds, rounding.
/// Negative and NaN inputs become 0; huge ones saturate.
pub fn secs_to_nanos(secs: f64) -> Nanos {
    if secs.is_nan() || secs <= 0.0 {
        0
    } else {
        let ns = (secs * NANOS_PER_SEC as f64).round();
        if ns >= u64::MAX as f64 { u64::MAX } else { ns as u64 }
    }
}

/// Converts milliseconds (a float, from user input) to nanoseconds.
pub fn ms_to_nanos(ms: f64) -> Nanos {
    secs_to_nanos(ms / 1000.0)
}

/// Seconds as a float, for display only.
pub fn nanos_to_secs(ns: Nanos) -> f64 {
    ns as f64 / NANOS_PER_SEC as f64
}

/// Milliseconds as a float, for display only.
pub fn nanos_to_ms(ns: Nanos) -> f64 {
    ns as f64 / NANOS_PER_MS as f64
}

/// A `Duration` as nanoseconds, exactly; saturates at `u64::MAX` (584 years).
#[inline]
pub fn duration_to_nanos(d: Duration) -> Nanos {
    // In 64 bits: `as_nanos` multiplies in 128 (three conversions a frame).
    let secs = d.as_secs().checked_mul(NANOS_PER_SEC);
    secs.and_then(|ns| ns.checked_add(u64::from(d.subsec_nanos()))).unwrap_or(u64::MAX)
}

/// Nanoseconds as a `Duration`, exactly (a step's `dt` for a game's update).
#[inline]
pub const fn nanos_to_duration(ns: Nanos) -> Duration {
    Duration::from_nanos(ns)
}

/// `ns as f64`, the correctly rounded value, through `i64` below 2⁶³ ns (292
/// years): baseline x86-64 converts signed integers in one instruction and
/// unsigned ones in about six, with a longer latency, and the simulator
/// converts several a frame (alpha, interpolated times, mover phases).
#[inline]
pub fn nanos_as_f64(ns: Nanos) -> f64 {
    match i64::try_from(ns) {
        Ok(signed) => signed as f64,
        Err(_) => ns as f64,
    }
}

/// `x.round() as Nanos` (halves away from zero, NaN and negatives to 0,
/// saturating), without the libm call: `round` is not an instruction on
/// baseline x86-64 and interpolated content and input times round every
/// frame (1 % of a simulator profile, `round` plus the call).
#[inline]
pub(crate) fn round_to_nanos(x: f64) -> Nanos {
    // Through `i64` below 2⁶³, as in `nanos_as_f64`: the same truncation
    // and the same fraction, in fewer instructions.
    if (0.0..9_223_372_036_854_775_808.0).contains(&x) {
        let whole = x as i64;
        let rounded = if x - whole as f64 >= 0.5 { whole + 1 } else { whole };
        return rounded.unsigned_abs();
    }
    let whole = x as Nanos;
    // The fraction `x − whole` is exact: below 2^52 both share x's exponent
    // range, at or above it `x` is whole (or saturated) and the fraction is 0 or more.
    if x - whole as f64 >= 0.5 { whole.saturating_add(1) } else { whole }
}

/// Why a rate was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RateError {
    /// The text is not a number or a `num/den` fraction.
    #[error("'{0}' is not a rate in Hz (expected e.g. 60, 59.94 or 60000/1001)")]
    Malformed(String),
    /// Zero, negative, NaN or infinite.
    #[error("{0} is not a positive, finite rate (expected {SUPPORTED_RATES})")]
    NotPositive(String),
    /// Outside [`SUPPORTED_RATES`].
    #[error("{0} is outside {SUPPORTED_RATES}")]
    OutOfRange(String),
}

/// An exact rate in Hz, `num / den`, always reduced, both parts positive.
///
/// Used for tick rates and display refresh rates. `Rate::parse("59.94")`
/// recognises the NTSC family and yields `60000/1001`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rate {
    num: u64,
    den: u64,
}

/// The NTSC rate `k·1000/1001` Hz that the decimal `num / den` (`den` a
/// power of ten) names: the one within 0.005 Hz of it, unless the decimal is
/// itself within 0.005 Hz of a whole number. `None` for any other fraction.
fn ntsc_of_decimal(num: u64, den: u64) -> Option<(u64, u64)> {
    let mut power = den;
    while power.is_multiple_of(10) {
        power /= 10;
    }
    if power != 1 {
        return None;
    }
    let (n, d) = (u128::from(num), u128::from(den));
    // |x − y| < 0.005 Hz, with x and y as fractions over `den`: 200·|x·den − y·den| < den.
    let near = |scaled_diff: u128, over: u128| 200 * scaled_diff < over;
    let whole = (n + d / 2) / d;
    if near(n.abs_diff(whole * d), d) {
        return None;
    }
    // k = round(x · 1.001) = round(num · 1001 / (1000 · den)); k·1000/1001 against num/den over 1001·den.
    let k = (n * 1001 + 500 * d) / (1000 * d);
    let ntsc_diff = (n * 1001).abs_diff(k * 1000 * d);
    if k == 0 || !near(ntsc_diff, 1001 * d) {
        return None;
    }
    Some((u64::try_from(k * 1000).ok()?, 1001))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Rate {
    /// A whole number of Hz, in [`SUPPORTED_RATES`] like every other rate.
    ///
    /// ```
    /// use timestep_core::Rate;
    /// assert_eq!(Rate::from_hz(60), Rate::new(60, 1).unwrap());
    /// assert_eq!("60".parse::<Rate>(), Ok(Rate::from_hz(60)));
    /// ```
    ///
    /// # Panics
    /// If `hz` is outside 1–1000 (a programming error; user input goes
    /// through [`Rate::parse`] or [`Rate::new`], which return the error instead).
    pub const fn from_hz(hz: u64) -> Rate {
        assert!(hz >= 1 && hz <= 1000, "a whole rate must be 1–1000 Hz (SUPPORTED_RATES)");
        Rate { num: hz, den: 1 }
    }

    /// The rate whose period is `period`, exactly (`1e9 / ns` Hz, reduced).
    ///
    /// # Errors
    /// A zero period, or one whose rate is outside [`SUPPORTED_RATES`].
    pub fn from_period(period: Duration) -> Result<Rate, RateError> {
        let ns = duration_to_nanos(period);
        Rate::checked(NANOS_PER_SEC, ns, || format!("1/{period:?}"))
    }

    /// One period as a `Duration`, rounded to the nearest nanosecond.
    pub fn period_duration(self) -> Duration {
        nanos_to_duration(self.period())
    }

    /// `num / den` Hz, reduced, with the NTSC rule of [`Rate::parse`] for a
    /// decimal (a `den` of 1, 10, 100, …): winit reports a 59.94 Hz monitor
    /// as 59940 millihertz, and `Rate::new(59940, 1000)` is the 60000/1001
    /// Hz it runs at, as `"59.94".parse()` is. Any other fraction is exact.
    ///
    /// ```
    /// use timestep_core::Rate;
    /// let ntsc = Rate::new(60000, 1001).unwrap();
    /// assert_eq!(Rate::new(59940, 1000), Ok(ntsc), "winit's millihertz");
    /// assert_eq!("59.94".parse::<Rate>(), Ok(ntsc));
    /// assert_eq!(Rate::new(2997, 50).unwrap().hz(), 59.94, "exactly 59.94 Hz, not a decimal");
    /// assert_eq!(Rate::new(74973, 1000).unwrap().hz(), 74.973, "not near an NTSC rate: exact");
    /// ```
    ///
    /// # Errors
    /// If either part is zero or the value is outside [`SUPPORTED_RATES`].
    pub fn new(num: u64, den: u64) -> Result<Rate, RateError> {
        Rate::checked(num, den, || format!("{num}/{den}"))
    }

    /// `num / den`, reduced and checked, a decimal near an NTSC rate taken
    /// as that rate; `text` names the value in an error.
    fn checked(num: u64, den: u64, text: impl Fn() -> String) -> Result<Rate, RateError> {
        if num == 0 || den == 0 {
            return Err(RateError::NotPositive(text()));
        }
        let (num, den) = ntsc_of_decimal(num, den).unwrap_or((num, den));
        let g = gcd(num, den);
        let rate = Rate { num: num / g, den: den / g };
        if !SUPPORTED_RATES.contains(rate) {
            return Err(RateError::OutOfRange(text()));
        }
        Ok(rate)
    }

    /// Parses `60`, `59.94`, `143.5`, `60000/1001`, each with or without ` Hz`.
    ///
    /// Decimals are taken exactly (`143.5` is `287/2`), except the NTSC
    /// family: a decimal within 0.005 Hz of `k·1000/1001` for a whole `k`
    /// (and not itself whole) is that rational, because that is what such
    /// displays really run at (59.94 → 60000/1001, 119.88 → 120000/1001,
    /// 143.856 → 144000/1001). [`Rate::new`] follows the same rule.
    ///
    /// # Errors
    /// Malformed text, non-positive or non-finite values, values out of range.
    pub fn parse(text: &str) -> Result<Rate, RateError> {
        let text = text.trim();
        // What `Display` writes (`59.94 Hz`) parses back.
        let text = text.strip_suffix("Hz").or_else(|| text.strip_suffix("hz")).map_or(text, str::trim_end);
        let named = || text.to_owned();
        if let Some((n, d)) = text.split_once('/') {
            let n: u64 = n.trim().parse().map_err(|_| RateError::Malformed(named()))?;
            let d: u64 = d.trim().parse().map_err(|_| RateError::Malformed(named()))?;
            return Rate::checked(n, d, named);
        }
        let value: f64 = text.parse().map_err(|_| RateError::Malformed(named()))?;
        if !value.is_finite() || value <= 0.0 {
            return Err(RateError::NotPositive(named()));
        }
        // Far outside: refuse before the conversions below could overflow or
        // round to zero. Near the edges the exact check in `checked` decides.
        if value < SUPPORTED_RATES.min.hz() / 2.0 || value > SUPPORTED_RATES.max.hz() * 2.0 {
            return Err(RateError::OutOfRange(named()));
        }
        // Exact decimal: digits after the point become a power-of-ten
        // denominator (`checked` applies the NTSC rule to it).
        let (int_part, frac_part) = text.split_once('.').unwrap_or((text, ""));
        let frac_part = frac_part.trim_end_matches('0');
        if frac_part.len() > 9
            || !int_part.chars().all(|c| c.is_ascii_digit())
            || !frac_part.chars().all(|c| c.is_ascii_digit())
        {
            // Exponents or long fractions: fall back to micro-Hz resolution.
            return Rate::checked((value * 1e6).round() as u64, 1_000_000, named);
        }
        let den = 10u64.pow(frac_part.len() as u32);
        let int: u64 =
            if int_part.is_empty() { 0 } else { int_part.parse().map_err(|_| RateError::Malformed(named()))? };
        let frac: u64 = if frac_part.is_empty() { 0 } else { frac_part.parse().unwrap_or(0) };
        Rate::checked(int * den + frac, den, named)
    }

    /// Numerator of the reduced fraction (Hz = num / den).
    pub const fn num(self) -> u64 {
        self.num
    }

    /// Denominator of the reduced fraction.
    pub const fn den(self) -> u64 {
        self.den
    }

    /// The rate as a float, for display and for float-only consumers.
    pub fn hz(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// One period, rounded to the nearest nanosecond. Use [`Rate::tick_time`]
    /// for anything that is summed.
    #[inline]
    pub fn period(self) -> Nanos {
        // 64-bit fast path, the same exact quotient: the driver asks for the
        // tick period every frame and `u128` division is a library call.
        let fast = self.den.checked_mul(2 * NANOS_PER_SEC).and_then(|d| d.checked_add(self.num));
        if let (Some(n2), Some(d2)) = (fast, self.num.checked_mul(2)) {
            return n2 / d2;
        }
        let p = (self.den as u128 * NANOS_PER_SEC as u128 * 2 + self.num as u128) / (2 * self.num as u128);
        p.min(u64::MAX as u128) as u64
    }

    /// The time of tick `n` after tick 0, floored to the nanosecond. Exact:
    /// no error accumulates with `n`.
    #[inline]
    pub fn tick_time(self, n: u64) -> Nanos {
        // 64-bit fast path (years of ticks fit); 128-bit division is several
        // times slower and this runs a few times per simulated frame.
        if let Some(scaled) = self.den.checked_mul(NANOS_PER_SEC).and_then(|d| n.checked_mul(d)) {
            return scaled / self.num;
        }
        let t = n as u128 * self.den as u128 * NANOS_PER_SEC as u128 / self.num as u128;
        t.min(u64::MAX as u128) as u64
    }

    /// The time of tick `n`, rounded up to the nanosecond: the first
    /// nanosecond at or after the exact instant.
    pub fn tick_time_ceil(self, n: u64) -> Nanos {
        // 64-bit fast path as in `tick_time`: the virtual display asks for a
        // refresh's grid time several times per simulated frame, and the
        // `u128` division (`__udivti3`) was 4.5 % of a simulator profile.
        if let Some(scaled) = self.den.checked_mul(NANOS_PER_SEC).and_then(|d| n.checked_mul(d)) {
            return scaled.div_ceil(self.num);
        }
        let d = self.num as u128;
        let t = (n as u128 * self.den as u128 * NANOS_PER_SEC as u128).div_ceil(d);
        t.min(u64::MAX as u128) as u64
    }

    /// How many whole ticks fit in `t`: the largest `n` with `tick_time(n) <= t`,
    /// so that the two functions are exact inverses on the nanosecond grid.
    #[inline]
    pub fn ticks_in(self, t: Nanos) -> u64 {
        // floor(n·d/r) <= t  <=>  n·d/r < t + 1  <=>  n < (t + 1)·r/d
        if let (Some(scale), Some(x)) =
            (self.den.checked_mul(NANOS_PER_SEC), t.checked_add(1).and_then(|t1| t1.checked_mul(self.num)))
        {
            return x.div_ceil(scale) - 1;
        }
        let scale = self.den as u128 * NANOS_PER_SEC as u128;
        let n = ((t as u128 + 1) * self.num as u128).div_ceil(scale) - 1;
        n.min(u64::MAX as u128) as u64
    }

    /// The tick nearest to `t` (ties round up), as the article's
    /// `round(t * Hz)`.
    pub fn nearest_tick(self, t: Nanos) -> u64 {
        // 64-bit fast path, the same exact quotient (see `tick_time_ceil`).
        let scale = self.den.checked_mul(NANOS_PER_SEC);
        let twice = scale.and_then(|s| s.checked_mul(2));
        let top = t.checked_mul(self.num).and_then(|x| x.checked_mul(2)).zip(scale).and_then(|(x, s)| x.checked_add(s));
        if let (Some(top), Some(twice)) = (top, twice) {
            return top / twice;
        }
        let scale = self.den as u128 * NANOS_PER_SEC as u128;
        let n = (t as u128 * self.num as u128 * 2 + scale) / (2 * scale);
        n.min(u64::MAX as u128) as u64
    }

    /// This rate scaled by `mul / div` (e.g. 60 Hz × 62/60 = 62 Hz). Used by
    /// the fuzzy windows, which scale with the tick rate.
    ///
    /// # Panics
    /// If `mul` or `div` is 0.
    pub fn scaled(self, mul: u64, div: u64) -> Rate {
        assert!(mul > 0 && div > 0, "scale factors must be positive");
        let num = self.num as u128 * mul as u128;
        let den = self.den as u128 * div as u128;
        let g = {
            let (mut a, mut b) = (num, den);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        Rate { num: (num / g).min(u64::MAX as u128) as u64, den: (den / g).min(u64::MAX as u128) as u64 }
    }
}

/// One tick of a rate as a quotient and remainder, to step tick times
/// without dividing: `tick_time(n + 1)` is `tick_time(n) + quotient`, plus
/// one when the remainders carried past `num`. A division a frame was 5 % of
/// a pacer's frame, and its latency more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TickStep {
    /// One tick's `den · 10⁹`.
    pub(crate) scaled: u64,
    /// `scaled / num` and `scaled % num`.
    pub(crate) quotient: Nanos,
    pub(crate) remainder: u64,
    num: u64,
}

impl TickStep {
    /// The step of `rate`, where it and the sum of two remainders fit in 64
    /// bits (every supported rate); `None`: tick times are divided out.
    pub(crate) fn of(rate: Rate) -> Option<TickStep> {
        let scaled = rate.den.checked_mul(NANOS_PER_SEC).filter(|_| rate.num <= u64::MAX / 2)?;
        Some(TickStep { scaled, quotient: scaled / rate.num, remainder: scaled % rate.num, num: rate.num })
    }

    /// `tick_time(n)` and its remainder, exactly (one division).
    pub(crate) fn at(self, n: u64) -> (Nanos, u64) {
        // 64-bit where it fits (`u128` division is a library call).
        if let Some(scaled) = n.checked_mul(self.scaled) {
            return (scaled / self.num, scaled % self.num);
        }
        let scaled = u128::from(n) * u128::from(self.scaled);
        let num = u128::from(self.num);
        (u64::try_from(scaled / num).unwrap_or(u64::MAX), u64::try_from(scaled % num).unwrap_or(0))
    }

    /// The tick after one at `time` with remainder `rem`: its time and remainder.
    #[inline]
    pub(crate) fn next(self, time: Nanos, rem: u64) -> (Nanos, u64) {
        let rem = rem + self.remainder;
        let (rem, carry) = if rem >= self.num { (rem - self.num, 1) } else { (rem, 0) };
        // One saturating add, the same sum as two: `quotient + 1` cannot
        // overflow (`quotient` is `den · 10⁹ / num`, and no multiple of 10⁹
        // is `u64::MAX`), and a sum that saturates either way is `u64::MAX`.
        (time.saturating_add(self.quotient + carry), rem)
    }
}

impl fmt::Display for Rate {
    /// `60 Hz`, `59.94 Hz` (60000/1001), `143.856 Hz`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{} Hz", self.num)
        } else {
            let hz = self.hz();
            let s = format!("{hz:.3}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            write!(f, "{s} Hz")
        }
    }
}

impl FromStr for Rate {
    type Err = RateError;

    /// As [`Rate::parse`]: `60`, `59.94`, `60000/1001`.
    fn from_str(text: &str) -> Result<Rate, RateError> {
        Rate::parse(text)
    }
}

/// A source of monotonic time in nanoseconds.
pub trait Clock {
    /// Nanoseconds since the clock's origin.
    fn now(&self) -> Nanos;
}

/// The OS monotonic clock (the page's on wasm32), counted from when this value was created.
///
/// For a host that counts in nanoseconds; the core itself takes time as data.
///
/// ```
/// use timestep_core::time::{Clock, RealClock};
/// let clock = RealClock::new();
/// let (a, b) = (clock.now(), clock.now());
/// assert!(b >= a, "monotonic");
/// ```
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy)]
pub struct RealClock {
    origin: Instant,
}

#[cfg(feature = "std")]
impl RealClock {
    /// A clock whose `now()` is 0 at this moment.
    pub fn new() -> RealClock {
        RealClock { origin: Instant::now() }
    }

    /// The `Instant` at which this clock reads `t` (for `ControlFlow::WaitUntil`).
    pub fn instant_at(&self, t: Nanos) -> Instant {
        self.origin + Duration::from_nanos(t)
    }
}

#[cfg(feature = "std")]
impl Default for RealClock {
    fn default() -> Self {
        RealClock::new()
    }
}

#[cfg(feature = "std")]
impl Clock for RealClock {
    fn now(&self) -> Nanos {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// The spin `sleep_until` ends a wait with: 250 µs. An OS sleep wakes
/// late: on Linux by the timer slack (50 µs by default) plus the scheduler's
/// wake-up latency; `std::thread::sleep` woke 111–128 µs late at the median
/// on a loaded 2-core machine (`cargo bench -p pacer-compare --bench wait`),
/// and 250 µs covers that twice over. A spin costs at most itself a frame:
/// 1.5 % of a core at 60 fps, 3.6 % at 144 (the 1 ms it was cost 14 %), 6 %
/// at 240. Longer spins woke no more frames on time there: what a busy
/// machine adds (a preempted thread, tens of ms), no spin shorter than a
/// frame hides. An OS with a coarser sleep needs more. On an idle
/// 16-core Linux machine it woke within 50 µs of 99.1 % of 144 Hz deadlines
/// (p99 37 µs, the goal's 50) at 2.6 % of a core, and of 99.6 % at 240 Hz
/// (p99 2 µs) at 4.6 %; a 500 µs spin bought p99 3 µs at 6.2 %.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(250);

/// How early an event loop's timer is asked to wake before a frame's wake
/// (winit's `ControlFlow::WaitUntil`, a page's `setTimeout`): 1 ms. Such a
/// timer wakes late (its timeout may be rounded up to whole milliseconds), so
/// a loop that handles events while it waits asks for the wake minus this,
/// and the frame finishes the wait with `sleep_until` at [`DEFAULT_SPIN`]
/// (see the README's winit recipe). A wake nearer than this is not handed to
/// the event loop at all.
pub const EVENT_LOOP_EARLY: Duration = Duration::from_millis(1);

/// What [`sleep_until`] does next.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WaitStep {
    /// The deadline has passed.
    Done,
    /// Sleep this long, then look again.
    Sleep(Duration),
    /// Within the spin margin: spin once, then look again.
    Spin,
}

/// The next step of a wait for `deadline` at `now`, spinning the last `spin`.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
fn wait_step(now: Instant, deadline: Instant, spin: Duration) -> WaitStep {
    match deadline.checked_duration_since(now) {
        None => WaitStep::Done,
        Some(left) if left.is_zero() => WaitStep::Done,
        Some(left) if left <= spin => WaitStep::Spin,
        Some(left) => WaitStep::Sleep(left - spin),
    }
}

/// Blocks the thread until `deadline`: `std::thread::sleep` for all but the
/// last `spin`, then a busy spin, because OS sleeps wake late (by up to a
/// timer tick). `Duration::ZERO` never spins; [`DEFAULT_SPIN`] is 250 µs.
/// Returns at once for a past deadline. Not on wasm32, where a page must not block.
///
/// ```
/// use timestep_core::{DEFAULT_SPIN, Instant, sleep_until};
/// let deadline = Instant::now() + std::time::Duration::from_millis(2);
/// sleep_until(deadline, DEFAULT_SPIN);
/// assert!(Instant::now() >= deadline);
/// ```
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub fn sleep_until(deadline: Instant, spin: Duration) {
    loop {
        match wait_step(Instant::now(), deadline, spin) {
            WaitStep::Done => return,
            WaitStep::Sleep(d) => std::thread::sleep(d),
            WaitStep::Spin => std::hint::spin_loop(),
        }
    }
}

/// A clock that moves only when told to. Tests and the simulator use it.
///
/// ```
/// use timestep_core::time::{Clock, ManualClock};
/// let mut clock = ManualClock::starting_at(5);
/// clock.advance_by(10);
/// clock.advance_to(12);
/// assert_eq!(clock.now(), 15, "advance_to never goes backwards");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ManualClock {
    now: Nanos,
}

impl ManualClock {
    /// A clock reading `start`.
    pub fn starting_at(start: Nanos) -> ManualClock {
        ManualClock { now: start }
    }

    /// Moves the clock forward by `d` (saturating at `u64::MAX`).
    pub fn advance_by(&mut self, d: Nanos) {
        self.now = self.now.saturating_add(d);
    }

    /// Moves the clock forward to `t`; earlier times leave it where it is,
    /// because a monotonic clock never runs backwards.
    pub fn advance_to(&mut self, t: Nanos) {
        self.now = self.now.max(t);
    }

    /// Sets the clock to `t`, even backwards. Only for tests that check how
    /// the core copes with a broken clock.
    pub fn jump_to(&mut self, t: Nanos) {
        self.now = t;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Nanos {
        self.now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn tick_time_at_60_hz_is_exact_for_huge_tick_counts() {
        let r = Rate::from_hz(60);
        assert_eq!(r.tick_time(60), NANOS_PER_SEC);
        assert_eq!(r.tick_time(1), 16_666_666);
        assert_eq!(r.tick_time(3), 50_000_000);
        // 10^9 ticks = 16_666_666.666… s, floored to the nanosecond.
        assert_eq!(r.tick_time(1_000_000_000), 16_666_666_666_666_666);
    }

    #[test]
    fn ntsc_rates_parse_to_their_exact_fraction() {
        assert_eq!(Rate::parse("59.94").unwrap(), Rate::new(60000, 1001).unwrap());
        assert_eq!(Rate::parse("119.88").unwrap(), Rate::new(120000, 1001).unwrap());
        assert_eq!(Rate::parse("23.976").unwrap(), Rate::new(24000, 1001).unwrap());
        assert_eq!(Rate::parse("60000/1001").unwrap(), Rate::new(60000, 1001).unwrap());
        assert_eq!(Rate::parse("60").unwrap(), Rate::from_hz(60));
        assert_eq!(Rate::parse("143.5").unwrap(), Rate::new(287, 2).unwrap());
    }

    #[test]
    fn bad_rates_are_errors_not_panics() {
        for bad in ["0", "-60", "NaN", "inf", "", "abc", "1e9", "60/0", "0/5", "1/0"] {
            assert!(Rate::parse(bad).is_err(), "'{bad}' should be rejected");
        }
    }

    #[test]
    fn the_supported_range_is_1_to_1000_hz_compared_exactly() {
        for ok in ["1", "1000", "1000.000", "1e3", "60000/1001", "1000000/1000"] {
            assert!(Rate::parse(ok).is_ok(), "'{ok}' is inside the range");
        }
        for outside in ["0.999", "1000.001", "1000.0000001", "1001/1", "999/1000", "99999999999999999999"] {
            assert_eq!(
                Rate::parse(outside),
                Err(RateError::OutOfRange(outside.to_owned())),
                "'{outside}' is outside the range"
            );
        }
        assert_eq!(SUPPORTED_RATES.to_string(), "1–1000 Hz");
        assert_eq!(Rate::parse("5000").unwrap_err().to_string(), "5000 is outside 1–1000 Hz");
    }

    #[test]
    fn ticks_in_inverts_tick_time() {
        let r = Rate::new(60000, 1001).unwrap();
        for n in [0, 1, 2, 59, 60, 1000, 123_456_789] {
            let t = r.tick_time(n);
            assert_eq!(r.ticks_in(t), n, "tick {n} at {t} ns");
            if t > 0 {
                assert_eq!(r.ticks_in(t - 1), n - 1, "just before tick {n}");
            }
        }
    }

    #[test]
    fn the_ceiled_rounded_and_period_fast_paths_give_the_exact_128_bit_quotients() {
        let big = |x: u64| u128::from(x);
        let s = big(NANOS_PER_SEC);
        for rate in
            [Rate::from_hz(60), Rate::from_hz(7), Rate::new(60000, 1001).unwrap(), Rate::new(999_983, 1000).unwrap()]
        {
            let (num, den) = (big(rate.num()), big(rate.den()));
            assert_eq!(big(rate.period()), (den * s * 2 + num) / (2 * num), "period of {rate}");
            // Both sides of where n·den·10⁹ (or 2·t·num) leaves u64, and ordinary values.
            let edge_n = u64::MAX / (rate.den() * NANOS_PER_SEC);
            let edge_t = u64::MAX / (2 * rate.num());
            for n in [0, 1, 2, 999, 1_000_001, edge_n - 1, edge_n, edge_n + 1, edge_n * 3, u64::MAX] {
                let want = (big(n) * den * s).div_ceil(num).min(big(u64::MAX));
                assert_eq!(big(rate.tick_time_ceil(n)), want, "tick_time_ceil({n}) at {rate}");
            }
            for t in [0, 1, 8_333_333, 8_333_334, 16_666_667, edge_t - 1, edge_t, edge_t + 1, u64::MAX] {
                let want = ((big(t) * num * 2 + den * s) / (2 * den * s)).min(big(u64::MAX));
                assert_eq!(big(rate.nearest_tick(t)), want, "nearest_tick({t}) at {rate}");
            }
        }
    }

    #[test]
    fn nanos_as_f64_is_the_plain_conversion_on_both_sides_of_2_to_the_63() {
        let edge = 1u64 << 63;
        for ns in [0, 1, 16_666_667, (1 << 53) + 1, edge - 1, edge, edge + 1, edge + 4097, u64::MAX] {
            assert_eq!(nanos_as_f64(ns).to_bits(), (ns as f64).to_bits(), "{ns} ns");
        }
    }

    #[test]
    fn round_to_nanos_matches_f64_round_everywhere_it_is_used_and_at_the_edges() {
        let just_below_half = 0.5 - f64::EPSILON / 4.0;
        let cases = [
            0.0,
            -0.0,
            0.4,
            0.5,
            just_below_half,
            1.5,
            2.5,
            16_666_666.5,
            8_333_333.499_999_999,
            -0.7,
            -3.0,
            4_503_599_627_370_495.5,
            9_007_199_254_740_993.0,
            1.8e19,
            9_223_372_036_854_774_784.0,
            9_223_372_036_854_775_808.0,
            9_223_372_036_854_777_856.0,
            1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for x in cases {
            assert_eq!(round_to_nanos(x), x.round() as Nanos, "round({x})");
        }
        let mut rng = crate::rng::SplitMix64::new(7);
        for _ in 0..100_000 {
            let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 33_333_334.0;
            assert_eq!(round_to_nanos(x), x.round() as Nanos, "round({x})");
        }
    }

    #[test]
    fn nearest_tick_rounds_like_the_article() {
        let r = Rate::from_hz(60);
        assert_eq!(r.nearest_tick(0), 0);
        assert_eq!(r.nearest_tick(8_333_333), 0);
        assert_eq!(r.nearest_tick(8_333_334), 1);
        assert_eq!(r.nearest_tick(16_666_667), 1);
    }

    #[test]
    fn the_64_bit_fast_paths_agree_with_128_bit_arithmetic() {
        let wide_tick =
            |r: Rate, n: u64| (n as u128 * r.den as u128 * 1_000_000_000 / r.num as u128).min(u64::MAX as u128) as u64;
        let wide_ticks_in =
            |r: Rate, t: u64| (((t as u128 + 1) * r.num as u128).div_ceil(r.den as u128 * 1_000_000_000) - 1) as u64;
        for r in [Rate::from_hz(60), Rate::new(60000, 1001).unwrap(), Rate::new(287, 2).unwrap(), Rate::from_hz(1)] {
            for n in [0, 1, 7, 59, 60, 1_000_003, 9_000_000_000, 18_000_000_000, u64::MAX / 2] {
                assert_eq!(r.tick_time(n), wide_tick(r, n), "tick_time({n}) at {r}");
            }
            for t in [0, 1, 16_666_666, 16_666_667, 2_592_000_000_000_000, u64::MAX / 3, u64::MAX - 1] {
                assert_eq!(r.ticks_in(t), wide_ticks_in(r, t), "ticks_in({t}) at {r}");
            }
        }
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let mut c = ManualClock::starting_at(5);
        assert_eq!(c.now(), 5);
        c.advance_by(10);
        assert_eq!(c.now(), 15);
        c.advance_to(12);
        assert_eq!(c.now(), 15, "advance_to never goes backwards");
        c.jump_to(3);
        assert_eq!(c.now(), 3);
    }

    #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
    #[test]
    fn a_wait_sleeps_until_the_spin_margin_then_spins_to_the_deadline() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        assert_eq!(wait_step(t0, t0 + ms(10), ms(1)), WaitStep::Sleep(ms(9)));
        assert_eq!(wait_step(t0 + ms(9), t0 + ms(10), ms(1)), WaitStep::Spin, "the last millisecond is spun");
        assert_eq!(wait_step(t0 + ms(10), t0 + ms(10), ms(1)), WaitStep::Done, "a deadline now has passed");
        assert_eq!(wait_step(t0 + ms(11), t0 + ms(10), ms(1)), WaitStep::Done, "a missed deadline returns at once");
        assert_eq!(wait_step(t0, t0 + ms(10), Duration::ZERO), WaitStep::Sleep(ms(10)), "no spin: sleep it all");
    }

    #[test]
    fn durations_convert_to_nanos_exactly_and_saturate_past_584_years() {
        assert_eq!(duration_to_nanos(Duration::new(2, 500)), 2_000_000_500);
        assert_eq!(nanos_to_duration(16_666_667), Duration::new(0, 16_666_667));
        assert_eq!(duration_to_nanos(Duration::MAX), u64::MAX);
        assert_eq!(Rate::from_hz(60).period_duration(), Duration::from_nanos(16_666_667));
    }

    #[test]
    fn a_rate_from_a_period_is_the_exact_inverse_and_checked_like_any_other() {
        assert_eq!(Rate::from_period(Duration::from_millis(500)), Ok(Rate::from_hz(2)));
        assert_eq!(Rate::from_period(Duration::from_nanos(16_666_667)), Rate::new(1_000_000_000, 16_666_667));
        assert!(matches!(Rate::from_period(Duration::ZERO), Err(RateError::NotPositive(_))));
        assert!(matches!(Rate::from_period(Duration::from_secs(2)), Err(RateError::OutOfRange(_))));
    }

    #[test]
    fn every_way_to_build_a_rate_follows_one_rule() {
        assert_eq!("59.94".parse::<Rate>(), Rate::new(60000, 1001));
        assert_eq!("2000".parse::<Rate>(), Err(RateError::OutOfRange("2000".to_owned())));
        assert_eq!(Rate::new(2000, 1), Err(RateError::OutOfRange("2000/1".to_owned())));
        #[cfg(not(target_arch = "wasm32"))] // where a panic aborts
        assert!(std::panic::catch_unwind(|| Rate::from_hz(2000)).is_err(), "from_hz panics where new errs");
        let shown = Rate::new(60000, 1001).unwrap().to_string();
        assert_eq!(shown.parse::<Rate>(), Rate::new(60000, 1001), "Display parses back");
    }

    #[test]
    fn a_decimal_rate_near_an_ntsc_rate_is_that_rate_however_it_is_built() {
        let ntsc = |k: u64| Rate::new(k * 1000, 1001).unwrap();
        assert_eq!(Rate::new(59940, 1000), Ok(ntsc(60)), "winit's 59.940 Hz in millihertz");
        assert_eq!(Rate::new(5994, 100), Ok(ntsc(60)));
        assert_eq!(Rate::new(119_880, 1000), Ok(ntsc(120)));
        assert_eq!(Rate::new(143_856, 1000), Ok(ntsc(144)));
        assert_eq!(Rate::new(23_976, 1000), Ok(ntsc(24)));
        assert_eq!(Rate::new(29_970, 1000), Ok(ntsc(30)));
        for (num, den) in [(59_940, 1000), (143_856, 1000), (23_976, 1000), (74_973, 1000), (60_000, 1000)] {
            let text = format!("{}.{:03}", num / den, num % den);
            assert_eq!(Rate::new(num, den), text.parse::<Rate>(), "{num}/{den} and '{text}' are one rate");
        }
        // Exact: not a decimal, a whole number, or not near an NTSC rate.
        assert_eq!(Rate::new(2997, 50).unwrap().num(), 2997, "59.94 Hz exactly: an even fraction");
        assert_eq!(Rate::new(60_000, 1000), Ok(Rate::from_hz(60)));
        assert_eq!(Rate::new(59_999, 1000).unwrap().den(), 1000, "59.999 Hz: within 0.005 of 60, a whole rate");
        assert_eq!(Rate::new(74_973, 1000).unwrap().den(), 1000, "74.973 Hz: 0.048 from 74.925");
        assert_eq!(Rate::new(59_946, 1000).unwrap().den(), 500, "59.946 Hz: 0.006 from 59.94");
        assert_eq!(Rate::new(59_944, 1000), Ok(ntsc(60)), "59.944 Hz: 0.004 from 59.94");
    }

    #[test]
    fn display_shows_short_decimals() {
        assert_eq!(Rate::from_hz(60).to_string(), "60 Hz");
        assert_eq!(Rate::new(60000, 1001).unwrap().to_string(), "59.94 Hz");
    }
}
