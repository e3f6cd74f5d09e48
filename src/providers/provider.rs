//! The one interface every provider implements ([`Provider`]): what the server, the doctor and
//! the exports ask of a provider instead of matching on its kind. Each provider's answers live
//! in its own folder (`claude/provider.rs`, `codex/provider.rs`, `local/provider.rs`); adding
//! one is a folder, a variant and name in `words::KINDS`, and a line in [`super::of`]. See
//! ARCHITECTURE.md ("`src/providers/`").

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::process::ExitInfo;
use super::{ProviderError, ProviderHomes, RunSpec, SessionMode, TurnOutcome};
use crate::config::{Config, ProviderConfig, DEFAULT_WARM, DEFAULT_WARM_IDLE_SECS};
use crate::words::{ProviderKind, TurnEvent};

/// What baton does with a provider, grouped by concern. Object-safe: the server holds a
/// `&'static dyn Provider` ([`super::of`]).
///
/// How a provider asks the user to approve a tool call will be a method here too (issue 40,
/// the approvals inbox), next to [`Provider::steer_note`]: each provider's own way of asking.
pub trait Provider: Sync {
    fn kind(&self) -> ProviderKind;

    // ── Its settings (`[providers.<name>]`) ─────────────────────────────────────────────────

    /// Its section of baton's config (a provider that runs no CLI: all defaults).
    fn settings<'a>(&self, config: &'a Config) -> &'a ProviderConfig;

    /// The binary to run: configured, else its usual name.
    fn bin(&self, config: &Config) -> String {
        self.settings(config)
            .bin
            .clone()
            .unwrap_or_else(|| self.kind().as_str().to_string())
    }

    /// How many of its CLIs stay warm (`warm`).
    fn warm_limit(&self, config: &Config) -> usize {
        self.settings(config).warm.unwrap_or(DEFAULT_WARM)
    }

    /// How long a warm CLI of it waits for a turn (`warm_idle_secs`).
    fn warm_idle(&self, config: &Config) -> Duration {
        Duration::from_secs(
            self.settings(config)
                .warm_idle_secs
                .unwrap_or(DEFAULT_WARM_IDLE_SECS),
        )
    }

    /// The `--permission-mode` its runs pass (None: none).
    fn permission_mode(&self, _config: &Config) -> Option<String> {
        None
    }

    /// The flags that make its CLI ask (`server::approvals`) instead of refusing a call its
    /// permission mode or sandbox would refuse (none: it cannot ask in this mode).
    fn ask_args(&self) -> &'static [&'static str] {
        &[]
    }

    /// A turn of `spec` that may ask the approvals inbox runs in a process that takes steers
    /// and interrupt requests, warm or not (Codex: an app-server, which starts a new thread or
    /// resumes one; a fork is made by `exec`, which cannot ask).
    fn asks_in_server(&self, _spec: &RunSpec) -> bool {
        false
    }

    /// The `--sandbox` its runs pass (None: none).
    fn sandbox(&self, _config: &Config) -> Option<String> {
        None
    }

    /// What keeps its writes inside the checkout, as `baton doctor` reports it.
    fn write_fence(&self, config: &Config) -> WriteFence;

    // ── Sessions: opening, resuming, input while a turn runs ────────────────────────────────

    /// How a fresh session opens: with an id baton chose, or one the CLI picks.
    fn new_session(&self) -> SessionMode {
        SessionMode::New {
            session_id: Some(uuid::Uuid::new_v4().to_string()),
        }
    }

    /// Whether session `id`, last run in `cwd`, can still be resumed from disk.
    fn session_on_disk(&self, homes: &ProviderHomes, cwd: &Path, id: &str) -> bool;

    /// Whether a plain send may start its CLI as it arrives, before the input is journalled
    /// (`server::turn::prestart`).
    fn prestarts(&self) -> bool {
        false
    }

    /// Whether a cold run takes steers and interrupt requests on its stdin while it runs (a
    /// warm one always does).
    fn steers_cold(&self) -> bool {
        false
    }

    /// What the CLI calls a session, in what baton tells the user ("thread" for Codex).
    fn session_word(&self) -> &'static str {
        "session"
    }

    /// What baton says of a steer sent while a turn runs: `handed` to it, or run next.
    fn steer_note(&self, handed: bool) -> String;

    /// Whether its session takes one writer at a time: a warm process holding it is stopped
    /// (and waited for) before another process opens it, instead of being let go.
    fn one_writer(&self) -> bool {
        false
    }

    // ── Forks and rewinds ───────────────────────────────────────────────────────────────────

    /// How a conversation of it goes into another terminal.
    fn carrying(&self) -> Carrying;

    /// [`Carrying::AtFirstRun`]: where a copy of session `id` (run in `dir`), followed in it by
    /// `later_prompts` prompts after `prompt`, is cut to end just before `prompt`. The error
    /// says why it cannot be.
    fn cut_point(
        &self,
        _homes: &ProviderHomes,
        _dir: &Path,
        _id: &str,
        _later_prompts: usize,
        _prompt: &str,
    ) -> Result<String, String> {
        Err(format!("a {} session is not cut here", self.kind()))
    }

    /// [`Carrying::AtFirstRun`]: makes the session a fork run resumes findable from its cwd,
    /// with `kept_text` (the system text the session keeps) replaced by the run's. None when
    /// nothing was copied (or could be: the run then reports the session missing).
    fn prepare_fork(
        &self,
        _homes: &ProviderHomes,
        _spec: &RunSpec,
        _kept_text: Option<&str>,
    ) -> Option<ForkCopy> {
        None
    }

    /// [`Carrying::Now`]: copies a session into a new one that runs in `copy.cwd` (cut back
    /// when asked), without a model call. Returns the new session's id.
    fn fork_now(&self, copy: &SessionCopy) -> Result<String, ProviderError> {
        Err(ProviderError::Unsupported {
            provider: self.kind(),
            what: "forked",
            id: copy.id.to_string(),
        })
    }

    // ── Its runs' write fence ───────────────────────────────────────────────────────────────

    /// Whether run `spec` is confined by a sandbox of the CLI's own that baton probes (and
    /// gives a temporary folder inside the fence: [`Provider::fence_tmp`]).
    fn fenced(&self, _spec: &RunSpec) -> bool {
        false
    }

    /// Keeps a fenced run's temporary files in `tmp`, inside the fence.
    fn fence_tmp(&self, _spec: &mut RunSpec, _tmp: &Path) {}

    /// The arguments of a run of its binary that exits 0 when a fenced run's sandbox can start
    /// here (`server::fence::probe`).
    fn fence_probe(&self) -> &'static [&'static str] {
        &[]
    }

    /// What to tell the user of a fenced run whose sandbox cannot start here (`why`).
    fn fence_broken(&self, why: &str) -> String {
        format!(
            "{}'s sandbox cannot start on this machine ({why})",
            self.kind()
        )
    }

    // ── Its stream ──────────────────────────────────────────────────────────────────────────

    /// The parser of its raw stream, tool paths relative to `dir` (None: an imported turn's,
    /// whose directory is not at hand). None: its raw stream holds no events (a local turn's
    /// messages are journalled).
    fn parser(&self, dir: Option<&Path>) -> Option<Box<dyn StreamParser>>;

    /// The arguments of a one-shot run that keeps no session (the model extractor's), with
    /// `model` pinned. None: it has no such run.
    fn oneshot_args(&self, model: Option<&str>) -> Option<Vec<OsString>>;

    // ── Its session files (exports and imports) ────────────────────────────────────────────

    /// Where its sessions live on disk; None: it keeps none (its history is journalled).
    fn session_files(&self) -> Option<&dyn SessionFiles>;
}

