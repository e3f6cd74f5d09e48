//! A finished turn read back step by step from its raw stream (`Request::Steps`), for a client
//! that did not watch it: the log keeps one line per tool call, and the raw stream (kept per
//! turn, line by line, as it arrived) has the results, edits, subagent steps and refusals too.
//! The same parsers that read the live stream read it again, in the turn's checkout (tool
//! paths relative to it), so a client draws the turn as it would have drawn it live.

use std::path::{Path, PathBuf};

use super::state::Server;
use crate::error::BatonError;
use crate::protocol::views::StepsView;
use crate::words::{ProviderKind, TurnEvent};

/// Turn `number` of terminal `name`, step by step.
pub fn steps(srv: &Server, name: &str, number: u32) -> Result<StepsView, BatonError> {
    let t = srv.terminal(name)?;
    let Some(turn) = srv.store.turn(&t.id, number)? else {
        return Err(BatonError::bad_input(format!(
            "{name} has no turn {number} (see `baton log {name}`)"
        )));
    };
    let dir = conversation_dir(srv, &t.id, &turn.conversation_id)
        .unwrap_or_else(|| PathBuf::from(&t.dir));
    let path = srv.turn_file(&t.id, &turn.id);
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        // Pruned, or never written (a turn that failed before its CLI printed anything).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(BatonError::failed(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    Ok(StepsView {
        name: t.name,
        turn: number,
        events: read_back(&text, turn.provider, &dir),
    })
}

/// The steps a client draws of raw stream `text`: every event but the session, usage and end
/// (the log has those).
pub fn read_back(text: &str, provider: ProviderKind, cwd: &Path) -> Vec<TurnEvent> {
    let mut out = events(text, provider, Some(cwd));
    out.retain(|e| {
        !matches!(
            e,
            TurnEvent::Session { .. } | TurnEvent::Usage { .. } | TurnEvent::End { .. }
        )
    });
    out
}

/// Every event of raw stream `text` of a `provider` turn run in `dir` (tool paths relative to
/// it; None: an imported turn, whose old machine's directory is not at hand), by the parser that
/// read it live. Recovery after a crash reads it too (`recover::streamed`).
pub(super) fn events(text: &str, provider: ProviderKind, dir: Option<&Path>) -> Vec<TurnEvent> {
    match crate::providers::of(provider).parser(dir) {
        Some(mut parser) => text.lines().flat_map(|line| parser.feed(line)).collect(),
        // A local turn's raw stream is the endpoint's; its messages are journalled.
        None => Vec::new(),
    }
}

/// The directory conversation `conversation` of terminal `tid` ran in, when the index has one.
pub(super) fn conversation_dir(srv: &Server, tid: &str, conversation: &str) -> Option<PathBuf> {
    srv.store
        .conversations(tid)
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.id == conversation)
        .map(|c| PathBuf::from(c.dir))
        .filter(|d| !d.as_os_str().is_empty())
}

#[cfg(test)]
#[path = "steps_tests.rs"]
mod tests;
