//! The key bindings: one table that drives both input handling and the F1 help.
//!
//! Keys are matched by physical position ([`KeyCode`]), so `WASD` stays under
//! the left hand on any layout. `Up`/`Down` change the tick rate, so the
//! player sprite moves with `WASD` (held keys), and `Left`/`Right` steer it
//! too; everything else acts once per press and ignores key repeat.
//!
//! The strategies' keys come from the registry ([`crate::registry::all`]):
//! the n-th strategy is on digit key n (`1`–`9`, then `0`), the eleventh to
//! twentieth on Shift and the same digits; a strategy beyond the twentieth
//! has no key (lanes and `--strategy` still run it).

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
            Action::NextLane => "lanes: select the lane below (or click a lane, or press its strategy's key)".to_owned(),
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

/// The digit keys in key order: the first strategy is on `1`, the tenth on `0`.
const DIGITS: [KeyCode; 10] = [
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

/// The modifiers of each round of ten strategies on the digits: none, then Shift.
const STRATEGY_MODIFIERS: [ModifiersState; 2] = [NONE, ModifiersState::SHIFT];

/// The key of the `i`-th strategy of the registry (from 0), if it has one.
pub(crate) fn strategy_key(i: usize) -> Option<(KeyCode, ModifiersState)> {
    let mods = *STRATEGY_MODIFIERS.get(i / DIGITS.len())?;
    Some((DIGITS[i % DIGITS.len()], mods))
}

/// Every binding, in help order: the strategies' keys (from the registry),
/// then [`KEY_BINDINGS`].
pub(crate) fn bindings() -> Vec<(KeyCode, ModifiersState, Action)> {
    let strategies = crate::registry::all().into_iter().enumerate();
    let keyed = strategies.filter_map(|(i, id)| strategy_key(i).map(|(key, mods)| (key, mods, Action::Strategy(id))));
    keyed.chain(KEY_BINDINGS.iter().copied()).collect()
}

/// Every binding but the strategies': physical key, modifiers that must be held, action.
pub(crate) const KEY_BINDINGS: &[(KeyCode, ModifiersState, Action)] = &[
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
    bindings()
        .into_iter()
        .find(|(k, m, action)| *k == key && (*m == mods || action.is_held()))
        .map(|(_, _, action)| action)
        .filter(|action| action.applies_here())
}

/// The strategy bound to `key` with exactly `mods` held, if any.
pub fn strategy_for_key(key: KeyCode, mods: ModifiersState) -> Option<StrategyId> {
    match action_for(key, mods) {
        Some(Action::Strategy(id)) => Some(id),
        _ => None,
    }
}

/// Every strategy that has a key, with the key as the help writes it
/// (`1`, `0`, `Shift+1`), in key order.
pub fn strategy_keys() -> Vec<(String, StrategyId)> {
    let all = crate::registry::all().into_iter().enumerate();
    all.filter_map(|(i, id)| strategy_key(i).map(|(key, mods)| (format!("{}{}", mods_label(mods), key_label(key)), id)))
        .collect()
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
    for (key, mods, action) in bindings().into_iter().filter(|(_, _, a)| a.applies_here()) {
        lines.push((format!("{}{}", mods_label(mods), key_label(key)), action.help()));
    }
    lines
}

/// One touch control per action that applies here, in table order (an
/// action bound to two keys gets one control, named with both).
pub(crate) fn controls() -> Vec<(Action, crate::platform::PageControl)> {
    let mut controls: Vec<(Action, crate::platform::PageControl)> = Vec::new();
    for (key, mods, action) in bindings().into_iter().filter(|(_, _, a)| a.applies_here()) {
        let key = format!("{}{}", mods_label(mods), key_label(key));
        match controls.iter_mut().find(|(a, _)| *a == action) {
            Some((_, control)) => control.key = format!("{} or {key}", control.key),
            None => controls.push((
                action,
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
    fn digit_keys_select_the_strategies_in_key_order_and_every_strategy_has_one() {
        let all = crate::registry::all();
        for (i, id) in all.iter().enumerate() {
            let (key, mods) = strategy_key(i).expect("the lab has at most twenty strategies");
            assert_eq!(action_for(key, mods), Some(Action::Strategy(*id)), "{key:?} {mods:?}");
        }
        assert_eq!(strategy_key(0), Some((KeyCode::Digit1, NONE)));
        assert_eq!(strategy_key(9), Some((KeyCode::Digit0, NONE)));
        assert_eq!(strategy_key(10), Some((KeyCode::Digit1, ModifiersState::SHIFT)), "the eleventh");
        assert_eq!(strategy_key(19), Some((KeyCode::Digit0, ModifiersState::SHIFT)));
        assert_eq!(strategy_key(20), None);
    }

    #[test]
    fn no_key_is_bound_twice() {
        let bindings = bindings();
        for (i, (k, m, _)) in bindings.iter().enumerate() {
            for (k2, m2, _) in &bindings[i + 1..] {
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
        let here = bindings().iter().filter(|(_, _, a)| a.applies_here()).count();
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
        for (_, _, action) in bindings().into_iter().filter(|(_, _, a)| a.applies_here()) {
            let found: Vec<_> = controls.iter().filter(|(a, _)| *a == action).collect();
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
