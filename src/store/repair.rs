//! A journal whose first line cannot be read (a bad byte, a torn write) still names its
//! terminal: [`stand_in_created`] makes the `TerminalCreated` the index needs from what the
//! rest of the journal says (where runs happened, the provider, a later rename), so the
//! terminal and its history stay listed, under `recovered-<id>` until renamed, and its id is
//! never reused. The journal itself is left as it is (a repair tool may look at it).

use super::records::{Entry, Record};
use crate::words::CheckoutMode;

/// The name a terminal whose first line is lost is listed under.
pub fn recovered_name(tid: &str) -> String {
    let tail: String = tid
        .chars()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("recovered-{tail}")
}

/// A `TerminalCreated` for journal `tid` when its entries do not start with one (None when
/// they do, or when there is nothing to list).
pub fn stand_in_created(tid: &str, entries: &[Entry]) -> Option<Record> {
    match entries.first() {
        None
        | Some(Entry {
            record: Record::TerminalCreated { .. },
            ..
        }) => return None,
        Some(_) => {}
    }
    let mut dir = None;
    let mut mode = CheckoutMode::Folder;
    let mut worktree = None;
    let mut provider = None;
    for e in entries {
        match &e.record {
            Record::CheckoutMoved {
                dir: d,
                mode: m,
                worktree: w,
                ..
            }
            | Record::Imported {
                dir: d,
                mode: m,
                worktree: w,
                ..
            } => {
                dir = Some(d.clone());
                mode = *m;
                worktree = w.clone();
            }
            Record::DirChanged { dir: d } => dir = Some(d.clone()),
            Record::ConversationOpened { dir: d, .. } if dir.is_none() => dir = Some(d.clone()),
            Record::SettingsChanged { provider: p, .. } => provider = Some(*p),
            Record::TurnStarted { provider: p, .. } if provider.is_none() => provider = Some(*p),
            _ => {}
        }
    }
    let dir = dir.unwrap_or_default();
    Some(Record::TerminalCreated {
        terminal_id: tid.to_string(),
        name: recovered_name(tid),
        source: dir.clone(),
        dir,
        mode,
        worktree,
        provider: provider.unwrap_or_default(),
        model: None,
        brief: None,
        endpoint: None,
    })
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
