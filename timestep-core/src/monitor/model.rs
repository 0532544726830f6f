//! The machine and display models: what each step of a frame costs on the
//! virtual clock, how present behaves, and the presets.
//!
//! | preset          | update        | render        | present (vsync on)              | sleeps      | refresh |
//! |-----------------|---------------|---------------|---------------------------------|-------------|---------|
//! | `glaiel`        | 10 µs ± 0.8   | 5 ms ± 0.8 µs | wait to the boundary ± 83 µs    | exact       | 60      |
//! | `desktop`       | 0.1–0.5 ms    | 2–8 ms        | queue of 2, wake 0–100 µs late  | +50–1000 µs | 60      |
//! | `slow`          | 0.1–0.5 ms    | 20–25 ms      | as desktop                      | as desktop  | 60      |
//! | `spiky`         | as desktop    | as desktop + a 30–100 ms stall every 1.5–2.5 s | as desktop | as desktop | 60 |
//! | `pacing-answer` | 1 ms          | 3 ms          | vsync off by default, present 0 | exact       | 62.5    |
//!
//! Presets are named for what a user can look up: `glaiel` for Tyler
//! Glaiel's "How to make your game run at 60fps", `pacing-answer` for the
//! frame-pacing answer whose adaptive render interval `paced` implements and
//! whose worked timeline this preset reproduces (`seed000`, its name in this
//! project's notes, stays an alias).
//!
//! `glaiel` is Glaiel's simulator, number for number: its noise
//! `fuzzy()` is uniform in ±f with f = (1/60)·0.005 s ≈ 83 333 ns, scaled
//! ×0.01 for update and render and ×1e-5 for the busy step after display.
//! Each cost is `max(0, base + noise)` in whole nanoseconds.

use crate::rng::SplitMix64;
use crate::time::{NANOS_PER_MS, Nanos, Rate};

pub use crate::report::Preset;

/// A cost drawn uniformly from `lo..=hi` nanoseconds, never below 0 once applied.
///
/// `lo` may be negative: `Cost::around(base, spread)` is the article's
/// `max(0, base + fuzzy())`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Smallest draw (ns), may be negative.
    pub lo: i64,
    /// Largest draw (ns).
    pub hi: i64,
}

impl Cost {
    /// Costs nothing.
    pub const ZERO: Cost = Cost { lo: 0, hi: 0 };

    /// Always `ns`.
    pub const fn fixed(ns: i64) -> Cost {
        Cost { lo: ns, hi: ns }
    }

    /// `base ± spread`.
    pub const fn around(base: i64, spread: i64) -> Cost {
        Cost { lo: base - spread, hi: base + spread }
    }

    /// Uniform in `lo..=hi`.
    pub const fn between(lo: i64, hi: i64) -> Cost {
        Cost { lo, hi }
    }

    /// The same noise around a new centre; the spread shrinks to the centre
    /// so an override never draws mostly zeros (a 1 ms render on `desktop`
    /// gives 0–2 ms).
    pub fn centred_on(self, base: Nanos) -> Cost {
        let base = i64::try_from(base).unwrap_or(i64::MAX);
        let spread = ((self.hi - self.lo) / 2).min(base);
        Cost::around(base, spread)
    }

    /// A signed draw (for offsets that may move a time earlier).
    pub(crate) fn offset(self, rng: &mut SplitMix64) -> i64 {
        if self.lo == self.hi { self.lo } else { rng.range_i64(self.lo, self.hi) }
    }

    /// A draw clamped at 0: `max(0, draw)`.
    pub(crate) fn sample(self, rng: &mut SplitMix64) -> Nanos {
        u64::try_from(self.offset(rng)).unwrap_or(0)
    }
}

/// How a vsynced present waits for the display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Presentation {
    /// The article's: present blocks until the next refresh boundary (a time
    /// exactly on a boundary waits 0) and wakes with `wake` noise around it.
    BlockToBoundary,
    /// A swap chain: present returns at once while fewer than `depth` frames
    /// (this one included) wait for a vblank, else blocks until the oldest is
    /// shown. Each frame is shown at the first vblank at or after its present
    /// and after its predecessor's.
    Queued {
        /// Frames that may wait; 1 blocks every present until it is shown.
        depth: u32,
    },
}

/// An occasional long frame (a GC pause, shader compile, another process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stall {
    /// Time between stalls.
    pub every: Cost,
    /// Length of one stall (added to a render).
    pub length: Cost,
    /// Where set, the lengths' deciles (10th to 90th percentile, ns) and
    /// `length` their least and most: a tenth of the stalls is drawn
    /// uniformly within each tenth of what was measured. A machine's long
    /// frames are most of them a little long and a few very long, which one
    /// uniform draw overstates, and the longest tenth are the ones that make
    /// hitches at a high refresh (slow frames at an emulated 240 Hz,
    /// interpolated with vsync off: 0.55 ms at the 10th percentile, 0.67 at
    /// the 50th, 3.63 at the 90th; 14 % of them reached half a refresh, 2.08
    /// ms, and 50 % of one uniform draw from the 10th to the 90th did).
    pub deciles: Option<[i64; 9]>,
}

