//! Warm CLIs: a Claude process kept running after its turn, waiting on stdin for the next
//! message of the same session (`--input-format stream-json` takes one turn per line:
//! `fixtures/captures/steer`, `two-turns`), so the terminal's next prompt skips the CLI's cold
//! start. See ARCHITECTURE.md, "Warm CLIs".
//!
//! A process is handed back by `run::run_turn` only after a clean turn (completed, not
//! interrupted, every steer it was given absorbed, no subagent that could still print), and
//! taken again only by a turn whose command line is the one it was started with, resuming the
//! session it holds ([`WarmKey::fits`]): a rotation, a provider switch, a move, another model
//! or system text retires it and the turn starts cold. Retiring closes its stdin; an idle CLI
//! exits at once at EOF (rc 0). So does one whose server died: its stdin is the server's pipe.
//!
//! A `WarmCli` is owned by one place at a time and moves by value: a [`WarmSlot`] (a CLI
//! started ahead of its turn) or the [`WarmPool`], then the turn that takes it, then the pool
//! again, `closing`, or its reaping; one nobody takes is retired (ARCHITECTURE.md, "Who owns
//! a CLI").

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Notify;

use super::process::{self, Spawned};
use super::system_file::Written;
use super::warm_budget::{own_memory, to_retire, Bounds, Kept};
use super::{RunSpec, SessionMode};
use crate::words::ProviderKind;

/// How long a retired CLI gets to exit at EOF before it is terminated.
const RETIRE_GRACE: Duration = Duration::from_secs(10);

/// What a warm process was started with, and the session it holds now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmKey {
    pub provider: ProviderKind,
    pub session_id: String,
    /// The model it runs (asked for, else the one its session reported).
    pub model: Option<String>,
    bin: PathBuf,
    cwd: PathBuf,
    system_text: String,
    permission_mode: Option<String>,
    sandbox: Option<String>,
    add_dirs: Vec<PathBuf>,
    extra_args: Vec<String>,
    env: Vec<(String, String)>,
    path_var: Option<OsString>,
}

/// Why a turn cannot go to a warm process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misfit {
    /// The turn opens a session (fresh, a fork) rather than resuming one.
    NotResume,
    /// It resumes another session.
    OtherSession,
    /// Another model was asked for.
    OtherModel,
    /// Another working directory (the checkout moved).
    OtherDir,
    /// Another system text (a new conversation's).
    OtherSystemText,
    /// Another binary, permission mode, extra flags, folders or environment.
    OtherCommandLine,
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Misfit::NotResume => "the turn opens a session",
            Misfit::OtherSession => "the turn resumes another session",
            Misfit::OtherModel => "the turn asks for another model",
            Misfit::OtherDir => "the turn runs in another folder",
            Misfit::OtherSystemText => "the turn has another system text",
            Misfit::OtherCommandLine => "the turn has another command line",
        })
    }
}

impl WarmKey {
    /// The key of a process that ran `spec` (on PATH `path_var`) and now holds `session_id`,
    /// on `model` (the one reported when `spec` named none).
    pub fn of(
        spec: &RunSpec,
        path_var: Option<&std::ffi::OsStr>,
        session_id: String,
        model: Option<String>,
    ) -> WarmKey {
        WarmKey {
            provider: spec.provider,
            session_id,
            model: spec.model.clone().or(model),
            bin: spec.bin.clone(),
            cwd: spec.cwd.clone(),
            system_text: spec.system_text.clone(),
            permission_mode: spec.permission_mode.clone(),
            sandbox: spec.sandbox.clone(),
            add_dirs: spec.add_dirs.clone(),
            extra_args: spec.extra_args.clone(),
            env: spec.env.clone(),
            path_var: path_var.map(OsString::from),
        }
    }

    /// Whether a turn of `spec` can be the process's next message: it resumes this session
    /// with the very command line (the system text's file name aside: each run names its own).
    pub fn fits(&self, spec: &RunSpec, path_var: Option<&std::ffi::OsStr>) -> Result<(), Misfit> {
        let SessionMode::Resume { session_id } = &spec.session else {
            return Err(Misfit::NotResume);
        };
        if *session_id != self.session_id {
            return Err(Misfit::OtherSession);
        }
        if spec.model.is_some() && spec.model != self.model {
            return Err(Misfit::OtherModel);
        }
        if spec.cwd != self.cwd {
            return Err(Misfit::OtherDir);
        }
        if spec.system_text != self.system_text {
            return Err(Misfit::OtherSystemText);
        }
        let same = spec.provider == self.provider
            && spec.bin == self.bin
            && spec.permission_mode == self.permission_mode
            && spec.sandbox == self.sandbox
            && spec.add_dirs == self.add_dirs
            && spec.extra_args == self.extra_args
            && spec.env == self.env
            && path_var.map(OsString::from) == self.path_var;
        if !same {
            return Err(Misfit::OtherCommandLine);
        }
        Ok(())
    }
}

