//! A Claude turn as a state machine: the [`Phase`] its CLI is in, and the pure
//! [`ClaudeTurn::step`] from an [`Event`] (the gate, an interrupt, a steer, a line's facts,
//! EOF) to the [`Action`]s `claude_turn` (`run_claude.rs`) carries out. The loop there only
//! waits for the next event; every decision (when the prompt goes, how an interrupt is asked,
//! when steers are taken, whether the CLI is kept, handed over while it exits, or read to its
//! end) is made here.

use super::inputs::{Wake, Wants};
use crate::words::TurnStatus;

/// Where a Claude turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Started, its prompt held until the gate opens.
    Gated,
    /// Its prompt will never be sent (the gate closed, or an interrupt came first): stdin is
    /// closed and the CLI read to its exit.
    Unprompted,
    /// Its prompt sent: the turn runs and takes steers.
    Running,
    /// Asked to interrupt by its own request on stdin: SIGINT if the grace runs out first.
    Interrupting,
    /// SIGINT sent: nothing more is asked of it.
    Signalled,
    /// Its result came and the CLI is not reused: stdin closed, read to its exit.
    Draining,
    /// The loop ends; what happens to the CLI.
    Done(Exit),
}

/// What happens to the CLI once the loop ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exit {
    /// Its result left it reusable and it is kept for the next turn; `completed`: the turn
    /// completed without an interrupt (its last message will be in its session file).
    Keep { completed: bool },
    /// Its result left it reusable and it is handed over, stdin closed, while it exits.
    AtResult,
    /// It closed its stdout: it is reaped and the turn read off its exit.
    Reaped,
}

/// What happened, as the step sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Event {
    /// The gate, an interrupt, its grace, a steer, EOF.
    Wake(Wake),
    /// A line was the CLI's echo of a message it took in (the prompt, then each steer).
    Echo,
    /// A line told of a tool that runs a subagent.
    Subagent,
    /// A line was the turn's result; `interrupted`: an interrupt was asked for meanwhile.
    Result {
        status: TurnStatus,
        interrupted: bool,
    },
}

/// What the loop does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Action {
    /// Writes the prompt's line.
    SendPrompt,
    /// Writes a steer's line.
    Steer(String),
    /// Writes the interrupt request and starts its grace ([`super::INTERRUPT_GRACE`]).
    AskInterrupt,
    /// Sends SIGINT to the CLI's process group.
    Signal,
    /// Logs that the interrupt request went unanswered, then sends SIGINT.
    SignalUnanswered,
    /// Closes the CLI's stdin: it exits at EOF.
    CloseStdin,
    /// Drops the gate: the prompt will never be sent.
    DropGate,
    /// Tells the caller the CLI took in steer `index`.
    SteerRead { index: usize },
}

/// How the turn was set up.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Setup {
    /// Its prompt waits for a gate.
    pub gated: bool,
    /// Nothing will follow the prompt (no steers, interrupts or next turn): EOF right after it.
    pub only_prompt: bool,
    /// A clean turn's CLI is kept warm.
    pub keep: bool,
    /// A clean turn's CLI not kept is handed over while it exits.
    pub closing: bool,
}

/// A Claude turn's state: its phase, and what it counted.
#[derive(Debug, Clone)]
pub(super) struct ClaudeTurn {
    setup: Setup,
    phase: Phase,
    /// Steers written to it.
    forwarded: usize,
    /// Echoes of messages it took in (the prompt's first).
    replays: usize,
    /// It ran a subagent.
    subagent: bool,
}

impl ClaudeTurn {
    /// The turn as it starts, and what is done at once (the prompt, ungated).
    pub(super) fn start(setup: Setup) -> (ClaudeTurn, Vec<Action>) {
        let mut turn = ClaudeTurn {
            setup,
            phase: Phase::Gated,
            forwarded: 0,
            replays: 0,
            subagent: false,
        };
        let actions = if setup.gated {
            Vec::new()
        } else {
            turn.send_prompt()
        };
        (turn, actions)
    }

    pub(super) fn phase(&self) -> Phase {
        self.phase
    }

    /// The turn's result has not come (nor its end).
    pub(super) fn awaits_result(&self) -> bool {
        !matches!(self.phase, Phase::Draining | Phase::Done(_))
    }

    /// What the loop waits for besides stdout: the gate before the prompt; interrupts until
    /// the result; the interrupt request's grace while it runs; steers once the prompt went and
    /// until an interrupt or the result.
    pub(super) fn wants(&self) -> Wants {
        Wants {
            gate: self.phase == Phase::Gated,
            interrupts: self.awaits_result(),
            grace: self.phase == Phase::Interrupting,
            steers: self.phase == Phase::Running,
        }
    }

    /// Steers were written to it that it has not echoed (the first echo is the prompt's).
    fn steers_unread(&self) -> bool {
        self.forwarded > self.replays.saturating_sub(1)
    }

