//! The warden: a small child process (`baton server warden`) that interrupts the CLIs a
//! server started when that server is gone, however it went (`kill -9` included), so a CLI
//! never goes on writing its session unwatched. It reads `+PGID` / `-PGID` lines on stdin (the
//! server's CLI process groups as they start and end); the server's death closes that pipe, and
//! at EOF the warden sends SIGINT to every group still listed (as Claude and Codex take an
//! interrupt: they stop and save), then exits.
//!
//! Why a warden as well as `PR_SET_PDEATHSIG` in each child: the death signal reaches the CLI
//! only, while the warden reaches what a CLI started in its group (a tool's command). The death
//! signal is still set in every child (`process::spawn_with`), although it needs code between
//! fork and exec (a full `fork` of the server, ~1 ms more than `posix_spawn`): a server and
//! its warden killed together (`kill -9` of both) leave nobody else to interrupt the CLI.
//!
//! The server's side is process-wide ([`start`] once, [`guard`] from the spawning code), like
//! the signal dispositions it stands in for.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use nix::sys::signal::{killpg, signal, SigHandler, Signal};
use nix::unistd::Pid;

/// The server's warden, once started.
static WARDEN: OnceLock<Warden> = OnceLock::new();

/// The server's side of its warden process.
pub struct Warden {
    inner: Mutex<Inner>,
}

struct Inner {
    /// The baton binary (`baton server warden` is run from it).
    exe: PathBuf,
    child: Option<Child>,
    /// The groups the warden is told of: told again to a restarted warden.
    watched: BTreeSet<i32>,
}

/// Starts this server's warden (from the baton binary `exe`); later calls do nothing. A warden
/// that cannot start is logged, and CLIs then get the death signal instead.
pub fn start(exe: PathBuf) {
    let mut inner = Inner {
        exe,
        child: None,
        watched: BTreeSet::new(),
    };
    if let Err(e) = inner.spawn() {
        crate::log_line!(
            "baton server: cannot start its warden ({e}); CLIs get a death signal instead"
        );
    }
    let _ = WARDEN.set(Warden {
        inner: Mutex::new(inner),
    });
}

/// The warden, when one runs: a CLI spawned then needs no death signal of its own.
pub fn guard() -> Option<&'static Warden> {
    let w = WARDEN.get()?;
    let inner = w.inner.lock().unwrap_or_else(|p| p.into_inner());
    inner.child.is_some().then_some(w)
}

impl Warden {
    /// Tells the warden of process group `pgid` (a CLI just spawned into its own group). False
    /// when no warden could be told, even after a restart.
    pub fn watch(&self, pgid: i32) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.watched.insert(pgid);
        inner.tell(&format!("+{pgid}\n"))
    }

    /// The group's CLI has exited (and was reaped): the warden forgets it.
    pub fn release(&self, pgid: i32) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if inner.watched.remove(&pgid) {
            inner.tell(&format!("-{pgid}\n"));
        }
    }

    /// The warden's pid, when one runs (one that died is restarted at the next tell).
    pub fn pid(&self) -> Option<u32> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let child = inner.child.as_mut()?;
        matches!(child.try_wait(), Ok(None)).then(|| child.id())
    }
}

impl Inner {
    fn spawn(&mut self) -> std::io::Result<()> {
        let child = Command::new(&self.exe)
            .args(["server", "warden"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            // Out of the server's group: a Ctrl-c or a signal to the group leaves it running.
            .process_group(0)
            .spawn()?;
        self.child = Some(child);
        Ok(())
    }

    /// Writes `line` to the warden; a warden that died is restarted once (and told every
    /// group again).
    fn tell(&mut self, line: &str) -> bool {
        if self.write(line) {
            return true;
        }
        if let Some(mut dead) = self.child.take() {
            let _ = dead.kill();
            let _ = dead.wait();
        }
        crate::log_line!("baton server: its warden is gone; starting another");
        if let Err(e) = self.spawn() {
            crate::log_line!(
                "baton server: cannot restart its warden ({e}); CLIs get a death signal instead"
            );
            return false;
        }
        let all: String = self.watched.iter().map(|g| format!("+{g}\n")).collect();
        self.write(&all)
    }

    fn write(&mut self, text: &str) -> bool {
        let Some(stdin) = self.child.as_mut().and_then(|c| c.stdin.as_mut()) else {
            return false;
        };
        stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush())
            .is_ok()
    }
}

/// One line of the server: `+PGID` adds a group, `-PGID` removes it. Anything else, and any
/// group that is not a real one (0, 1 or below: `killpg` would reach far more), is ignored.
pub fn apply(line: &str, groups: &mut BTreeSet<i32>) {
    let line = line.trim();
    let (add, number) = match line.split_at_checked(1) {
        Some(("+", n)) => (true, n),
        Some(("-", n)) => (false, n),
        _ => return,
    };
    let Ok(pgid) = number.parse::<i32>() else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    if add {
        groups.insert(pgid);
    } else {
        groups.remove(&pgid);
    }
}

/// The groups still listed when `input` ends (or fails).
pub fn watch_until_eof(input: impl BufRead) -> BTreeSet<i32> {
    let mut groups = BTreeSet::new();
    for line in input.lines() {
        match line {
            Ok(line) => apply(&line, &mut groups),
            Err(_) => break,
        }
    }
    groups
}

/// `baton server warden`: watches until the server is gone, interrupts what is left, exits 0.
/// Signals meant for the server (SIGINT, SIGTERM, SIGHUP) do not end it: only the server's end
/// does, so it is there when it is needed.
pub fn serve() -> i32 {
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: setting a signal to be ignored runs no handler code.
        let _ = unsafe { signal(sig, SigHandler::SigIgn) };
    }
    let left = watch_until_eof(std::io::stdin().lock());
    for pgid in left {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGINT);
    }
    0
}

#[cfg(test)]
#[path = "warden_tests.rs"]
mod tests;
