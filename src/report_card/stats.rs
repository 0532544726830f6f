//! Present-interval statistics for a report card: mean, σ, p99 and a histogram.
//!
//! Everything is computed from integer nanoseconds; floats appear once, when
//! a figure is converted to ms. A worked example (intervals in ms):
//!
//! ```text
//! intervals  16 16 17 17 17 33          n = 6, Σ = 116
//! mean       116 / 6                  = 19.333
//! σ          √(Σx²/n − mean²) = √(2468/6 − 19.333²) = √37.556 = 6.128
//! p99        rank ⌈0.99 · 6⌉ = 6 → 33 (nearest rank)
//! histogram  median 17; range 0 … max(min(33, 4 · 17), 2 · 17) = 34 ms: 34 / 60 → 1 ms bins
//!            35 bins from 0: [16, 17) 2 · [17, 18) 3 · [33, 34) 1, none above
//! ```
//!
//! The histogram starts at 0, so an interval reads in proportion (a spike at
//! 16.7 ms and a missed refresh at 33.3 ms), and reaches at least twice the
//! median interval, so a missed refresh is on the axis. It ends at four
//! times the median at most, so one 100 ms stall does not squeeze the spike
//! into a single bin; longer intervals are counted in `above`. Bin widths
//! come from a 1–2–2.5–5 series, at least 50 µs, so the axis reads in
//! round numbers.

use crate::time::{NANOS_PER_MS, Nanos};
use serde::{Deserialize, Serialize};

/// Statistics of present (or display) intervals.
///
/// `std_ms` is the population standard deviation (divided by n); `p99_ms` is
/// the nearest-rank 99th percentile: the value at rank ⌈0.99·n⌉ of the sorted intervals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntervalStats {
    /// Intervals measured.
    pub count: u64,
    /// Mean interval, ms.
    pub mean_ms: f64,
    /// Standard deviation, ms.
    pub std_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Shortest interval, ms.
    pub min_ms: f64,
    /// Longest interval, ms.
    pub max_ms: f64,
    /// The distribution.
    pub histogram: Histogram,
}

/// Counts of intervals in equal bins: bin `k` holds intervals in
/// `[start_ms + k·bin_ms, start_ms + (k+1)·bin_ms)`; `above` counts the ones
/// past the last bin (long stalls, kept out of the plot's range).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Lower edge of the first bin, ms.
    pub start_ms: f64,
    /// Width of every bin, ms.
    pub bin_ms: f64,
    /// Intervals per bin.
    pub counts: Vec<u64>,
    /// Intervals at or past `start_ms + counts.len()·bin_ms`.
    #[serde(default)]
    pub above: u64,
}

/// `ns` rounded to a whole microsecond, in ms: 16 666 667 ns → 16.667.
pub fn micros_as_ms(ns: Nanos) -> f64 {
    (ns.saturating_add(500) / 1000) as f64 / 1000.0
}

/// The most bins a histogram has across its range (so a plot has room for each).
pub(crate) const MAX_BINS: u64 = 60;

/// The histogram's range ends at this many median intervals at most; longer ones count as `above`.
pub(crate) const RANGE_MEDIANS: u64 = 4;

/// The histogram's range reaches at least this many median intervals (a missed refresh).
pub(crate) const MIN_RANGE_MEDIANS: u64 = 2;

/// Bin widths to choose from, ns: round numbers on a ms axis, 50 µs at the finest.
const NICE_BINS: [Nanos; 16] = [
    50_000,
    100_000,
    200_000,
    250_000,
    500_000,
    1_000_000,
    2_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    20_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
];

fn ms(ns: Nanos) -> f64 {
    ns as f64 / NANOS_PER_MS as f64
}

/// The smallest nice bin width that covers `span` in at most [`MAX_BINS`] bins.
fn bin_width(span: Nanos) -> Nanos {
    let wanted = span.div_ceil(MAX_BINS);
    NICE_BINS
        .into_iter()
        .find(|&b| b >= wanted)
        .unwrap_or_else(|| wanted.div_ceil(NANOS_PER_MS * 1000) * NANOS_PER_MS * 1000)
}

/// The nearest-rank percentile `p` (0 < p ≤ 100) of sorted `values`, the
/// core's ([`crate::metrics::percentile`]); 0 when there are none.
pub(crate) fn percentile(sorted: &[Nanos], p: u64) -> Nanos {
    crate::metrics::percentile(sorted, p).unwrap_or_default()
}

