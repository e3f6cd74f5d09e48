//! A warm Codex turn as a state machine: the [`Phase`] of its `turn/start`, what became of an
//! interrupt ([`Asked`]), and the pure [`AppTurnState::step`] from an [`Event`] (the gate, an
//! interrupt, a steer, a stdout line, what the parser read of it, EOF) to the [`Action`]s
//! `codex_warm::app_turn` carries out. The state owns the JSON-RPC request ids, so it matches
//! each answer to its request.

use serde_json::Value;

use super::super::run::inputs::{Wake, Wants};
use super::requests::{answer_to, decline};
use crate::providers::codex::ask::is_approval;

/// Where a warm Codex turn's `turn/start` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Phase {
    /// Held until the gate opens.
    Gated,
    /// Sent as request `id`, not answered yet: the lines until its answer are what the thread's
    /// resume left (its stored usage), not the turn's.
    Starting { id: u64 },
    /// The app-server took the turn: every line is the turn's. `turn`: its id, once known
    /// (steers and an interrupt name it).
    Running { turn: Option<String> },
    /// The loop ends.
    Done,
}

/// What became of an interrupt asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asked {
    /// None was asked for.
    No,
    /// Asked for; its `turn/interrupt` waits for the turn's id.
    Pending,
    /// Its `turn/interrupt` was sent: SIGINT if the grace runs out first.
    Sent,
    /// The grace ran out: SIGINT sent.
    Signalled,
}

/// What happened, as the step sees it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    /// The gate, an interrupt, its grace, a steer, EOF.
    Wake(Wake),
    /// A stdout line, parsed (Null when it is not JSON).
    Line(Value),
    /// The parser read the line the step asked it to ([`Action::Feed`]): the turn's id as
    /// far as it knows, and whether `turn/completed` came.
    Read { turn: Option<String>, ended: bool },
}

/// What the loop does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Action {
    /// Sends `turn/start` with the prompt as request `id`.
    Start { id: u64 },
    /// Sends `turn/steer` with `text` as request `id`.
    Steer { id: u64, turn: String, text: String },
    /// Sends `turn/interrupt` as request `id` and starts its grace.
    Interrupt { id: u64, turn: String },
    /// Logs that the interrupt went unanswered, then sends SIGINT.
    SignalUnanswered,
    /// Writes this answer to a request of the app-server's own.
    Reply(String),
    /// Hands this approval request of the app-server's to the inbox, which answers it.
    Ask(Value),
    /// Tells the caller the app-server took in steer `index`.
    SteerRead { index: usize },
    /// Hands the line to the parser, sends it raw and its events on, then steps
    /// [`Event::Read`].
    Feed,
}

/// A warm Codex turn's state.
#[derive(Debug, Clone)]
pub(super) struct AppTurnState {
    phase: Phase,
    asked: Asked,
    /// The JSON-RPC requests sent to the app-server so far, this turn's included.
    requests: u64,
    /// Steers sent and not answered: (request id, index).
    steers: Vec<(u64, usize)>,
    /// Steers handed over in all.
    handed: usize,
    /// Why the app-server refused the `turn/start`.
    refused: Option<String>,
    /// The app-server took the turn.
    accepted: bool,
    /// Its stdout is open.
    alive: bool,
}

/// How the loop left a warm Codex turn (with the parser's word on it: `AppTurnEnd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Left {
    pub refused: Option<String>,
    pub accepted: bool,
    pub interrupt_asked: bool,
    /// It ended the turn on its own `turn/interrupt` (no signal was sent).
    pub took_interrupt: bool,
    pub steers_unanswered: bool,
    pub alive: bool,
}

impl AppTurnState {
    /// The turn of an app-server that was sent `requests` requests before, and what is done at
    /// once (the `turn/start`, ungated).
    pub(super) fn start(requests: u64, gated: bool) -> (AppTurnState, Vec<Action>) {
        let mut state = AppTurnState {
            phase: Phase::Gated,
            asked: Asked::No,
            requests,
            steers: Vec::new(),
            handed: 0,
            refused: None,
            accepted: false,
            alive: true,
        };
        let actions = if gated {
            Vec::new()
        } else {
            vec![state.send_start()]
        };
        (state, actions)
    }

    #[cfg(test)]
    pub(super) fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The JSON-RPC requests sent so far.
    pub(super) fn requests(&self) -> u64 {
        self.requests
    }

    pub(super) fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// What the loop waits for besides stdout: the gate before the `turn/start`; interrupts
    /// until the end; the `turn/interrupt`'s grace once it was sent; steers once the turn's id
    /// is known, until an interrupt.
    pub(super) fn wants(&self) -> Wants {
        let running = !self.is_done();
        Wants {
            gate: self.phase == Phase::Gated,
            interrupts: running,
            grace: running && self.asked == Asked::Sent,
            steers: matches!(self.phase, Phase::Running { turn: Some(_) })
                && self.asked == Asked::No,
        }
    }

