//! Warm Codex: a `codex app-server` (JSON-RPC over stdio) kept per recently used Codex
//! terminal, holding the terminal's thread loaded, so the next prompt is a `turn/start`
//! instead of a cold `codex exec … resume THREAD -`. See ARCHITECTURE.md, "Warm CLIs", and
//! the facts in `fixtures/captures/codex-warm/README.md`.
//!
//! Without the approvals inbox a cold turn opens and first resumes every thread (its system
//! text is stored when `exec` creates the thread, and replayed from the rollout on every
//! resume, warm or cold); with it, a turn that may ask starts its new thread in an app-server
//! (`Open::Start`: `thread/start` with the system text, stored the same way).
//! Once a cold or warm turn ended cleanly, the app-server is [`prepare`]d in the background:
//! started with the run's configuration (`-c` overrides: the sandbox mode, the writable
//! folders, the fence's `/tmp` exclusions, the user's own `-c` flags), `initialize`d, the
//! thread resumed with the same folder, model and approval policy (`never`, as `exec`'s). Each
//! warm turn passes the model, folder, approval policy and sandbox policy again, as `exec`
//! passes its flags on every run; a turn that may ask the approvals inbox passes
//! `on-request`, and its approval requests go to the inbox (`codex::ask`). A run with flags the app-server does not take (anything
//! but `-c`, `--enable`, `--disable`) is never warmed.

use std::ffi::OsStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc::{Sender, UnboundedReceiver};
use tokio::sync::Notify;

use super::codex::CodexParser;
use super::process::{self, ExitInfo};
use super::run::{finish, Parser};
use super::warm::{WarmCli, WarmKey};
use super::{ProviderError, ProviderHomes, RunMsg, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ProviderKind, TurnEvent};

/// How long starting an app-server and resuming the thread in it may take.
pub const PREPARE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an app-server asked to interrupt may take to end its turn before it gets SIGINT.
pub const INTERRUPT_GRACE: Duration = super::run::INTERRUPT_GRACE;
/// The client name the app-server is told.
const CLIENT: &str = "baton";

#[path = "codex_warm_requests.rs"]
mod requests;
use requests::{
    answer_to, decline, interrupt_request, json_line, open_request, opened, request, steer_request,
};

#[path = "codex_warm_machine.rs"]
mod machine;
use super::run::inputs::{Input, TurnInputs};
use machine::AppTurnState;
pub use requests::{app_args, resume_request, sandbox_policy, start_request, turn_request, Open};

/// Starts a `codex app-server` for the terminal whose turn of `spec` (on PATH `path_var`)
/// just ended cleanly on a thread (its session pinned to `model`), and resumes the thread in
/// it (or starts a new one, [`Open::Start`]): the warm CLI for its next turn. Errors say why it
/// could not be made warm.
pub async fn prepare(
    spec: &RunSpec,
    path_var: Option<&OsStr>,
    open: Open<'_>,
    model: Option<String>,
) -> Result<WarmCli, String> {
    let args = app_args(spec).ok_or("the run has flags codex app-server does not take")?;
    let bin = process::find_bin(&spec.bin, path_var)
        .ok_or_else(|| format!("{} is not on PATH", spec.bin.display()))?;
    let (lines, more) = tokio::sync::mpsc::unbounded_channel();
    let close = Arc::new(Notify::new());
    let stdin = process::Stdin::Open {
        first: Vec::new(),
        more,
        close: close.clone(),
    };
    let mut child = process::spawn_with(&bin, &args, &spec.cwd, path_var, &spec.env, stdin)
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let model = spec.model.clone().or(model);
    let hello = request(
        1,
        "initialize",
        json!({"clientInfo": {"name": CLIENT, "version": env!("CARGO_PKG_VERSION")}}),
    );
    let _ = lines.send(hello);
    let thread = tokio::time::timeout(PREPARE_TIMEOUT, async {
        let mut sent_open = false;
        loop {
            let line = match child.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => return Err("it exited".to_string()),
                Err(e) => return Err(format!("reading it failed: {e}")),
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if let Some(reply) = decline(&message) {
                let _ = lines.send(reply);
            }
            if !sent_open {
                if let Some(answer) = answer_to(&message, 1) {
                    answer.map_err(|e| format!("initialize failed: {e}"))?;
                    let _ = lines.send(json_line(json!({"method": "initialized"})));
                    let _ = lines.send(open_request(2, spec, open, model.as_deref()));
                    sent_open = true;
                }
            } else if let Some(answer) = answer_to(&message, 2) {
                return opened(open, answer);
            }
        }
    })
    .await
    .unwrap_or_else(|_| Err(format!("no answer in {} s", PREPARE_TIMEOUT.as_secs())));
    let (id, started_on) = thread.clone().unwrap_or_default();
    let key = WarmKey::of(spec, path_var, id, model.or(started_on));
    let mut cli = WarmCli::new(child, lines, close, None, None, key, 0);
    cli.requests = 2;
    match thread {
        Ok(_) => Ok(cli),
        Err(why) => {
            cli.retire();
            Err(why)
        }
    }
}

