//! Files on the page: what a command writes becomes a download named like
//! the file; nothing is checked or made up front, as nothing is on a disk.

use std::path::Path;

use super::downloads::download;

/// Nothing to check: an output becomes a download when it is written.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn check_writable(_path: &Path) -> Result<(), String> {
    Ok(())
}

/// Nothing to make: the files a command writes become downloads.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn prepare_output_dir(_dir: &Path) -> Result<(), String> {
    Ok(())
}

/// Offers `bytes` as a download named after `path`'s file name.
///
/// # Errors
/// One line when the page cannot make the download (no document, a blocked
/// object URL).
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), String> {
    let name = path.file_name().map_or_else(|| "download".to_owned(), |n| n.to_string_lossy().into_owned());
    download(&name, bytes.as_ref()).map_err(|e| format!("cannot offer '{name}' as a download: {e}"))
}

/// A file the app streams its output into: kept in memory, offered as a
/// download when it is dropped.
pub struct OutputFile {
    name: std::path::PathBuf,
    bytes: Vec<u8>,
}

impl std::io::Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Err(err) = write_file(&self.name, &self.bytes) {
            log::warn!("{err}");
        }
    }
}

/// A stream that becomes a download named after `path`.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn create_file(path: &Path) -> std::io::Result<OutputFile> {
    Ok(OutputFile { name: path.to_owned(), bytes: Vec::new() })
}
