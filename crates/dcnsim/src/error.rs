//! The one error type for bad input: it names where (a key path such as `topology.k`, or a
//! file and line) and says what would be valid. The CLI prints it and exits with code 2.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Where the problem is: a dotted key path (`workload.load`), or `file.csv line 7`.
    pub path: String,
    /// What is wrong and, where possible, what would be valid.
    pub message: String,
}

impl ConfigError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Shorthand for results of parsing and validating input.
pub type ConfigResult<T> = Result<T, ConfigError>;
