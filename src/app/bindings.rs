//! The key bindings: one table that drives both input handling and the F1 help.
//!
//! Keys are matched by physical position ([`KeyCode`]), so `WASD` stays under
//! the left hand on any layout. `Up`/`Down` change the tick rate, so the
//! player sprite moves with `WASD` (held keys), and `Left`/`Right` steer it
//! too; everything else acts once per press and ignores key repeat.

use winit::keyboard::{KeyCode, ModifiersState};

use crate::strategy::StrategyId;

/// The tick rates `Up`/`Down` step through, in Hz.
pub(crate) const TICK_RATES: [u64; 10] = [5, 10, 20, 30, 50, 60, 100, 120, 144, 240];

/// A direction the player sprite can be pushed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Towards the top of the screen.
    Up,
    /// Towards the bottom.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
}

/// Everything a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Switch to this strategy (keeps the world).
    Strategy(StrategyId),
    /// Cycle the present modes the surface supports.
    CyclePresentMode,
    /// Next higher tick rate of [`TICK_RATES`].
    TickRateUp,
    /// Next lower tick rate.
    TickRateDown,
    /// Cycle the artificial load presets.
    CycleLoad,
    /// Pause or resume the simulation.
    TogglePause,
    /// Put the world back to its start.
    ResetWorld,
    /// Show where movers should be at display time.
    ToggleGhosts,
    /// Borderless fullscreen on the current monitor, or back.
    ToggleFullscreen,
    /// Move the window (or the fullscreen) to the next monitor.
    NextMonitor,
    /// Hide or show the overlay.
    ToggleOverlay,
    /// Show or hide the key help.
    ToggleHelp,
    /// Leave.
    Quit,
    /// Push the player sprite while held.
    Move(Dir),
    /// Kick the ball back into the air (held: acts at the next tick).
    Kick,
    /// Exclusive fullscreen in the monitor's best video mode, where offered.
    ToggleExclusiveFullscreen,
    /// Lane mode on or off: every strategy side by side, fed the same frames.
    ToggleLanes,
    /// Lane mode: select the lane below.
    NextLane,
    /// Lane mode: select the lane above.
    PreviousLane,
    /// Lane mode: leave it, with the selected lane's strategy running the loop.
    AdoptLane,
    /// Measure this screen: the report-card tour (in a page; natively a hint
    /// to run `timestep-lab measure`).
    StartTour,
}

impl Action {
    /// One line for the help table.
    pub(crate) fn help(self) -> String {
        match self {
            Action::Strategy(id) => format!("strategy {}: {}", id.name(), id.info().summary),
            Action::CyclePresentMode if !crate::platform::VSYNC_CAN_BE_TURNED_OFF => {
                "frames on requestAnimationFrame (vsync, always on here) or on timers, which the compositor drops or shows late"
                    .to_owned()
            }
            Action::CyclePresentMode => "vsync: cycle the present modes the surface supports".to_owned(),
            Action::TickRateUp => "tick rate up (5 … 240 Hz)".to_owned(),
            Action::TickRateDown => "tick rate down".to_owned(),
            Action::CycleLoad => "load: none, render +5 ms, +20 ms, random spikes".to_owned(),
            Action::TogglePause => "pause / resume".to_owned(),
            Action::ResetWorld => "reset the world".to_owned(),
            Action::ToggleGhosts => "ghost markers: where movers should be at display time".to_owned(),
            Action::ToggleFullscreen => "fullscreen on the current monitor".to_owned(),
            Action::NextMonitor => "move to the next monitor (Wayland: fullscreen on it)".to_owned(),
            Action::ToggleOverlay => "hide / show the overlay".to_owned(),
            Action::ToggleHelp => "this help".to_owned(),
            Action::Quit => "quit".to_owned(),
            Action::Move(Dir::Up) => "player up (held)".to_owned(),
            Action::Move(Dir::Down) => "player down (held)".to_owned(),
            Action::Move(Dir::Left) => "player left (held)".to_owned(),
            Action::Move(Dir::Right) => "player right (held)".to_owned(),
            Action::Kick => "kick the ball (held)".to_owned(),
            Action::ToggleExclusiveFullscreen => {
                "exclusive fullscreen (video mode), where the platform offers one".to_owned()
            }
            Action::ToggleLanes => "compare: lanes of strategies side by side, fed the same frames".to_owned(),
            Action::NextLane => "lanes: select the lane below (or click a lane; 1–0 pick by strategy)".to_owned(),
            Action::PreviousLane => "lanes: select the lane above".to_owned(),
            Action::AdoptLane => "lanes: run the loop with the selected lane's strategy".to_owned(),
            Action::StartTour if crate::platform::PUBLISHES_FIGURES => {
                "measure this screen: the report-card tour; the card (report-….json) and its page (.html) download".to_owned()
            }
            Action::StartTour => {
                "measure this screen: the report-card tour (natively: timestep-lab measure --out DIR)".to_owned()
            }
        }
    }

