//! The least-squares line of content time on display time, from running sums.
//!
//! Points are offsets from the run's first frame, so the sums are exact
//! `i128` integers while `Σx²` fits: `n·X² < 1.7·10³⁸`, e.g. 10⁸ frames
//! (19 days at 60 Hz, the simulator's frame limit) of up to 19 days each.
//! A longer run (the window left open for weeks) carries on in `f64`, whose
//! rounding moves the slope by about 10⁻¹² — a microsecond of drift a year.

/// Running sums `n, Σx, Σy, Σx², Σxy` of `(x, y)` points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LineFit {
    /// Exact integer sums.
    Exact { n: i128, sx: i128, sy: i128, sxx: i128, sxy: i128 },
    /// The same sums in `f64`, once an exact one would have overflowed.
    Float { n: f64, sx: f64, sy: f64, sxx: f64, sxy: f64 },
}

impl Default for LineFit {
    fn default() -> Self {
        LineFit::Exact { n: 0, sx: 0, sy: 0, sxx: 0, sxy: 0 }
    }
}

/// `v` as `f64` within two ulps, from its two 64-bit halves: this runs every
/// frame, and `as f64` on an `i128` is a library call several times slower.
fn to_f64(v: i128) -> f64 {
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    match i64::try_from(v) {
        Ok(small) => small as f64,
        // |v| ≥ 2^63: the low half's rounding (≤ 2^11) is within an ulp of v.
        Err(_) => ((v >> 64) as i64) as f64 * TWO_64 + (v as u64) as f64,
    }
}

impl LineFit {
    pub(crate) fn add(&mut self, x: i64, y: i64) {
        match self {
            LineFit::Exact { n, sx, sy, sxx, sxy } => {
                let (xi, yi) = (i128::from(x), i128::from(y));
                // |x|, |y| < 2^63, so the products fit; only the sums can overflow.
                let next = (sx.checked_add(xi), sy.checked_add(yi), sxx.checked_add(xi * xi), sxy.checked_add(xi * yi));
                if let (Some(a), Some(b), Some(c), Some(d)) = next {
                    (*n, *sx, *sy, *sxx, *sxy) = (*n + 1, a, b, c, d);
                    return;
                }
                self.go_float();
                self.add(x, y);
            }
            LineFit::Float { n, sx, sy, sxx, sxy } => {
                let (xf, yf) = (x as f64, y as f64);
                *n += 1.0;
                *sx += xf;
                *sy += yf;
                *sxx += xf * xf;
                *sxy += xf * yf;
            }
        }
    }

    /// Switches to `f64` sums. Out of line and cold: otherwise the compiler
    /// computes these five conversions on every add, just in case.
    #[cold]
    #[inline(never)]
    fn go_float(&mut self) {
        if let LineFit::Exact { n, sx, sy, sxx, sxy } = *self {
            *self = LineFit::Float { n: n as f64, sx: sx as f64, sy: sy as f64, sxx: sxx as f64, sxy: sxy as f64 };
        }
    }

    /// `n·Σab − Σa·Σb` exactly when it fits, else in `f64`.
    fn centered(n: i128, sab: i128, sa: i128, sb: i128) -> f64 {
        match n.checked_mul(sab).zip(sa.checked_mul(sb)).and_then(|(p, q)| p.checked_sub(q)) {
            Some(d) => to_f64(d),
            None => to_f64(n) * to_f64(sab) - to_f64(sa) * to_f64(sb),
        }
    }

    /// The slope from the sums rounded to `f64` first: within ~10⁻¹⁵ of
    /// [`LineFit::slope`] (`n·Σx²` and `(Σx)²` differ by a quarter at least, so
    /// the subtraction loses two bits) at a fraction of the cost of the exact
    /// 128-bit products: for judging every frame. Points with y = x give
    /// exactly 1, as the exact slope does.
    pub(crate) fn slope_f64(&self) -> Option<f64> {
        let (n, sx, sy, sxx, sxy) = match *self {
            LineFit::Exact { n, sx, sy, sxx, sxy } => (to_f64(n), to_f64(sx), to_f64(sy), to_f64(sxx), to_f64(sxy)),
            LineFit::Float { n, sx, sy, sxx, sxy } => (n, sx, sy, sxx, sxy),
        };
        let dxx = n * sxx - sx * sx;
        (dxx > 0.0).then(|| (n * sxy - sx * sy) / dxx)
    }

    /// The least-squares slope of y on x; `None` with fewer than two distinct x.
    pub(crate) fn slope(&self) -> Option<f64> {
        let (dxx, dxy) = match *self {
            LineFit::Exact { n, sx, sy, sxx, sxy } => (Self::centered(n, sxx, sx, sx), Self::centered(n, sxy, sx, sy)),
            LineFit::Float { n, sx, sy, sxx, sxy } => (n * sxx - sx * sx, n * sxy - sx * sy),
        };
        (dxx > 0.0).then(|| dxy / dxx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_slope_of_points_on_a_line_is_exact() {
        let mut fit = LineFit::default();
        for i in 0..100 {
            fit.add(i * 6_944_444, i * 16_666_667);
        }
        assert_eq!(fit.slope(), Some(16_666_667.0 / 6_944_444.0));
        assert!(matches!(fit, LineFit::Exact { .. }), "small sums stay exact");
    }

    #[test]
    fn wide_integers_convert_within_two_ulps() {
        for v in [0, 1, -1, i128::from(i64::MAX) + 7, -(3 << 90) + 12_345, i128::MAX, i128::MIN] {
            let (fast, exact) = (to_f64(v), v as f64);
            assert!((fast - exact).abs() <= exact.abs() * f64::EPSILON, "{v}: {fast} vs {exact}");
        }
        assert_eq!(to_f64(-5), -5.0, "values that fit in i64 convert as i64 does");
    }

    #[test]
    fn the_quick_slope_is_the_exact_one_to_within_rounding() {
        let mut fit = LineFit::default();
        for i in 0..100_000i64 {
            let noise = (i * 7_919) % 1_000_003 - 500_000;
            fit.add(i * 16_683_333 + noise, i * 16_666_667);
        }
        let (quick, exact) = (fit.slope_f64().expect("a slope"), fit.slope().expect("a slope"));
        assert!((quick - exact).abs() < 1e-14, "{quick} vs {exact}");
    }

    #[test]
    fn one_point_or_one_x_has_no_slope() {
        let mut fit = LineFit::default();
        assert_eq!((fit.slope(), fit.slope_f64()), (None, None));
        fit.add(5, 1);
        fit.add(5, 9);
        assert_eq!((fit.slope(), fit.slope_f64()), (None, None));
    }

    #[test]
    fn sums_that_would_overflow_carry_on_in_floating_point() {
        let mut fit = LineFit::default();
        // x² = 8.1·10³⁷: the third point's Σx² passes i128::MAX (1.7·10³⁸).
        let big: i64 = 9_000_000_000_000_000_000;
        for i in 0..6 {
            let x = if i % 2 == 0 { -big } else { big };
            fit.add(x, x / 2);
        }
        assert!(matches!(fit, LineFit::Float { .. }), "{fit:?}");
        let slope = fit.slope().expect("a slope");
        assert!((slope - 0.5).abs() < 1e-12, "slope {slope}");
    }
}
