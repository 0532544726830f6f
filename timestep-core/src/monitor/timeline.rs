//! A run's timeline event log, in the notation of the adaptive-pacing answer (render first, then step to the frame's end).
//!
//! ```text
//! R0(1.00) U5 U10 U15 U20 W16 R16(0.20) U25 U30 U35 W32 R32(0.40)
//! │        │               │   │
//! │        │               │   └ (0.20): the picture is interpolated at proportion 0.2
//! │        │               │     between the two latest states (only interpolated renders)
//! │        │               └ W: the loop waits until clock 16 ms
//! │        └ U: an update whose result is simulation time 5 ms (ticks × tick period)
//! └ R: a render starts at clock 0 ms
//! ```
//!
//! Only the first `capacity` events are kept: the buffer is allocated once,
//! before the run, so recording costs no allocation per frame.

use crate::strategy::View;
use crate::time::{NANOS_PER_MS, Nanos, Rate};
use std::fmt;

/// One timeline event.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A render started at clock `at`, drawing `view`.
    Render {
        /// Clock time.
        at: Nanos,
        /// What was drawn (the interpolation alpha, if any).
        view: View,
    },
    /// An update finished; the world now stands at `sim_time`.
    Update {
        /// Clock time after the update.
        at: Nanos,
        /// Simulated time after the update.
        sim_time: Nanos,
    },
    /// The loop waits until clock `until`.
    Wait {
        /// The wake time the strategy asked for.
        until: Nanos,
    },
}

/// Milliseconds for the timeline: `16`, `16.667`.
fn ms(ns: Nanos) -> String {
    if ns.is_multiple_of(NANOS_PER_MS) {
        format!("{}", ns / NANOS_PER_MS)
    } else {
        let s = format!("{:.3}", ns as f64 / NANOS_PER_MS as f64);
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Render { at, view: View::Interpolate { alpha } } => write!(f, "R{}({alpha:.2})", ms(*at)),
            Event::Render { at, .. } => write!(f, "R{}", ms(*at)),
            Event::Update { sim_time, .. } => write!(f, "U{}", ms(*sim_time)),
            Event::Wait { until } => write!(f, "W{}", ms(*until)),
        }
    }
}

/// The first events of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    events: Vec<Event>,
    capacity: usize,
    /// Game time and update count at the start of the current frame.
    frame_base: (Nanos, u64),
    tick: Option<Rate>,
    /// Updates recorded in the current frame, and the index of the last one.
    frame_updates: u64,
    last_update: Option<usize>,
}

impl Timeline {
    /// A timeline keeping at most `capacity` events (0 records nothing).
    pub(crate) fn with_capacity(capacity: usize) -> Timeline {
        Timeline { events: Vec::with_capacity(capacity), capacity, ..Timeline::default() }
    }

    /// The recorded events.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Whether the buffer is full (later events were dropped).
    pub fn is_full(&self) -> bool {
        self.events.len() >= self.capacity
    }

    fn push(&mut self, event: Event) {
        if self.events.len() < self.capacity {
            self.events.push(event);
        }
    }

    /// A frame starts with the world at `game_time` after `updates` updates.
    pub(crate) fn begin_frame(&mut self, game_time: Nanos, updates: u64, tick: Rate) {
        self.frame_base = (game_time, updates);
        self.tick = Some(tick);
        self.frame_updates = 0;
        self.last_update = None;
    }

    pub(crate) fn render(&mut self, at: Nanos, view: View) {
        self.push(Event::Render { at, view });
    }

    /// An update ran; its simulation time assumes a fixed tick until
    /// [`Timeline::end_frame`] corrects the last one with the driver's own figure.
    pub(crate) fn update(&mut self, at: Nanos) {
        if self.is_full() {
            return;
        }
        self.frame_updates += 1;
        let (base, done) = self.frame_base;
        let tick = self.tick.unwrap_or(Rate::from_hz(60));
        let sim_time = base + tick.tick_time(done + self.frame_updates) - tick.tick_time(done);
        self.last_update = Some(self.events.len());
        self.push(Event::Update { at, sim_time });
    }

    /// The frame ended with the world at `game_time` (exact for variable steps too).
    pub(crate) fn end_frame(&mut self, game_time: Nanos) {
        if let Some(Event::Update { sim_time, .. }) = self.last_update.and_then(|i| self.events.get_mut(i)) {
            *sim_time = game_time;
        }
    }

    pub(crate) fn wait(&mut self, until: Nanos) {
        self.push(Event::Wait { until });
    }
}

impl fmt::Display for Timeline {
    /// Space-separated events, `…` at the end if some were dropped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.events.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{e}")?;
        }
        if self.is_full() && self.capacity > 0 {
            f.write_str(" …")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn events_print_in_seed_000_notation() {
        let mut t = Timeline::with_capacity(10);
        t.begin_frame(0, 0, Rate::from_hz(200));
        t.render(0, View::Latest);
        t.update(4_000_000);
        t.update(5_000_000);
        t.end_frame(10_000_000);
        t.wait(16_000_000);
        t.render(16_666_667, View::Latest);
        assert_eq!(t.to_string(), "R0 U5 U10 W16 R16.667");
    }

    #[test]
    fn interpolated_renders_print_their_proportion() {
        let mut t = Timeline::with_capacity(10);
        t.render(0, View::Interpolate { alpha: 1.0 });
        t.render(16_000_000, View::Interpolate { alpha: 0.2 });
        t.render(32_000_000, View::Interpolate { alpha: 0.404 });
        t.render(48_000_000, View::Extrapolate { ahead: 3_000_000 });
        assert_eq!(t.to_string(), "R0(1.00) R16(0.20) R32(0.40) R48", "two decimals, only for interpolated renders");
    }

    #[test]
    fn only_the_first_events_are_kept() {
        let mut t = Timeline::with_capacity(2);
        t.wait(1_000_000);
        t.wait(2_000_000);
        t.wait(3_000_000);
        assert_eq!(t.events().len(), 2);
        assert_eq!(t.to_string(), "W1 W2 …");
    }
}