/// How a warm turn went: it ran, or the app-server refused its `turn/start` before anything of
/// the turn happened (a thread it has unloaded meanwhile: `thread not found`), and the turn
/// must run cold; the app-server has exited (it held the thread).
pub(super) enum AppTurn {
    Ran(TurnOutcome),
    Refused {
        why: String,
        keep: Option<tokio::sync::oneshot::Sender<WarmCli>>,
    },
}

/// What reaches a warm Codex turn besides its prompt.
pub(super) struct AppChannels {
    pub go: Option<tokio::sync::oneshot::Receiver<()>>,
    /// Steers: each text joins the running turn (`turn/steer`).
    pub steer: Option<UnboundedReceiver<String>>,
    pub interrupt: Option<UnboundedReceiver<()>>,
    pub keep: Option<tokio::sync::oneshot::Sender<WarmCli>>,
    /// The turn may ask the approvals inbox: its approval policy asks, and the app-server's
    /// requests go to the inbox ([`RunMsg::Asked`]).
    pub ask: bool,
}

/// A turn of `prompt` in the warm app-server `cli` (its key fits `spec`). Sends the same
/// messages a cold turn does ([`RunMsg::Started`] with the app-server's pid, every stdout line
/// of the turn raw, its events); an interrupt is the app-server's `turn/interrupt` (SIGINT if
/// the turn has not ended [`INTERRUPT_GRACE`] later). After a clean turn the app-server goes
/// back through `keep`; otherwise it is retired. The decisions are [`AppTurnState::step`]'s;
/// this loop waits for the next event and carries out its actions.
pub(super) async fn app_turn(
    spec: &RunSpec,
    prompt: &[u8],
    homes: &ProviderHomes,
    tx: Sender<RunMsg>,
    interrupted: Arc<AtomicBool>,
    channels: AppChannels,
    mut cli: WarmCli,
) -> Result<AppTurn, ProviderError> {
    crate::log::phase("cli-warm");
    let _ = tx.send(RunMsg::Started { pid: cli.pid }).await;
    if !matches!(spec.session, SessionMode::Resume { .. }) {
        // A thread this app-server started ([`Open::Start`]): named as `exec`'s
        // `thread.started` names the thread it makes, before the turn's first line.
        let session = TurnEvent::Session {
            session_id: cli.key.session_id.clone(),
            model: None,
        };
        let _ = tx.send(RunMsg::Event(session)).await;
    }
    let AppChannels {
        go,
        steer,
        interrupt,
        keep,
        ask,
    } = channels;
    let mut run = AppRun {
        policy: requests::approval_policy(ask),
        changes: crate::providers::codex::ask::Changes::default(),
        parser: CodexParser::for_thread(&spec.cwd, &cli.key.session_id),
        thread: cli.key.session_id.clone(),
        model: cli.key.model.clone(),
        prompt: String::from_utf8_lossy(prompt).into_owned(),
        inputs: TurnInputs::new(go, steer, interrupt),
        tx,
        first: true,
    };
    let (mut state, actions) = AppTurnState::start(cli.requests, run.inputs.gate.is_some());
    run.act(spec, &cli, None, actions).await;
    while !state.is_done() {
        let input = run.inputs.next(state.wants(), &mut cli.child).await;
        let input = input.map_err(|source| ProviderError::Io {
            provider: ProviderKind::Codex,
            source,
        })?;
        match input {
            Input::Wake(wake) => {
                let actions = state.step(machine::Event::Wake(wake));
                run.act(spec, &cli, None, actions).await;
            }
            Input::Line(line) => {
                if std::mem::take(&mut run.first) {
                    crate::log::phase("cli-first-line");
                }
                let message = serde_json::from_str::<Value>(&line).unwrap_or(Value::Null);
                run.changes.note(&message);
                let actions = state.step(machine::Event::Line(message));
                if let Some(read) = run.act(spec, &cli, Some(line), actions).await {
                    let actions = state.step(read);
                    run.act(spec, &cli, None, actions).await;
                }
            }
        }
    }
    cli.requests = state.requests();
    let left = state.left();
    run.end(left, cli, keep, &interrupted, spec, homes).await
}