impl Stall {
    /// A stall of `length` about every `every`.
    pub fn new(every: Cost, length: Cost) -> Stall {
        Stall { every, length, deciles: None }
    }

    /// A stall about every `every`, its length from `length.lo` to
    /// `length.hi` with these `deciles` between (see [`Stall::deciles`]).
    pub fn skewed(every: Cost, length: Cost, deciles: [i64; 9]) -> Stall {
        Stall { every, length, deciles: Some(deciles) }
    }

    /// The cost one stall's length is drawn from: `length`, or with
    /// deciles one of its ten tenths, drawn from `rng` (only where there are
    /// deciles, so that a model without them draws what it always drew).
    pub(crate) fn length_of_one(&self, rng: &mut SplitMix64) -> Cost {
        let Some(deciles) = self.deciles else { return self.length };
        let k = usize::try_from(rng.below(10)).unwrap_or(0).min(9);
        let lo = if k == 0 { self.length.lo } else { deciles[k - 1] };
        let hi = if k == 9 { self.length.hi } else { deciles[k] };
        Cost::between(lo, hi)
    }
}

impl Preset {
    /// The full model of this preset.
    pub fn model(self) -> Model {
        /// The article's noise amplitude: (1/60 s) · 0.005 ≈ 83 333 ns.
        const F: i64 = 83_333;
        /// `f · 0.01` (update and render noise), in whole ns.
        const F_001: i64 = 833;
        /// `f · 1e-5` (busy noise), 0.83 ns rounded to 1.
        const F_1E5: i64 = 1;
        let ms = |x: i64| x * NANOS_PER_MS as i64;
        let us = |x: i64| x * 1_000;
        let desktop = Model {
            preset: self,
            update: Cost::between(us(100), us(500)),
            render: Cost::between(ms(2), ms(8)),
            present_immediate: Cost::between(us(50), us(200)),
            vblank_wake: Cost::between(0, us(100)),
            busy: Cost::ZERO,
            sleep_overshoot: Cost::between(us(50), us(1000)),
            presentation: Presentation::Queued { depth: 2 },
            stall: None,
            late_wake: None,
            display_jitter: None,
            default_refresh: Rate::from_hz(60),
            default_vsync: true,
        };
        match self {
            Preset::Glaiel => Model {
                preset: self,
                update: Cost::around(10_000, F_001),
                render: Cost::around(ms(5), F_001),
                present_immediate: Cost::around(1_000, F),
                vblank_wake: Cost::around(0, F),
                busy: Cost::around(1_000, F_1E5),
                sleep_overshoot: Cost::ZERO,
                presentation: Presentation::BlockToBoundary,
                stall: None,
                late_wake: None,
                display_jitter: None,
                default_refresh: Rate::from_hz(60),
                default_vsync: true,
            },
            Preset::Desktop => desktop,
            Preset::Slow => Model { render: Cost::between(ms(20), ms(25)), ..desktop },
            Preset::Spiky => Model {
                stall: Some(Stall::new(Cost::between(ms(1500), ms(2500)), Cost::between(ms(30), ms(100)))),
                ..desktop
            },
            Preset::PacingAnswer => Model {
                preset: self,
                update: Cost::fixed(ms(1)),
                render: Cost::fixed(ms(3)),
                present_immediate: Cost::ZERO,
                vblank_wake: Cost::ZERO,
                busy: Cost::ZERO,
                sleep_overshoot: Cost::ZERO,
                presentation: Presentation::Queued { depth: 1 },
                stall: None,
                late_wake: None,
                display_jitter: None,
                // 62.5 Hz: a 16 ms refresh, so the pacing answer's interval is 16 ms.
                default_refresh: Rate::new(125, 2).unwrap_or(Rate::from_hz(60)),
                default_vsync: false,
            },
        }
    }
}

