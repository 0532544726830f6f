//! Fixed histograms: percentiles over a whole run without a per-frame
//! allocation, and the present-interval bins a HUD or a plot draws.
//!
//! [`LogHistogram`] is log-linear (the HDR-histogram layout): values below
//! 128 ns have a bucket each; above, every octave `[2^k, 2^(k+1))` is cut
//! into 64 equal buckets, so a bucket is at most 1/64 of its values wide.
//!
//! ```text
//!  value (ns)   0 1 2 … 127 │ 128 130 … 254 │ 256 260 … 508 │ … │ 2^35 … 2^36−1
//!  bucket width 1           │ 2             │ 4             │   │ 2^29
//!  buckets      128         │ 64            │ 64            │   │ 64   = 1984 in all
//! ```
//!
//! Each bucket keeps its count and the exact sum of its values, and a
//! percentile reports the *mean of the bucket* holding the order statistic:
//! exact when the bucket's values are all equal (the common case for
//! integer-nanosecond simulations: every vsynced interval is one of two
//! neighbouring nanosecond values), never further from the exact value than
//! the bucket is wide (1/64 = 1.6 %). The largest rank is the exact maximum.
//! Values of 2^36 ns (68.7 s) or more share the top bucket.

use crate::time::Nanos;

/// Sub-buckets per octave, as a power of two: 64, i.e. ≤ 1.6 % bucket width.
const SUB_BITS: u32 = 6;
const SUB: usize = 1 << SUB_BITS;
/// Values at or above `2^MAX_BITS` ns (68.7 s) go to the top bucket: no
/// frame interval, latency or motion error worth resolving is that long.
const MAX_BITS: u32 = 36;
const MAX_VALUE: u64 = (1 << MAX_BITS) - 1;
/// Buckets: 2·SUB exact ones below `2^(SUB_BITS+1)`, then SUB per octave.
const BUCKETS: usize = (MAX_BITS - SUB_BITS) as usize * SUB + SUB;
/// Buckets are summed in groups of SUB so that a percentile walks at most
/// `BUCKETS / SUB + SUB` counters, not all of them.
const GROUPS: usize = BUCKETS / SUB;

/// The rank of the `percent` percentile among `n` values, nearest-rank
/// method, in exact integers: the smallest `r` (1-based) with
/// `100·r ≥ percent·n`, at least 1 and at most `n`.
pub fn nearest_rank(percent: u64, n: u64) -> u64 {
    percent.saturating_mul(n).div_ceil(100).clamp(1, n.max(1))
}

/// The nearest-rank `percent` percentile of `sorted` values (the value at
/// rank ⌈percent·n/100⌉); `None` when there are none. The one percentile of
/// every exact figure: the metrics' batches and the report card's intervals.
pub fn percentile<T: Copy>(sorted: &[T], percent: u64) -> Option<T> {
    let rank = nearest_rank(percent, sorted.len() as u64);
    sorted.get(rank as usize - 1).copied()
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Bucket {
    count: u64,
    sum: u64,
}

/// A log-linear histogram of nanosecond values; see the module docs.
///
/// The 32 KB of counters live on the heap: the metrics hold three of these,
/// and a session that held them inline was copied whole each time it moved
/// (a simulator run moved ~200 KB seven times: 0.4 M instructions, 1.6 % of
/// a 10 000-update `paced` bench iteration, callgrind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LogHistogram {
    counts: Box<Counts>,
    total: u64,
    max: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Counts {
    /// Count and sum of each bucket, side by side: one cache line per value added.
    buckets: [Bucket; BUCKETS],
    groups: [u64; GROUPS],
}

impl LogHistogram {
    pub(crate) fn new() -> LogHistogram {
        let counts = Box::new(Counts { buckets: [Bucket { count: 0, sum: 0 }; BUCKETS], groups: [0; GROUPS] });
        LogHistogram { counts, total: 0, max: 0 }
    }

    fn index(value: u64) -> usize {
        let v = value.min(MAX_VALUE);
        let bits = u64::BITS - v.leading_zeros();
        if bits <= SUB_BITS + 1 {
            return v as usize;
        }
        let shift = bits - SUB_BITS - 1;
        shift as usize * SUB + (v >> shift) as usize
    }

    pub(crate) fn add(&mut self, value: u64) {
        let i = Self::index(value);
        let bucket = &mut self.counts.buckets[i];
        bucket.count += 1;
        bucket.sum = bucket.sum.saturating_add(value.min(MAX_VALUE));
        self.counts.groups[i / SUB] += 1;
        self.total += 1;
        self.max = self.max.max(value);
    }

    /// The value of rank `rank` (1 = smallest) as the mean of its bucket (the
    /// exact maximum for the last rank); `None` when empty.
    pub(crate) fn at_rank(&self, rank: u64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = rank.clamp(1, self.total);
        if rank == self.total {
            return Some(self.max as f64);
        }
        let mut seen = 0;
        let group = self.counts.groups.iter().position(|&g| {
            seen += g;
            seen >= rank
        })?;
        seen -= self.counts.groups[group];
        let start = group * SUB;
        for bucket in &self.counts.buckets[start..start + SUB] {
            seen += bucket.count;
            if seen >= rank {
                return Some(bucket.sum as f64 / bucket.count as f64);
            }
        }
        None
    }

    /// The `percent` percentile (nearest rank), ns; `None` when empty.
    pub(crate) fn percentile(&self, percent: u64) -> Option<f64> {
        self.at_rank(nearest_rank(percent, self.total))
    }
}

/// Width of a [`PresentHistogram`] bin: 0.25 ms, a sixtieth of a 240 Hz
/// refresh, so 60/120/144/240 Hz intervals land in distinct bins.
pub const PRESENT_BIN_NS: Nanos = 250_000;

/// Bins of a [`PresentHistogram`] below its overflow bin: 200 × 0.25 ms =
/// 50 ms, three 60 Hz refreshes; anything longer is a stall and counts in
/// [`PresentHistogram::overflow`].
pub const PRESENT_BINS: usize = 200;

/// Present (display) intervals in fixed 0.25 ms bins from 0 to 50 ms plus
/// an overflow bin: what a HUD draws as a small histogram and a report
/// plots. Bin `i` counts intervals in `[i, i + 1) × PRESENT_BIN_NS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentHistogram {
    bins: [u64; PRESENT_BINS],
    overflow: u64,
}

