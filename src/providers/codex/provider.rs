//! What baton does with Codex, as the [`Provider`] interface asks: `exec --json` runs (steered
//! only when warm, through its app-server), threads Codex names itself, rollouts under
//! `$CODEX_HOME/sessions/Y/M/D/`, forks copied through `codex app-server` once the new
//! checkout exists (one writer per thread), and its `workspace-write` sandbox as the write
//! fence, probed before it is trusted (`server::fence`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{app, rollout, CodexParser};
use crate::config::{Config, ProviderConfig};
use crate::providers::process::ExitInfo;
use crate::providers::provider::{
    Carrying, Provider, SessionCopy, SessionFiles, StreamParser, WriteFence,
};
use crate::providers::{ProviderError, ProviderHomes, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ProviderKind, TurnEvent};

/// The sandbox baton probes and fences the temporary folder of.
const WORKSPACE_WRITE: &str = "workspace-write";

/// How long a warm app-server waits for a turn by default. Not idle while it waits: its skills
/// watcher (no setting turns it off in 0.171) watches `/etc` and `$HOME` recursively, the
/// missing skill folders' nearest ancestors, and wakes at every program started on the machine
/// (its `ld.so.cache` opened) and every change under `$HOME` (docs/figures.md, "Idle").
pub const CODEX_WARM_IDLE_SECS: u64 = 120;

pub struct Codex;

impl Provider for Codex {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Codex
    }

    fn settings<'a>(&self, config: &'a Config) -> &'a ProviderConfig {
        &config.providers.codex
    }

    fn warm_idle(&self, config: &Config) -> std::time::Duration {
        let secs = self.settings(config).warm_idle_secs;
        std::time::Duration::from_secs(secs.unwrap_or(CODEX_WARM_IDLE_SECS))
    }

    fn sandbox(&self, config: &Config) -> Option<String> {
        config.sandbox()
    }

    /// `exec` cannot ask: a turn that may runs on an app-server (`providers::run`), a new
    /// thread's first one too (`thread/start`). A fork's thread is copied when it is made
    /// (`fork_now`), so its first turn resumes; `SessionMode::Fork` (`exec fork`) is left only
    /// to a Codex fork an older journal carried to its first run.
    fn asks_in_server(&self, spec: &RunSpec) -> bool {
        match spec.session {
            SessionMode::Resume { .. } | SessionMode::New { .. } => true,
            SessionMode::Fork { .. } => false,
        }
    }

    fn write_fence(&self, config: &Config) -> WriteFence {
        match config.sandbox() {
            Some(mode) if mode == WORKSPACE_WRITE => WriteFence::Probe { mode },
            Some(mode) => {
                WriteFence::Unchecked(format!("sandbox {mode} (as configured): nothing to probe"))
            }
            None => {
                WriteFence::Unchecked("no --sandbox (as configured): the CLI's own default".into())
            }
        }
    }

    /// Codex picks its thread's id; it is known once the CLI says it.
    fn new_session(&self) -> SessionMode {
        SessionMode::New { session_id: None }
    }

    fn session_on_disk(&self, homes: &ProviderHomes, _cwd: &Path, id: &str) -> bool {
        super::find_rollout(&homes.codex, id).is_some()
    }

    fn session_word(&self) -> &'static str {
        "thread"
    }

    fn steer_note(&self, handed: bool) -> String {
        if handed {
            "handed to the running codex turn: codex reads it before its next model call"
        } else {
            "codex exec cannot take input mid-turn: it runs next"
        }
        .to_string()
    }

    /// A cold `exec resume` of a thread an app-server holds fails ("active writer").
    fn one_writer(&self) -> bool {
        true
    }

    fn carrying(&self) -> Carrying {
        Carrying::Now
    }

    /// Through `codex app-server` (no model call): Codex keeps the original's developer
    /// message, so the new checkout's is added after the history.
    fn fork_now(&self, copy: &SessionCopy) -> Result<String, ProviderError> {
        app::fork_thread(&app::ForkRequest {
            bin: copy.bin,
            env: &[],
            cwd: copy.cwd,
            thread_id: copy.id,
            system_text: copy.system_text,
            model: copy.model,
            keep: copy
                .cut
                .map(|(later, prompt)| app::Keep::before_last(later, prompt)),
        })
    }

    fn fenced(&self, spec: &RunSpec) -> bool {
        spec.sandbox.as_deref() == Some(WORKSPACE_WRITE)
    }

    /// `workspace-write` also leaves `/tmp` and `$TMPDIR` writable unless told otherwise:
    /// exclude both and give commands `tmp` instead (a writable root, set as TMPDIR).
    fn fence_tmp(&self, spec: &mut RunSpec, tmp: &Path) {
        let mut args: Vec<String> = [
            "-c",
            "sandbox_workspace_write.exclude_slash_tmp=true",
            "-c",
            "sandbox_workspace_write.exclude_tmpdir_env_var=true",
        ]
        .map(String::from)
        .to_vec();
        args.append(&mut spec.extra_args);
        spec.extra_args = args;
        spec.add_dirs.push(tmp.to_path_buf());
        spec.env
            .push(("TMPDIR".to_string(), tmp.to_string_lossy().into_owned()));
    }

    /// Where it cannot start (no user namespaces), Codex still finishes turns with rc 0 while
    /// every command and edit failed (cli-captures README, "The fence").
    fn fence_probe(&self) -> &'static [&'static str] {
        &["sandbox", "--", "true"]
    }

    fn fence_broken(&self, why: &str) -> String {
        format!("Codex's sandbox cannot start on this machine ({why}): its commands and edits will fail inside it. baton does not fall back to running unfenced; set providers.codex.sandbox = \"danger-full-access\" in config.toml only if you accept that")
    }

    fn parser(&self, dir: Option<&Path>) -> Option<Box<dyn StreamParser>> {
        Some(Box::new(
            dir.map_or_else(CodexParser::new, CodexParser::in_dir),
        ))
    }

    fn oneshot_args(&self, model: Option<&str>) -> Option<Vec<OsString>> {
        let mut args: Vec<OsString> = [
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--ephemeral",
            "--sandbox",
            "read-only",
        ]
        .map(OsString::from)
        .to_vec();
        if let Some(m) = model {
            args.extend(["-m".into(), m.into()]);
        }
        Some(args)
    }

    fn session_files(&self) -> Option<&dyn SessionFiles> {
        Some(self)
    }
}

