//! The error type every layer returns to the command line, with the exit code it maps to.

use std::fmt;

/// Exit code for a turn or command that failed at run time (a CLI error, an interrupted turn).
pub const EXIT_FAILED: i32 = 1;
/// Exit code for bad input: nothing was changed.
pub const EXIT_BAD_INPUT: i32 = 2;

/// Broad classes of failure, as carried over the socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request was wrong (unknown terminal, invalid name, empty prompt…); nothing changed.
    BadInput,
    /// The request was fine but the work failed (a turn failed, the server is gone…).
    Failed,
}

/// A user-facing error: one line saying what happened and what to do next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub struct BatonError {
    pub kind: ErrorKind,
    pub message: String,
}

impl fmt::Display for BatonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl BatonError {
    pub fn bad_input(message: impl Into<String>) -> Self {
        BatonError {
            kind: ErrorKind::BadInput,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        BatonError {
            kind: ErrorKind::Failed,
            message: message.into(),
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::BadInput => EXIT_BAD_INPUT,
            ErrorKind::Failed => EXIT_FAILED,
        }
    }

    pub fn unknown_terminal(name: &str) -> Self {
        BatonError::bad_input(format!(
            "no terminal named {name:?} (see `baton ls`, or create it with `baton new {name}`)"
        ))
    }
}

pub type Result<T, E = BatonError> = std::result::Result<T, E>;
