//! The error every command returns to `main`.

/// A command's failure, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user's input is wrong (exit code 2): a bad flag value, a missing
    /// or malformed file. The message names what and where.
    #[error("{0}")]
    Usage(String),
    /// Something outside the user's input failed (exit code 1): no GPU
    /// adapter, no display, an I/O error while writing output.
    #[error("{0}")]
    Runtime(String),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Runtime(_) => 1,
        }
    }
}