/// A CLI between turns, waiting for its next message.
pub struct WarmCli {
    pub pid: i32,
    pub(super) child: Spawned,
    /// Its stdin, a line at a time.
    pub(super) lines: UnboundedSender<String>,
    /// Notified to close its stdin.
    pub(super) close: Arc<Notify>,
    /// The system text file it was started with, kept while it runs.
    pub(super) system_file: Option<Written>,
    /// The running `total_cost_usd` of its last result.
    pub(super) total_usd: Option<f64>,
    pub key: WarmKey,
    /// Turns it ran.
    pub turns: u32,
    pub idle_since: Instant,
    /// JSON-RPC requests sent to it so far (a Codex app-server's ids count up from 1).
    pub(super) requests: u64,
    /// Tells this stay in the pool from a later one of the same terminal.
    serial: u64,
}

static SERIALS: AtomicU64 = AtomicU64::new(1);

impl WarmCli {
    pub(super) fn new(
        child: Spawned,
        lines: UnboundedSender<String>,
        close: Arc<Notify>,
        system_file: Option<Written>,
        total_usd: Option<f64>,
        key: WarmKey,
        turns: u32,
    ) -> WarmCli {
        WarmCli {
            pid: child.pid,
            child,
            lines,
            close,
            system_file,
            total_usd,
            key,
            turns,
            idle_since: Instant::now(),
            requests: 0,
            serial: SERIALS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The system text file it was started with, while it runs.
    pub fn system_file(&self) -> Option<&std::path::Path> {
        self.system_file.as_ref().map(Written::path)
    }

    /// The same process kept again after one more turn: idle from now on, a new stay in the
    /// pool.
    pub(super) fn rekept(self) -> WarmCli {
        WarmCli {
            turns: self.turns + 1,
            idle_since: Instant::now(),
            serial: SERIALS.fetch_add(1, Ordering::Relaxed),
            ..self
        }
    }

    /// Its process alone: its stdin closed, its system text file gone (read when the CLI
    /// started; gone now, whatever the CLI's exit takes).
    fn release(self) -> Spawned {
        let WarmCli {
            child,
            lines,
            close,
            system_file,
            ..
        } = self;
        drop(lines);
        close.notify_one();
        drop(system_file);
        child
    }

    /// How a CLI that closed its stdout mid-turn ended (reaped now; its files dropped).
    pub(super) async fn reap(self) -> std::io::Result<process::ExitInfo> {
        self.release().wait(|| false).await
    }

    /// Closes its stdin, so it exits, and reaps it in the background (terminated if it has
    /// not exited after a grace period). Needs a tokio runtime.
    pub fn retire(mut self) {
        // At once, not in the task: a server that stops may not run it.
        self.close.notify_one();
        drop(self.system_file.take());
        tokio::spawn(self.stop());
    }

    /// Closes its stdin and waits until it has exited (terminated if it has not after a grace
    /// period): a Codex thread takes one writer at a time, so a cold run of the thread its
    /// app-server holds must wait for this.
    pub async fn stop(self) {
        // An idle CLI prints nothing at EOF; whatever it does print is not a turn's.
        let _ = self
            .release()
            .close_out(RETIRE_GRACE, "a retired CLI", std::future::pending())
            .await;
    }

    /// Whether it still runs (an idle CLI killed by hand, or one that died, cannot take a turn).
    pub fn alive(&self) -> bool {
        !self.child.has_exited()
    }

    /// Its resident memory (VmRSS), when it can be read.
    pub fn memory_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }
}

/// A place for one CLI, such as a terminal's CLI started ahead of its next turn
/// (`server::turn::prestart`).
#[derive(Default)]
pub struct WarmSlot(Mutex<Option<WarmCli>>);

impl std::fmt::Debug for WarmSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pid = self.lock().as_ref().map(|c| c.pid);
        f.debug_tuple("WarmSlot").field(&pid).finish()
    }
}

impl WarmSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<WarmCli>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the CLI out.
    pub fn take(&self) -> Option<WarmCli> {
        self.lock().take()
    }

    /// Puts `cli` in; one that was there is retired.
    pub fn put(&self, cli: WarmCli) {
        if let Some(old) = self.lock().replace(cli) {
            old.retire();
        }
    }

    /// Retires the CLI there, if any. Needs a tokio runtime.
    pub fn retire(&self) {
        if let Some(cli) = self.take() {
            cli.retire();
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_none()
    }
}

/// The warm processes of a server, at most one per terminal.
#[derive(Default)]
pub struct WarmPool {
    procs: Mutex<HashMap<String, WarmCli>>,
    /// Per terminal, held while a warm process for it is being started (a Codex app-server
    /// resuming its thread after the turn ended): its next turn waits for it.
    starting: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// One warm process, as `server status` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmEntry {
    pub terminal_id: String,
    pub provider: ProviderKind,
    pub pid: i32,
    pub session_id: String,
    pub turns: u32,
    pub idle: Duration,
    pub memory_bytes: Option<u64>,
    /// Its own memory: the private pages of its process group (`warm_budget::own_memory`).
    pub own_bytes: Option<u64>,
}

