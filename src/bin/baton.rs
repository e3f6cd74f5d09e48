//! `baton`, the command users run: a front that runs `baton send` itself and hands every other
//! command line, as it is, to the full binary next to it (`baton-full`, `src/main.rs`) by
//! `exec`. A send's client starts in about 1 ms instead of 1.6: this binary is a seventh the
//! size, with a tenth of the relocations to apply at load (see ARCHITECTURE.md, "Two
//! binaries").

#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

use baton::client::{full_binary, out, send_cmd, Client};
use baton::error::BatonError;

fn main() -> ExitCode {
    baton::log::phase("client-start");
    baton::client::run_as_front();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(send) = send_cmd::parse(&args) {
        let ran = Client::from_env().and_then(|c| send_cmd::run(&c, send));
        baton::log::phase("client-exit");
        return out::exit_code(ran);
    }
    out::exit_code(Err(hand_over(&args)))
}

/// Replaces this process with the full binary, given the same command line (its own name
/// included, so usage and messages still say `baton`). Returns only when that fails.
fn hand_over(args: &[std::ffi::OsString]) -> BatonError {
    let full = match full_binary() {
        Ok(full) => full,
        Err(e) => return e,
    };
    let mut cmd = Command::new(&full);
    if let Some(name) = args.first() {
        cmd.arg0(name);
    }
    let e = cmd.args(args.iter().skip(1)).exec();
    baton::client::cannot_run_full(&full, &e)
}
