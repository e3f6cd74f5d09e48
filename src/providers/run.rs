//! One provider turn from start to end: resolve the CLI, launch it with the prompt on stdin,
//! stream its raw lines and normalized events to the caller, and fold them into an outcome.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::claude::ClaudeParser;
use super::closing::Closing;
use super::codex::{self, CodexParser};
use super::codex_warm;
use super::process::{self, ExitInfo};
use super::system_file;
use super::warm::{WarmCli, WarmKey};
use super::{ProviderError, ProviderHomes, RunMsg, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ProviderKind, TurnEvent, TurnStatus};

#[path = "run_claude_machine.rs"]
mod claude_machine;
#[path = "run_claude.rs"]
mod claude_run;
use claude_run::{claude_turn, start_claude};
#[path = "run_inputs.rs"]
pub(super) mod inputs;
#[cfg(test)]
use claude_machine::TurnEnd;

/// The parser of the provider a turn runs on.
pub(super) enum Parser {
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
    /// Steers for the running turn (Claude, a warm Codex), each a text that joins it.
    pub steer: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
    /// The prompt's gate (see [`process::Stdin::Gated`]).
    pub go: Option<tokio::sync::oneshot::Receiver<()>>,
    /// A warm Claude process to run the turn in instead of starting one (the caller checked
    /// that it fits: [`WarmKey::fits`]).
    pub warm: Option<WarmCli>,
    /// Where a Claude process is handed back after a clean turn to stay warm; None: it exits
    /// at the turn's end, as without warming.
    pub keep: Option<tokio::sync::oneshot::Sender<WarmCli>>,
    /// Each message asks a Claude turn to stop: its interrupt request on stdin, then SIGINT
    /// if the turn has not ended [`INTERRUPT_GRACE`] later.
    pub interrupt: Option<tokio::sync::mpsc::UnboundedReceiver<()>>,
    /// Where a CLI not kept warm is handed after a clean turn, its stdin closed (Claude), or
    /// closed already (`codex exec`): the turn ends at its result (Codex: `turn.completed`),
    /// and the caller waits for the CLI's exit ([`Closing::wait`]). None: the turn ends once
    /// the CLI has exited.
    pub closing: Option<tokio::sync::oneshot::Sender<Closing>>,
    /// The turn may ask the approvals inbox (`[approvals] ask` is not `never`): a Codex turn
    /// then runs on an app-server with an approval policy that asks (`exec` cannot ask).
    pub ask: bool,
}

/// How long a Claude CLI asked to interrupt may take to end its turn before it gets SIGINT.
pub const INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

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
    match spec.provider {
        ProviderKind::Claude => {
            claude_turn(spec, prompt, homes, path_var, tx, interrupted, channels).await
        }
        ProviderKind::Codex => {
            codex_run(spec, prompt, homes, path_var, tx, interrupted, channels).await
        }
        ProviderKind::Local => Err(ProviderError::Io {
            provider: spec.provider,
            source: std::io::Error::other("a local endpoint runs no CLI (see providers::local)"),
        }),
    }
}

/// A Codex turn: in the warm app-server it was given; in an app-server started for it when it
/// may ask the inbox (`exec` cannot ask) and is not a fork; else a cold `codex exec`.
async fn codex_run(
    spec: &RunSpec,
    prompt: &[u8],
    homes: &ProviderHomes,
    path_var: Option<&OsStr>,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    channels: Channels,
) -> Result<TurnOutcome, ProviderError> {
    let Channels {
        steer,
        go,
        warm,
        keep,
        interrupt,
        closing,
        ask,
    } = channels;
    let warm = match warm {
        Some(cli) => Some(cli),
        None if ask => asking_app_server(spec, path_var, &tx).await,
        None => None,
    };
    let Some(cli) = warm else {
        // Its steers and interrupts go by the queue and SIGINT, as any cold `exec`'s.
        drop((steer, interrupt));
        let cold = ColdCodex { go, keep, closing };
        return cold
            .run(spec, prompt, homes, path_var, tx, interrupted)
            .await;
    };
    let channels = codex_warm::AppChannels {
        go,
        steer,
        interrupt,
        keep,
        ask,
    };
    let ran = codex_warm::app_turn(
        spec,
        prompt,
        homes,
        tx.clone(),
        interrupted.clone(),
        channels,
        cli,
    )
    .await?;
    match ran {
        codex_warm::AppTurn::Ran(outcome) => Ok(outcome),
        // Nothing of the turn happened: it runs cold (its start is journalled, so no gate;
        // an interrupt now signals the cold CLI's pid), answered at its `turn.completed` as
        // any cold turn.
        codex_warm::AppTurn::Refused { why, keep } => {
            let note = format!(
                "the warm codex app-server could not take the turn ({why}): it ran as a cold codex exec"
            );
            let _ = tx.send(RunMsg::Note(note)).await;
            let cold = ColdCodex {
                go: None,
                keep,
                closing,
            };
            cold.run(spec, prompt, homes, path_var, tx, interrupted)
                .await
        }
    }
}

