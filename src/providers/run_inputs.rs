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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// A CLI that prints one line and exits.
    fn one_line() -> process::Spawned {
        process::spawn_with(
            std::path::Path::new("/bin/sh"),
            &["-c".into(), "echo out".into()],
            std::path::Path::new("/"),
            None,
            &[],
            process::Stdin::Once(Vec::new()),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn only_what_the_phase_takes_comes_first_and_the_rest_waits_unread() {
        let mut child = one_line();
        let (gate_tx, gate) = tokio::sync::oneshot::channel();
        let (steer_tx, steer) = tokio::sync::mpsc::unbounded_channel();
        let (interrupt_tx, interrupt) = tokio::sync::mpsc::unbounded_channel();
        gate_tx.send(()).unwrap();
        steer_tx.send("more".to_string()).unwrap();
        interrupt_tx.send(()).unwrap();
        let mut inputs = TurnInputs::new(Some(gate), Some(steer), Some(interrupt));
        // Long past: due at the first poll (one due now may wait for the timer's next tick).
        inputs.grace = Some(tokio::time::Instant::now() - std::time::Duration::from_secs(1));
        let all = Wants {
            gate: true,
            interrupts: true,
            grace: true,
            steers: true,
        };
        let nothing = Wants::default();
        // (what the phase takes, what comes)
        let cases = [
            (nothing, Input::Line("out".into())),
            (all, Input::Wake(Wake::GateOpened)),
            (all, Input::Wake(Wake::Interrupt)),
            (all, Input::Wake(Wake::GraceOver)),
            (all, Input::Wake(Wake::GraceOver)),
            (
                Wants {
                    steers: true,
                    ..nothing
                },
                Input::Wake(Wake::Steer("more".into())),
            ),
        ];
        for (wants, want) in cases {
            assert_eq!(inputs.next(wants, &mut child).await.unwrap(), want);
        }
        assert!(inputs.gate.is_none(), "a gate comes once");
        // Senders gone: their receivers are let go and stdout is read on.
        drop((steer_tx, interrupt_tx));
        inputs.grace = None;
        assert_eq!(
            inputs.next(all, &mut child).await.unwrap(),
            Input::Wake(Wake::Eof)
        );
        assert!(inputs.steer.is_none() && inputs.interrupt.is_none());
    }
}
