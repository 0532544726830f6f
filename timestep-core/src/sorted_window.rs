//! The last `N` values pushed, in arrival order and sorted: exact medians
//! and ranks of a sliding window without sorting it again.
//!
//! ```text
//! push 7 into [3 5 9] (oldest 5):  ring   5 9 3 → 7 9 3      (the oldest is replaced)
//!                                  sorted 3 5 9 → 3 7 9      (only the values between 5's place
//!                                                             and 7's move)
//! ```
//!
//! Used for the median present interval of the metrics' judge and for the
//! frame times of the vsync detector (`strategy::VsyncDetector`), which took
//! the median of a copy of its 32 frame times by selection every 8 frames:
//! 234 instructions a simulated frame of `fuzzy` (callgrind, glaiel model,
//! whose wake noise moves every frame time); kept sorted, 153.

/// A window of the last `N` values; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SortedWindow<const N: usize> {
    ring: [u64; N],
    sorted: [u64; N],
    next: usize,
    len: usize,
}

impl<const N: usize> SortedWindow<N> {
    pub(crate) const fn new() -> Self {
        SortedWindow { ring: [0; N], sorted: [0; N], next: 0, len: 0 }
    }

    /// Adds `value`, dropping the oldest once `N` are held (O(N) moves, no allocation).
    #[inline] // Out of line it cost the metrics 16 more instructions a frame.
    pub(crate) fn push(&mut self, value: u64) {
        let len = self.len;
        if len < N {
            let at = self.sorted[..len].partition_point(|&x| x < value);
            self.sorted.copy_within(at..len, at + 1);
            self.sorted[at] = value;
            self.len += 1;
        } else {
            // Replace the oldest value: only the values between its place and
            // the new one's move, few when the pace is steady.
            let oldest = self.ring[self.next];
            // A steady pace repeats the value of N pushes ago: the sorted
            // values stay as they are, no need to search twice.
            if oldest == value {
                self.next = self.after(self.next);
                return;
            }
            let from = self.sorted.partition_point(|&x| x < oldest);
            let to = self.sorted.partition_point(|&x| x < value);
            if to > from {
                self.sorted.copy_within(from + 1..to, from);
                self.sorted[to - 1] = value;
            } else {
                self.sorted.copy_within(to..from, to + 1);
                self.sorted[to] = value;
            }
        }
        self.ring[self.next] = value;
        self.next = self.after(self.next);
    }

    /// The ring position after `i`: a compare, not a `%` (a multiplication
    /// and a shift or two for N = 120, every frame).
    fn after(&self, i: usize) -> usize {
        if i + 1 == N { 0 } else { i + 1 }
    }

    /// The values held, smallest first.
    pub(crate) fn sorted(&self) -> &[u64] {
        &self.sorted[..self.len]
    }

    /// The nearest-rank median (rank ⌈len/2⌉); `None` when empty.
    pub(crate) fn median(&self) -> Option<u64> {
        let rank = self.len.div_ceil(2);
        (rank > 0).then(|| self.sorted[rank - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_window_holds_the_last_n_values_sorted_and_their_median() {
        let mut m = SortedWindow::<4>::new();
        assert_eq!(m.median(), None);
        let mut pushed = Vec::new();
        for v in [5, 1, 9, 9, 3, 7, 2, 2, 8, 1, 6, 4, 10, 0] {
            m.push(v);
            pushed.push(v);
            let mut window: Vec<u64> = pushed.iter().rev().take(4).copied().collect();
            window.sort_unstable();
            assert_eq!(m.sorted(), &window[..], "after {pushed:?}");
            let rank = window.len().div_ceil(2);
            assert_eq!(m.median(), Some(window[rank - 1]), "after {pushed:?}");
        }
    }
}