/// An app-server started for a turn that may ask: its thread resumed, or a new thread started
/// with the run's system text (`thread/start`'s `developerInstructions`, which the model reads
/// as it reads `exec`'s profile). None for a fork (made by `exec fork`), or, with a note, when
/// it cannot be: the turn runs on `exec`, which refuses what it would have asked.
async fn asking_app_server(
    spec: &RunSpec,
    path_var: Option<&OsStr>,
    tx: &Sender<RunMsg>,
) -> Option<WarmCli> {
    let open = match &spec.session {
        SessionMode::Resume { session_id } => codex_warm::Open::Resume(session_id),
        SessionMode::New { .. } => codex_warm::Open::Start,
        SessionMode::Fork { .. } => return None,
    };
    match codex_warm::prepare(spec, path_var, open, spec.model.clone()).await {
        Ok(cli) => Some(cli),
        Err(why) => {
            let note = format!(
                "codex app-server could not start ({why}): the turn ran as codex exec, which cannot ask for approvals"
            );
            let _ = tx.send(RunMsg::Note(note)).await;
            None
        }
    }
}

/// A cold Codex turn (`codex exec`): its prompt's gate, where an app-server goes that is
/// started for the thread after a clean turn, and where the CLI goes after a clean turn (the
/// turn ends at its `turn.completed`).
struct ColdCodex {
    go: Option<tokio::sync::oneshot::Receiver<()>>,
    keep: Option<tokio::sync::oneshot::Sender<WarmCli>>,
    closing: Option<tokio::sync::oneshot::Sender<Closing>>,
}

impl ColdCodex {
    async fn run(
        self,
        spec: &RunSpec,
        prompt: &[u8],
        homes: &ProviderHomes,
        path_var: Option<&OsStr>,
        tx: Sender<RunMsg>,
        interrupted: Arc<AtomicBool>,
    ) -> Result<TurnOutcome, ProviderError> {
        // The app-server a kept thread gets starts once this CLI has exited: a thread takes
        // one writer at a time, and a terminal never has two CLIs.
        let (exited, on_exit) = tokio::sync::oneshot::channel();
        let ends = ExecEnds {
            go: self.go,
            closing: self.closing,
            exited,
        };
        let outcome = codex_turn(spec, prompt, homes, path_var, tx, interrupted, ends).await;
        if let (Ok(outcome), Some(keep)) = (&outcome, self.keep) {
            warm_codex_after(spec, path_var, outcome, keep, on_exit);
        }
        outcome
    }
}

/// After a clean cold Codex turn: an app-server resuming its thread, started in the
/// background once the turn's CLI has exited (`on_exit`) and handed to `keep` once ready
/// (dropped if it cannot be: the next turn runs cold).
fn warm_codex_after(
    spec: &RunSpec,
    path_var: Option<&OsStr>,
    outcome: &TurnOutcome,
    keep: tokio::sync::oneshot::Sender<WarmCli>,
    on_exit: tokio::sync::oneshot::Receiver<()>,
) {
    let clean = outcome.status == Some(TurnStatus::Completed);
    let Some(thread) = outcome.session_id.clone().filter(|_| clean) else {
        return;
    };
    let (spec, path_var) = (spec.clone(), path_var.map(std::ffi::OsString::from));
    let model = outcome.model.clone();
    tokio::spawn(async move {
        // Told, or dropped once the CLI exited before its turn's end was reported.
        let _ = on_exit.await;
        let open = codex_warm::Open::Resume(&thread);
        match codex_warm::prepare(&spec, path_var.as_deref(), open, model).await {
            Ok(cli) => {
                if let Err(cli) = keep.send(cli) {
                    cli.retire();
                }
            }
            Err(why) => crate::log_line!(
                "baton server: codex thread {thread} stays cold: its app-server could not start ({why})"
            ),
        }
    });
}

fn find(spec: &RunSpec, path_var: Option<&OsStr>) -> Result<std::path::PathBuf, ProviderError> {
    let provider = spec.provider;
    process::find_bin(&spec.bin, path_var).ok_or_else(|| ProviderError::NotFound {
        provider,
        bin: spec.bin.display().to_string(),
        hint: provider.install_hint(),
    })
}

