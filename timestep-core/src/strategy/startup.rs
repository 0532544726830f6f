//! What each strategy shows before its first tick: the start-up the
//! metrics report as `startup_ms` (see [`crate::metrics`]).
//!
//! A loop that draws the latest state, or interpolates between the last two
//! states, has nothing new to draw until its first fixed step has run: it
//! shows its first picture for up to a tick (half a second at 2 Hz ticks).
//! A loop that steps on its first frame and interpolates one tick behind
//! from then on (`snapped`), predicts (`extrapolated`), or steps every frame
//! moves from its first frames. Neither is wrong; a reader of the figures
//! should know which a strategy does.
//!
//! ```text
//!  2 Hz ticks, 60 Hz display       first frames          start-up
//!  catch-up, interpolated, fuzzy   0 0 0 … 0 (≈ 500 ms)  one tick
//!  snapped                         0 0 17 33 …           a refresh
//!  extrapolated, lockstep, …       0 17 33 …             none
//! ```

/// How a strategy's picture starts to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Startup {
    /// It moves from its first frames: it steps every frame, predicts, or
    /// steps on its first frame and interpolates one tick behind.
    Moves,
    /// It shows its first picture until its first fixed step has run: a
    /// freeze of up to one tick, reported as start-up.
    WaitsForFirstTick,
}
