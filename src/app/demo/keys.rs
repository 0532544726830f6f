//! What the keys and the mouse change: the key table's [`Action`]s carried
//! out on the session, the lanes, the window and the GPU.
//!
//! In lane mode the lanes take the keys they act on ([`LaneMode::act`]):
//! selection, Enter, the strategy keys, the world reset. The others (window,
//! overlay, present mode, tick rate, load) act as they do outside it.

use winit::event_loop::ActiveEventLoop;
use winit::keyboard::{KeyCode, ModifiersState};

use super::mode::{LaneKey, LaneMode, Mode};
use super::{Demo, PLAYFIELD};
use crate::app::bindings::{self, Action, Dir};
use crate::render::Letterbox;
use crate::session::PresentMode;
use crate::sim::Input;
use crate::strategy::StrategyId;
use crate::time::{Nanos, Rate};

/// How the overlay names a frame loop on timers (a page's `V`): the browser
/// composites whatever the last timer drew, so frames are dropped or shown late.
const TIMERS: &str = "timers (no requestAnimationFrame)";

impl Demo {
    /// Remembers the keyboard modifiers (the key table distinguishes `F` and `Shift+F`).
    pub fn set_modifiers(&mut self, modifiers: ModifiersState) {
        self.controls.modifiers = modifiers;
    }

    /// The action a key stands for, with the current modifiers.
    pub fn action_for(&self, key: KeyCode) -> Option<Action> {
        bindings::action_for(key, self.controls.modifiers)
    }

    /// The pointer moved to window pixel `position`.
    pub fn pointer_moved(&mut self, position: [f32; 2]) {
        self.pointer = Some(position);
    }

    /// A left click: in lane mode, selects the lane under the pointer.
    pub fn click(&mut self, now: Nanos) {
        let (Mode::Lanes(mode), Some(pixel)) = (&mut self.mode, self.pointer) else { return };
        // Window pixels to the drawing buffer's (smaller where it is capped).
        let pixel = pixel.map(|p| p * self.life.buffer_scale());
        let letterbox = Letterbox::fit(PLAYFIELD, self.screen.gfx.surface.size());
        if mode.click(&letterbox, pixel) {
            self.refresh_hud(now);
        }
    }

    /// A finger touched the window at `position` (window pixels): as a click there.
    pub fn touched(&mut self, position: [f32; 2], now: Nanos) {
        self.pointer_moved(position);
        self.click(now);
    }

    /// Carries out a key's action; returns true when it asks to quit.
    pub fn act(&mut self, action: Action, pressed: bool, event_loop: &ActiveEventLoop, now: Nanos) -> bool {
        if action.is_held() {
            self.hold_key(action, pressed);
            return false;
        }
        if !pressed {
            return false;
        }
        let lane_key = match &mut self.mode {
            Mode::Single => LaneKey::Usual,
            Mode::Lanes(mode) => mode.act(action),
        };
        match lane_key {
            LaneKey::Done => {}
            LaneKey::Leave(adopt) => self.leave_lanes(adopt, now),
            LaneKey::Usual => {
                if self.act_usual(action, event_loop, now) {
                    return true;
                }
            }
        }
        self.refresh_hud(now);
        false
    }

    /// A key held down (the player's moves and fire) went down or up.
    fn hold_key(&mut self, action: Action, pressed: bool) {
        let button = match action {
            Action::Move(Dir::Up) => Input::UP,
            Action::Move(Dir::Down) => Input::DOWN,
            Action::Move(Dir::Left) => Input::LEFT,
            Action::Move(Dir::Right) => Input::RIGHT,
            _ => Input::FIRE,
        };
        self.controls.input.set(button, pressed);
        self.session.world_mut().set_input(self.controls.input);
    }

    /// A key as it acts outside lane mode; returns true when it asks to quit.
    fn act_usual(&mut self, action: Action, event_loop: &ActiveEventLoop, now: Nanos) -> bool {
        match action {
            Action::Strategy(id) => {
                self.session.set_strategy(id, now);
                log::info!("strategy: {id}");
            }
            Action::CyclePresentMode => {
                let present = if crate::platform::VSYNC_CAN_BE_TURNED_OFF {
                    self.screen.gfx.cycle_present_mode()
                } else {
                    // A browser presents in step with the display whatever it is asked: what
                    // V can change is where frames start, on its refresh or on timers.
                    self.timer_driven = !self.timer_driven;
                    let refresh = self.screen.gfx.present_mode();
                    match self.timer_driven {
                        true => PresentMode::new(TIMERS, false),
                        false => {
                            // Back on requestAnimationFrame at once: a redraw asked
                            // for before the timers would wait out its retry.
                            self.screen.win.redraw_arrived(now);
                            self.request_redraw(now);
                            refresh
                        }
                    }
                };
                self.mode.set_present_mode(&present, now);
                self.session.set_present_mode(present, now);
            }
            Action::TickRateUp | Action::TickRateDown => {
                let current = self.session.pacer().config().tick_rate.hz();
                if let Some(hz) = bindings::step_tick_rate(current, action == Action::TickRateUp) {
                    self.mode.set_tick_rate(Rate::from_hz(hz), now);
                    self.session.set_tick_rate(Rate::from_hz(hz), now);
                    log::info!("tick rate: {hz} Hz");
                }
            }
            Action::CycleLoad => {
                self.controls.load = self.controls.load.next();
                log::info!("load: {}", self.controls.load.label());
            }
            Action::TogglePause => self.session.set_paused(!self.session.paused(), now),
            Action::ResetWorld => {
                let world = self.session.world_mut();
                world.reset();
                world.set_input(self.controls.input);
            }
            Action::ToggleGhosts => self.controls.ghosts = !self.controls.ghosts,
            Action::ToggleFullscreen => self.screen.win.toggle_fullscreen(false),
            Action::ToggleExclusiveFullscreen => self.screen.win.toggle_fullscreen(true),
            Action::NextMonitor => self.next_monitor(event_loop),
            Action::ToggleOverlay => {
                let overlay = &mut self.screen.gfx.overlay;
                overlay.set_visible(!overlay.visible());
            }
            Action::ToggleHelp => self.screen.hud.show_help = !self.screen.hud.show_help,
            Action::Quit => return true,
            Action::ToggleLanes => self.enter_lanes(now),
            Action::NextLane | Action::PreviousLane | Action::AdoptLane => {
                log::info!("{}: only in lane mode (C)", action.help());
            }
            Action::StartTour => crate::platform::start_tour(),
            Action::Move(_) | Action::Kick => {}
        }
        false
    }

    /// Turns lane mode on (see [`LaneMode::enter`]).
    pub(super) fn enter_lanes(&mut self, now: Nanos) {
        if let Mode::Lanes(_) = self.mode {
            return;
        }
        let mode = LaneMode::enter(&self.lane_ids, &mut self.session, PLAYFIELD, now);
        self.screen.instances.reserve(mode.max_instances());
        self.screen.hud.lane_playfield = PLAYFIELD;
        self.mode = Mode::Lanes(mode);
        self.refresh_hud(now);
    }

    /// Turns lane mode off (see [`LaneMode::leave`]); its reports are kept for `--stats-json`.
    fn leave_lanes(&mut self, adopt: Option<StrategyId>, now: Nanos) {
        let Mode::Lanes(mode) = std::mem::replace(&mut self.mode, Mode::Single) else { return };
        self.lane_reports = mode.leave(&mut self.session, adopt, self.seed, now);
        self.refresh_hud(now);
    }
}