/// When a `codex exec` turn reads its prompt, where its CLI goes if the turn ends before the
/// CLI exits, and what is told once it has exited (dropped: it had exited by the turn's end).
struct ExecEnds {
    go: Option<tokio::sync::oneshot::Receiver<()>>,
    closing: Option<tokio::sync::oneshot::Sender<Closing>>,
    exited: tokio::sync::oneshot::Sender<()>,
}

/// A Codex turn: the prompt on stdin (once the gate opens), then EOF. With `closing`, a turn
/// that completed (not interrupted) ends at its `turn.completed`: the real `codex exec` has
/// written its rollout's last rows by then (checked on 0.171.0), and takes 60-130 ms more to
/// exit.
async fn codex_turn(
    spec: &RunSpec,
    prompt: &[u8],
    homes: &ProviderHomes,
    path_var: Option<&OsStr>,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    ends: ExecEnds,
) -> Result<TurnOutcome, ProviderError> {
    let ExecEnds {
        go,
        closing,
        exited,
    } = ends;
    let provider = spec.provider;
    let bin = find(spec, path_var)?;
    let args = codex::args(spec);
    let mut parser = Parser::Codex(CodexParser::in_dir(&spec.cwd));
    let stdin = process::Stdin::Once(prompt.to_vec());
    let stdin = match go {
        Some(go) => process::Stdin::Gated {
            go,
            then: Box::new(stdin),
        },
        None => stdin,
    };
    // Kept until the CLI has exited, then removed.
    let system_file = system_file(spec, homes)?;
    let mut child = spawn(provider, &bin, &args, spec, path_var, stdin)?;
    // Send errors only mean the receiver is gone; the turn carries on.
    crate::log::phase("cli-spawned");
    let _ = tx.send(RunMsg::Started { pid: child.pid }).await;
    let mut first = true;
    let mut at_result = false;
    while !at_result {
        let line = match child.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(source) => return Err(ProviderError::Io { provider, source }),
        };
        if std::mem::take(&mut first) {
            crate::log::phase("cli-first-line");
        }
        let events = parser.feed(&line);
        let _ = tx.send(RunMsg::Raw(line)).await;
        for event in events {
            if let TurnEvent::End { status, .. } = &event {
                crate::log::phase("cli-result");
                at_result = *status == TurnStatus::Completed
                    && closing.is_some()
                    && !interrupted.load(Ordering::SeqCst);
            }
            let _ = tx.send(RunMsg::Event(event)).await;
        }
    }
    if let (true, Some(to)) = (at_result, closing) {
        let cli = Closing::exiting(child, system_file, exited);
        let outcome = finish(parser, exit_at_result(&interrupted), homes, spec).await;
        if let Err(cli) = to.send(cli) {
            tokio::spawn(cli.wait(std::future::pending()));
        }
        return outcome;
    }
    let exit = child
        .wait(|| interrupted.load(Ordering::SeqCst))
        .await
        .map_err(|source| ProviderError::Io { provider, source })?;
    crate::log::phase("cli-exited");
    drop(system_file);
    finish(parser, exit, homes, spec).await
}

/// Starts, ahead of its turn, the Claude CLI a turn resuming `spec`'s session would start: as
/// a warm CLI that has run no turn yet, which that turn takes when its command line is this one
/// ([`WarmKey::fits`]). It reads nothing until a turn gives it its prompt (after that turn's
/// start is synced), and exits at once when retired unused. None for anything but a Claude
/// resume.
pub fn prestart(
    spec: &RunSpec,
    homes: &ProviderHomes,
    path_var: Option<&OsStr>,
) -> Result<Option<WarmCli>, ProviderError> {
    let (ProviderKind::Claude, SessionMode::Resume { session_id }) = (spec.provider, &spec.session)
    else {
        return Ok(None);
    };
    let (child, lines, close, system_file) = start_claude(spec, homes, path_var)?;
    let key = WarmKey::of(spec, path_var, session_id.clone(), None);
    Ok(Some(WarmCli::new(
        child,
        lines,
        close,
        system_file,
        None,
        key,
        0,
    )))
}

/// A turn's end as its result tells it, the CLI not yet exited: the status is the result's,
/// or an interruption if one was asked for.
fn exit_at_result(interrupted: &AtomicBool) -> ExitInfo {
    ExitInfo {
        code: Some(0),
        interrupted: interrupted.load(Ordering::SeqCst),
        ..ExitInfo::default()
    }
}

/// The outcome, read off the async workers: finishing reads session files that can be
/// megabytes.
pub(super) async fn finish(
    parser: Parser,
    exit: ExitInfo,
    homes: &ProviderHomes,
    spec: &RunSpec,
) -> Result<TurnOutcome, ProviderError> {
    let provider = spec.provider;
    let spec = spec.clone();
    let homes = homes.clone();
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
