//! One provider turn from start to end: resolve the CLI, launch it with the prompt on stdin,
//! stream its raw lines and normalized events to the caller, and fold them into an outcome.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::claude::{self, ClaudeParser};
use super::codex::{self, CodexParser};
use super::process::{self, ExitInfo};
use super::system_file;
use super::{ProviderError, ProviderHomes, RunMsg, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ProviderKind, TurnEvent};

/// The parser of the provider a turn runs on.
enum Parser {
    Claude(ClaudeParser),
    Codex(CodexParser),
}

impl Parser {
    fn feed(&mut self, line: &str) -> Vec<TurnEvent> {
        match self {
            Parser::Claude(p) => p.feed(line),
            Parser::Codex(p) => p.feed(line),
        }
    }

    fn finish(self, exit: &ExitInfo, homes: &ProviderHomes, spec: &RunSpec) -> TurnOutcome {
        match self {
            Parser::Claude(p) => p.finish(exit, homes, &spec.cwd),
            Parser::Codex(p) => {
                let expected = match &spec.session {
                    SessionMode::Resume { session_id } => Some(session_id.as_str()),
                    SessionMode::New { .. } | SessionMode::Fork { .. } => None,
                };
                p.finish(exit, homes, expected)
            }
        }
    }
}

/// What reaches a running CLI besides its prompt.
#[derive(Default)]
pub struct Channels {
    /// Steers for a Claude turn, each a stream-json line it reads while it runs.
    pub steer: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
    /// The prompt's gate (see [`process::Stdin::Gated`]).
    pub go: Option<tokio::sync::oneshot::Receiver<()>>,
}

/// Runs one turn of `spec` with `prompt` on stdin. Sends [`RunMsg::Started`] with the pid (the
/// caller interrupts by that pid with [`process::interrupt`], after setting `interrupted`), then
/// every stdout line as [`RunMsg::Raw`] followed by its [`RunMsg::Event`]s. `path_var` is the
/// PATH the binary is looked up in and the child gets (None: baton's own). With a gate
/// (`channels.go`), the CLI starts at once but reads its prompt only when it is opened.
///
/// A receiver that went away does not stop the turn: stdout is drained to the end regardless,
/// since a CLI whose stdout closes dies mid-turn.
pub async fn run_turn(
    spec: &RunSpec,
    prompt: &[u8],
    homes: &ProviderHomes,
    path_var: Option<&OsStr>,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    channels: Channels,
) -> Result<TurnOutcome, ProviderError> {
    let Channels { steer, go } = channels;
    let provider = spec.provider;
    let bin = process::find_bin(&spec.bin, path_var).ok_or_else(|| ProviderError::NotFound {
        provider,
        bin: spec.bin.display().to_string(),
        hint: provider.install_hint(),
    })?;
    let (args, mut parser) = match provider {
        ProviderKind::Claude => (
            claude::args(spec),
            Parser::Claude(ClaudeParser::in_dir(&spec.cwd)),
        ),
        ProviderKind::Codex => (
            codex::args(spec),
            Parser::Codex(CodexParser::in_dir(&spec.cwd)),
        ),
        ProviderKind::Local => {
            return Err(ProviderError::Io {
                provider,
                source: std::io::Error::other(
                    "a local endpoint runs no CLI (see providers::local)",
                ),
            })
        }
    };
    // Claude takes its prompt as a stream-json line and keeps reading stdin: steers join the
    // running turn, and stdin closes at the turn's result (so the CLI exits).
    let close = Arc::new(tokio::sync::Notify::new());
    let stdin = match provider {
        ProviderKind::Claude => process::Stdin::Open {
            first: claude::user_line(&String::from_utf8_lossy(prompt)).into_bytes(),
            more: steer.unwrap_or_else(|| tokio::sync::mpsc::unbounded_channel().1),
            close: close.clone(),
        },
        ProviderKind::Codex | ProviderKind::Local => process::Stdin::Once(prompt.to_vec()),
    };
    let stdin = match go {
        Some(go) => process::Stdin::Gated {
            go,
            then: Box::new(stdin),
        },
        None => stdin,
    };
    // Kept until the CLI has exited, then removed.
    let _system_file = system_file(spec, homes)?;
    let mut child = spawn(provider, &bin, &args, spec, path_var, stdin)?;
    // Send errors only mean the receiver is gone; the turn carries on.
    crate::log::phase("cli-spawned");
    let _ = tx.send(RunMsg::Started { pid: child.pid }).await;
    let mut replays = 0usize;
    let mut first = true;
    loop {
        let line = match child.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(source) => return Err(ProviderError::Io { provider, source }),
        };
        if std::mem::take(&mut first) {
            crate::log::phase("cli-first-line");
        }
        let events = parser.feed(&line);
        let replay = provider == ProviderKind::Claude && claude::is_replay(&line);
        let _ = tx.send(RunMsg::Raw(line)).await;
        if replay {
            // The first echo is the prompt; each later one a steer it took in.
            if replays > 0 {
                let _ = tx.send(RunMsg::SteerRead { index: replays - 1 }).await;
            }
            replays += 1;
        }
        for event in events {
            if matches!(event, crate::words::TurnEvent::End { .. }) {
                crate::log::phase("cli-result");
                close.notify_one();
            }
            let _ = tx.send(RunMsg::Event(event)).await;
        }
    }
    let exit = child
        .wait(|| interrupted.load(Ordering::SeqCst))
        .await
        .map_err(|source| ProviderError::Io { provider, source })?;
    crate::log::phase("cli-exited");
    let spec = spec.clone();
    let homes = homes.clone();
    // Finishing reads session files that can be megabytes: keep it off the async workers.
    tokio::task::spawn_blocking(move || {
        let outcome = parser.finish(&exit, &homes, &spec);
        crate::log::phase("outcome-read");
        outcome
    })
    .await
    .map_err(|e| ProviderError::Io {
        provider,
        source: std::io::Error::other(format!("reading the turn's outcome failed: {e}")),
    })
}

/// The run's system text written where only the owner reads it, right before the run.
fn system_file(
    spec: &RunSpec,
    homes: &ProviderHomes,
) -> Result<Option<system_file::Written>, ProviderError> {
    if spec.provider == ProviderKind::Codex {
        if let Some(name) = system_file::user_profile(&spec.extra_args) {
            return Err(ProviderError::ProfileClash {
                name: name.to_string(),
            });
        }
    }
    system_file::write(spec, homes).map_err(|source| ProviderError::SystemFile {
        provider: spec.provider,
        path: system_file::planned(spec, homes)
            .map(|(p, _)| p.display().to_string())
            .unwrap_or_default(),
        source,
    })
}

fn spawn(
    provider: ProviderKind,
    bin: &Path,
    args: &[std::ffi::OsString],
    spec: &RunSpec,
    path_var: Option<&OsStr>,
    stdin: process::Stdin,
) -> Result<process::Spawned, ProviderError> {
    process::spawn_with(bin, args, &spec.cwd, path_var, &spec.env, stdin).map_err(|source| {
        let detail = if spec.cwd.is_dir() {
            source
        } else {
            std::io::Error::new(
                source.kind(),
                format!(
                    "working directory {} is missing ({source})",
                    spec.cwd.display()
                ),
            )
        };
        ProviderError::Spawn {
            provider,
            bin: bin.display().to_string(),
            source: detail,
        }
    })
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
