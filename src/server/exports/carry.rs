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
            Record::TurnFinished { turn_id, .. } => open.retain(|t| t.turn_id != *turn_id),
            _ => {}
        }
    }
    open
}

/// Input accepted and neither started, joined to a turn, nor withdrawn: (number, prompt).
pub fn waiting_inputs(entries: &[Entry]) -> Vec<(u32, String)> {
    let mut waiting: Vec<(u32, String)> = Vec::new();
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
                input: Some(input), ..
            } => waiting.retain(|w| w.0 != *input),
            _ => {}
        }
    }
    waiting
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::InputMode;
    use pretty_assertions::assert_eq;

    fn at(record: Record) -> Entry {
        Entry {
            at: "t".into(),
            record,
        }
    }

    fn accepted(n: u32, prompt: &str) -> Entry {
        at(Record::InputAccepted {
            input: n,
            prompt: prompt.into(),
            mode: InputMode::Queue,
            direct: false,
            provider: None,
            endpoint: None,
            model: None,
            dir: None,
            fresh: false,
        })
    }

    fn started(id: &str, n: u32, input: Option<u32>) -> Entry {
        at(Record::TurnStarted {
            turn_id: id.into(),
            number: n,
            conversation_id: "c".into(),
            provider: ProviderKind::Claude,
            prompt: "p".into(),
            input,
            mode: None,
        })
    }

    fn finished(id: &str) -> Entry {
        at(Record::TurnFinished {
            turn_id: id.into(),
            status: crate::words::TurnStatus::Completed,
            error: None,
            session_id: None,
            model: None,
            context: None,
            answer: String::new(),
            tools: vec![],
            notes: vec![],
            cost: None,
            duration_ms: None,
        })
    }

    #[test]
    fn running_turns_and_waiting_input_are_found() {
        let entries = vec![
            accepted(1, "one"),
            started("t1", 1, Some(1)),
            accepted(2, "two"),
            accepted(3, "three"),
            accepted(4, "four"),
            at(Record::InputEdited {
                input: 3,
                prompt: "three, edited".into(),
            }),
            at(Record::InputWithdrawn { input: 2 }),
            at(Record::InputSteered {
                input: 4,
                turn_id: "t1".into(),
            }),
            finished("t1"),
            accepted(5, "five"),
            started("t2", 2, Some(5)),
            accepted(6, "six"),
        ];
        assert_eq!(
            waiting_inputs(&entries),
            vec![(3, "three, edited".to_string()), (6, "six".to_string())]
        );
        assert_eq!(
            open_turns(&entries),
            vec![OpenTurn {
                turn_id: "t2".into(),
                number: 2,
                provider: ProviderKind::Claude,
            }]
        );
        assert_eq!(open_turns(&entries[..9]), vec![]);
        assert_eq!(live_conversation(&entries), None);
        assert!(!archived(&entries));
    }

    #[test]
    fn the_live_conversation_is_the_last_opened_as_an_earlier_import_re_pointed_it() {
        let opened = |id: &str, dir: &str| {
            at(Record::ConversationOpened {
                conversation_id: id.into(),
                number: 1,
                reason: crate::words::OpenReason::First,
                dir: dir.into(),
                system_text: format!("work in {dir}"),
                title: None,
                fork: None,
            })
        };
        let imported = |id: &str, dir: &str| {
            at(Record::Imported {
                from: crate::store::ImportedFrom {
                    baton_version: "0".into(),
                    dir: "/a".into(),
                    worktree: None,
                    exported_at: "t".into(),
                },
                name: "n".into(),
                dir: dir.into(),
                source: dir.into(),
                mode: crate::words::CheckoutMode::Folder,
                worktree: None,
                conversation: Some(crate::store::Repointed {
                    conversation_id: id.into(),
                    dir: dir.into(),
                    system_text: format!("work in {dir}"),
                }),
            })
        };
        let live = |entries: &[Entry]| {
            live_conversation(entries).map(|l| (l.conversation_id, l.dir, l.system_text))
        };
        let switched = |id: &str| {
            at(Record::SessionStarted {
                conversation_id: id.into(),
                turn_id: "t".into(),
                provider: ProviderKind::Codex,
                session_id: "s".into(),
                model: None,
                reason: crate::words::SessionReason::Switch,
                standing: vec!["rule".into()],
            })
        };
        let standing = |entries: &[Entry]| live_conversation(entries).unwrap().sessions_standing;
        assert_eq!(
            standing(&[opened("c1", "/a"), switched("c1"), switched("c0")]),
            vec![vec!["rule".to_string()]]
        );
        assert!(standing(&[opened("c1", "/a"), switched("c1"), opened("c2", "/a")]).is_empty());
        let want =
            |id: &str, dir: &str| Some((id.to_string(), dir.to_string(), format!("work in {dir}")));
        let cases = [
            (vec![opened("c1", "/a")], want("c1", "/a")),
            (
                vec![opened("c1", "/a"), imported("c1", "/b")],
                want("c1", "/b"),
            ),
            // an import that re-pointed another conversation changes nothing
            (
                vec![opened("c1", "/a"), imported("c0", "/b")],
                want("c1", "/a"),
            ),
            (
                vec![opened("c1", "/a"), imported("c1", "/b"), opened("c2", "/b")],
                want("c2", "/b"),
            ),
        ];
        for (entries, want) in cases {
            assert_eq!(live(&entries), want);
        }
        let archived_then = [
            at(Record::Archived),
            at(Record::Unarchived),
            at(Record::Archived),
        ];
        assert!(archived(&archived_then));
        assert!(!archived(&archived_then[..2]));
    }
}
