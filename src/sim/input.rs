//! Player input as data, and the log that makes runs replayable.
//!
//! Input is sampled by the shell whenever it likes, but it only *acts* at a
//! tick boundary: [`crate::sim::World::set_input`] stores it and the next step
//! applies it. Every change that took effect is recorded as `(tick, input)`;
//! ticks without a change cost nothing. Feeding the same log and the same
//! step durations to a fresh world reproduces the run bit for bit:
//!
//! ```text
//! tick:    0    1    2    3    4    5    6
//! held:    -    -    R    R    R+U  U    -
//! log:          (2, R)      (4, R+U) (5, U) (6, -)
//! ```

use std::ops::BitOr;

/// The buttons held during a tick: four directions and fire, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Input {
    bits: u8,
}

impl Input {
    /// Nothing held.
    pub const NONE: Input = Input { bits: 0 };
    /// Up (towards y = 0).
    pub const UP: Input = Input { bits: 1 };
    /// Down.
    pub const DOWN: Input = Input { bits: 1 << 1 };
    /// Left.
    pub const LEFT: Input = Input { bits: 1 << 2 };
    /// Right.
    pub const RIGHT: Input = Input { bits: 1 << 3 };
    /// Fire: pressing it kicks the ball back into the air.
    pub const FIRE: Input = Input { bits: 1 << 4 };

    const ALL_BITS: u8 = 0b1_1111;

    /// The raw bits (for logs on disk).
    pub(crate) const fn bits(self) -> u8 {
        self.bits
    }

    /// From raw bits; unknown bits are dropped.
    pub const fn from_bits(bits: u8) -> Input {
        Input { bits: bits & Input::ALL_BITS }
    }

    /// Whether every button of `other` is held.
    pub(crate) const fn contains(self, other: Input) -> bool {
        self.bits & other.bits == other.bits
    }

    /// This input with the buttons of `other` held (`on`) or released.
    #[must_use]
    pub(crate) const fn with(self, other: Input, on: bool) -> Input {
        if on { Input { bits: self.bits | other.bits } } else { Input { bits: self.bits & !other.bits } }
    }

    /// Holds (`on`) or releases the buttons of `other`.
    pub(crate) fn set(&mut self, other: Input, on: bool) {
        *self = self.with(other, on);
    }

    /// The held direction as a vector of length 0 or 1 (y down); opposite
    /// directions cancel and diagonals are normalised, so diagonal movement
    /// is not faster.
    pub(crate) fn direction(self) -> [f64; 2] {
        let axis =
            |neg: Input, pos: Input| f64::from(u8::from(self.contains(pos))) - f64::from(u8::from(self.contains(neg)));
        let (x, y) = (axis(Input::LEFT, Input::RIGHT), axis(Input::UP, Input::DOWN));
        if x != 0.0 && y != 0.0 {
            [x * std::f64::consts::FRAC_1_SQRT_2, y * std::f64::consts::FRAC_1_SQRT_2]
        } else {
            [x, y]
        }
    }
}

impl BitOr for Input {
    type Output = Input;

    fn bitor(self, rhs: Input) -> Input {
        Input { bits: self.bits | rhs.bits }
    }
}

/// One recorded change: from tick `tick` on (the `tick`-th step, counting
/// from 0), the input is `input`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InputEvent {
    /// The index of the first step that saw this input.
    pub tick: u64,
    /// The input held from then on.
    pub input: Input,
}

/// Input changes in tick order; the input before the first entry is
/// [`Input::NONE`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputLog {
    entries: Vec<InputEvent>,
}

impl InputLog {
    /// An empty log with room for `n` changes (so recording does not
    /// allocate in the steady state).
    pub fn with_capacity(n: usize) -> InputLog {
        InputLog { entries: Vec::with_capacity(n) }
    }

    /// Records that `input` is held from step `tick` on. Returns whether the
    /// log changed: a repeat of the current input is not a change, a second
    /// entry for the same tick replaces the first, and a tick earlier than
    /// the last entry is ignored (logged), because the log is in tick order.
    pub fn record(&mut self, tick: u64, input: Input) -> bool {
        if let Some(last) = self.entries.last()
            && tick < last.tick
        {
            log::warn!("input log: ignoring change at tick {tick}, before the last entry at tick {}", last.tick);
            return false;
        }
        if self.entries.last().is_some_and(|e| e.tick == tick) {
            self.entries.pop();
        }
        if input == self.current() {
            return false;
        }
        self.entries.push(InputEvent { tick, input });
        true
    }

    /// The input held after the last entry.
    pub(crate) fn current(&self) -> Input {
        self.entries.last().map_or(Input::NONE, |e| e.input)
    }

    /// The recorded changes, in tick order.
    pub fn entries(&self) -> &[InputEvent] {
        &self.entries
    }

    /// Number of changes.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// No changes recorded.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_directions_cancel_and_diagonals_are_normalised() {
        assert_eq!((Input::LEFT | Input::RIGHT).direction(), [0.0, 0.0], "left + right cancel");
        let [x, y] = (Input::RIGHT | Input::DOWN).direction();
        assert!((x * x + y * y - 1.0).abs() < 1e-15, "diagonal has unit length, got ({x}, {y})");
        assert_eq!(Input::UP.direction(), [0.0, -1.0], "up is towards y = 0");
    }

    #[test]
    fn from_bits_drops_unknown_bits() {
        assert_eq!(Input::from_bits(0xFF).bits(), 0b1_1111, "only the five known buttons survive");
    }

    #[test]
    fn recording_the_current_input_again_is_not_a_change() {
        let mut log = InputLog::default();
        assert!(!log.record(0, Input::NONE), "NONE is the implicit starting input");
        assert!(log.record(3, Input::UP), "UP at tick 3 is a change");
        assert!(!log.record(5, Input::UP), "UP again is not a change");
        assert_eq!(log.entries(), &[InputEvent { tick: 3, input: Input::UP }]);
    }

    #[test]
    fn a_second_entry_for_the_same_tick_replaces_the_first() {
        let mut log = InputLog::default();
        log.record(2, Input::UP);
        log.record(4, Input::LEFT);
        log.record(4, Input::UP);
        assert_eq!(log.entries(), &[InputEvent { tick: 2, input: Input::UP }], "back to UP at tick 4 is no change");
    }

    #[test]
    fn entries_before_the_last_tick_are_ignored() {
        let mut log = InputLog::default();
        log.record(10, Input::UP);
        assert!(!log.record(9, Input::DOWN), "tick 9 comes before tick 10");
        assert_eq!(log.len(), 1);
    }
}