/// The loop's side of a warm Codex turn: what it reads, and where it writes.
struct AppRun {
    /// The turn's approval policy.
    policy: &'static str,
    /// The paths of the turn's file changes, which its approval requests name by item.
    changes: crate::providers::codex::ask::Changes,
    parser: CodexParser,
    thread: String,
    model: Option<String>,
    prompt: String,
    inputs: TurnInputs,
    tx: Sender<RunMsg>,
    /// No stdout line read yet.
    first: bool,
}

impl AppRun {
    /// Carries out the step's actions, in order; `line` is the stdout line they are about.
    /// Returns what the parser read of it, when the step had it read ([`machine::Action::Feed`]).
    async fn act(
        &mut self,
        spec: &RunSpec,
        cli: &WarmCli,
        mut line: Option<String>,
        actions: Vec<machine::Action>,
    ) -> Option<machine::Event> {
        use machine::Action;
        let mut read = None;
        for action in actions {
            let request = match action {
                Action::Start { id } => Some(turn_request(
                    id,
                    spec,
                    &self.thread,
                    self.model.as_deref(),
                    &self.prompt,
                    self.policy,
                )),
                Action::Steer { id, turn, text } => {
                    Some(steer_request(id, &self.thread, &turn, &text))
                }
                Action::Interrupt { id, turn } => {
                    self.inputs.grace = Some(tokio::time::Instant::now() + INTERRUPT_GRACE);
                    Some(interrupt_request(id, &self.thread, &turn))
                }
                Action::Reply(reply) => Some(reply),
                Action::Ask(message) => {
                    let asked =
                        crate::providers::codex::ask::asked(&message, &self.changes, &cli.lines);
                    if let Some(asked) = asked {
                        // The inbox answers it on the app-server's stdin, whenever the user does.
                        let _ = self.tx.send(RunMsg::Asked(asked)).await;
                    }
                    None
                }
                Action::SignalUnanswered => {
                    crate::log_line!("baton server: codex app-server (pid {}) did not take the interrupt request: SIGINT", cli.pid);
                    let _ = process::interrupt(cli.pid);
                    None
                }
                Action::SteerRead { index } => {
                    let _ = self.tx.send(RunMsg::SteerRead { index }).await;
                    None
                }
                Action::Feed => {
                    if let Some(line) = line.take() {
                        read = Some(self.feed(line).await);
                    }
                    None
                }
            };
            if let Some(request) = request {
                let _ = cli.lines.send(request);
            }
        }
        read
    }

    /// The turn's line to the parser, then raw and its events to the caller.
    async fn feed(&mut self, line: String) -> machine::Event {
        let events = self.parser.feed(&line);
        let _ = self.tx.send(RunMsg::Raw(line)).await;
        for event in events {
            let _ = self.tx.send(RunMsg::Event(event)).await;
        }
        machine::Event::Read {
            turn: self.parser.turn_id().map(str::to_owned),
            ended: self.parser.ended(),
        }
    }

