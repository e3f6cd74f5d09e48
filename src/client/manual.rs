//! `baton completions SHELL` and `baton man`: a shell's completion script and the man page
//! (roff), both generated from the same clap definitions as the parser, so they never drift.

use super::out;
use crate::error::BatonError;

/// The shells `baton completions` writes a script for.
pub use clap_complete::Shell;

/// Prints `shell`'s completion script for `cmd` (the whole command line).
pub fn completions(mut cmd: clap::Command, shell: Shell) -> Result<i32, BatonError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "baton", &mut script);
    out::print(&String::from_utf8_lossy(&script));
    Ok(0)
}

/// Prints the man page of `cmd`, its subcommands listed (`baton man | man -l -`).
pub fn man(cmd: clap::Command) -> Result<i32, BatonError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .map_err(|e| BatonError::failed(format!("cannot render the man page: {e}")))?;
    out::print(&String::from_utf8_lossy(&page));
    Ok(0)
}