impl IntervalStats {
    /// Statistics of `intervals` (ns); `None` when there are none. See the module docs.
    pub(crate) fn from_intervals(intervals: &[Nanos]) -> Option<IntervalStats> {
        let mut sorted = intervals.to_vec();
        sorted.sort_unstable();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let n = sorted.len() as u128;
        let sum: u128 = sorted.iter().map(|&x| u128::from(x)).sum();
        let sum_sq: u128 = sorted.iter().map(|&x| u128::from(x) * u128::from(x)).sum();
        // n²·variance = n·Σx² − (Σx)², exact in integers.
        let var_n2 = n * sum_sq - sum * sum;
        let ns_per_ms = NANOS_PER_MS as f64;
        let median = sorted[(sorted.len() - 1) / 2];
        Some(IntervalStats {
            count: n as u64,
            mean_ms: sum as f64 / n as f64 / ns_per_ms,
            std_ms: (var_n2 as f64).sqrt() / n as f64 / ns_per_ms,
            p99_ms: ms(percentile(&sorted, 99)),
            min_ms: ms(min),
            max_ms: ms(max),
            histogram: histogram(&sorted, median),
        })
    }
}

fn histogram(sorted: &[Nanos], median: Nanos) -> Histogram {
    let max = sorted[sorted.len() - 1];
    let upper = max.min(median.saturating_mul(RANGE_MEDIANS)).max(median.saturating_mul(MIN_RANGE_MEDIANS));
    let bin = bin_width(upper);
    let bins = upper / bin + 1;
    let mut counts = vec![0; bins as usize];
    let mut above = 0;
    for &x in sorted {
        match counts.get_mut((x / bin) as usize) {
            Some(c) => *c += 1,
            None => above += 1,
        }
    }
    Histogram { start_ms: 0.0, bin_ms: ms(bin), counts, above }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = NANOS_PER_MS;

    #[test]
    fn the_worked_example_gives_the_figures_worked_by_hand() {
        let stats = IntervalStats::from_intervals(&[16 * MS, 16 * MS, 17 * MS, 17 * MS, 17 * MS, 33 * MS]).unwrap();
        assert_eq!(stats.count, 6);
        assert!((stats.mean_ms - 116.0 / 6.0).abs() < 1e-12, "mean {}", stats.mean_ms);
        assert!((stats.std_ms - 37.555_555_555_555_56_f64.sqrt()).abs() < 1e-9, "σ {}", stats.std_ms);
        assert_eq!(stats.p99_ms, 33.0, "nearest rank 6 of 6");
        assert_eq!((stats.min_ms, stats.max_ms), (16.0, 33.0));
        let h = &stats.histogram;
        assert_eq!((h.start_ms, h.bin_ms, h.counts.len(), h.above), (0.0, 1.0, 35, 0));
        assert_eq!((h.counts[16], h.counts[17], h.counts[33]), (2, 3, 1), "{:?}", h.counts);
        assert_eq!(h.counts.iter().sum::<u64>(), 6);
    }

    #[test]
    fn a_stall_past_four_medians_is_counted_above_the_range() {
        let stats = IntervalStats::from_intervals(&[16 * MS, 16 * MS, 16 * MS, 17 * MS, 100 * MS]).unwrap();
        let h = &stats.histogram;
        // Range 0 … 4 · 16 = 64 ms: 64 / 60 → 2 ms bins, 33 of them; 16 and 17 share [16, 18).
        assert_eq!((h.start_ms, h.bin_ms, h.counts.len(), h.above), (0.0, 2.0, 33, 1));
        assert_eq!(h.counts[8], 4, "{:?}", h.counts);
        assert_eq!(stats.max_ms, 100.0, "the stall still sets the maximum");
    }

    #[test]
    fn equal_intervals_fill_one_bin_with_no_spread() {
        let stats = IntervalStats::from_intervals(&[16_666_667; 10]).unwrap();
        assert_eq!(stats.std_ms, 0.0);
        let h = &stats.histogram;
        // Range 0 … 2 · 16.67 ms: 1 ms bins, the spike in [16, 17).
        assert_eq!((h.bin_ms, h.counts.len()), (1.0, 34));
        assert_eq!(h.counts[16], 10, "{:?}", h.counts);
    }

    #[test]
    fn intervals_of_zero_give_a_single_bin() {
        let stats = IntervalStats::from_intervals(&[0, 0]).unwrap();
        assert_eq!((stats.histogram.counts.clone(), stats.histogram.above), (vec![2], 0));
    }

    #[test]
    fn micros_as_ms_rounds_to_the_nearest_microsecond() {
        assert_eq!(micros_as_ms(16_666_667), 16.667);
        assert_eq!(micros_as_ms(16_666_499), 16.666);
        assert_eq!(micros_as_ms(0), 0.0);
    }

    #[test]
    fn no_intervals_give_no_statistics() {
        assert_eq!(IntervalStats::from_intervals(&[]), None);
    }

    #[test]
    fn the_nearest_rank_percentile_of_a_hundred_values_is_the_ninety_ninth() {
        let values: Vec<Nanos> = (1..=100).collect();
        assert_eq!(percentile(&values, 99), 99);
        assert_eq!(percentile(&values, 100), 100);
        assert_eq!(percentile(&[5], 99), 5);
    }
}