    /// The touch control's text: a word or two (the help line names it in full).
    pub(crate) fn label(self) -> String {
        let label = match self {
            Action::Strategy(id) => return id.name().to_owned(),
            Action::CyclePresentMode if !crate::platform::VSYNC_CAN_BE_TURNED_OFF => "rAF / timers",
            Action::CyclePresentMode => "present mode",
            Action::TickRateUp => "tick +",
            Action::TickRateDown => "tick −",
            Action::CycleLoad => "load",
            Action::TogglePause => "pause",
            Action::ResetWorld => "reset",
            Action::ToggleGhosts => "ghosts",
            Action::ToggleFullscreen => "fullscreen",
            Action::NextMonitor => "next monitor",
            Action::ToggleOverlay => "overlay",
            Action::ToggleHelp => "help",
            Action::Quit => "end run",
            Action::Move(Dir::Up) => "▲",
            Action::Move(Dir::Down) => "▼",
            Action::Move(Dir::Left) => "◀",
            Action::Move(Dir::Right) => "▶",
            Action::Kick => "kick",
            Action::ToggleExclusiveFullscreen => "exclusive fullscreen",
            Action::ToggleLanes => "lanes",
            Action::NextLane => "lane ↓",
            Action::PreviousLane => "lane ↑",
            Action::AdoptLane => "adopt lane",
            Action::StartTour => "measure",
        };
        label.to_owned()
    }

    /// Whether this platform can carry it out (a page has no monitor to
    /// move to and no video modes): keys, help and controls leave out the rest.
    pub(crate) fn applies_here(self) -> bool {
        match self {
            Action::NextMonitor => crate::platform::MONITORS_CAN_BE_CHOSEN,
            Action::ToggleExclusiveFullscreen => crate::platform::EXCLUSIVE_FULLSCREEN,
            _ => true,
        }
    }

    /// Held actions act on press and release; the others once per press.
    pub(crate) fn is_held(self) -> bool {
        matches!(self, Action::Move(_) | Action::Kick)
    }
}

const NONE: ModifiersState = ModifiersState::empty();

/// Every binding: physical key, modifiers that must be held, action.
pub(crate) const KEY_BINDINGS: &[(KeyCode, ModifiersState, Action)] = &[
    (KeyCode::Digit1, NONE, Action::Strategy(StrategyId::ALL[0])),
    (KeyCode::Digit2, NONE, Action::Strategy(StrategyId::ALL[1])),
    (KeyCode::Digit3, NONE, Action::Strategy(StrategyId::ALL[2])),
    (KeyCode::Digit4, NONE, Action::Strategy(StrategyId::ALL[3])),
    (KeyCode::Digit5, NONE, Action::Strategy(StrategyId::ALL[4])),
    (KeyCode::Digit6, NONE, Action::Strategy(StrategyId::ALL[5])),
    (KeyCode::Digit7, NONE, Action::Strategy(StrategyId::ALL[6])),
    (KeyCode::Digit8, NONE, Action::Strategy(StrategyId::ALL[7])),
    (KeyCode::Digit9, NONE, Action::Strategy(StrategyId::ALL[8])),
    (KeyCode::Digit0, NONE, Action::Strategy(StrategyId::ALL[9])),
    (KeyCode::KeyV, NONE, Action::CyclePresentMode),
    (KeyCode::ArrowUp, NONE, Action::TickRateUp),
    (KeyCode::ArrowDown, NONE, Action::TickRateDown),
    (KeyCode::KeyL, NONE, Action::CycleLoad),
    (KeyCode::Space, NONE, Action::TogglePause),
    (KeyCode::KeyR, NONE, Action::ResetWorld),
    (KeyCode::KeyG, NONE, Action::ToggleGhosts),
    (KeyCode::KeyF, NONE, Action::ToggleFullscreen),
    (KeyCode::KeyF, ModifiersState::SHIFT, Action::ToggleExclusiveFullscreen),
    (KeyCode::KeyM, NONE, Action::NextMonitor),
    (KeyCode::KeyH, NONE, Action::ToggleOverlay),
    (KeyCode::F1, NONE, Action::ToggleHelp),
    (KeyCode::Escape, NONE, Action::Quit),
    (KeyCode::KeyW, NONE, Action::Move(Dir::Up)),
    (KeyCode::KeyA, NONE, Action::Move(Dir::Left)),
    (KeyCode::KeyS, NONE, Action::Move(Dir::Down)),
    (KeyCode::KeyD, NONE, Action::Move(Dir::Right)),
    (KeyCode::ArrowLeft, NONE, Action::Move(Dir::Left)),
    (KeyCode::ArrowRight, NONE, Action::Move(Dir::Right)),
    (KeyCode::KeyE, NONE, Action::Kick),
    (KeyCode::KeyC, NONE, Action::ToggleLanes),
    (KeyCode::KeyJ, NONE, Action::NextLane),
    (KeyCode::KeyK, NONE, Action::PreviousLane),
    (KeyCode::Enter, NONE, Action::AdoptLane),
    (KeyCode::KeyT, NONE, Action::StartTour),
];