/// How a provider's conversation goes into another terminal (a fork, a rewind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrying {
    /// The new terminal's first run resumes a copy of the session (`SessionMode::Fork`), cut
    /// where a rewind asks ([`Provider::cut_point`]).
    AtFirstRun,
    /// The session is copied (and cut) now, once the new checkout exists, by a process of the
    /// CLI's own ([`Provider::fork_now`]); the first run resumes the copy.
    Now,
    /// Its history is baton's own: the journalled turns are copied.
    History,
}

/// What `baton doctor` says keeps a provider's writes inside the checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteFence {
    /// The CLI's own sandbox, `mode`, which only a probe shows works here.
    Probe { mode: String },
    /// Nothing to probe: why.
    Unchecked(String),
}

/// A session to copy into a new one now ([`Carrying::Now`]).
#[derive(Debug, Clone, Copy)]
pub struct SessionCopy<'a> {
    pub bin: &'a Path,
    /// The NEW checkout: the copy runs there.
    pub cwd: &'a Path,
    /// The session copied.
    pub id: &'a str,
    /// Baton's system text for the new checkout.
    pub system_text: &'a str,
    pub model: Option<&'a str>,
    /// Cut back to before the turn that read this prompt, which `.0` turns followed (None:
    /// keep every turn).
    pub cut: Option<(usize, &'a str)>,
}

