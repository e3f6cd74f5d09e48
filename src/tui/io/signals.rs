//! SIGTERM and SIGHUP while the UI runs: the handler only writes the signal's number to a
//! socket (async-signal-safe); a thread reads it and tells the main loop, which leaves the
//! screen the normal way, so the user's terminal is restored on these exits too.
//!
//! A terminal can also go away without a SIGHUP reaching baton (it runs outside the
//! terminal's session, under `nohup`, behind a shell that traps HUP). crossterm's reader then
//! spins on the dead terminal at full CPU, forever (crossterm-rs/crossterm#793), so a thread
//! waits in poll(2) for the terminal to hang up (no reading, no timeout) and ends the UI as a
//! SIGHUP would.

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

use crate::error::BatonError;
use crate::tui::app::Msg;

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

/// Ends the UI (as [`Msg::Signal`] SIGHUP) once the terminal on stdin hangs up.
pub fn watch_hangup(tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        // No events asked for: poll still reports a hangup or an error, and nothing is read.
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::empty())];
        loop {
            match poll(&mut fds, PollTimeout::NONE) {
                Ok(_) => {
                    let gone = PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL;
                    if fds[0].revents().is_some_and(|r| r.intersects(gone)) {
                        let _ = tx.send(Msg::Signal(Signal::SIGHUP as i32));
                        return;
                    }
                }
                Err(nix::errno::Errno::EINTR) => {}
                Err(_) => return,
            }
        }
    });
}

/// The signal's name for the message the UI leaves.
pub fn name(sig: i32) -> String {
    Signal::try_from(sig).map_or_else(|_| format!("signal {sig}"), |s| s.as_str().to_string())
}
