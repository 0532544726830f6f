//! The steady-state loop allocates nothing: strategy + step + interpolate
//! into a reused buffer, for every strategy, checked with a counting allocator.

use crate::counting::allocations_during;

use timestep_core::Pacer;
use timestep_lab::feedback::Feedback;
use timestep_lab::frame::FrameHost;
use timestep_lab::session::{DisplayInfo, Presented, Session};
use timestep_lab::sim::{Input, Instance, World, WorldConfig};
use timestep_lab::strategy::{StrategyConfig, StrategyId, View};
use timestep_lab::time::{Clock, ManualClock, Nanos, Rate};

/// A host on a manual clock that draws into a reused instance buffer.
struct Host {
    clock: ManualClock,
    instances: Vec<Instance>,
    drawn: usize,
}

impl FrameHost<World> for Host {
    fn now(&mut self) -> Nanos {
        self.clock.now()
    }

    fn after_step(&mut self) {
        self.clock.advance_by(100_000);
    }

    fn render(&mut self, world: &World, view: View) {
        world.write_instances(view, &mut self.instances);
        self.drawn += self.instances.len();
        self.clock.advance_by(2_000_000);
    }

    fn present(&mut self) -> Nanos {
        self.clock.now()
    }
}

/// Runs `n` frames of a game loop, frame by frame: the test counts the
/// allocations of these frames alone (after a warm-up), switches strategy in
/// place and changes the input as a player would, which a whole run of the
/// simulator does not allow (`simulate_alloc` counts the simulator's own).
fn frames(pacer: &mut Pacer, world: &mut World, host: &mut Host, n: u32, frame: Rate, k: &mut u64) {
    for i in 0..n {
        if i % 37 == 0 {
            // Input changes are logged; the log is preallocated too.
            world.set_input(if i % 74 == 0 { Input::RIGHT } else { Input::NONE });
        }
        let report = pacer.run_host_frame(world, host);
        *k += 1;
        let next = frame.tick_time(*k);
        host.clock.advance_to(report.wake.at.unwrap_or(next).max(next));
    }
}

#[test]
fn the_counting_allocator_sees_one_vec_as_one_allocation() {
    let n = allocations_during(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1, "one Vec of 16 bytes is one allocation");
}

#[test]
fn the_steady_state_loop_allocates_nothing_for_any_strategy() {
    let config = WorldConfig { extra_sprites: 1_000, ..WorldConfig::default() };
    let mut world = World::new(&config);
    let mut host = Host { clock: ManualClock::starting_at(0), instances: Vec::new(), drawn: 0 };
    host.instances.reserve(world.max_instances());
    let mut pacer = Pacer::with_config(StrategyId::CatchUp, StrategyConfig::default());
    pacer.set_refresh(Some(Rate::from_hz(144)));
    let frame = Rate::from_hz(144);
    let mut k = 0;
    for id in StrategyId::ALL {
        pacer.set_strategy(id);
        // Warm-up: detectors fill their windows, particles reach steady state.
        frames(&mut pacer, &mut world, &mut host, 300, frame, &mut k);
        let allocations = allocations_during(|| frames(&mut pacer, &mut world, &mut host, 1_000, frame, &mut k));
        assert_eq!(allocations, 0, "{id}: {allocations} heap allocations in 1000 steady-state frames");
    }
    assert!(host.drawn > 0, "the loop really drew instances");
    assert!(pacer.updates() > 1_000, "the loop really stepped the world");
}

/// Frames of a session whose display answers each present `late` frames
/// after it (shown a refresh after the present; every 50th discarded), the
/// settled frames taken as the window takes them.
fn session_frames(session: &mut Session<World>, host: &mut Host, n: u32, late: u64, k: &mut u64) {
    let frame = Rate::from_hz(144);
    for _ in 0..n {
        let report = session.run_frame(host);
        session.record(&report, Presented::SHOWN.with_feedback_awaited());
        if let Some(id) = report.frame.checked_sub(late).filter(|&id| id > 0) {
            let word = if id % 50 == 0 {
                Feedback::discarded(id)
            } else {
                Feedback::displayed(id, host.clock.now() + frame.period()).with_refresh(frame.period())
            };
            session.feedback(word);
        }
        host.drawn += session.take_settled().count();
        *k += 1;
        let next = frame.tick_time(*k);
        host.clock.advance_to(report.wake.at.unwrap_or(next).max(next));
    }
}

#[test]
fn a_session_waiting_for_the_displays_feedback_allocates_nothing_per_frame() {
    let config = WorldConfig { extra_sprites: 100, ..WorldConfig::default() };
    let display = DisplayInfo::default().with_reported(Some(Rate::from_hz(144)));
    let world = World::new(&config);
    let mut session = Session::new(StrategyId::Interpolated, StrategyConfig::default(), world, display, 0);
    session.keep_settled(true);
    let mut host = Host { clock: ManualClock::starting_at(0), instances: Vec::new(), drawn: 0 };
    host.instances.reserve(session.world().max_instances());
    let mut k = 0;
    for late in [1, 3] {
        session_frames(&mut session, &mut host, 300, late, &mut k);
        let allocations = allocations_during(|| session_frames(&mut session, &mut host, 1_000, late, &mut k));
        assert_eq!(allocations, 0, "feedback {late} frames late: {allocations} heap allocations in 1000 frames");
    }
    let counts = session.feedback_counts();
    assert!(counts.displayed > 2_000 && counts.discarded > 40, "the feedback really settled frames: {counts:?}");
}
