//! One error type for the library, so every failure names the file and what is wrong.
//! Configuration errors are data ([`ConfigError`]: parameter, value, rule), so a front end
//! can name each parameter its own way.

mod budget;
mod config;

pub use budget::{Estimate, OverBudget, human_bytes};
pub use config::{ConfigError, Param};
pub(crate) use config::{at_least_one, non_negative, positive};

use std::path::{Path, PathBuf};

/// The library's result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong; callers match on the kind, users read the message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The operating system's reason (part of the message, so not repeated as a cause).
        error: std::io::Error,
    },
    /// Input data is malformed; `line` is 1-based where the format has lines.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        /// The file concerned.
        path: PathBuf,
        /// The 1-based line, where known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A model file is truncated, corrupt, foreign or from a newer version.
    #[error("{}: {message}", path.display())]
    Model {
        /// The model file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A configuration value is invalid (checked before any work starts).
    #[error("invalid configuration: {0}")]
    Config(ConfigError),
    /// A learner whose predicted cost is above its limits refused to start.
    #[error(
        "{0}: use the primal perceptron, a smaller sample or a larger memory budget, or force \
         the run"
    )]
    OverBudget(Box<OverBudget>),
    /// The model or input cannot do what was asked (e.g. incremental learning on a kernel
    /// model, documents read from a file of vectors).
    #[error("{0}")]
    Unsupported(String),
    /// The data cannot be used for the requested task (e.g. one class only).
    #[error("{0}")]
    Data(String),
}

impl Error {
    /// An I/O error on `path`. A path that does not exist reads "no such file or folder"
    /// whatever was being opened (a model, an input, a store), not the system's wording
    /// for files alone.
    pub(crate) fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        let error =
            if source.kind() == std::io::ErrorKind::NotFound && source.raw_os_error().is_some() {
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or folder")
            } else {
                source
            };
        Error::Io {
            path: path.as_ref().to_path_buf(),
            error,
        }
    }

    /// A parse error in `path`, at `line` when known.
    pub(crate) fn parse(
        path: impl AsRef<Path>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Error::Parse {
            path: path.as_ref().to_path_buf(),
            line,
            message: message.into(),
        }
    }

    /// A model-file error in `path`.
    pub(crate) fn model(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Model {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
        }
    }
}

/// Not `#[from]`: the message already holds it, so it is not repeated as a cause.
impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}
