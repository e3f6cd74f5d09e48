//! What a terminal's journal holds: one [`Entry`] per line, each a timestamped [`Record`].
//! Records carry every fact the index needs, so the index can be rebuilt from them alone.

use serde::{Deserialize, Serialize};

use crate::git::Worktree;
use crate::words::{CheckoutMode, InputMode, OpenReason, SessionReason, TurnMode};
use crate::words::{ContextUsage, ProviderKind, TurnStatus};

/// One journal line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// RFC 3339 UTC time with milliseconds.
    pub at: String,
    #[serde(flatten)]
    pub record: Record,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// A permission request of a turn's CLI: asked, answered, expired, its rule removed
    /// (`crate::approvals`). Older baton skips these lines.
    Approval(crate::approvals::ApprovalRecord),
    TerminalCreated {
        terminal_id: String,
        name: String,
        /// Where runs happen (inside the worktree when there is one).
        dir: String,
        /// The directory the user opened the terminal on.
        source: String,
        mode: CheckoutMode,
        worktree: Option<Worktree>,
        provider: ProviderKind,
        model: Option<String>,
        brief: Option<String>,
        /// The `local` provider's endpoint name (absent for the CLIs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        endpoint: Option<String>,
    },
    /// The runs moved: the folder became a repository (adopted into a worktree), the worktree
    /// was moved, or it was recreated after being deleted.
    CheckoutMoved {
        dir: String,
        mode: CheckoutMode,
        worktree: Option<Worktree>,
        reason: String,
    },
    /// A turn's changes were committed on the terminal's branch.
    TurnCommitted {
        turn_id: String,
        commit: String,
    },
    /// `baton rm`: the terminal is gone from the index; its journal stays on disk (unless the
    /// removal purges it: then its whole folder goes right after this line is synced).
    TerminalRemoved,
    /// `baton rm` began: written before anything is removed, so a removal a crash cut short
    /// is finished by the next server start or `baton reindex` (`TerminalRemoved` ends it).
    /// From here on the terminal is gone from listings.
    RemovalStarted {
        delete_branch: bool,
        force: bool,
        /// `baton prune`: baton's own data of the terminal (`terminals/<id>/`) is deleted once
        /// it is removed, so its disk space is freed (`rm` keeps the journal).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        purge: bool,
    },
    /// The removal could not be carried out (git refused): the terminal is back as it was.
    RemovalCancelled {
        error: String,
    },
    /// `baton archive`: hidden from `ls` and the multiplexer's list; nothing else changes.
    Archived,
    /// `baton unarchive`.
    Unarchived,
    /// This terminal was made by `baton fork` or `baton rewind` of another one (the index
    /// also lists it among the forks of that one: the original's journal is not touched).
    Forked {
        from: ForkLink,
    },
    /// The user titled the conversation (`baton rename NAME --conversation TITLE`).
    ConversationTitled {
        conversation_id: String,
        title: String,
    },
    /// A local conversation's earlier turns, copied from the terminal it was forked from:
    /// each turn's messages in Chat Completions form, oldest first.
    HistoryCopied {
        conversation_id: String,
        turns: Vec<Vec<serde_json::Value>>,
    },
    /// `baton rename`: the terminal is known by this name from now on.
    Renamed {
        name: String,
    },
    /// `send --provider/--model` changed the terminal's choice from this turn on.
    SettingsChanged {
        provider: ProviderKind,
        model: Option<String>,
        /// The `local` provider's endpoint name (absent for the CLIs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        endpoint: Option<String>,
    },
    /// `send --dir` moved the terminal's runs to another directory from this turn on.
    DirChanged {
        dir: String,
    },
    ConversationOpened {
        conversation_id: String,
        number: u32,
        reason: OpenReason,
        dir: String,
        /// The system text, frozen for the conversation's life.
        system_text: String,
        /// The title it carries on with (a fork's, from the original); else its first prompt's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// The session its first turn forks (a fork or rewind of another terminal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fork: Option<SessionFork>,
    },
    TurnStarted {
        turn_id: String,
        number: u32,
        conversation_id: String,
        provider: ProviderKind,
        prompt: String,
        /// The input the turn runs (absent in journals from before inputs were journalled).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<TurnMode>,
        /// When the turn opens a provider session: the standing instructions its system text
        /// adds to its conversation's (`session_started`'s `standing`), so that recovery records
        /// them if the server dies before it journalled the session. Absent otherwise.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        standing: Vec<String>,
        /// The machine's boot (`/proc/sys/kernel/random/boot_id`) the server ran in: while
        /// it is the same, the journal as read back holds every line the dead server wrote,
        /// synced or not, so a start without its `turn_prompted` never handed its prompt over
        /// (`server::recover`). Absent in older journals (and where unreadable).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        boot: Option<String>,
    },
    /// The prompt of turn `turn_id` goes out now: written (not synced) right before it is
    /// handed to the CLI (the gate opens) or sent to the endpoint, after everything slow. A
    /// start without it on the same boot never reached the CLI. Older baton skips the line.
    TurnPrompted {
        turn_id: String,
    },
    /// Recovery found turn `turn_id`'s start never handed its prompt over: the start is void
    /// (no turn, no number spent) and its input waits again, under its number, at the head
    /// of the queue. Older baton skips the line.
    TurnVoided {
        turn_id: String,
    },
    /// The turn's CLI started: what identifies it, so a server that starts after a crash can
    /// find it and stop it (it leads its own process group, `pid`).
    TurnProcess {
        turn_id: String,
        pid: i32,
        /// The process's start time in clock ticks since boot (`/proc/PID/stat` field 22): a
        /// pid reused by another process has another.
        start_time: u64,
    },
    /// A prompt handed to the terminal: journalled and synced before the send is acknowledged.
    /// It waits until it starts a turn or joins one.
    InputAccepted {
        input: u32,
        prompt: String,
        mode: InputMode,
        /// Nothing ran or waited when it came: its turn is `direct`.
        #[serde(default)]
        direct: bool,
        /// A switch of provider (and endpoint), model or directory from its turn on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider: Option<ProviderKind>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        endpoint: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dir: Option<String>,
        /// Its turn opens a fresh conversation (`send --fresh`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fresh: bool,
        /// `baton queue NAME retry`: the prompt of this turn (its id), which a crash of the
        /// server cut short, put back in the queue (a turn is put back once).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retries: Option<String>,
    },
    /// Waiting input's text was replaced.
    InputEdited {
        input: u32,
        prompt: String,
    },
    /// Waiting input was taken back.
    InputWithdrawn {
        input: u32,
    },
    /// Waiting input moved to `position` (1 = next to run).
    InputMoved {
        input: u32,
        position: u32,
    },
    /// Waiting input is now meant to steer the running turn (or queue again).
    InputModeChanged {
        input: u32,
        mode: InputMode,
    },
    /// Waiting input jumps: it runs next, and the running turn is interrupted for it.
    InputJumped {
        input: u32,
    },
    /// Waiting input joined the running turn `turn_id` (the CLI took it mid-turn).
    InputSteered {
        input: u32,
        turn_id: String,
    },
    SessionStarted {
        conversation_id: String,
        turn_id: String,
        provider: ProviderKind,
        session_id: String,
        model: Option<String>,
        reason: SessionReason,
        /// The standing instructions its system text adds to its conversation's (the lines
        /// the terminal gained after the conversation opened: `engine::system_text::session_text`).
        /// Absent when it adds none, and in journals from before it was kept.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        standing: Vec<String>,
    },
    TurnFinished {
        turn_id: String,
        status: TurnStatus,
        error: Option<String>,
        session_id: Option<String>,
        model: Option<String>,
        context: Option<ContextUsage>,
        answer: String,
        tools: Vec<String>,
        notes: Vec<String>,
        /// What it cost, as the CLI reported it (absent in journals before costs were kept).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<crate::words::TurnCost>,
        /// From its start to its end as the server measured it (a monotonic clock, the
        /// figure `send` reports as `elapsed_ms`). Absent in journals before it was kept and
        /// for a turn another server closed (a crash's, an import's): its times say it then
        /// ([`crate::words::turn_duration_ms`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// The messages a `local` turn added to baton's own conversation loop (the user prompt, the
    /// assistant's answers and tool calls, the tool results), in Chat Completions form. Sent
    /// back on every later local run of the conversation; written before `TurnFinished`.
    LocalMessages {
        turn_id: String,
        messages: Vec<serde_json::Value>,
        /// Earlier turns of the conversation the turn's last request left out to fit the
        /// window (the next turn compares the server's count with the same request).
        #[serde(default, skip_serializing_if = "is_zero")]
        left_out: usize,
    },
    InstructionAdded {
        text: String,
        turn_id: Option<String>,
    },
    InstructionRemoved {
        text: String,
    },
    /// The standing instruction `text` says `new_text` from now on, in the same place.
    InstructionEdited {
        text: String,
        new_text: String,
    },
    InstructionsCleared,
    /// `baton import`: the records before this one were written on another machine (or data
    /// directory); from here on the terminal is called `name` and runs in `dir`. Its live
    /// conversation carries on there (`conversation`): rule 1 of the send path does not fire,
    /// because that conversation's directory and system text are re-pointed too.
    Imported {
        from: ImportedFrom,
        name: String,
        dir: String,
        source: String,
        mode: CheckoutMode,
        worktree: Option<Worktree>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<Repointed>,
    },
}