impl StreamParser for CodexParser {
    fn feed(&mut self, line: &str) -> Vec<TurnEvent> {
        CodexParser::feed(self, line)
    }

    fn finish(
        self: Box<Self>,
        exit: &ExitInfo,
        homes: &ProviderHomes,
        _cwd: &Path,
        resumed: Option<&str>,
    ) -> TurnOutcome {
        CodexParser::finish(*self, exit, homes, resumed)
    }
}

/// Codex's rollouts: `sessions/Y/M/D/rollout-*-<id>.jsonl`, placed under their own names; a
/// fork's rollout builds on its original's (`rollout::history_base`).
impl SessionFiles for Codex {
    fn home<'a>(&self, homes: &'a ProviderHomes) -> &'a Path {
        &homes.codex
    }

    fn searched(&self, homes: &ProviderHomes) -> PathBuf {
        homes.codex.join("sessions")
    }

    fn find(&self, homes: &ProviderHomes, _dir: &Path, id: &str) -> Option<PathBuf> {
        super::find_rollout(&homes.codex, id)
    }

    /// A rollout of this thread elsewhere on this machine is the one Codex finds.
    fn place(&self, homes: &ProviderHomes, _run_dir: &Path, id: &str, rel: &str) -> PathBuf {
        super::find_rollout(&homes.codex, id).unwrap_or_else(|| homes.codex.join(rel))
    }

    fn rewrite_system_text(&self, bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
        rollout::rewrite_developer(bytes, old, new)
    }

    fn history_base(&self, bytes: &[u8]) -> Option<String> {
        rollout::history_base(bytes)
    }

    fn builds_on_bases(&self) -> bool {
        true
    }
}