    /// The turn's outcome once its loop `left` it, and where its app-server goes: back to
    /// `keep` after a clean turn, else retired (or reaped, once it has exited); a refused
    /// `turn/start` hands the turn back to run cold.
    async fn end(
        self,
        left: machine::Left,
        cli: WarmCli,
        keep: Option<tokio::sync::oneshot::Sender<WarmCli>>,
        interrupted: &AtomicBool,
        spec: &RunSpec,
        homes: &ProviderHomes,
    ) -> Result<AppTurn, ProviderError> {
        let AppRun { mut parser, tx, .. } = self;
        // Dead before it answered the `turn/start` (killed while idle; it answers before any
        // model call): the turn never reached the model, and runs cold as after a refusal.
        let dead = (!left.alive && !interrupted.load(Ordering::SeqCst))
            .then(|| format!("it (pid {}) had exited", cli.pid));
        if let Some(why) = left
            .refused
            .clone()
            .or(dead)
            .filter(|_| !left.accepted && !left.interrupt_asked)
        {
            crate::log_line!(
                "baton server: codex app-server (pid {}) refused the turn ({why}): it runs cold",
                cli.pid
            );
            cli.stop().await;
            return Ok(AppTurn::Refused { why, keep });
        }
        if let Some(why) = &left.refused {
            let end = parser.fail(format!("codex app-server refused the turn: {why}"));
            let _ = tx.send(RunMsg::Event(end)).await;
        }
        crate::log::phase("cli-result");
        let was_interrupted = interrupted.load(Ordering::SeqCst) || left.interrupt_asked;
        let end = AppTurnEnd {
            alive: left.alive,
            ended: parser.ended(),
            refused: left.refused.is_some(),
            interrupted: was_interrupted,
            took_interrupt: left.took_interrupt,
            tools_running: parser.tools_running(),
            steers_unanswered: left.steers_unanswered,
        };
        if end.stops_a_command() {
            let _ = process::interrupt(cli.pid);
        }
        if !left.alive {
            crate::log_line!(
                "baton server: codex app-server (pid {}) stopped during a turn",
                cli.pid
            );
            let exit = cli.reap().await.map_err(|source| ProviderError::Io {
                provider: ProviderKind::Codex,
                source,
            })?;
            let exit = ExitInfo {
                interrupted: was_interrupted,
                ..exit
            };
            return finish(Parser::Codex(parser), exit, homes, spec)
                .await
                .map(AppTurn::Ran);
        }
        // It has not exited: the status is its turn's, or an interruption if asked for.
        let exit = ExitInfo {
            code: Some(0),
            interrupted: was_interrupted,
            ..ExitInfo::default()
        };
        let outcome = finish(Parser::Codex(parser), exit, homes, spec).await;
        match keep {
            Some(keep) if end.leaves_app_server_reusable() => {
                if let Err(cli) = keep.send(cli.rekept()) {
                    cli.retire();
                }
            }
            _ => cli.retire(),
        }
        outcome.map(AppTurn::Ran)
    }
}

/// How a warm Codex turn ended, as far as its app-server's next turn is concerned.
#[derive(Debug, Clone, Copy, Default)]
struct AppTurnEnd {
    /// The app-server still runs (its stdout is open).
    alive: bool,
    /// `turn/completed` came.
    ended: bool,
    /// It refused the `turn/start`.
    refused: bool,
    /// An interrupt was asked for.
    interrupted: bool,
    /// It ended the turn on its own `turn/interrupt` (no signal was sent).
    took_interrupt: bool,
    /// A command of the turn started and has not completed.
    tools_running: bool,
    /// Steers were sent that it has not answered: they may still join a turn.
    steers_unanswered: bool,
}

impl AppTurnEnd {
    /// An interrupt does not stop a command that runs: it goes on, writing files and printing
    /// after the turn's end. The app-server is stopped, and the command with it.
    fn stops_a_command(&self) -> bool {
        self.alive && self.interrupted && self.tools_running
    }

    /// Whether it is left idle with nothing of this turn to come: taken back warm.
    fn leaves_app_server_reusable(&self) -> bool {
        let ended_as_asked = !self.interrupted || self.took_interrupt;
        self.alive
            && self.ended
            && !self.refused
            && ended_as_asked
            && !self.stops_a_command()
            && !self.steers_unanswered
    }
}

#[cfg(test)]
#[path = "codex_warm_turn_tests.rs"]
mod tests;
