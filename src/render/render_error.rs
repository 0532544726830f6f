//! Errors of the render layer, typed so `main` can print a clear message.

/// Why the renderer could not start or read back a frame.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No adapter at all, not even the software fallback. The message names
    /// what to install.
    #[error("{0}")]
    NoAdapter(String),
    /// The adapter refused to create a device (limits, driver failure).
    #[error("could not create a GPU device: {0}")]
    Device(String),
    /// Copying a rendered frame back to the CPU failed.
    #[error("could not read the rendered frame back: {0}")]
    Readback(String),
    /// Encoding or writing an image file failed.
    #[error("could not write {path}: {reason}")]
    Image {
        /// The file that was being written.
        path: std::path::PathBuf,
        /// What went wrong.
        reason: String,
    },
}
