//! What an import reads out of the exported journal, pure: the live conversation (to re-point
//! it, as an earlier import may have), whether it is archived, the last known worktree (where it came from), turns that were still running (closed
//! as interrupted) and input that was still waiting (withdrawn: it must not start by itself
//! on a machine the user has not looked at yet).

use crate::git::Worktree;
use crate::store::{Entry, Record};
use crate::words::ProviderKind;

/// The conversation a send would carry on: the last one opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Live {
    pub conversation_id: String,
    pub dir: String,
    pub system_text: String,
    /// The system text kept in the session file a fork's first turn starts from.
    pub fork_text: Option<String>,
    /// The standing lines each of its later sessions added to its text (a switch's, a lost
    /// session's): a Codex thread keeps that text, which the import re-points too.
    pub sessions_standing: Vec<Vec<String>>,
}

pub fn live_conversation(entries: &[Entry]) -> Option<Live> {
    let mut live: Option<Live> = None;
    for e in entries {
        match &e.record {
            Record::ConversationOpened {
                conversation_id,
                dir,
                system_text,
                fork,
                ..
            } => {
                live = Some(Live {
                    conversation_id: conversation_id.clone(),
                    dir: dir.clone(),
                    system_text: system_text.clone(),
                    fork_text: fork.as_ref().and_then(|f| f.system_text.clone()),
                    sessions_standing: Vec::new(),
                })
            }
            Record::SessionStarted {
                conversation_id,
                standing,
                ..
            } if !standing.is_empty() => {
                if let Some(l) = live
                    .as_mut()
                    .filter(|l| l.conversation_id == *conversation_id)
                {
                    l.sessions_standing.push(standing.clone());
                }
            }
            // An earlier import re-pointed it (a terminal moved twice).
            Record::Imported {
                conversation: Some(r),
                ..
            } => {
                if let Some(l) = live
                    .as_mut()
                    .filter(|l| l.conversation_id == r.conversation_id)
                {
                    l.dir = r.dir.clone();
                    l.system_text = r.system_text.clone();
                }
            }
            _ => {}
        }
    }
    live
}

/// Whether the terminal is archived at the end of the journal.
pub fn archived(entries: &[Entry]) -> bool {
    entries.iter().fold(false, |archived, e| match e.record {
        Record::Archived => true,
        Record::Unarchived => false,
        _ => archived,
    })
}

/// The worktree the terminal last ran in, as its journal knows it.
pub fn last_worktree(entries: &[Entry]) -> Option<Worktree> {
    entries.iter().rev().find_map(|e| match &e.record {
        Record::TerminalCreated { worktree, .. }
        | Record::CheckoutMoved { worktree, .. }
        | Record::Imported { worktree, .. } => Some(worktree.clone()),
        _ => None,
    })?
}

/// A turn the journal started and never finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTurn {
    pub turn_id: String,
    pub number: u32,
    pub provider: ProviderKind,
}

pub fn open_turns(entries: &[Entry]) -> Vec<OpenTurn> {
    let mut open: Vec<OpenTurn> = Vec::new();
    for e in entries {
        match &e.record {
            Record::TurnStarted {
                turn_id,
                number,
                provider,
                ..
            } => open.push(OpenTurn {
                turn_id: turn_id.clone(),
                number: *number,
                provider: *provider,
            }),
            Record::TurnFinished { turn_id, .. } | Record::TurnVoided { turn_id } => {
                open.retain(|t| t.turn_id != *turn_id)
            }
            _ => {}
        }
    }
    open
}

/// Input accepted and neither started, joined to a turn, nor withdrawn: (number, prompt).
pub fn waiting_inputs(entries: &[Entry]) -> Vec<(u32, String)> {
    let mut waiting: Vec<(u32, String)> = Vec::new();
    // Taken by a turn whose start may be voided (the input then waits again, first).
    let mut taken: Vec<(String, (u32, String))> = Vec::new();
    for e in entries {
        match &e.record {
            Record::InputAccepted { input, prompt, .. } => waiting.push((*input, prompt.clone())),
            Record::InputEdited { input, prompt } => {
                if let Some(w) = waiting.iter_mut().find(|w| w.0 == *input) {
                    w.1 = prompt.clone();
                }
            }
            Record::InputWithdrawn { input } | Record::InputSteered { input, .. } => {
                waiting.retain(|w| w.0 != *input)
            }
            Record::TurnStarted {
                input: Some(input),
                turn_id,
                ..
            } => {
                if let Some(i) = waiting.iter().position(|w| w.0 == *input) {
                    taken.push((turn_id.clone(), waiting.remove(i)));
                }
            }
            Record::TurnVoided { turn_id } => {
                if let Some(i) = taken.iter().position(|t| t.0 == *turn_id) {
                    waiting.insert(0, taken.remove(i).1);
                }
            }
            _ => {}
        }
    }
    waiting
}

#[cfg(test)]
#[path = "carry_tests.rs"]
mod tests;