/// Where an imported terminal was exported from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedFrom {
    pub baton_version: String,
    /// The run directory there.
    pub dir: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<Worktree>,
    pub exported_at: String,
}

/// The live conversation of an imported terminal, re-pointed at the new run directory with the
/// system text that names it (the CLI session files placed by the import say the same).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repointed {
    pub conversation_id: String,
    pub dir: String,
    pub system_text: String,
}

/// The other end of a fork: the terminal (by id and its name then), the conversation, the
/// turn, and whether it was a rewind (the fork stops before `turn`) or a fork (after it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkLink {
    pub terminal_id: String,
    pub name: String,
    pub conversation_id: Option<String>,
    /// A fork: the original's last turn it carries; a rewind: the turn it stops before.
    pub turn: u32,
    #[serde(default)]
    pub rewind: bool,
}

/// The provider session a forked conversation's first turn starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFork {
    pub provider: ProviderKind,
    pub session_id: String,
    /// The model that session is pinned to.
    pub model: Option<String>,
    /// Where a rewind cuts the copy back to (Claude's `--resume-session-at` entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The copy was made when the fork was asked for (its id is `session_id`): resume it.
    #[serde(default)]
    pub ready: bool,
    /// The system text that session was started with (a Claude session keeps it in its file:
    /// the fork's copy is given the new one, see `providers::claude::session::prepare_fork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_text: Option<String>,
}

