//! This process's CPU time, for the overlay's CPU figure (parsed by
//! `app::cpu`): `/proc/self/stat` on Linux, nothing elsewhere.

/// Total CPU ticks of this process (`utime + stime`), read into `buf`; `None` where unknown.
#[cfg(target_os = "linux")]
pub fn read_own_cpu_ticks(buf: &mut String) -> Option<u64> {
    use std::io::Read as _;
    buf.clear();
    let mut file = std::fs::File::open("/proc/self/stat").ok()?;
    file.read_to_string(buf).ok()?;
    crate::app::cpu::parse_cpu_ticks(buf)
}

/// Elsewhere: unknown.
#[cfg(not(target_os = "linux"))]
pub fn read_own_cpu_ticks(_buf: &mut String) -> Option<u64> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn this_process_has_a_readable_tick_count() {
        let mut buf = String::new();
        assert!(super::read_own_cpu_ticks(&mut buf).is_some(), "/proc/self/stat: {buf}");
    }
}
