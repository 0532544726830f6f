//! Artificial CPU load in the render path (`L`), to see how strategies cope
//! with slow frames.
//!
//! The load is a busy wait, not a sleep: a sleeping thread is not a slow
//! machine, it just yields the CPU, and strategies that measure CPU time
//! (`paced`) would see through it.

use crate::rng::SplitMix64;
use crate::time::{NANOS_PER_MS, Nanos};

/// The presets `L` cycles through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LoadPreset {
    /// No extra load.
    #[default]
    None,
    /// +5 ms of CPU work per rendered frame (a busy but healthy game at 60 Hz).
    Render5ms,
    /// +20 ms per frame: slower than a 60 Hz refresh, the game must skip renders.
    Render20ms,
    /// Mostly nothing, but one frame in 20 takes 10–60 ms (GC pauses, asset loads).
    Spikes,
}

/// Chance of a spike is one in this many frames.
const SPIKE_ONE_IN: u64 = 20;

impl LoadPreset {
    /// The next preset (`L`).
    pub(crate) fn next(self) -> LoadPreset {
        match self {
            LoadPreset::None => LoadPreset::Render5ms,
            LoadPreset::Render5ms => LoadPreset::Render20ms,
            LoadPreset::Render20ms => LoadPreset::Spikes,
            LoadPreset::Spikes => LoadPreset::None,
        }
    }

    /// The overlay's name for it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            LoadPreset::None => "none",
            LoadPreset::Render5ms => "render +5 ms",
            LoadPreset::Render20ms => "render +20 ms",
            LoadPreset::Spikes => "random spikes",
        }
    }

    /// The extra render cost of one frame.
    pub(crate) fn cost(self, rng: &mut SplitMix64) -> Nanos {
        match self {
            LoadPreset::None => 0,
            LoadPreset::Render5ms => 5 * NANOS_PER_MS,
            LoadPreset::Render20ms => 20 * NANOS_PER_MS,
            LoadPreset::Spikes => {
                if rng.below(SPIKE_ONE_IN) == 0 {
                    (10 + rng.below(51)) * NANOS_PER_MS
                } else {
                    0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_cycle_back_to_none() {
        let mut p = LoadPreset::None;
        for _ in 0..4 {
            p = p.next();
        }
        assert_eq!(p, LoadPreset::None);
    }

    #[test]
    fn spikes_are_rare_and_bounded() {
        let mut rng = SplitMix64::new(7);
        let costs: Vec<Nanos> = (0..2000).map(|_| LoadPreset::Spikes.cost(&mut rng)).collect();
        let spikes = costs.iter().filter(|c| **c > 0).count();
        assert!((50..=150).contains(&spikes), "{spikes} spikes in 2000 frames, expected ~100");
        assert!(costs.iter().all(|c| *c <= 60 * NANOS_PER_MS), "no spike above 60 ms");
    }
}
