//! Keeping Mesa's Vulkan device-select layer from asking for a Wayland
//! compositor where there can be none.
//!
//! Under X11 with `XDG_RUNTIME_DIR` unset (an `ssh` session, a container,
//! Xvfb in CI) the demo printed `error: XDG_RUNTIME_DIR is invalid or not
//! set in the environment.` twice. Neither winit nor wgpu printed it: wgpu
//! enables `VK_KHR_wayland_surface` on every Vulkan instance, and Mesa's
//! implicit layer `VK_LAYER_MESA_device_select` then, on each
//! `vkEnumeratePhysicalDevices`, calls libwayland's `wl_display_connect` to
//! find the GPU a compositor runs on. libwayland cannot build a socket path
//! without `XDG_RUNTIME_DIR` and says so on stderr (once per enumeration:
//! twice while wgpu picks an adapter). `WGPU_BACKEND=gl` and
//! `NODEVICE_SELECT=1` were quiet, `EGL_PLATFORM=x11` was not (Mesa 22.3.6,
//! llvmpipe; see docs/demo.md).
//!
//! So where libwayland cannot connect by name, `main` turns the layer off
//! (`NODEVICE_SELECT=1`, the layer's own switch) before any thread or
//! instance exists, unless the user chose a device through it
//! (`MESA_VK_DEVICE_SELECT`, `DRI_PRIME`) or turned it on or off already.
//! wgpu still picks the adapter by its power preference, as before.

/// The variable that turns Mesa's device-select layer off.
const OFF_SWITCH: &str = "NODEVICE_SELECT";

/// Variables through which the user speaks to the layer: set, it stays on.
const USER_CHOICES: [&str; 3] = [OFF_SWITCH, "MESA_VK_DEVICE_SELECT", "DRI_PRIME"];

/// Whether libwayland would fail, out loud, to connect to a compositor by
/// name: no `WAYLAND_SOCKET` handed over, no absolute `WAYLAND_DISPLAY`,
/// and `XDG_RUNTIME_DIR` unset or not an absolute path (libwayland's test).
fn wayland_unreachable(var: impl Fn(&str) -> Option<String>) -> bool {
    let absolute = |name: &str| var(name).is_some_and(|v| v.starts_with('/'));
    var("WAYLAND_SOCKET").is_none() && !absolute("WAYLAND_DISPLAY") && !absolute("XDG_RUNTIME_DIR")
}

/// Whether `main` should turn the layer off (see the module docs).
fn should_turn_off(var: impl Fn(&str) -> Option<String>) -> bool {
    cfg!(all(unix, not(target_os = "macos"), not(target_os = "android")))
        && USER_CHOICES.iter().all(|name| var(name).is_none())
        && wayland_unreachable(var)
}

/// Turns Mesa's Vulkan device-select layer off where its Wayland probe
/// could only print an error (see the module docs); returns whether it did.
/// `main` calls it first thing, before any thread exists.
pub fn quiet_device_select() -> bool {
    let var = |name: &str| std::env::var(name).ok();
    if !should_turn_off(var) {
        return false;
    }
    #[expect(
        unsafe_code,
        reason = "setting a variable is sound only while no other thread exists: main calls this first"
    )]
    // SAFETY: called at the start of `main`, before any thread is spawned.
    unsafe {
        std::env::set_var(OFF_SWITCH, "1");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| set.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn without_a_runtime_dir_the_layer_is_turned_off_on_linux() {
        assert_eq!(should_turn_off(env(&[("DISPLAY", ":0")])), cfg!(target_os = "linux"));
        assert_eq!(should_turn_off(env(&[("XDG_RUNTIME_DIR", "relative")])), cfg!(target_os = "linux"));
    }

    #[test]
    fn a_wayland_session_or_a_users_choice_keeps_the_layer() {
        assert!(!should_turn_off(env(&[("XDG_RUNTIME_DIR", "/run/user/1000")])));
        assert!(!should_turn_off(env(&[("WAYLAND_SOCKET", "3")])));
        assert!(!should_turn_off(env(&[("WAYLAND_DISPLAY", "/tmp/xdg/wayland-0")])));
        assert!(!should_turn_off(env(&[("DRI_PRIME", "1")])));
        assert!(!should_turn_off(env(&[("MESA_VK_DEVICE_SELECT", "1002:687f")])));
        assert!(!should_turn_off(env(&[("NODEVICE_SELECT", "")])));
    }
}
