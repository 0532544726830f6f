//! This process's CPU time, for the overlay's CPU figure (`app::cpu`):
//! `/proc/self/stat` on Linux, nothing elsewhere.

/// Total CPU ticks of this process (`utime + stime`), read into `buf`; `None` where unknown.
#[cfg(target_os = "linux")]
pub(crate) fn read_own_cpu_ticks(buf: &mut String) -> Option<u64> {
    use std::io::Read as _;
    buf.clear();
    let mut file = std::fs::File::open("/proc/self/stat").ok()?;
    file.read_to_string(buf).ok()?;
    parse_cpu_ticks(buf)
}

/// Total CPU ticks (`utime + stime`) from the text of a `/proc/<pid>/stat` file.
///
/// The process name (field 2) is in parentheses and may itself contain spaces and parentheses,
/// so fields are counted from the *last* `)`.
#[cfg(any(target_os = "linux", test))]
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // After the name: field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
    let mut fields = after_name.split_ascii_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    utime.checked_add(stime)
}

/// Elsewhere: unknown.
#[cfg(not(target_os = "linux"))]
pub(crate) fn read_own_cpu_ticks(_buf: &mut String) -> Option<u64> {
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

#[cfg(test)]
mod parse_tests {
    use super::parse_cpu_ticks;

    /// A line in the shape `cat /proc/self/stat` prints (utime 7, stime 3).
    const PLAIN: &str = "4242 (cat) R 4100 4242 4100 34816 4242 4194304 113 0 0 0 7 3 0 0 20 0 1 0 \
                         123456 5812224 229 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    #[test]
    fn parses_utime_plus_stime_from_a_plain_line() {
        assert_eq!(parse_cpu_ticks(PLAIN), Some(10));
    }

    #[test]
    fn parses_a_process_name_with_spaces_and_parentheses() {
        let line = "77 (my (odd) game ) ) S 1 77 77 0 -1 4194560 5000 0 0 0 1234 567 0 0 20 0 9 0 \
                    99 1000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
        assert_eq!(parse_cpu_ticks(line), Some(1801), "fields are counted from the last ')'");
    }

    #[test]
    fn rejects_truncated_or_garbled_lines() {
        assert_eq!(parse_cpu_ticks(""), None);
        assert_eq!(parse_cpu_ticks("12 (x"), None, "no closing parenthesis");
        assert_eq!(parse_cpu_ticks("12 (x) R 1 2 3"), None, "too few fields");
        assert_eq!(parse_cpu_ticks("12 (x) R 1 2 3 4 5 6 7 8 9 10 ten 0"), None, "utime not a number");
    }
}