impl Default for PresentHistogram {
    fn default() -> Self {
        PresentHistogram::new()
    }
}

impl PresentHistogram {
    /// An empty histogram.
    pub const fn new() -> PresentHistogram {
        PresentHistogram { bins: [0; PRESENT_BINS], overflow: 0 }
    }

    /// Counts one interval.
    pub fn add(&mut self, interval: Nanos) {
        match self.bins.get_mut((interval / PRESENT_BIN_NS) as usize) {
            Some(bin) => *bin += 1,
            None => self.overflow += 1,
        }
    }

    /// Counts per bin, bin `i` covering `[i, i + 1) × PRESENT_BIN_NS`.
    pub fn bins(&self) -> &[u64; PRESENT_BINS] {
        &self.bins
    }

    /// Intervals of [`PRESENT_BINS`] × [`PRESENT_BIN_NS`] (50 ms) or longer.
    pub fn overflow(&self) -> u64 {
        self.overflow
    }

    /// Where bin `i` starts, ns.
    pub fn bin_start(i: usize) -> Nanos {
        i as Nanos * PRESENT_BIN_NS
    }

    /// Intervals counted, the overflow bin included.
    pub fn total(&self) -> u64 {
        self.bins.iter().sum::<u64>() + self.overflow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn buckets_are_exact_below_128_ns_and_at_most_a_64th_wide_above() {
        for v in 0..128 {
            assert_eq!(LogHistogram::index(v), v as usize, "exact bucket for {v}");
        }
        assert_eq!(LogHistogram::index(128), 128, "[128, 130) starts the 2 ns buckets");
        assert_eq!(LogHistogram::index(129), 128);
        assert_eq!(LogHistogram::index(130), 129);
        // 16 683 333 ns has 24 bits: bucket width 2^(24-7) = 131 072 ns, 0.79 % of it.
        let i = LogHistogram::index(16_683_333);
        assert_eq!(i, 17 * 64 + (16_683_333 >> 17) as usize);
        assert_eq!(LogHistogram::index(u64::MAX), BUCKETS - 1, "huge values share the top bucket");
        assert_eq!(LogHistogram::index(MAX_VALUE), BUCKETS - 1);
    }

    #[test]
    fn a_percentile_is_the_mean_of_its_bucket_and_the_top_rank_is_the_exact_max() {
        let mut h = LogHistogram::new();
        for v in [16_000_000, 16_000_000, 16_000_000, 33_000_000] {
            h.add(v);
        }
        assert_eq!(h.percentile(50), Some(16_000_000.0), "equal values: an exact bucket mean");
        assert_eq!(h.percentile(75), Some(16_000_000.0), "rank 3 of 4");
        assert_eq!(h.percentile(99), Some(33_000_000.0), "rank 4 of 4 is the maximum");
        // Two values in one bucket (16 666 666 and 16 666 667): their mean.
        let mut h = LogHistogram::new();
        h.add(16_666_666);
        h.add(16_666_667);
        h.add(99_000_000);
        assert_eq!(h.at_rank(1), Some(16_666_666.5));
        assert_eq!(LogHistogram::new().percentile(50), None);
    }

    #[test]
    fn nearest_rank_is_the_smallest_rank_covering_the_fraction() {
        assert_eq!(nearest_rank(99, 4), 4);
        assert_eq!(nearest_rank(50, 4), 2);
        assert_eq!(nearest_rank(50, 5), 3);
        assert_eq!(nearest_rank(99, 100), 99);
        assert_eq!(nearest_rank(95, 20), 19);
        assert_eq!(nearest_rank(99, 1), 1);
        assert_eq!(nearest_rank(0, 10), 1);
        // 7 % of 100 is rank 7: a float 0.07 · 100 is 7.000000000000001, rank 8.
        assert_eq!(nearest_rank(7, 100), 7);
        assert_eq!(percentile(&[16, 16, 17, 33], 99), Some(33));
        assert_eq!(percentile::<u64>(&[], 99), None);
    }

    #[test]
    fn present_bins_are_a_quarter_millisecond_wide_with_an_overflow_bin() {
        let mut h = PresentHistogram::new();
        for ns in [0, 249_999, 250_000, 16_683_333, 49_999_999, 50_000_000, 100_000_000] {
            h.add(ns);
        }
        assert_eq!(h.bins()[0], 2, "0 and 0.249999 ms");
        assert_eq!(h.bins()[1], 1, "0.25 ms starts bin 1");
        assert_eq!(h.bins()[66], 1, "16.683 ms is in [16.5, 16.75)");
        assert_eq!(h.bins()[199], 1, "49.999999 ms is the last bin");
        assert_eq!(h.overflow(), 2, "50 ms and 100 ms overflow");
        assert_eq!(h.total(), 7);
        assert_eq!(PresentHistogram::bin_start(66), 16_500_000);
    }
}
