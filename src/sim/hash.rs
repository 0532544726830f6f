//! FNV-1a, the world's state hash.
//!
//! Replays and determinism checks compare worlds by one number: FNV-1a over
//! the bit patterns of every piece of state (floats by `to_bits`, so `-0.0`
//! and `0.0` differ and nothing is rounded away). FNV is not a quality hash,
//! but it is tiny, stable across platforms and releases, and good enough to
//! tell two simulation states apart.

/// A running 64-bit FNV-1a hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fnv1a(u64);

impl Fnv1a {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// The empty hash.
    pub(crate) const fn new() -> Fnv1a {
        Fnv1a(Fnv1a::OFFSET)
    }

    /// Feeds bytes.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(Fnv1a::PRIME);
        }
    }

    /// Feeds a `u64`, little-endian.
    pub(crate) fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    /// Feeds the bit pattern of an `f64`.
    pub(crate) fn f64(&mut self, x: f64) {
        self.u64(x.to_bits());
    }

    /// Feeds the bit pattern of an `f32`.
    pub(crate) fn f32(&mut self, x: f32) {
        self.bytes(&x.to_bits().to_le_bytes());
    }

    /// The hash so far.
    pub(crate) const fn finish(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a_test_vectors() {
        let mut h = Fnv1a::new();
        assert_eq!(h.finish(), 0xcbf2_9ce4_8422_2325, "empty input");
        h.bytes(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c, "FNV-1a 64 of 'a'");
    }

    #[test]
    fn negative_zero_hashes_differently_from_zero() {
        let (mut a, mut b) = (Fnv1a::new(), Fnv1a::new());
        a.f64(0.0);
        b.f64(-0.0);
        assert_ne!(a.finish(), b.finish(), "bit patterns, not values, are hashed");
    }
}
