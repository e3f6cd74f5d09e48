//! The queue held after a user's interrupt: "stop, this is going wrong" must not start the
//! next waiting prompt by itself. An interrupt the user asked for (`baton interrupt`, the
//! multiplexer's Esc, Ctrl-c on `send`) holds the terminal's queue when input waits; the
//! runner then takes nothing until `baton queue NAME run` (the multiplexer: `r` on a waiting
//! input) resumes it. A jump (it asked for its input to run next) releases the hold; a
//! server stop's interrupts never hold.
//!
//! The hold lives in the server's memory only, on purpose: after a restart waiting input runs
//! as it always did (`docs/guide.md`, "Sending prompts"), so no journal record is needed and a
//! restart does not change what the journal says. Persisting it would cost a record kind and
//! an index column for a state that a user at the keyboard resolves in seconds.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::super::state::{Server, TermRuntime};
use crate::error::BatonError;
use crate::protocol::views::{InterruptedView, QueuedView};
use crate::store::TerminalRow;

/// Whether a user's interrupt holds the queue: only when input waits behind the turn (else
/// there is nothing to hold, and the next prompt the user sends should just run). Pure.
pub fn holds(waiting_behind: usize) -> bool {
    waiting_behind > 0
}

/// `baton interrupt` (and the multiplexer's Esc, Ctrl-c on `send`): the interrupt, then the
/// hold when input waits behind the turn.
pub fn interrupt(srv: &Server, name: &str) -> Result<InterruptedView, BatonError> {
    let interrupted = super::super::terminals::interrupt(srv, name)?;
    // Stopping the last turn's exiting CLI interrupts no turn: the prompts waiting for it
    // are what the user wants to run.
    if interrupted.stopped_exiting_cli.is_none() {
        let t = srv.terminal(name)?;
        after_interrupt(srv, &srv.runtime(&t.id), &t);
    }
    Ok(interrupted)
}

/// After a user's interrupt of `t`'s turn: holds its queue when input waits behind it.
fn after_interrupt(srv: &Server, rt: &TermRuntime, t: &TerminalRow) {
    let taken = rt.taken();
    let behind = srv
        .store
        .waiting_inputs(&t.id)
        .map(|w| w.iter().filter(|i| Some(i.number) != taken).count())
        .unwrap_or(0);
    if holds(behind) {
        rt.held.store(true, Ordering::SeqCst);
        srv.announce(&t.id);
    }
}

/// Whether the runner must leave the queue alone.
pub fn is_held(rt: &TermRuntime) -> bool {
    rt.queue_held()
}

/// What a send into a held queue is told.
pub fn held_note(name: &str) -> String {
    format!("{name}'s queue is held after an interrupt: `baton queue {name} run` runs it")
}

/// Ends a hold (a jump, a resume).
pub fn release(rt: &TermRuntime) {
    rt.held.store(false, Ordering::SeqCst);
}

/// `baton queue NAME run`: the held queue goes on (a queue that is not held is left as it is).
pub fn resume(srv: &Arc<Server>, t: &TerminalRow) -> Result<Vec<QueuedView>, BatonError> {
    release(&srv.runtime(&t.id));
    srv.announce(&t.id);
    super::queue::wake(srv, &t.id);
    super::super::read::queue(srv, t)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_input_waiting_behind_the_turn_is_held() {
        for (behind, want) in [(0, false), (1, true), (3, true)] {
            assert_eq!(super::holds(behind), want, "{behind}");
        }
    }
}