/// Everything the virtual machine and display charge to the clock: a
/// [`Preset`]'s model, changed by its `with_` methods or its fields.
///
/// ```
/// use timestep_core::monitor::{Cost, Preset, Stall};
///
/// let mut model = Preset::Desktop.model().with_render(12_000_000);
/// model.stall = Some(Stall::new(Cost::between(1_000_000_000, 3_000_000_000), Cost::fixed(50_000_000)));
/// assert_eq!((model.render.lo, model.render.hi), (9_000_000, 15_000_000), "2–8 ms moved to 12 ± 3 ms");
/// assert_eq!(Preset::Glaiel.model().busy, Cost::around(1_000, 1), "the article's busy(): 1 µs ± f·10⁻⁵");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Model {
    /// Which preset this started from (reported as `model`).
    pub preset: Preset,
    /// One world update.
    pub update: Cost,
    /// One render.
    pub render: Cost,
    /// A present with vsync off (shown at once, tearing).
    pub present_immediate: Cost,
    /// Signed offset from the vblank at which a blocked present returns.
    pub vblank_wake: Cost,
    /// The loop's own work after display (the article's `busy()`).
    pub busy: Cost,
    /// Added to every sleep that actually waits.
    pub sleep_overshoot: Cost,
    /// How a vsynced present waits.
    pub presentation: Presentation,
    /// Occasional stalls, if any.
    pub stall: Option<Stall>,
    /// Occasional late wake-ups after a vblank (a slow present call, the
    /// scheduler): every so often a blocked present returns `length` later
    /// than `vblank_wake` draws. At 144 Hz half a refresh is 3.5 ms, and a
    /// loop that wakes that late shows a picture half a refresh off.
    pub late_wake: Option<Stall>,
    /// How far each vblank strays from the display's grid (a signed draw of
    /// its own per vblank, on the direct grid; `None`: none). A panel's
    /// vblanks keep to microseconds; a compositor whose repaint is a timer
    /// restarted at each frame does not (Weston's x11 and headless outputs
    /// here: intervals spread by 0.3 to 0.8 ms around their mean), and the
    /// picture and the go-ahead of a blocked present move together.
    pub display_jitter: Option<Cost>,
    /// The refresh rate of a display on this machine unless told otherwise.
    pub default_refresh: Rate,
    /// Vsync unless told otherwise.
    pub default_vsync: bool,
}

impl Model {
    /// This model with the render cost centred on `ns`.
    pub fn with_render(self, ns: Nanos) -> Model {
        Model { render: self.render.centred_on(ns), ..self }
    }

    /// This model with the update cost centred on `ns`.
    pub fn with_update(self, ns: Nanos) -> Model {
        Model { update: self.update.centred_on(ns), ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_skewed_stall_draws_a_tenth_of_its_lengths_within_each_tenth() {
        // Least 0.5 ms, deciles 0.55 … 3.63 ms, most 9 ms.
        let bounds: [i64; 11] =
            [500_000, 550_000, 570_000, 590_000, 620_000, 670_000, 740_000, 890_000, 1_400_000, 3_630_000, 9_000_000];
        let mut deciles = [0; 9];
        deciles.copy_from_slice(&bounds[1..10]);
        let stall = Stall::skewed(Cost::fixed(1), Cost::between(bounds[0], bounds[10]), deciles);
        let mut rng = SplitMix64::new(1);
        let mut per_tenth = [0u32; 10];
        for _ in 0..10_000 {
            let cost = stall.length_of_one(&mut rng);
            let k = bounds.windows(2).position(|w| cost == Cost::between(w[0], w[1])).expect("one of the tenths");
            per_tenth[k] += 1;
        }
        assert!(per_tenth.iter().all(|&n| (850..=1150).contains(&n)), "1000 ± 5σ each: {per_tenth:?}");
        // Reaching 2.08 ms: (3.63 − 2.083) / (3.63 − 1.4) of the 9th tenth and all of the 10th.
        let reach: f64 = ((3_630_000.0 - 2_083_333.0) / (3_630_000.0 - 1_400_000.0) + 1.0) / 10.0;
        assert!((reach - 0.169).abs() < 0.001, "{reach}");
        // Without deciles nothing is drawn: the noise is what it always was.
        let plain = Stall::new(Cost::fixed(1), Cost::between(bounds[1], bounds[9]));
        let (mut a, mut b) = (SplitMix64::new(5), SplitMix64::new(5));
        assert_eq!(plain.length_of_one(&mut a), plain.length);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn glaiel_costs_are_the_articles_noise_around_its_bases() {
        let m = Preset::Glaiel.model();
        assert_eq!(m.update, Cost { lo: 10_000 - 833, hi: 10_000 + 833 });
        assert_eq!(m.render, Cost { lo: 5_000_000 - 833, hi: 5_000_000 + 833 });
        assert_eq!(m.vblank_wake, Cost { lo: -83_333, hi: 83_333 });
        assert_eq!(m.busy, Cost { lo: 999, hi: 1_001 });
    }

    #[test]
    fn an_override_keeps_the_noise_but_never_spreads_below_zero() {
        let glaiel = Preset::Glaiel.model().with_render(20_000_000);
        assert_eq!(glaiel.render, Cost::around(20_000_000, 833));
        let desktop = Preset::Desktop.model().with_render(1_000_000);
        assert_eq!(desktop.render, Cost::between(0, 2_000_000));
    }

    #[test]
    fn a_sample_is_never_negative() {
        let mut rng = SplitMix64::new(3);
        let c = Cost::around(1_000, 83_333);
        assert!((0..1000).all(|_| c.sample(&mut rng) <= 84_333));
        assert!((0..1000).any(|_| c.sample(&mut rng) == 0), "most draws of 1 µs ± 83 µs clamp to 0");
    }

    #[test]
    fn preset_names_round_trip() {
        for p in Preset::ALL {
            assert_eq!(Preset::parse(p.name()), Ok(p));
        }
        assert!(Preset::parse("laptop").is_err());
    }
}