/// The action bound to `key` with exactly `mods` held. Held actions ignore
/// modifiers, so Shift while steering does not drop the key.
pub(crate) fn action_for(key: KeyCode, mods: ModifiersState) -> Option<Action> {
    KEY_BINDINGS
        .iter()
        .find(|(k, m, action)| *k == key && (*m == mods || action.is_held()))
        .map(|(_, _, action)| *action)
        .filter(|action| action.applies_here())
}

/// How a key is written in the help (`1`, `V`, `Up`, `Space`).
pub(crate) fn key_label(key: KeyCode) -> String {
    let name = format!("{key:?}");
    let short = name
        .strip_prefix("Digit")
        .or_else(|| name.strip_prefix("Key"))
        .or_else(|| name.strip_prefix("Arrow"))
        .unwrap_or(&name);
    match short {
        "Escape" => "Esc".to_owned(),
        other => other.to_owned(),
    }
}

fn mods_label(mods: ModifiersState) -> String {
    let mut out = String::new();
    for (m, label) in [
        (ModifiersState::CONTROL, "Ctrl+"),
        (ModifiersState::ALT, "Alt+"),
        (ModifiersState::SHIFT, "Shift+"),
        (ModifiersState::SUPER, "Super+"),
    ] {
        if mods.contains(m) {
            out.push_str(label);
        }
    }
    out
}

/// The help table as (keys, action) rows, one per binding that applies on
/// this platform, in table order.
pub fn help_lines() -> Vec<(String, String)> {
    let mut lines = Vec::new();
    for (key, mods, action) in KEY_BINDINGS.iter().filter(|(_, _, a)| a.applies_here()) {
        lines.push((format!("{}{}", mods_label(*mods), key_label(*key)), action.help()));
    }
    lines
}

/// One touch control per action that applies here, in table order (an
/// action bound to two keys gets one control, named with both).
pub(crate) fn controls() -> Vec<(Action, crate::platform::PageControl)> {
    let mut controls: Vec<(Action, crate::platform::PageControl)> = Vec::new();
    for (key, mods, action) in KEY_BINDINGS.iter().filter(|(_, _, a)| a.applies_here()) {
        let key = format!("{}{}", mods_label(*mods), key_label(*key));
        match controls.iter_mut().find(|(a, _)| a == action) {
            Some((_, control)) => control.key = format!("{} or {key}", control.key),
            None => controls.push((
                *action,
                crate::platform::PageControl {
                    label: action.label(),
                    name: action.help(),
                    key,
                    held: action.is_held(),
                },
            )),
        }
    }
    controls
}

