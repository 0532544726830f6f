//! The demo world (`sim`): the ball's physics, the world's properties, and
//! that neither the frame loop nor the simulator allocates per frame.
//!
//! The binary's global allocator counts each thread's allocations
//! (`counting`); every test runs on a thread of its own, so a count sees only
//! its own test's allocations, and the other tests only pay a thread-local
//! increment per allocation.

mod ball;
mod counting;
mod loop_alloc;
mod props;
mod simulate_alloc;