impl WarmPool {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, WarmCli>> {
        self.procs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks a warm process for `tid` as being started until the guard is dropped (None: one
    /// is being started already).
    pub fn starting(&self, tid: &str) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        let gate = self
            .starting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(tid.to_string())
            .or_default()
            .clone();
        gate.try_lock_owned().ok()
    }

    /// Waits until no warm process for `tid` is being started.
    pub async fn settled(&self, tid: &str) {
        let gate = self
            .starting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(tid)
            .cloned();
        if let Some(gate) = gate {
            drop(gate.lock().await);
        }
    }

    /// Whether a warm process for `tid` is being started (or a kept one is on its way to the
    /// pool: `providers::claude_written`).
    pub fn is_starting(&self, tid: &str) -> bool {
        self.starting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(tid)
            .is_some_and(|gate| gate.try_lock().is_err())
    }

    /// Whether terminal `tid` has a warm process.
    pub fn holds(&self, tid: &str) -> bool {
        self.lock().contains_key(tid)
    }

    /// Takes terminal `tid`'s warm process out, if it has one.
    pub fn take(&self, tid: &str) -> Option<WarmCli> {
        self.lock().remove(tid)
    }

    /// Keeps `cli` as `tid`'s warm process, and returns what must be retired to stay within
    /// `bounds` (each provider's count, all providers' own memory: the longest idle first,
    /// `warm_budget::to_retire`) with its serial, to retire it once idle.
    pub fn put(&self, tid: &str, cli: WarmCli, bounds: &Bounds) -> (u64, Vec<WarmCli>) {
        let serial = cli.serial;
        // Measured before the pool is locked: a walk of /proc and each CLI's smaps_rollup take
        // milliseconds, and every turn's start takes the lock. A CLI put meanwhile counts as
        // 0 here and is measured at its own put.
        let mut pids: Vec<i32> = self.lock().values().map(|c| c.pid).collect();
        pids.push(cli.pid);
        let own = own_memory(&pids);
        let mut procs = self.lock();
        let mut out: Vec<WarmCli> = procs.insert(tid.to_string(), cli).into_iter().collect();
        let kept: Vec<Kept> = (procs.iter())
            .map(|(t, c)| Kept {
                terminal_id: t.clone(),
                provider: c.key.provider,
                idle_since: c.idle_since,
                own_bytes: own.get(&c.pid).copied().unwrap_or(0),
            })
            .collect();
        for t in to_retire(&kept, bounds) {
            out.extend(procs.remove(&t));
        }
        (serial, out)
    }

    /// Takes `tid`'s warm process out if it runs `provider`.
    pub fn take_of(&self, tid: &str, provider: ProviderKind) -> Option<WarmCli> {
        self.take_when(tid, |c| c.key.provider == provider)
    }

    /// Takes `tid`'s warm process out if it is still the stay `serial` (it has been idle
    /// since then).
    pub fn take_if(&self, tid: &str, serial: u64) -> Option<WarmCli> {
        self.take_when(tid, |c| c.serial == serial)
    }

    fn take_when(&self, tid: &str, wanted: impl Fn(&WarmCli) -> bool) -> Option<WarmCli> {
        let mut procs = self.lock();
        match procs.get(tid) {
            Some(c) if wanted(c) => procs.remove(tid),
            _ => None,
        }
    }

    /// Takes every warm process out (the server stops).
    pub fn drain(&self) -> Vec<WarmCli> {
        self.lock().drain().map(|(_, c)| c).collect()
    }

    /// The warm processes, by terminal id.
    pub fn list(&self) -> Vec<WarmEntry> {
        let procs = self.lock();
        let own = own_memory(&procs.values().map(|c| c.pid).collect::<Vec<_>>());
        let mut list: Vec<WarmEntry> = (procs.iter())
            .map(|(tid, c)| WarmEntry {
                terminal_id: tid.clone(),
                provider: c.key.provider,
                pid: c.pid,
                session_id: c.key.session_id.clone(),
                turns: c.turns,
                idle: c.idle_since.elapsed(),
                memory_bytes: c.memory_bytes(),
                own_bytes: own.get(&c.pid).copied(),
            })
            .collect();
        list.sort_by(|a, b| a.terminal_id.cmp(&b.terminal_id));
        list
    }
}

/// Which of `used` (terminal, idle since) must go so that at most `limit` stay: the longest
/// idle first.
pub fn evict(used: &[(String, Instant)], limit: usize) -> Vec<String> {
    if used.len() <= limit {
        return Vec::new();
    }
    let mut by_age: Vec<&(String, Instant)> = used.iter().collect();
    by_age.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    by_age
        .into_iter()
        .take(used.len() - limit)
        .map(|(t, _)| t.clone())
        .collect()
}

#[cfg(test)]
#[path = "warm_tests.rs"]
mod tests;
