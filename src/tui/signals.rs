//! SIGTERM and SIGHUP while the UI runs: the handler only writes the signal's number to a
//! socket (async-signal-safe); a thread reads it and tells the main loop, which leaves the
//! screen the normal way, so the user's terminal is restored on these exits too.

use std::io::Read;
use std::os::fd::{BorrowedFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

use super::app::Msg;
use crate::error::BatonError;

/// The write end the handler writes to (-1: none yet). Kept open for the process's life.
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

/// The signals that end the UI cleanly.
pub const HANDLED: [Signal; 2] = [Signal::SIGTERM, Signal::SIGHUP];

extern "C" fn on_signal(sig: i32) {
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    // SAFETY: `fd` is the write end stored below and never closed; write(2) is
    // async-signal-safe, and the socket is non-blocking so the handler never waits.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    let _ = nix::unistd::write(fd, &[sig as u8]);
}

/// Installs the handlers; each signal then arrives as [`Msg::Signal`].
pub fn spawn(tx: Sender<Msg>) -> Result<(), BatonError> {
    let fail = |e: std::io::Error| BatonError::failed(format!("cannot watch for signals: {e}"));
    let (mut read, write) = UnixStream::pair().map_err(fail)?;
    write.set_nonblocking(true).map_err(fail)?;
    let old = WAKE_FD.swap(write.into_raw_fd(), Ordering::SeqCst);
    if old >= 0 {
        // An earlier UI in this process: its write end is no longer needed.
        let _ = nix::unistd::close(old);
    }
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for sig in HANDLED {
        // SAFETY: the handler only loads an atomic and calls write(2).
        unsafe { sigaction(sig, &action) }.map_err(|e| fail(std::io::Error::from(e)))?;
    }
    std::thread::spawn(move || {
        let mut b = [0u8];
        while read.read_exact(&mut b).is_ok() {
            if tx.send(Msg::Signal(i32::from(b[0]))).is_err() {
                return;
            }
        }
    });
    Ok(())
}

/// The signal's name for the message the UI leaves.
pub fn name(sig: i32) -> String {
    Signal::try_from(sig).map_or_else(|_| format!("signal {sig}"), |s| s.as_str().to_string())
}
