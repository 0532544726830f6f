//! Monitors: what winit reports about them, and fullscreen on a chosen one.
//!
//! The reported refresh (`refresh_rate_millihertz`) is only a claim; the
//! shell also measures (see [`crate::refresh`]). On Xvfb winit reports
//! no refresh at all, and that is shown as such, never guessed.

use std::fmt;

use winit::monitor::MonitorHandle;
use winit::window::Fullscreen;

use crate::time::Rate;

/// What the log and the overlay say about a monitor.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MonitorInfo {
    /// winit's name, or `monitor N` when it has none.
    pub(crate) name: String,
    /// Physical size in pixels.
    pub(crate) size: [u32; 2],
    /// Top-left corner on the virtual desktop.
    pub(crate) position: [i32; 2],
    /// The reported refresh, if any, in millihertz.
    pub(crate) refresh_mhz: Option<u32>,
}

impl MonitorInfo {
    /// Describes monitor number `index` (0-based).
    pub(crate) fn of(index: usize, handle: &MonitorHandle) -> MonitorInfo {
        let size = handle.size();
        let position = handle.position();
        MonitorInfo {
            name: handle.name().unwrap_or_else(|| format!("monitor {}", index + 1)),
            size: [size.width, size.height],
            position: [position.x, position.y],
            refresh_mhz: handle.refresh_rate_millihertz().filter(|mhz| *mhz > 0),
        }
    }

    /// The reported refresh in Hz.
    pub(crate) fn refresh_hz(&self) -> Option<f64> {
        self.refresh_mhz.map(|mhz| f64::from(mhz) / 1000.0)
    }

    /// The reported refresh as an exact rate (59.940 Hz becomes 60000/1001).
    pub(crate) fn refresh_rate(&self) -> Option<Rate> {
        self.refresh_mhz.and_then(refresh_rate_from_millihertz)
    }
}

impl fmt::Display for MonitorInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}x{} at {},{}", self.name, self.size[0], self.size[1], self.position[0], self.position[1])?;
        match self.refresh_mhz {
            Some(mhz) => write!(f, ", {}.{:03} Hz reported", mhz / 1000, mhz % 1000),
            None => write!(f, ", no refresh rate reported"),
        }
    }
}

/// An exact rate from winit's millihertz (NTSC rates snap to `k·1000/1001`).
pub(crate) fn refresh_rate_from_millihertz(mhz: u32) -> Option<Rate> {
    if mhz == 0 {
        return None;
    }
    Rate::parse(&format!("{}.{:03}", mhz / 1000, mhz % 1000)).ok()
}

/// Borderless fullscreen on `monitor`, or exclusive fullscreen in its
/// largest, fastest video mode when `exclusive` and the platform lists modes.
pub(crate) fn fullscreen_on(monitor: &MonitorHandle, exclusive: bool) -> Fullscreen {
    if exclusive {
        let best = monitor.video_modes().max_by_key(|mode| {
            let size = mode.size();
            (u64::from(size.width) * u64::from(size.height), mode.refresh_rate_millihertz(), mode.bit_depth())
        });
        if let Some(mode) = best {
            log::info!(
                "exclusive fullscreen: {}x{} @ {}.{:03} Hz",
                mode.size().width,
                mode.size().height,
                mode.refresh_rate_millihertz() / 1000,
                mode.refresh_rate_millihertz() % 1000
            );
            return Fullscreen::Exclusive(mode);
        }
        log::info!("the platform lists no video modes for this monitor; using borderless fullscreen");
    }
    Fullscreen::Borderless(Some(monitor.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millihertz_become_exact_rates() {
        assert_eq!(refresh_rate_from_millihertz(60_000), Some(Rate::from_hz(60)));
        assert_eq!(refresh_rate_from_millihertz(59_940), Some(Rate::new(60000, 1001).unwrap()));
        assert_eq!(refresh_rate_from_millihertz(143_856), Some(Rate::new(144_000, 1001).unwrap()));
        assert_eq!(refresh_rate_from_millihertz(74_973), Some(Rate::new(74_973, 1000).unwrap()));
        assert_eq!(refresh_rate_from_millihertz(0), None);
    }
}
