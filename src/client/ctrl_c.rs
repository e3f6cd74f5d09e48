//! Ctrl-c during a foreground `baton send` (or `baton watch`), as `claude -p` users expect:
//! the first one interrupts the running turn (the server's `interrupt` request; the command
//! then prints the interrupted summary and exits 130), a second one leaves the turn to the
//! server and exits 130 at once, saying how to follow or stop it. Before the turn started (it
//! waits behind another prompt's turn) Ctrl-c interrupts nothing, since the turn running is not
//! this prompt's: the input stays queued and the line says how to withdraw it.
//!
//! The handler only writes a byte to a socket (the self-pipe trick), so all the work happens
//! outside signal context: the command waits for its connection's replies in poll(2) on that
//! socket too ([`wait_readable`]), and acts on each press there, on its own thread. No thread
//! of its own: one blocked in a read costs a `send` ~1 ms more at its exit on this 2-core
//! machine (ARCHITECTURE.md, `src/client/`). A blocked signal mask would be
//! inherited by the server this command may start, and by its CLIs: so SIGINT is handled,
//! never blocked.

use std::cell::RefCell;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

use super::{out, Client};
use crate::protocol::Request;

/// The exit code of a command ended by Ctrl-c (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

static STARTED: AtomicBool = AtomicBool::new(false);
static PRESSED: AtomicU32 = AtomicU32::new(0);
/// The write end the handler writes to (-1: none yet). Kept open for the process's life.
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_sigint(_: i32) {
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    // SAFETY: `fd` is the write end stored by `install` and never closed; write(2) is
    // async-signal-safe, and the socket is non-blocking so the handler never waits.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    let _ = nix::unistd::write(fd, &[1]);
}

/// What a press of Ctrl-c does, given how many came before it and whether the turn started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Press {
    /// Ask the server to interrupt the turn; the command waits for its summary.
    Interrupt,
    /// Exit now; the turn (or the waiting input) goes on in the server.
    Leave,
    /// Exit now; the input still waits in the queue.
    LeaveQueued,
}

/// [`Press`] for the `count`-th press (1-based). Pure.
pub fn judge(count: u32, started: bool) -> Press {
    match (count, started) {
        (_, false) => Press::LeaveQueued,
        (1, true) => Press::Interrupt,
        (_, true) => Press::Leave,
    }
}

/// What a press acts on, once [`install`] took Ctrl-c over.
struct Presses {
    /// The read end of the handler's socket (non-blocking).
    read: UnixStream,
    client: Client,
    /// The terminal's name on its server, and as shown.
    bare: String,
    name: String,
    watch_only: bool,
}

thread_local! {
    /// Taken out while a press is acted on, so the interrupt request it makes reads its reply
    /// without acting on presses again.
    static PRESSES: RefCell<Option<Presses>> = const { RefCell::new(None) };
}

/// Takes Ctrl-c over for the rest of this process, for terminal `name`, on this thread (the
/// one that then waits for replies). `watch_only`: the command did not send the prompt
/// (`baton watch`), so Ctrl-c stops watching and leaves the turn alone.
pub fn install(client: &Client, name: &str, watch_only: bool) {
    let Ok((read, write)) = UnixStream::pair() else {
        return;
    };
    if write.set_nonblocking(true).is_err() || read.set_nonblocking(true).is_err() {
        return;
    }
    WAKE_FD.store(write.into_raw_fd(), Ordering::SeqCst);
    let action = SigAction::new(
        SigHandler::Handler(on_sigint),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    // SAFETY: the handler only loads an atomic and calls write(2).
    if unsafe { sigaction(Signal::SIGINT, &action) }.is_err() {
        return;
    }
    let bare = name.to_string();
    let presses = Presses {
        read,
        name: client.shown_name(&bare),
        client: client.clone(),
        bare,
        watch_only,
    };
    PRESSES.with(|p| *p.borrow_mut() = Some(presses));
}

/// Waits until `fd`, a connection this command reads its replies from, has something to read
/// (or ended), acting on every Ctrl-c pressed before that. Returns at once when Ctrl-c is not
/// taken over on this thread, or while a press is acted on.
pub fn wait_readable(fd: BorrowedFd<'_>) {
    loop {
        let Some(presses) = PRESSES.with(|p| p.borrow_mut().take()) else {
            return;
        };
        let pressed = wait_either(fd, &presses);
        if pressed {
            presses.act();
        }
        PRESSES.with(|p| *p.borrow_mut() = Some(presses));
        if !pressed {
            return;
        }
    }
}

/// Waits until `fd` can be read or ended (false), or Ctrl-c was pressed (true: that press
/// taken from the socket).
fn wait_either(fd: BorrowedFd<'_>, presses: &Presses) -> bool {
    let mut fds = [
        PollFd::new(fd, PollFlags::POLLIN),
        PollFd::new(presses.read.as_fd(), PollFlags::POLLIN),
    ];
    loop {
        match poll(&mut fds, PollTimeout::NONE) {
            Err(nix::errno::Errno::EINTR) => continue,
            // Nothing to wait with: the read itself waits.
            Err(_) => return false,
            Ok(_) => {}
        }
        if fds[1].revents().is_some_and(|r| !r.is_empty()) {
            let mut b = [0u8];
            match (&presses.read).read(&mut b) {
                Ok(1) => return true,
                // Woken by nothing to read: asked again.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                // The socket itself failed (never seen): not waited on again, the read waits.
                _ => return false,
            }
        }
        if fds[0].revents().is_some_and(|r| !r.is_empty()) {
            return false;
        }
    }
}

impl Presses {
    /// Acts on one press of Ctrl-c.
    fn act(&self) {
        let name = &self.name;
        let count = PRESSED.fetch_add(1, Ordering::SeqCst) + 1;
        let started = STARTED.load(Ordering::SeqCst);
        match judge(count, started && !self.watch_only) {
            Press::Interrupt => {
                out::side(&format!(
                    "baton: interrupting {name}'s turn (Ctrl-c again leaves it running and exits)"
                ));
                let _ = self.client.call(&Request::Interrupt {
                    name: self.bare.clone(),
                });
            }
            Press::Leave => {
                out::side(&format!(
                    "baton: {name}'s turn goes on in the server: `baton watch {name}` follows it, `baton interrupt {name}` stops it"
                ));
                std::process::exit(EXIT_INTERRUPTED);
            }
            Press::LeaveQueued if self.watch_only => std::process::exit(EXIT_INTERRUPTED),
            Press::LeaveQueued => {
                out::side(&format!(
                    "baton: the prompt still waits in {name}'s queue: `baton queue {name}` shows it, `baton queue {name} rm N` withdraws it"
                ));
                std::process::exit(EXIT_INTERRUPTED);
            }
        }
    }
}

/// Tells the handler the turn started (Ctrl-c now interrupts it).
pub fn started() {
    STARTED.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-c was pressed during this command.
pub fn pressed() -> bool {
    PRESSED.load(Ordering::SeqCst) > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_press_interrupts_a_started_turn_and_the_second_leaves() {
        let rows = [
            (1, true, Press::Interrupt),
            (2, true, Press::Leave),
            (3, true, Press::Leave),
            (1, false, Press::LeaveQueued),
            (2, false, Press::LeaveQueued),
        ];
        for (count, started, want) in rows {
            assert_eq!(judge(count, started), want, "{count} {started}");
        }
    }
}