/// What an id in a record names (see [`Record::ids`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Terminal,
    Conversation,
    Turn,
    /// A provider's session (a CLI keeps it in a file named after it).
    Session,
}

impl Record {
    /// Input `input` queued with `prompt`, nothing else asked; `retries`: the turn a crash cut
    /// short whose prompt it puts back (`baton queue NAME retry`).
    pub fn queued(input: u32, prompt: String, retries: Option<String>) -> Record {
        Record::InputAccepted {
            input,
            prompt,
            mode: InputMode::Queue,
            direct: false,
            provider: None,
            endpoint: None,
            model: None,
            dir: None,
            fresh: false,
            retries,
        }
    }
}

impl Record {
    /// The record that creates a terminal names it; every journal starts with one.
    pub fn terminal_id(&self) -> Option<&str> {
        match self {
            Record::TerminalCreated { terminal_id, .. } => Some(terminal_id),
            _ => None,
        }
    }

    /// Every id the record holds, with what it names: what an import checks (ids end up in
    /// paths and in the index's keys) before it takes a journal from elsewhere.
    pub fn ids(&self) -> Vec<(IdKind, &str)> {
        use IdKind::{Conversation as C, Session as S, Terminal, Turn as T};
        let mut out: Vec<(IdKind, &str)> = Vec::new();
        match self {
            Record::TerminalCreated { terminal_id, .. } => out.push((Terminal, terminal_id)),
            Record::TurnCommitted { turn_id: t, .. }
            | Record::TurnProcess { turn_id: t, .. }
            | Record::TurnPrompted { turn_id: t }
            | Record::TurnVoided { turn_id: t }
            | Record::InputSteered { turn_id: t, .. }
            | Record::LocalMessages { turn_id: t, .. } => out.push((T, t)),
            Record::TurnStarted {
                turn_id: t,
                conversation_id: c,
                ..
            } => out.extend([(T, t.as_str()), (C, c)]),
            Record::TurnFinished {
                turn_id: t,
                session_id: s,
                ..
            } => out.extend([Some((T, t.as_str())), some(S, s)].into_iter().flatten()),
            Record::InstructionAdded { turn_id: t, .. } => out.extend(some(T, t)),
            Record::Approval(crate::approvals::ApprovalRecord::Asked { turn_id: t, .. }) => {
                out.push((T, t))
            }
            Record::Approval(_) => {}
            Record::Forked { from: f } => out.extend(
                [
                    Some((Terminal, f.terminal_id.as_str())),
                    some(C, &f.conversation_id),
                ]
                .into_iter()
                .flatten(),
            ),
            Record::ConversationTitled {
                conversation_id: c, ..
            }
            | Record::HistoryCopied {
                conversation_id: c, ..
            } => out.push((C, c)),
            Record::ConversationOpened {
                conversation_id: c,
                fork,
                ..
            } => {
                out.push((C, c));
                out.extend(fork.iter().map(|f| (S, f.session_id.as_str())));
            }
            Record::SessionStarted {
                conversation_id: c,
                turn_id: t,
                session_id: s,
                ..
            } => out.extend([(C, c.as_str()), (T, t), (S, s)]),
            Record::Imported { conversation, .. } => {
                out.extend(conversation.iter().map(|r| (C, r.conversation_id.as_str())))
            }
            Record::CheckoutMoved { .. }
            | Record::TerminalRemoved
            | Record::RemovalStarted { .. }
            | Record::RemovalCancelled { .. }
            | Record::Archived
            | Record::Unarchived
            | Record::Renamed { .. }
            | Record::SettingsChanged { .. }
            | Record::DirChanged { .. }
            | Record::InputAccepted { .. }
            | Record::InputEdited { .. }
            | Record::InputWithdrawn { .. }
            | Record::InputMoved { .. }
            | Record::InputModeChanged { .. }
            | Record::InputJumped { .. }
            | Record::InstructionRemoved { .. }
            | Record::InstructionEdited { .. }
            | Record::InstructionsCleared => {}
        }
        out
    }
}