    /// How the loop left the turn.
    pub(super) fn left(&self) -> Left {
        Left {
            refused: self.refused.clone(),
            accepted: self.accepted,
            interrupt_asked: self.asked != Asked::No,
            took_interrupt: self.asked == Asked::Sent,
            steers_unanswered: !self.steers.is_empty(),
            alive: self.alive,
        }
    }

    fn next_request(&mut self) -> u64 {
        self.requests += 1;
        self.requests
    }

    fn send_start(&mut self) -> Action {
        let id = self.next_request();
        self.phase = Phase::Starting { id };
        Action::Start { id }
    }

    /// The next state and the actions `event` calls for.
    pub(super) fn step(&mut self, event: Event) -> Vec<Action> {
        if self.is_done() {
            return Vec::new();
        }
        let mut actions = self.on(event);
        if let (Asked::Pending, Phase::Running { turn: Some(turn) }) = (self.asked, &self.phase) {
            let turn = turn.clone();
            let id = self.next_request();
            self.asked = Asked::Sent;
            actions.push(Action::Interrupt { id, turn });
        }
        actions
    }

    fn on(&mut self, event: Event) -> Vec<Action> {
        use Wake::{Eof, GateClosed, GateOpened, GraceOver, Interrupt, Steer};
        let wake = match event {
            Event::Wake(wake) => wake,
            Event::Line(message) => return self.line(&message),
            Event::Read { turn, ended } => return self.read(turn, ended),
        };
        match (&self.phase, wake) {
            (_, Eof) => {
                self.alive = false;
                self.done()
            }
            (Phase::Gated, GateOpened) => vec![self.send_start()],
            // No prompt may reach it: the turn never starts.
            (Phase::Gated, GateClosed) => self.done(),
            (_, GateOpened | GateClosed) => Vec::new(),
            (Phase::Gated, Interrupt) => {
                self.asked = Asked::Pending;
                self.done()
            }
            (_, Interrupt) => {
                if self.asked == Asked::No {
                    self.asked = Asked::Pending;
                }
                Vec::new()
            }
            (_, GraceOver) if self.asked == Asked::Sent => {
                self.asked = Asked::Signalled;
                vec![Action::SignalUnanswered]
            }
            (_, GraceOver) => Vec::new(),
            (_, Steer(text)) => self.steer(text),
        }
    }

    /// What the parser read of the turn's line: its id, and whether it ended (or was refused).
    fn read(&mut self, turn: Option<String>, ended: bool) -> Vec<Action> {
        if let (Phase::Running { turn: known @ None }, Some(turn)) = (&mut self.phase, turn) {
            *known = Some(turn);
        }
        if ended || self.refused.is_some() {
            return self.done();
        }
        Vec::new()
    }

    fn done(&mut self) -> Vec<Action> {
        self.phase = Phase::Done;
        Vec::new()
    }

    fn steer(&mut self, text: String) -> Vec<Action> {
        let turn = match &self.phase {
            Phase::Running { turn: Some(turn) } if self.asked == Asked::No => turn.clone(),
            _ => return Vec::new(),
        };
        let id = self.next_request();
        self.steers.push((id, self.handed));
        self.handed += 1;
        vec![Action::Steer { id, turn, text }]
    }

    fn line(&mut self, message: &Value) -> Vec<Action> {
        let mut actions: Vec<Action> = if is_approval(message) {
            vec![Action::Ask(message.clone())]
        } else {
            decline(message).map(Action::Reply).into_iter().collect()
        };
        match &self.phase {
            Phase::Starting { id } => match answer_to(message, *id) {
                Some(Ok(result)) => {
                    let turn = result["turn"]["id"].as_str().map(str::to_owned);
                    self.phase = Phase::Running { turn };
                    self.accepted = true;
                }
                Some(Err(why)) => self.refused = Some(why),
                // Before the turn's own answer: what the resume left.
                None => return actions,
            },
            Phase::Running { .. } => {}
            Phase::Gated | Phase::Done => return actions,
        }
        let answered =
            self.steers.iter().enumerate().find_map(|(at, (id, _))| {
                answer_to(message, *id).map(|answer| (at, answer.is_ok()))
            });
        if let Some((at, taken)) = answered {
            let (_, index) = self.steers.remove(at);
            if taken {
                actions.push(Action::SteerRead { index });
            }
        }
        actions.push(Action::Feed);
        actions
    }
}

#[cfg(test)]
#[path = "codex_warm_machine_tests.rs"]
mod tests;
