//! The one `f64` function the pacing core calls that core lacks without
//! `std`: `round`, for parsing rates and converting user-given seconds. With
//! `std` the inherent method is used; this module is compiled only without
//! it, and in tests, which check it against std's.

/// `f64::round` for `no_std` builds (halves away from zero, as std's).
pub(crate) trait Round {
    /// The nearest whole number, halves away from zero; NaN, infinities and
    /// values of 2⁵² and more (already whole) unchanged.
    fn round(self) -> f64;
}

impl Round for f64 {
    fn round(self) -> f64 {
        // At 2⁵² and beyond every f64 is whole; below it `i64` holds the
        // truncation exactly and `self - whole` is exact.
        if self.is_nan() || self.abs() >= 4_503_599_627_370_496.0 {
            return self;
        }
        let whole = self as i64 as f64;
        let rounded = if self - whole >= 0.5 {
            whole + 1.0
        } else if self - whole <= -0.5 {
            whole - 1.0
        } else {
            whole
        };
        // -0.3 rounds to -0.0, as std's does.
        rounded.copysign(self)
    }
}

#[cfg(test)]
mod tests {
    use super::Round;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn round_without_std_is_std_s_round_bit_for_bit() {
        let cases = [
            0.0,
            -0.0,
            0.3,
            -0.3,
            0.5,
            -0.5,
            0.5 - f64::EPSILON / 4.0,
            1.5,
            2.5,
            -2.5,
            59.94 * 1.001,
            143.856e6,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for x in cases {
            assert_eq!(Round::round(x).to_bits(), x.round().to_bits(), "round({x})");
        }
        assert!(Round::round(f64::NAN).is_nan());
        let mut rng = crate::rng::SplitMix64::new(3);
        for _ in 0..100_000 {
            let x = f64::from_bits(rng.next_u64());
            if !x.is_nan() {
                assert_eq!(Round::round(x).to_bits(), x.round().to_bits(), "round({x})");
            }
            let y = (rng.next_u64() >> 11) as f64 / 1024.0 - 4e12;
            assert_eq!(Round::round(y).to_bits(), y.round().to_bits(), "round({y})");
        }
    }
}