    fn send_prompt(&mut self) -> Vec<Action> {
        self.phase = Phase::Running;
        let mut actions = vec![Action::SendPrompt];
        if self.setup.only_prompt {
            actions.push(Action::CloseStdin);
        }
        actions
    }

    /// The next phase and the actions `event` calls for.
    pub(super) fn step(&mut self, event: Event) -> Vec<Action> {
        use Phase::{Done, Draining, Gated, Interrupting, Running, Signalled, Unprompted};
        use Wake::{Eof, GateClosed, GateOpened, GraceOver, Interrupt, Steer};
        let event = match event {
            Event::Wake(wake) => wake,
            Event::Echo => return self.echo(),
            Event::Subagent => {
                self.subagent = true;
                return Vec::new();
            }
            Event::Result {
                status,
                interrupted,
            } => return self.result(status, interrupted),
        };
        match (self.phase, event) {
            (Done(_), _) => Vec::new(),
            (_, Eof) => self.end(Exit::Reaped),
            (Gated, GateOpened) => self.send_prompt(),
            (Gated, GateClosed) => self.unprompted(Vec::new()),
            (_, GateOpened | GateClosed) => Vec::new(),
            // Before its prompt: it never gets one, and exits at EOF.
            (Gated, Interrupt) => self.unprompted(vec![Action::DropGate]),
            // Steers it holds but has not taken in would run as turns of their own after an
            // interrupt request (it reads on): SIGINT ends it with them unread, and they wait
            // again at the head of the queue.
            (Running, Interrupt) if self.steers_unread() => {
                self.phase = Signalled;
                vec![Action::Signal]
            }
            (Running, Interrupt) => {
                self.phase = Interrupting;
                vec![Action::AskInterrupt]
            }
            // Unprompted, its stdin is closed and it exits at EOF: nothing more goes in.
            (Unprompted | Interrupting | Signalled | Draining, Interrupt) => Vec::new(),
            (Interrupting, GraceOver) => {
                self.phase = Signalled;
                vec![Action::SignalUnanswered]
            }
            (_, GraceOver) => Vec::new(),
            // No steer goes in once an interrupt was asked for: those wait again.
            (Running, Steer(text)) => {
                self.forwarded += 1;
                vec![Action::Steer(text)]
            }
            (_, Steer(_)) => Vec::new(),
        }
    }

    /// The first echo is the prompt; each later one a steer it took in.
    fn echo(&mut self) -> Vec<Action> {
        self.replays += 1;
        match self.replays - 1 {
            0 => Vec::new(),
            n => vec![Action::SteerRead { index: n - 1 }],
        }
    }

    fn unprompted(&mut self, mut actions: Vec<Action>) -> Vec<Action> {
        self.phase = Phase::Unprompted;
        actions.push(Action::CloseStdin);
        actions
    }

    fn end(&mut self, exit: Exit) -> Vec<Action> {
        self.phase = Phase::Done(exit);
        Vec::new()
    }

    fn result(&mut self, status: TurnStatus, interrupted: bool) -> Vec<Action> {
        if !self.awaits_result() {
            return Vec::new();
        }
        let end = TurnEnd {
            status,
            interrupted,
            // Interrupted by its own request, the CLI ended the turn and reads on.
            took_interrupt: self.phase == Phase::Interrupting,
            steers_unread: self.steers_unread(),
            subagent: self.subagent,
        };
        match (
            self.setup.keep,
            self.setup.closing,
            end.leaves_cli_reusable(),
        ) {
            (true, _, true) => self.end(Exit::Keep {
                completed: status == TurnStatus::Completed && !interrupted,
            }),
            (false, true, true) => self.end(Exit::AtResult),
            _ => {
                self.phase = Phase::Draining;
                vec![Action::CloseStdin]
            }
        }
    }
}

/// How a Claude turn ended, as far as its CLI's next turn is concerned.
#[derive(Debug, Clone, Copy)]
pub(super) struct TurnEnd {
    pub status: TurnStatus,
    /// An interrupt was asked for.
    pub interrupted: bool,
    /// The CLI ended the turn on its own interrupt request (no signal was sent).
    pub took_interrupt: bool,
    /// Steers were handed to it that it has not taken in: they would run after the result.
    pub steers_unread: bool,
    /// It ran a subagent, which may still print after the result.
    pub subagent: bool,
}

impl TurnEnd {
    /// Whether the CLI is left waiting for a next message with nothing of this turn to come.
    pub(super) fn leaves_cli_reusable(&self) -> bool {
        let ended_well =
            self.status == TurnStatus::Completed && !self.interrupted || self.took_interrupt;
        ended_well && !self.steers_unread && !self.subagent
    }
}

#[cfg(test)]
#[path = "run_claude_machine_tests.rs"]
mod tests;
