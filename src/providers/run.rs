//! One provider turn from start to end: resolve the CLI, launch it with the prompt on stdin,
//! stream its raw lines and normalized events to the caller, and fold them into an outcome.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::claude::{self, ClaudeParser};
use super::claude_written;
use super::closing::Closing;
use super::codex::{self, CodexParser};
use super::codex_warm;
use super::process::{self, ExitInfo};
use super::system_file;
use super::warm::{WarmCli, WarmKey};
use super::{ProviderError, ProviderHomes, RunMsg, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ProviderKind, TurnEvent, TurnStatus};

#[path = "run_claude.rs"]
mod claude_machine;
use claude_machine::ClaudeTurn;
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
        ProviderKind::Codex => match channels.warm {
            Some(cli) => {
                let closing = channels.closing;
                let channels = codex_warm::AppChannels {
                    go: channels.go,
                    steer: channels.steer,
                    interrupt: channels.interrupt,
                    keep: channels.keep,
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
                    // Nothing of the turn happened: it runs cold (its start is journalled, so
                    // no gate; an interrupt now signals the cold CLI's pid), answered at its
                    // `turn.completed` as any cold turn.
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
            None => {
                let cold = ColdCodex {
                    go: channels.go,
                    keep: channels.keep,
                    closing: channels.closing,
                };
                cold.run(spec, prompt, homes, path_var, tx, interrupted)
                    .await
            }
        },
        ProviderKind::Local => Err(ProviderError::Io {
            provider: spec.provider,
            source: std::io::Error::other("a local endpoint runs no CLI (see providers::local)"),
        }),
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
        match codex_warm::prepare(&spec, path_var.as_deref(), &thread, model).await {
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

/// A Claude process started for a turn of `spec`: its stdin open (stream-json lines, the first
/// one its prompt) and nothing written to it yet.
type StartedClaude = (
    process::Spawned,
    tokio::sync::mpsc::UnboundedSender<String>,
    Arc<tokio::sync::Notify>,
    Option<system_file::Written>,
);

fn start_claude(
    spec: &RunSpec,
    homes: &ProviderHomes,
    path_var: Option<&OsStr>,
) -> Result<StartedClaude, ProviderError> {
    let bin = find(spec, path_var)?;
    let args = claude::args(spec);
    let system_file = system_file(spec, homes)?;
    let (lines, more) = tokio::sync::mpsc::unbounded_channel();
    let close = Arc::new(tokio::sync::Notify::new());
    let stdin = process::Stdin::Open {
        first: Vec::new(),
        more,
        close: close.clone(),
    };
    let child = spawn(spec.provider, &bin, &args, spec, path_var, stdin)?;
    crate::log::phase("cli-spawned");
    Ok((child, lines, close, system_file))
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

/// A Claude CLI running a turn: its process, its stdin (a line at a time, closed when `close`
/// is notified), the system text file it read, and what its earlier turns in this process left
/// (a warm CLI's running cost and turn count).
struct ClaudeCli {
    child: process::Spawned,
    lines: tokio::sync::mpsc::UnboundedSender<String>,
    close: Arc<tokio::sync::Notify>,
    system_file: Option<system_file::Written>,
    total_before: Option<f64>,
    turns_before: u32,
}

impl ClaudeCli {
    /// The warm CLI `warm`, or one started now.
    fn take_or_start(
        warm: Option<WarmCli>,
        spec: &RunSpec,
        homes: &ProviderHomes,
        path_var: Option<&OsStr>,
    ) -> Result<ClaudeCli, ProviderError> {
        Ok(match warm {
            Some(w) => {
                crate::log::phase("cli-warm");
                ClaudeCli {
                    child: w.child,
                    lines: w.lines,
                    close: w.close,
                    system_file: w.system_file,
                    total_before: w.total_usd,
                    turns_before: w.turns,
                }
            }
            None => {
                let (child, lines, close, system_file) = start_claude(spec, homes, path_var)?;
                ClaudeCli {
                    child,
                    lines,
                    close,
                    system_file,
                    total_before: None,
                    turns_before: 0,
                }
            }
        })
    }
}

/// What a Claude turn's loop waits on besides the CLI's stdout. Each is polled only while the
/// turn's phase takes it, and set to None once its sender has gone.
struct ClaudeInputs {
    gate: Option<tokio::sync::oneshot::Receiver<()>>,
    steer: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
    interrupt: Option<tokio::sync::mpsc::UnboundedReceiver<()>>,
    /// When the interrupt asked for is given up on and SIGINT sent instead.
    grace: Option<tokio::time::Instant>,
}

/// What a Claude turn's loop waited for: an event for the step, or a stdout line (whose facts
/// become events once it is parsed).
enum Waited {
    Event(claude_machine::Event),
    Line(String),
}

impl ClaudeInputs {
    /// The next thing to happen that `turn`'s phase takes. Every branch is cancel-safe: a
    /// oneshot, an unbounded receiver, a sleep, and the CLI's line reader (which keeps a
    /// partial line in its buffer).
    async fn next(
        &mut self,
        turn: &ClaudeTurn,
        child: &mut process::Spawned,
    ) -> std::io::Result<Waited> {
        use claude_machine::Event;
        loop {
            tokio::select! {
                biased;
                opened = wait_gate(&mut self.gate), if turn.waits_for_gate() && self.gate.is_some() => {
                    self.gate = None;
                    return Ok(Waited::Event(match opened {
                        Ok(()) => Event::GateOpened,
                        Err(_) => Event::GateClosed,
                    }));
                }
                asked = next_of(&mut self.interrupt), if turn.takes_interrupts() && self.interrupt.is_some() => {
                    match asked {
                        Some(()) => return Ok(Waited::Event(Event::Interrupt)),
                        None => self.interrupt = None,
                    }
                }
                () = wait_until(self.grace), if turn.grace_runs() && self.grace.is_some() => {
                    return Ok(Waited::Event(Event::GraceOver));
                }
                more = next_of(&mut self.steer), if turn.takes_steers() && self.steer.is_some() => {
                    match more {
                        Some(text) => return Ok(Waited::Event(Event::Steer(text))),
                        None => self.steer = None,
                    }
                }
                line = child.next_line() => {
                    return Ok(match line? {
                        Some(line) => Waited::Line(line),
                        None => Waited::Event(Event::Eof),
                    });
                }
            }
        }
    }
}

/// A Claude turn. Claude takes its prompt as a stream-json line and keeps reading stdin: steers
/// join the running turn. At the turn's result stdin closes (so the CLI exits), unless the
/// process is kept warm for the next turn (`channels.keep`, a clean turn). The decisions are
/// [`ClaudeTurn::step`]'s; this loop waits for the next event and carries out its actions.
async fn claude_turn(
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
    } = channels;
    let setup = claude_machine::Setup {
        gated: go.is_some(),
        only_prompt: steer.is_none() && keep.is_none() && interrupt.is_none(),
        keep: keep.is_some(),
        closing: closing.is_some(),
    };
    let mut cli = ClaudeCli::take_or_start(warm, spec, homes, path_var)?;
    let mut run = ClaudeRun {
        parser: ClaudeParser::after(&spec.cwd, cli.total_before),
        prompt: claude::user_line(&String::from_utf8_lossy(prompt)),
        inputs: ClaudeInputs {
            gate: go,
            steer,
            interrupt,
            grace: None,
        },
        tx,
        interrupted,
        first: true,
    };
    // Send errors only mean the receiver is gone; the turn carries on.
    let _ = run.tx.send(RunMsg::Started { pid: cli.child.pid }).await;
    let (mut turn, actions) = ClaudeTurn::start(setup);
    run.act(&cli, actions).await;
    let exit = loop {
        if let claude_machine::Phase::Done(exit) = turn.phase() {
            break exit;
        }
        let waited = run.inputs.next(&turn, &mut cli.child).await;
        let waited = waited.map_err(|source| ProviderError::Io {
            provider: spec.provider,
            source,
        })?;
        match waited {
            Waited::Event(event) => {
                let actions = turn.step(event);
                run.act(&cli, actions).await;
            }
            Waited::Line(line) => run.on_line(&mut turn, &cli, line).await,
        }
    };
    let ends = ClaudeEnds { keep, closing };
    ends.carry_out(exit, cli, run, spec, homes, path_var).await
}

/// The loop's side of a Claude turn: what it reads, and where it writes.
struct ClaudeRun {
    parser: ClaudeParser,
    /// The prompt's stream-json line.
    prompt: String,
    inputs: ClaudeInputs,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    /// No stdout line read yet.
    first: bool,
}

impl ClaudeRun {
    /// Carries out the step's actions, in order.
    async fn act(&mut self, cli: &ClaudeCli, actions: Vec<claude_machine::Action>) {
        use claude_machine::Action;
        let pid = cli.child.pid;
        for action in actions {
            match action {
                Action::SendPrompt => {
                    let _ = cli.lines.send(std::mem::take(&mut self.prompt));
                }
                Action::Steer(text) => {
                    let _ = cli.lines.send(claude::user_line(&text));
                }
                Action::AskInterrupt => {
                    let id = format!("baton-interrupt-{pid}");
                    let _ = cli.lines.send(claude::interrupt_line(&id));
                    self.inputs.grace = Some(tokio::time::Instant::now() + INTERRUPT_GRACE);
                }
                Action::SignalUnanswered => {
                    crate::log_line!("baton server: claude (pid {pid}) did not take the interrupt request: SIGINT");
                    let _ = process::interrupt(pid);
                }
                Action::Signal => {
                    let _ = process::interrupt(pid);
                }
                Action::CloseStdin => cli.close.notify_one(),
                Action::DropGate => self.inputs.gate = None,
                Action::SteerRead { index } => {
                    let _ = self.tx.send(RunMsg::SteerRead { index }).await;
                }
            }
        }
    }

    /// A stdout line: raw to the caller, then what the step makes of its echo, its events
    /// (each sent on), and its result.
    async fn on_line(&mut self, turn: &mut ClaudeTurn, cli: &ClaudeCli, line: String) {
        use claude_machine::Event;
        if std::mem::take(&mut self.first) {
            crate::log::phase("cli-first-line");
        }
        let events = self.parser.feed(&line);
        let replay = self.parser.was_replay();
        let _ = self.tx.send(RunMsg::Raw(line)).await;
        if replay {
            let actions = turn.step(Event::Echo);
            self.act(cli, actions).await;
        }
        let mut end = None;
        for event in events {
            match &event {
                TurnEvent::End { status, .. } => end = Some(*status),
                TurnEvent::ToolUse { name, .. } if SUBAGENT_TOOLS.contains(&name.as_str()) => {
                    let actions = turn.step(Event::Subagent);
                    self.act(cli, actions).await;
                }
                _ => {}
            }
            let _ = self.tx.send(RunMsg::Event(event)).await;
        }
        if let Some(status) = end {
            if turn.awaits_result() {
                crate::log::phase("cli-result");
            }
            let interrupted = self.interrupted.load(Ordering::SeqCst);
            let actions = turn.step(Event::Result {
                status,
                interrupted,
            });
            self.act(cli, actions).await;
        }
    }
}

/// Where a Claude CLI goes once its turn's loop ends: kept warm, handed over while it exits,
/// or reaped here.
struct ClaudeEnds {
    keep: Option<tokio::sync::oneshot::Sender<WarmCli>>,
    closing: Option<tokio::sync::oneshot::Sender<Closing>>,
}

impl ClaudeEnds {
    async fn carry_out(
        self,
        exit: claude_machine::Exit,
        cli: ClaudeCli,
        run: ClaudeRun,
        spec: &RunSpec,
        homes: &ProviderHomes,
        path_var: Option<&OsStr>,
    ) -> Result<TurnOutcome, ProviderError> {
        use claude_machine::Exit;
        match (exit, self.closing, self.keep) {
            (Exit::AtResult, Some(to), _) => {
                let ClaudeCli {
                    child,
                    lines,
                    close,
                    system_file,
                    ..
                } = cli;
                let cli = Closing::new(child, lines, &close, system_file);
                let exit = exit_at_result(&run.interrupted);
                let outcome = finish(Parser::Claude(run.parser), exit, homes, spec).await;
                if let Err(cli) = to.send(cli) {
                    tokio::spawn(cli.wait(std::future::pending()));
                }
                outcome
            }
            (Exit::Keep { completed }, _, Some(keep)) => match run.parser.session_id() {
                Some(session_id) => {
                    let kept = Kept {
                        keep,
                        session_id,
                        completed,
                    };
                    kept.hand_back(cli, run, spec, homes, path_var).await
                }
                // No session to resume it by: it cannot be reused.
                None => {
                    cli.close.notify_one();
                    let mut cli = cli;
                    while let Ok(Some(line)) = cli.child.next_line().await {
                        let _ = run.tx.send(RunMsg::Raw(line)).await;
                    }
                    reap_claude(cli, run, spec, homes).await
                }
            },
            (Exit::AtResult | Exit::Keep { .. } | Exit::Reaped, _, _) => {
                reap_claude(cli, run, spec, homes).await
            }
        }
    }
}

/// A Claude CLI to keep warm after a clean turn: where it goes, and what it holds.
struct Kept {
    keep: tokio::sync::oneshot::Sender<WarmCli>,
    session_id: String,
    /// The turn completed without an interrupt: its last message will be in its session file.
    completed: bool,
}

impl Kept {
    /// Reads the turn's outcome, and hands the CLI back to `keep` once its session file holds
    /// the turn (`claude_written`).
    async fn hand_back(
        self,
        cli: ClaudeCli,
        run: ClaudeRun,
        spec: &RunSpec,
        homes: &ProviderHomes,
        path_var: Option<&OsStr>,
    ) -> Result<TurnOutcome, ProviderError> {
        let parser = run.parser;
        let key = WarmKey::of(spec, path_var, self.session_id, parser.model());
        let total = parser.total_usd();
        // An interrupted turn's last message may be cut short on disk, or not there: no
        // wait that may never end (its next turn resumes in this process anyway).
        let written = self
            .completed
            .then(|| parser.written_check(homes, &spec.cwd))
            .flatten();
        let exit = exit_at_result(&run.interrupted);
        let outcome = finish(Parser::Claude(parser), exit, homes, spec).await;
        let cli = WarmCli::new(
            cli.child,
            cli.lines,
            cli.close,
            cli.system_file,
            total,
            key,
            cli.turns_before + 1,
        );
        let keep = self.keep;
        tokio::spawn(async move {
            if let Some(written) = written {
                if !written.wait(claude_written::WRITE_WAIT).await {
                    crate::log_line!(
                        "baton server: claude (pid {}) had not written its turn to its session file {} s after its result: kept warm anyway",
                        cli.pid,
                        claude_written::WRITE_WAIT.as_secs()
                    );
                }
            }
            if let Err(cli) = keep.send(cli) {
                cli.retire();
            }
        });
        outcome
    }
}

/// A Claude turn read off its CLI's exit: its stdin closed, the CLI waited for.
async fn reap_claude(
    cli: ClaudeCli,
    run: ClaudeRun,
    spec: &RunSpec,
    homes: &ProviderHomes,
) -> Result<TurnOutcome, ProviderError> {
    let ClaudeCli {
        child,
        lines,
        system_file,
        ..
    } = cli;
    drop(lines);
    let interrupted = run.interrupted;
    let exit = child
        .wait(|| interrupted.load(Ordering::SeqCst))
        .await
        .map_err(|source| ProviderError::Io {
            provider: spec.provider,
            source,
        })?;
    crate::log::phase("cli-exited");
    drop(system_file);
    finish(Parser::Claude(run.parser), exit, homes, spec).await
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

/// The tools whose subagents 2.1.332 may run in the background, printing after the result.
const SUBAGENT_TOOLS: [&str; 2] = ["Agent", "Task"];

pub(super) async fn wait_gate(
    gate: &mut Option<tokio::sync::oneshot::Receiver<()>>,
) -> Result<(), tokio::sync::oneshot::error::RecvError> {
    match gate {
        Some(g) => g.await,
        None => std::future::pending().await,
    }
}

pub(super) async fn wait_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The next message of `rx`; never, when there is none.
pub(super) async fn next_of<T>(
    rx: &mut Option<tokio::sync::mpsc::UnboundedReceiver<T>>,
) -> Option<T> {
    match rx {
        Some(s) => s.recv().await,
        None => std::future::pending().await,
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
