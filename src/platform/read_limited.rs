//! Reading the files a user hands the app (report cards, simulator JSON,
//! traces, atlases) with a size limit, so that `compare /dev/zero` or a
//! mistyped path to a disk image ends in a one-line error within a second
//! instead of filling memory.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Largest report card or simulator JSON read: the cards `measure` writes
/// are 110–140 KB per monitor (tests/data/report_card), so 16 MB is a
/// hundred times a real one, and reading it stays far under 100 MB of memory.
pub(crate) const MAX_JSON_BYTES: u64 = 16 << 20;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read '{}': {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file holds more than the limit.
    #[error("'{}' is larger than {} MB, the most this reads (is it the right file?)", path.display(), limit >> 20)]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("'{}' is not UTF-8 text", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
    },
}

/// Reads at most `limit` bytes of `path`; more is an error, whatever the
/// file's reported size (`/dev/zero` and pipes report none).
///
/// # Errors
/// [`ReadError::Io`] or [`ReadError::TooLarge`].
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let io = |source| ReadError::Io { path: path.to_owned(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { path: path.to_owned(), limit });
    }
    Ok(bytes)
}

/// [`read_limited`] as UTF-8 text.
///
/// # Errors
/// As [`read_limited`], and [`ReadError::NotText`].
pub(crate) fn read_text_limited(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read_limited(path, limit)?).map_err(|_| ReadError::NotText { path: path.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("timestep-lab-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    }

    #[test]
    fn a_file_at_the_limit_is_read_whole_and_one_byte_more_is_refused() {
        let path = scratch("ten", b"0123456789");
        assert_eq!(read_limited(&path, 10).expect("at the limit"), b"0123456789");
        let err = read_limited(&path, 9).expect_err("over the limit");
        assert!(matches!(err, ReadError::TooLarge { limit: 9, .. }), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_device_is_refused_at_the_limit() {
        let err = read_limited(Path::new("/dev/zero"), 1 << 20).expect_err("endless");
        assert_eq!(err.to_string(), "'/dev/zero' is larger than 1 MB, the most this reads (is it the right file?)");
    }

    #[test]
    fn a_missing_file_and_binary_bytes_say_so() {
        let missing = read_limited(Path::new("/no/such/file.json"), 10).expect_err("missing");
        assert!(missing.to_string().starts_with("cannot read '/no/such/file.json': "), "{missing}");
        let binary = scratch("binary", &[0xff, 0xfe, 0x00]);
        assert!(matches!(read_text_limited(&binary, 10), Err(ReadError::NotText { .. })));
    }
}