/// `id`, when there is one, as what it names.
fn some(kind: IdKind, id: &Option<String>) -> Option<(IdKind, &str)> {
    id.as_deref().map(|id| (kind, id))
}

/// Current time as the journal writes it.
pub fn now_stamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ids_name_every_id_a_record_holds() {
        use IdKind::*;
        let rec = |json: &str| serde_json::from_str::<Entry>(json).unwrap().record;
        let cases = [
            (
                r#"{"at":"x","type":"session_started","conversation_id":"C","turn_id":"t","provider":"claude","session_id":"s","model":null,"reason":"switch"}"#,
                vec![(Conversation, "C"), (Turn, "t"), (Session, "s")],
            ),
            (
                r#"{"at":"x","type":"turn_finished","turn_id":"t","status":"completed","error":null,"session_id":"s","model":null,"context":null,"answer":"","tools":[],"notes":[]}"#,
                vec![(Turn, "t"), (Session, "s")],
            ),
            (
                r#"{"at":"x","type":"forked","from":{"terminal_id":"T","name":"a","conversation_id":null,"turn":1}}"#,
                vec![(Terminal, "T")],
            ),
            (
                r#"{"at":"x","type":"instruction_added","text":"x","turn_id":null}"#,
                vec![],
            ),
            (r#"{"at":"x","type":"renamed","name":"b"}"#, vec![]),
        ];
        for (json, want) in cases {
            assert_eq!(rec(json).ids(), want, "{json}");
        }
    }

    #[test]
    fn entries_round_trip_as_one_flat_json_object() {
        let e = Entry {
            at: "2026-11-29T10:00:00.000Z".into(),
            record: Record::InstructionAdded {
                text: "never use unwrap".into(),
                turn_id: None,
            },
        };
        let line = serde_json::to_string(&e).unwrap();
        assert_eq!(
            line,
            r#"{"at":"2026-11-29T10:00:00.000Z","type":"instruction_added","text":"never use unwrap","turn_id":null}"#
        );
        assert_eq!(serde_json::from_str::<Entry>(&line).unwrap(), e);
        let cleared = Entry {
            at: "x".into(),
            record: Record::InstructionsCleared,
        };
        let line = serde_json::to_string(&cleared).unwrap();
        assert_eq!(serde_json::from_str::<Entry>(&line).unwrap(), cleared);
    }

    #[test]
    fn a_session_adding_no_standing_lines_is_written_as_before() {
        // The line an older build wrote (and still reads: it ignores a `standing` it lacks).
        let old = r#"{"at":"x","type":"session_started","conversation_id":"C","turn_id":"t","provider":"claude","session_id":"s","model":null,"reason":"switch"}"#;
        let mut e: Entry = serde_json::from_str(old).unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), old);
        if let Record::SessionStarted { standing, .. } = &mut e.record {
            standing.push("Keep it short.".into());
        }
        let line = serde_json::to_string(&e).unwrap();
        assert!(line.ends_with(r#""reason":"switch","standing":["Keep it short."]}"#));
        assert_eq!(serde_json::from_str::<Entry>(&line).unwrap(), e);
    }
}
