//! What a turn's loop waits on (Claude's, a warm Codex's): its prompt's gate, interrupts,
//! the interrupt request's grace, steers, and the CLI's stdout, each polled only while the
//! turn's phase takes it ([`Wants`]). The loop turns what comes into its machine's events.

use super::process;

/// What the turn's phase takes besides stdout, which it always reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(in crate::providers) struct Wants {
    pub gate: bool,
    pub interrupts: bool,
    pub grace: bool,
    pub steers: bool,
}

/// What came: a stdout line, for the loop to read, or what a turn's machine takes as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::providers) enum Input {
    Line(String),
    Wake(Wake),
}

/// What came besides a stdout line: events of both turn machines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::providers) enum Wake {
    /// The gate opened.
    GateOpened,
    /// The gate's sender went away: no prompt may reach the CLI.
    GateClosed,
    /// An interrupt was asked for.
    Interrupt,
    /// The interrupt request's grace ran out.
    GraceOver,
    /// A steer's text.
    Steer(String),
    /// The CLI closed its stdout.
    Eof,
}

/// The receivers a turn's loop waits on; each is set to None once its sender has gone.
pub(in crate::providers) struct TurnInputs {
    pub gate: Option<tokio::sync::oneshot::Receiver<()>>,
    pub steer: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
    pub interrupt: Option<tokio::sync::mpsc::UnboundedReceiver<()>>,
    /// When the interrupt asked for is given up on and SIGINT sent instead.
    pub grace: Option<tokio::time::Instant>,
}

impl TurnInputs {
    pub(in crate::providers) fn new(
        gate: Option<tokio::sync::oneshot::Receiver<()>>,
        steer: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
        interrupt: Option<tokio::sync::mpsc::UnboundedReceiver<()>>,
    ) -> TurnInputs {
        TurnInputs {
            gate,
            steer,
            interrupt,
            grace: None,
        }
    }

    /// The next thing to come that `wants` takes, in this order of precedence. Every branch is
    /// cancel-safe: a oneshot, an unbounded receiver, a sleep, and the CLI's line reader
    /// (which keeps a partial line in its buffer).
    pub(in crate::providers) async fn next(
        &mut self,
        wants: Wants,
        child: &mut process::Spawned,
    ) -> std::io::Result<Input> {
        loop {
            tokio::select! {
                biased;
                opened = wait_gate(&mut self.gate), if wants.gate && self.gate.is_some() => {
                    self.gate = None;
                    return Ok(match opened {
                        Ok(()) => Input::Wake(Wake::GateOpened),
                        Err(_) => Input::Wake(Wake::GateClosed),
                    });
                }
                asked = next_of(&mut self.interrupt), if wants.interrupts && self.interrupt.is_some() => {
                    match asked {
                        Some(()) => return Ok(Input::Wake(Wake::Interrupt)),
                        None => self.interrupt = None,
                    }
                }
                () = wait_until(self.grace), if wants.grace && self.grace.is_some() => {
                    return Ok(Input::Wake(Wake::GraceOver));
                }
                more = next_of(&mut self.steer), if wants.steers && self.steer.is_some() => {
                    match more {
                        Some(text) => return Ok(Input::Wake(Wake::Steer(text))),
                        None => self.steer = None,
                    }
                }
                line = child.next_line() => {
                    return Ok(match line? {
                        Some(line) => Input::Line(line),
                        None => Input::Wake(Wake::Eof),
                    });
                }
            }
        }
    }
}

async fn wait_gate(
    gate: &mut Option<tokio::sync::oneshot::Receiver<()>>,
) -> Result<(), tokio::sync::oneshot::error::RecvError> {
    match gate {
        Some(g) => g.await,
        None => std::future::pending().await,
    }
}

async fn wait_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The next message of `rx`; never, when there is none.
async fn next_of<T>(rx: &mut Option<tokio::sync::mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(s) => s.recv().await,
        None => std::future::pending().await,
    }
}