/// The next tick rate of [`TICK_RATES`] above (`up`) or below `current_hz`,
/// or `None` at the end of the list.
pub(crate) fn step_tick_rate(current_hz: f64, up: bool) -> Option<u64> {
    if up {
        TICK_RATES.iter().copied().find(|hz| *hz as f64 > current_hz + 1e-9)
    } else {
        TICK_RATES.iter().rev().copied().find(|hz| (*hz as f64) < current_hz - 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_keys_select_the_strategies_in_key_order() {
        let digits = [
            KeyCode::Digit1,
            KeyCode::Digit2,
            KeyCode::Digit3,
            KeyCode::Digit4,
            KeyCode::Digit5,
            KeyCode::Digit6,
            KeyCode::Digit7,
            KeyCode::Digit8,
            KeyCode::Digit9,
            KeyCode::Digit0,
        ];
        for (key, id) in digits.into_iter().zip(StrategyId::ALL) {
            assert_eq!(action_for(key, NONE), Some(Action::Strategy(id)), "{key:?}");
        }
    }

    #[test]
    fn no_key_is_bound_twice() {
        for (i, (k, m, _)) in KEY_BINDINGS.iter().enumerate() {
            for (k2, m2, _) in &KEY_BINDINGS[i + 1..] {
                assert!(!(k == k2 && m == m2), "{k:?} with {m:?} is bound twice");
            }
        }
    }

    #[test]
    fn modifiers_must_match_except_for_held_keys() {
        assert_eq!(action_for(KeyCode::KeyV, ModifiersState::CONTROL), None);
        assert_eq!(action_for(KeyCode::KeyW, ModifiersState::SHIFT), Some(Action::Move(Dir::Up)));
        assert_eq!(action_for(KeyCode::ArrowLeft, ModifiersState::empty()), Some(Action::Move(Dir::Left)));
        assert_eq!(action_for(KeyCode::ArrowRight, ModifiersState::empty()), Some(Action::Move(Dir::Right)));
    }

    #[test]
    fn help_has_one_row_per_binding_with_readable_keys() {
        let lines = help_lines();
        let here = KEY_BINDINGS.iter().filter(|(_, _, a)| a.applies_here()).count();
        assert_eq!(lines.len(), here, "one row per binding that applies here");
        assert_eq!(lines[0].0, "1");
        assert!(lines.iter().any(|(k, _)| k == "Up"), "{lines:?}");
        assert!(lines.iter().any(|(k, _)| k == "Esc"), "{lines:?}");
        assert!(lines[3].1.contains("catch-up"), "{}", lines[3].1);
    }

    #[test]
    fn lane_mode_has_its_keys_in_the_help() {
        assert_eq!(action_for(KeyCode::KeyC, NONE), Some(Action::ToggleLanes));
        assert_eq!(action_for(KeyCode::Enter, NONE), Some(Action::AdoptLane));
        let lines = help_lines();
        for (key, word) in [("C", "compare"), ("J", "below"), ("K", "above"), ("Enter", "selected lane")] {
            assert!(lines.iter().any(|(k, text)| k == key && text.contains(word)), "{key}: {lines:?}");
        }
    }

    #[test]
    fn every_action_has_one_control_named_for_what_it_does() {
        let controls = controls();
        for (_, _, action) in KEY_BINDINGS.iter().filter(|(_, _, a)| a.applies_here()) {
            let found: Vec<_> = controls.iter().filter(|(a, _)| a == action).collect();
            assert_eq!(found.len(), 1, "{action:?} has one control");
            let (_, control) = found[0];
            assert!(!control.label.is_empty() && control.name == action.help(), "{control:?}");
        }
        let left = controls.iter().find(|(a, _)| *a == Action::Move(Dir::Left)).map(|(_, c)| c.key.as_str());
        assert_eq!(left, Some("A or Left"), "both keys are named");
        let kick = controls.iter().find(|(a, _)| *a == Action::Kick).map(|(_, c)| c.held);
        assert_eq!(kick, Some(true), "a held key is a held control");
    }

    #[test]
    fn help_keys_and_controls_leave_out_what_this_platform_cannot_do() {
        let monitors = crate::platform::MONITORS_CAN_BE_CHOSEN;
        assert_eq!(action_for(KeyCode::KeyM, NONE).is_some(), monitors, "M moves to a monitor where one can");
        assert_eq!(help_lines().iter().any(|(k, _)| k == "M"), monitors);
        assert_eq!(controls().iter().any(|(a, _)| *a == Action::NextMonitor), monitors);
        let vs: Vec<_> = help_lines().into_iter().filter(|(k, _)| k == "V").collect();
        assert_eq!(vs.len(), 1, "V has one line, one meaning: {vs:?}");
    }

    #[test]
    fn tick_rate_steps_through_the_list_and_stops_at_the_ends() {
        assert_eq!(step_tick_rate(60.0, true), Some(100));
        assert_eq!(step_tick_rate(60.0, false), Some(50));
        assert_eq!(step_tick_rate(75.0, true), Some(100), "off-list rates join the list");
        assert_eq!(step_tick_rate(240.0, true), None);
        assert_eq!(step_tick_rate(5.0, false), None);
    }
}
