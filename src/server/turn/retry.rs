//! `baton queue NAME retry`: a turn a crash of the server cut short is not run again by itself
//! (its prompt may have reached the model, `server::recover`); this puts its prompt back at
//! the head of the queue as new input, once per turn.

use std::sync::Arc;

use super::super::state::Server;
use crate::error::BatonError;
use crate::protocol::views::QueuedView;
use crate::store::{Entry, Record, TerminalRow};
use crate::words::TurnStatus;

/// What the error of a turn a crash of the server cut short begins with (`server::recover`
/// writes it).
pub const CRASH_ERROR: &str = "the baton server stopped while this turn ran";

/// A turn the user may run again: its id, number and prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cut {
    turn_id: String,
    number: u32,
    prompt: String,
}

/// The latest turn in `entries` a crash of the server cut short (recovery closed it as
/// interrupted, [`CRASH_ERROR`]) whose prompt was not put back yet.
fn retryable(entries: &[Entry]) -> Option<Cut> {
    let mut started: Vec<Cut> = Vec::new();
    let mut cut: Vec<Cut> = Vec::new();
    for e in entries {
        match &e.record {
            Record::TurnStarted {
                turn_id,
                number,
                prompt,
                ..
            } => started.push(Cut {
                turn_id: turn_id.clone(),
                number: *number,
                prompt: prompt.clone(),
            }),
            Record::TurnFinished {
                turn_id,
                status: TurnStatus::Interrupted,
                error: Some(error),
                ..
            } if error.starts_with(CRASH_ERROR) => {
                cut.extend(started.iter().find(|s| s.turn_id == *turn_id).cloned());
            }
            Record::InputAccepted {
                retries: Some(t), ..
            } => cut.retain(|c| c.turn_id != *t),
            _ => {}
        }
    }
    cut.pop()
}

/// Puts the prompt of terminal `t`'s latest turn a crash cut short back at the head of its
/// queue, as new input (in one journal write: it is put back once or not at all).
pub fn retry(srv: &Arc<Server>, t: &TerminalRow) -> Result<Vec<QueuedView>, BatonError> {
    let rt = srv.runtime(&t.id);
    {
        let _queue = rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner());
        let Some(cut) = retryable(&srv.store.entries(&t.id)?) else {
            return Err(BatonError::bad_input(format!(
                "{} has no turn a crash of the server cut short left to retry (see `baton log {}`)",
                t.name, t.name
            )));
        };
        let input = super::queue::next_number(srv, &rt, &t.id)?;
        let accepted = Record::queued(input, cut.prompt, Some(cut.turn_id));
        let first = Record::InputMoved { input, position: 1 };
        srv.store.append_unindexed(&t.id, vec![accepted, first])?;
        srv.store.settle();
        crate::log_line!(
            "baton server: {}: turn {}'s prompt is back in the queue as input {input}",
            t.id,
            cut.number
        );
    }
    srv.announce(&t.id);
    super::queue::wake(srv, &t.id);
    super::super::read::queue(srv, t)
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
