//! A Claude turn's loop: the CLI it runs in (a warm one, or one started now), the events it
//! waits for ([`TurnInputs`]), the actions of its machine (`run_claude_machine.rs`) carried
//! out, and the three ends of the CLI once the loop is over: kept warm, handed over while it
//! exits ([`Closing`]), or reaped here.

use std::ffi::OsStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::claude_machine::{self, ClaudeTurn};
use super::inputs::{Input, TurnInputs};
use super::{exit_at_result, find, finish, spawn, system_file, Channels, Parser, INTERRUPT_GRACE};
use crate::providers::claude::{self, ClaudeParser};
use crate::providers::claude_written;
use crate::providers::closing::Closing;
use crate::providers::process;
use crate::providers::warm::{WarmCli, WarmKey};
use crate::providers::{ProviderError, ProviderHomes, RunMsg, RunSpec, TurnOutcome};
use crate::words::TurnEvent;

/// A Claude process started for a turn of `spec`: its stdin open (stream-json lines, the first
/// one its prompt) and nothing written to it yet.
pub(super) type StartedClaude = (
    process::Spawned,
    tokio::sync::mpsc::UnboundedSender<String>,
    Arc<tokio::sync::Notify>,
    Option<system_file::Written>,
);

pub(super) fn start_claude(
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

/// A Claude turn. Claude takes its prompt as a stream-json line and keeps reading stdin: steers
/// join the running turn. At the turn's result stdin closes (so the CLI exits), unless the
/// process is kept warm for the next turn (`channels.keep`, a clean turn). The decisions are
/// [`ClaudeTurn::step`]'s; this loop waits for the next event and carries out its actions.
pub(super) async fn claude_turn(
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
        // Claude asks by its flags (`Provider::ask_args`).
        ask: _,
    } = channels;
    let mut setup = claude_machine::Setup {
        gated: go.is_some(),
        only_prompt: steer.is_none() && keep.is_none() && interrupt.is_none(),
        keep: keep.is_some(),
        closing: closing.is_some(),
    };
    let mut inputs = TurnInputs::new(go, steer, interrupt);
    let mut warm = warm;
    loop {
        let took_warm = warm.as_ref().map(|w| w.pid);
        let cli = ClaudeCli::take_or_start(warm.take(), spec, homes, path_var)?;
        let run = ClaudeRun {
            parser: ClaudeParser::after(&spec.cwd, cli.total_before),
            prompt: claude::user_line(&String::from_utf8_lossy(prompt)),
            inputs,
            tx: tx.clone(),
            interrupted: interrupted.clone(),
            first: true,
        };
        let (exit, cli, run) = run.run(setup, cli, spec).await?;
        // A warm CLI that died before it took the prompt (it printed nothing: the CLI echoes
        // the prompt as it reads it, before any model call) leaves the turn to a new CLI.
        if let Some(pid) = took_warm.filter(|_| run.first && !interrupted.load(Ordering::SeqCst)) {
            let note = format!(
                "the warm claude CLI (pid {pid}) had exited before it took the prompt: the turn runs in a new one"
            );
            crate::log_line!("baton server: {note}");
            let _ = tx.send(RunMsg::Note(note)).await;
            drop(cli);
            inputs = run.inputs;
            // Its gate opened already: the new CLI gets the prompt at once.
            setup.gated = false;
            continue;
        }
        let ends = ClaudeEnds { keep, closing };
        return ends.carry_out(exit, cli, run, spec, homes, path_var).await;
    }
}

impl ClaudeRun {
    /// Runs the turn's loop in `cli` until its machine is done: the exit it ended with, the CLI
    /// and this run handed back.
    async fn run(
        mut self,
        setup: claude_machine::Setup,
        mut cli: ClaudeCli,
        spec: &RunSpec,
    ) -> Result<(claude_machine::Exit, ClaudeCli, ClaudeRun), ProviderError> {
        // Send errors only mean the receiver is gone; the turn carries on.
        let _ = self.tx.send(RunMsg::Started { pid: cli.child.pid }).await;
        let (mut turn, actions) = ClaudeTurn::start(setup);
        self.act(&cli, actions).await;
        loop {
            if let claude_machine::Phase::Done(exit) = turn.phase() {
                return Ok((exit, cli, self));
            }
            let input = self.inputs.next(turn.wants(), &mut cli.child).await;
            let input = input.map_err(|source| ProviderError::Io {
                provider: spec.provider,
                source,
            })?;
            match input {
                Input::Wake(wake) => {
                    let actions = turn.step(claude_machine::Event::Wake(wake));
                    self.act(&cli, actions).await;
                }
                Input::Line(line) => self.on_line(&mut turn, &cli, line).await,
            }
        }
    }
}

/// The loop's side of a Claude turn: what it reads, and where it writes.
struct ClaudeRun {
    parser: ClaudeParser,
    /// The prompt's stream-json line.
    prompt: String,
    inputs: TurnInputs,
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
        let asked = claude::ask::asked(&line, &cli.lines);
        let _ = self.tx.send(RunMsg::Raw(line)).await;
        if let Some(asked) = asked {
            // The inbox answers it on the CLI's stdin, whenever the user does.
            let _ = self.tx.send(RunMsg::Asked(asked)).await;
        }
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

/// The tools whose subagents 2.1.332 may run in the background, printing after the result.
const SUBAGENT_TOOLS: [&str; 2] = ["Agent", "Task"];
