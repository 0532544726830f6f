//! `serve`'s banner, read from its stdout up to its last line, for the test
//! binaries that start a server (`tests/cli`, `tests/serve`).

use std::io::Read;

/// The banner's last line: the server is listening once it is printed.
pub const LAST_LINE: &str = "Ctrl+C stops the server.\n";

/// Reads `out` byte by byte (no buffer that could swallow what follows) up to
/// and with [`LAST_LINE`]; `Err` with what came where the stream ended first.
pub fn read(out: &mut impl Read) -> Result<String, String> {
    let mut banner = String::new();
    let mut byte = [0u8; 1];
    while !banner.contains(LAST_LINE) {
        match out.read(&mut byte) {
            Ok(1) => banner.push(char::from(byte[0])),
            _ => return Err(banner),
        }
    }
    Ok(banner)
}

/// The address the banner prints for this machine (`on this machine  URL`).
pub fn local_url(banner: &str) -> Option<String> {
    banner.lines().find_map(|l| l.trim().strip_prefix("on this machine")).map(|u| u.trim().to_owned())
}