/// What [`Provider::prepare_fork`] did: the copy of a session it placed for one run, if any.
/// Remove it once the run's CLI has exited ([`ForkCopy::remove`]): a copy left behind goes
/// stale.
#[derive(Debug, PartialEq, Eq)]
#[must_use = "remove the copy once the fork's CLI has exited"]
pub struct ForkCopy {
    path: Option<PathBuf>,
}

impl ForkCopy {
    pub(crate) fn placed(path: Option<PathBuf>) -> ForkCopy {
        ForkCopy { path }
    }

    /// The copy, `None` when the session was findable as it was.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Deletes the copy (nothing when there is none or it is gone already).
    pub fn remove(self) -> io::Result<()> {
        match self.path {
            Some(path) => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
            None => Ok(()),
        }
    }
}

/// A provider's raw stream read back into events (steps, recovery, one-shot runs).
pub trait StreamParser: Send {
    fn feed(&mut self, line: &str) -> Vec<TurnEvent>;

    /// What the stream said of the run, once its CLI exited with `exit`; `cwd` is where it ran,
    /// `resumed` the session it was asked to resume.
    fn finish(
        self: Box<Self>,
        exit: &ExitInfo,
        homes: &ProviderHomes,
        cwd: &Path,
        resumed: Option<&str>,
    ) -> TurnOutcome;
}

/// Where a provider's session files live, and how an export carries them.
pub trait SessionFiles: Sync {
    /// The folder its files are named relative to in an archive.
    fn home<'a>(&self, homes: &'a ProviderHomes) -> &'a Path;

    /// Where it looks for sessions (what a missing one's note names).
    fn searched(&self, homes: &ProviderHomes) -> PathBuf;

    /// The file of session `id`, last run in `dir`, if it is on disk.
    fn find(&self, homes: &ProviderHomes, dir: &Path, id: &str) -> Option<PathBuf>;

    /// Where an imported session `id` goes for runs in `run_dir`; `rel` is its path under
    /// [`SessionFiles::home`] on the machine it came from.
    fn place(&self, homes: &ProviderHomes, run_dir: &Path, id: &str, rel: &str) -> PathBuf;

    /// The copy of `bytes` that tells the model `new` where it told `old`.
    fn rewrite_system_text(&self, bytes: &[u8], old: &str, new: &str) -> Vec<u8>;

    /// The session a fork's file builds on (read from it, not copied into it), if any.
    fn history_base(&self, _bytes: &[u8]) -> Option<String> {
        None
    }

    /// Whether a fork's file builds on its original's ([`SessionFiles::history_base`]), so a
    /// shorter copy of the original already here was put there by an earlier fork's import.
    fn builds_on_bases(&self) -> bool {
        false
    }
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
