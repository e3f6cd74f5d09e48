//! `baton`, the command users run: a front that runs `baton send` itself and hands every other
//! command line, as it is, to the full binary next to it (`baton-full`, `src/main.rs`) by
//! `exec`. A send's client starts in about 1 ms instead of 1.6: this binary is a seventh the
//! size, with a tenth of the relocations to apply at load, and it skips Rust's runtime start
//! (see ARCHITECTURE.md, "Two binaries").

#![no_main]
#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::{c_char, c_int};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::Command;

use baton::client::{full_binary, out, send_cmd, Client};
use baton::error::BatonError;

/// The process's entry, in place of Rust's runtime start (`lang_start`), which reads
/// `/proc/self/maps` to find the main thread's stack guard and sets up a stack overflow
/// handler: ~0.1 ms of every send's client on a 2-core machine, for a message on a stack
/// overflow. What of that start the front needs is in [`start`]. The arguments are read as
/// ever: glibc hands them to std (its `.init_array` hook), `main` or not.
#[no_mangle]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    start();
    baton::log::phase("client-start");
    baton::client::run_as_front();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let code = match send_cmd::parse(&args) {
        Some(send) => {
            let ran = Client::from_env().and_then(|c| send_cmd::run(&c, send));
            baton::log::phase("client-exit");
            out::exit_status(ran)
        }
        None => out::exit_status(Err(hand_over(&args))),
    };
    // Rust's runtime flushes stdout at exit; without it, this does.
    let _ = std::io::stdout().flush();
    code
}

/// What the front keeps of Rust's runtime start: descriptors 0, 1 and 2 open (on /dev/null
/// when they were closed: else the server's socket could become stdout), and SIGPIPE ignored
/// (a reader gone early is an EPIPE that `out` ends quietly with exit 0, not a death by
/// signal). Children still start with SIGPIPE's default, as std's `Command` gives them.
fn start() {
    use nix::libc;
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfd for the length given; a zero timeout.
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    if polled >= 0 {
        // Each open takes the lowest free descriptor: the closed ones, lowest first.
        for _ in fds.iter().filter(|f| f.revents & libc::POLLNVAL != 0) {
            let null = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/null");
            if let Ok(null) = null {
                // Kept open for the life of the process, as the descriptor it stands for.
                let _ = std::os::fd::IntoRawFd::into_raw_fd(null);
            }
        }
    }
    // SAFETY: setting SIGPIPE's disposition to "ignore" installs no handler code.
    let _ = unsafe {
        nix::sys::signal::signal(
            nix::sys::signal::Signal::SIGPIPE,
            nix::sys::signal::SigHandler::SigIgn,
        )
    };
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
