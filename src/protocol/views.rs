//! What the server shows: one typed struct per answer (`show`, `ls`, `log`, `instructions`,
//! `server status`, `diff`…). The server serializes these, every client deserializes them, and
//! `--json` prints them: one definition per field, so a rename fails to compile instead of
//! silently reading `null`. The field tables of `docs/reference.md` describe these structs.
//!
//! Policy stays on the server: a view carries the facts the server decided (where the rotation
//! line is, whether the next prompt rotates, why a conversation opened), so no client needs the
//! engine. See ARCHITECTURE.md ("The socket protocol").

use serde::{Deserialize, Serialize};

use crate::words::OpenReason;
use crate::words::{CheckoutMode, InputMode, TurnMode};
use crate::words::{ContextUsage, ProviderKind, TurnStatus};

/// A provider session of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionView {
    pub provider: ProviderKind,
    pub session_id: String,
    pub model: Option<String>,
    pub reason: String,
    pub started_at: String,
}

/// A turn as the index keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnView {
    pub id: String,
    pub number: u32,
    pub conversation_id: String,
    pub provider: ProviderKind,
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub prompt: String,
    /// `null` while the turn runs.
    pub status: Option<TurnStatus>,
    pub error: Option<String>,
    pub answer: Option<String>,
    pub tools: Vec<String>,
    pub notes: Vec<String>,
    pub context: Option<ContextUsage>,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// The automatic commit of the turn's changes, if it changed files.
    pub commit: Option<String>,
    /// The input it ran (null in turns from before inputs were journalled).
    pub input: Option<u32>,
    /// How that input reached the turn: `direct`, `queue`, `steer` or `jump`.
    pub mode: Option<TurnMode>,
    /// What it cost, as the CLI reported it (null: not reported, or still running).
    #[serde(default)]
    pub cost: Option<crate::words::TurnCost>,
}

/// A standing instruction, numbered as `instructions` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstructionView {
    pub number: u32,
    pub text: String,
    pub turn_id: Option<String>,
    /// The terminal's turn number the line came from (`null`: added by hand).
    pub turn: Option<u32>,
    pub added_at: String,
}

/// A terminal's state, as the list shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminalState {
    Idle,
    /// A turn runs.
    Running,
    /// Nothing runs, but prompts wait to.
    Queued,
    /// The last turn failed.
    Failed,
}

impl TerminalState {
    pub fn as_str(self) -> &'static str {
        match self {
            TerminalState::Idle => "idle",
            TerminalState::Running => "running",
            TerminalState::Queued => "queued",
            TerminalState::Failed => "failed",
        }
    }

    /// A prompt sent now would wait.
    pub fn busy(self) -> bool {
        match self {
            TerminalState::Running | TerminalState::Queued => true,
            TerminalState::Idle | TerminalState::Failed => false,
        }
    }
}

/// One waiting input, as `queue --json` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedView {
    /// Its number, unique in the terminal and never reused.
    pub input: u32,
    /// 1 = next to run.
    pub position: u32,
    pub prompt: String,
    pub mode: InputMode,
    /// What it runs on: the provider it was sent with, else the terminal's.
    pub provider: ProviderKind,
    /// The model it was sent with (null: the terminal's own).
    pub model: Option<String>,
    pub queued_at: String,
    /// The queue is held after an interrupt: it waits for `baton queue NAME run`.
    #[serde(default)]
    pub held: bool,
}

/// What `send --detach` answers: the input was journalled and waits (or already started).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedView {
    pub accepted: bool,
    pub name: String,
    pub input: u32,
    /// Where it waits (1 = next to run); null once its turn started.
    pub position: Option<u32>,
    pub mode: InputMode,
    /// Said to the user about it ("codex exec cannot take input mid-turn: it runs next").
    pub note: Option<String>,
}

/// Where a terminal's runs happen (`checkout` in `show --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckoutView {
    pub mode: CheckoutMode,
    /// The directory the terminal was opened on.
    pub source: String,
    pub branch: Option<String>,
    pub base_branch: Option<String>,
    pub base_commit: Option<String>,
    pub worktree: Option<String>,
}

/// The live conversation of a terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveConversationView {
    pub id: String,
    pub number: u32,
    pub opened_reason: OpenReason,
    pub opened_at: String,
    pub dir: String,
    /// Its first prompt's first line (40 characters) until the user renames it.
    pub title: Option<String>,
}

/// The live conversation's context at the end of its last turn, and what the server concluded.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContextView {
    pub tokens: u64,
    pub window: u64,
    pub fraction: f64,
    /// It passed the rotation line: the next prompt opens a fresh conversation.
    pub rotates_next: bool,
}

impl ContextView {
    pub fn usage(&self) -> ContextUsage {
        ContextUsage {
            tokens: self.tokens,
            window: self.window,
        }
    }
}

/// The latest turn, in brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastTurnView {
    pub number: u32,
    /// `null` while it runs.
    pub status: Option<TurnStatus>,
    pub error: Option<String>,
}

/// One terminal: what `show --json` prints, `ls --json` lists and the multiplexer draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerminalView {
    pub name: String,
    pub id: String,
    /// Where its runs happen now.
    pub dir: String,
    pub checkout: CheckoutView,
    pub provider: ProviderKind,
    /// The endpoint of a `local` terminal.
    pub endpoint: Option<String>,
    pub model: Option<String>,
    pub brief: Option<String>,
    pub state: TerminalState,
    /// How many inputs wait for a turn.
    pub queued: usize,
    /// The waiting input, in the order it will run.
    pub queue: Vec<QueuedView>,
    pub created_at: String,
    pub conversation: Option<LiveConversationView>,
    /// The live conversation's provider sessions, oldest first.
    pub sessions: Vec<SessionView>,
    pub context: Option<ContextView>,
    /// The standing instructions, oldest first.
    pub instructions: Vec<String>,
    /// The share of the window past which the next prompt opens a fresh conversation.
    pub rotate_at: f64,
    /// How many turns the terminal ran.
    pub turns: u32,
    pub last_turn: Option<LastTurnView>,
    /// Hidden from `ls` and the multiplexer's list (`baton archive`).
    #[serde(default)]
    pub archived: bool,
    /// The waiting input is held after a user's interrupt: nothing starts until `baton queue
    /// NAME run`.
    #[serde(default)]
    pub queue_held: bool,
    /// What its turns cost, summed, as the CLIs reported it (null: none reported a cost).
    #[serde(default)]
    pub cost: Option<crate::words::TurnCost>,
    /// The index misses journalled entries (a write to it failed, e.g. on a full disk): what
    /// this view shows may lack input accepted since, which waits and runs once the index is
    /// rebuilt.
    #[serde(default)]
    pub index_behind: bool,
    /// Its block of ports (`ports = N` for its repository), kept for its life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<PortsView>,
    /// How its worktree was made ready: the files `.worktreeinclude` copied, the set-up
    /// command (absent: nothing to say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupView>,
    /// Its turn waits for the user's answer to this permission request (`baton approvals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<super::approvals::ApprovalView>,
    /// Its `--always` answers in force, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approval_rules: Vec<super::approvals::ApprovalRuleView>,
    /// Its row in its repository's last integration lane report, when it conflicts or broke
    /// the check (`baton integrate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane: Option<super::lane::LaneTerminalView>,
    /// Its turn's CLI waits to start (`[limits] starting`): how many terminals wait ahead of
    /// it (absent: it does not wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ahead: Option<usize>,
}

impl TerminalView {
    /// The terminal as `ls`'s table needs it (`Request::Ls { table }`): what the table does not
    /// show, and what grows with use (waiting prompts, standing instructions), left out of the
    /// answer; `queued` still counts the waiting input. A test draws the table from both.
    pub fn for_table(self) -> TerminalView {
        TerminalView {
            queue: Vec::new(),
            conversation: None,
            sessions: Vec::new(),
            instructions: Vec::new(),
            approval_rules: Vec::new(),
            ..self
        }
    }
}

/// A terminal's block of ports: `first` … `first + count - 1`, free when chosen and never
/// overlapping another live terminal's (`BATON_PORT`, `BATON_PORTS` in its environment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortsView {
    pub first: u16,
    pub count: u16,
}

/// A new worktree's set-up: the ignored files copied into it, its set-up command and how that
/// went, and what the user should know.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupView {
    /// The command, when one runs (or would, once trusted).
    #[serde(default)]
    pub command: Option<String>,
    pub state: SetupState,
    /// The command's exit code, once it ended by itself.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// How many files `.worktreeinclude` copied.
    #[serde(default)]
    pub copied: usize,
    /// One line each: a pattern matching nothing, a file not copied, a refusal and why.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The command's output (stdout and stderr, the last 16 KiB): `log` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// Where a set-up command is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetupState {
    /// Nothing to run.
    #[default]
    None,
    /// The repository's `.baton.toml` asks for it and the user has not trusted that content.
    Untrusted,
    Running,
    /// Exited 0.
    Done,
    /// Exited otherwise (its `exit_code`), or could not start.
    Failed,
    /// Stopped after `setup_timeout_secs`.
    TimedOut,
    /// The server stopped while it ran.
    Interrupted,
}

/// A row of `baton ls --json`: a terminal and the host its server runs on (asked over ssh;
/// null: this machine). Its fields are the terminal's, with `host` beside them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostedView {
    #[serde(flatten)]
    pub terminal: TerminalView,
    pub host: Option<String>,
}

impl HostedView {
    /// A terminal of this machine's server.
    pub fn here(terminal: TerminalView) -> HostedView {
        HostedView {
            terminal,
            host: None,
        }
    }

    /// A terminal of host `host`'s server.
    pub fn on(host: &str, terminal: TerminalView) -> HostedView {
        HostedView {
            terminal,
            host: Some(host.to_string()),
        }
    }
}

/// A row of `baton ls --json` for a configured host that did not answer, after the terminals'
/// rows: its name, `offline` (always true: what tells it from a terminal's row) and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfflineHostView {
    pub host: String,
    pub offline: bool,
    pub error: String,
}

/// One conversation of `log --json`, with its provider sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationView {
    pub id: String,
    pub number: u32,
    pub opened_reason: OpenReason,
    pub dir: String,
    pub opened_at: String,
    pub retired_at: Option<String>,
    pub title: Option<String>,
    pub sessions: Vec<SessionView>,
}

/// One turn of `log --json`: the stored turn, the number of its conversation, and whether its
/// context passed the rotation line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogTurnView {
    #[serde(flatten)]
    pub turn: TurnView,
    /// The number of the conversation it ran in.
    pub conversation: Option<u32>,
    /// Its context passed the rotation line (the turn after it opened a fresh conversation).
    pub rotates_next: bool,
}

/// A finished turn's steps, read back from its raw stream (`Request::Steps`): its answer
/// pieces, tool calls with their results and edits, subagent steps, refusals and warnings, in
/// order. Empty when the stream is gone (or was a local endpoint's, whose steps are journalled).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepsView {
    pub name: String,
    pub turn: u32,
    pub events: Vec<crate::words::TurnEvent>,
}

/// `log --json`: every conversation and every turn of a terminal, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogView {
    pub name: String,
    /// The rotation line the turns were judged against.
    pub rotate_at: f64,
    pub conversations: Vec<ConversationView>,
    pub turns: Vec<LogTurnView>,
    /// The terminal it was forked or rewound from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedView>,
    /// The terminals forked or rewound from it, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forked_into: Vec<ForkedView>,
    /// Its worktree's set-up, with the command's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupView>,
}

/// One end of a fork in `log --json`: the other terminal (its name at the time, and id), the
/// turn (a fork: the last one it carried; a rewind: the one it stopped before), which it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkedView {
    pub name: String,
    pub id: String,
    pub turn: u32,
    pub rewind: bool,
}

/// Whether a fork's or rewind's first turn keeps the provider's history or starts afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryMode {
    /// `fork`: the first turn resumes a fork of the original's session.
    Forked,
    /// `rewind`: the provider's history up to the turn is kept.
    Kept,
    /// It could not be carried: a fresh conversation opens with the standing text.
    Fresh,
}

/// `fork --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkView {
    pub name: String,
    pub from: String,
    /// The original's last turn the fork carries (0: it had none).
    pub from_turn: u32,
    pub branch: Option<String>,
    pub worktree: Option<String>,
    /// `forked` or `fresh`.
    pub session_mode: HistoryMode,
    /// Why it is `fresh`, or anything else worth telling.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// `rewind --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewindView {
    pub name: String,
    pub from: String,
    pub before_turn: u32,
    pub branch: Option<String>,
    /// The commit the new branch starts at: the files as they were when the turn was sent.
    pub base_commit: Option<String>,
    /// The turn's prompt, byte for byte, to edit and send again.
    pub prompt: String,
    /// `kept` or `fresh`.
    pub history: HistoryMode,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// `archive` / `unarchive`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedView {
    pub name: String,
    pub archived: bool,
}

/// `rename NAME --conversation TITLE`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitledView {
    pub name: String,
    pub conversation: u32,
    pub title: String,
}

/// `server status --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusView {
    pub running: bool,
    pub pid: u32,
    pub data_dir: String,
    pub uptime_secs: u64,
    pub terminals: usize,
    pub running_turns: usize,
    /// Inputs waiting for a turn, all terminals together.
    pub waiting_inputs: usize,
    pub version: String,
    /// The server's warden process (`providers::warden`), when one runs.
    #[serde(default)]
    pub warden_pid: Option<u32>,
    /// As [`TerminalView::index_behind`].
    #[serde(default)]
    pub index_behind: bool,
    /// The Claude CLIs kept running for their terminal's next turn (`providers::warm`).
    #[serde(default)]
    pub warm: Vec<WarmView>,
    /// Checkouts whose changes the change tracker follows (`git::Tracker`; big ones only).
    #[serde(default)]
    pub tracked_checkouts: usize,
    /// Automatic commits since the server started that checked only the tracked changes
    /// rather than walking their checkout.
    #[serde(default)]
    pub tracked_commits: u64,
    /// What the warm CLIs' own memory may add up to, all providers together (`[warm]
    /// memory_mb`; 0 from a server before it).
    #[serde(default)]
    pub warm_budget_bytes: u64,
}

/// A warm CLI in `server status --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmView {
    /// The terminal's name.
    pub name: String,
    /// `claude` (its own process) or `codex` (an app-server).
    #[serde(default = "default_warm_provider")]
    pub provider: ProviderKind,
    pub pid: i32,
    /// The provider session it holds.
    pub session_id: String,
    /// Turns it has run.
    pub turns: u32,
    pub idle_secs: u64,
    /// Its resident memory (null: could not be read).
    pub memory_bytes: Option<u64>,
    /// Its own memory: the private pages of its process group, what the budget counts (null:
    /// could not be read, or a server before it).
    #[serde(default)]
    pub own_bytes: Option<u64>,
}

/// Servers from before Codex was kept warm listed only Claude CLIs.
fn default_warm_provider() -> ProviderKind {
    ProviderKind::Claude
}

/// `server status --json` when no server runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRunningView {
    pub running: bool,
    pub data_dir: String,
}

/// `diff --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffView {
    pub name: String,
    pub branch: String,
    /// The commit the terminal started from.
    pub base_commit: String,
    /// The commit the diff is taken from: the branch's merge base with its base branch's
    /// tip, or the last tip of it squash-merged there (`baton merge`), so landed work is not
    /// listed again. (Default empty: read from a server that predates it.)
    #[serde(default)]
    pub since: String,
    /// `since` is the last tip `baton merge` landed, not the merge base (absent: not merged).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merged: bool,
    /// `git diff --stat` (or the whole patch with `--patch`); empty: nothing left to land.
    pub diff: String,
}

/// `merge --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeView {
    pub name: String,
    pub branch: String,
    pub into: String,
    pub commit: String,
}

/// `revert --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevertView {
    pub name: String,
    pub turn: u32,
    /// The turn's automatic commit.
    pub reverted: String,
    /// The commit that reverts it.
    pub commit: String,
}

/// `rm --json`; the branch fields only for a terminal with a worktree of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovedView {
    pub name: String,
    pub removed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Work left uncommitted was committed first (its commit).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub committed: Option<Option<String>>,
    /// The worktree removed (null: it was already gone).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub worktree_removed: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_deleted: Option<bool>,
}

/// A field that is there, even `null`: `Some` (serde reads a `null` as `None` otherwise, and
/// an absent field is the `None` of `default`).
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// `prune --json` (a retention run logs a line of it): what was removed, what was left alone
/// and why, what could not be removed. With `dry_run`, what would be: nothing
/// changed. `counts` adds up to every terminal looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PruneView {
    pub dry_run: bool,
    pub older_than_days: u32,
    pub force: bool,
    pub removed: Vec<PrunedView>,
    /// Archived terminals left alone (terminals that are not archived are only counted).
    pub skipped: Vec<PruneSkippedView>,
    pub failed: Vec<PruneFailedView>,
    pub counts: PruneCounts,
}

/// A terminal `prune` removed (or would remove).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrunedView {
    pub name: String,
    /// Its latest journal entry's time.
    pub last_activity: String,
    /// The worktree removed (null: it had none, or it was already gone).
    pub worktree: Option<String>,
    /// Work left uncommitted, committed on its branch first (null: there was none).
    pub committed: Option<String>,
    /// Its own branch (null: it had no worktree).
    pub branch: Option<String>,
    pub branch_deleted: bool,
    /// The branch, when it stays: not merged into the branch it was created from (and no
    /// `--force`).
    pub kept_branch: Option<String>,
}

/// Why `prune` left an archived terminal alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PruneSkip {
    /// A turn runs (or its instructions are still being extracted).
    Running,
    /// Input waits for a turn.
    WaitingInput,
    /// Its last activity is newer than `older_than_days`.
    TooRecent,
}

impl PruneSkip {
    pub fn as_str(self) -> &'static str {
        match self {
            PruneSkip::Running => "running",
            PruneSkip::WaitingInput => "waiting input",
            PruneSkip::TooRecent => "too recent",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PruneSkippedView {
    pub name: String,
    pub reason: PruneSkip,
    pub last_activity: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PruneFailedView {
    pub name: String,
    pub error: String,
}

/// `removed + skipped + failed` is every terminal looked at; `not_archived` of the skipped
/// are not listed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PruneCounts {
    pub removed: usize,
    pub skipped: usize,
    pub not_archived: usize,
    pub failed: usize,
}

/// `rename --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenamedView {
    pub name: String,
    pub old_name: String,
}

/// `interrupt` (the command prints one line from it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptedView {
    pub name: String,
    pub turn_id: String,
    pub interrupted: bool,
    /// No turn ran, but the CLI of the last one (`turn_id`, recorded already) was still
    /// exiting after its answer: this is its pid, stopped so that waiting input runs now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_exiting_cli: Option<i32>,
}

/// `web --json`: where the web client is served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebView {
    /// The page with its access token: `http://127.0.0.1:PORT/?token=…`.
    pub url: String,
    pub port: u16,
}

/// `ping`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PongView {
    pub pong: bool,
}

/// `server stop`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoppingView {
    pub stopping: bool,
    pub pid: u32,
    /// Inputs still waiting: they stay journalled and run when the server starts again.
    pub waiting: usize,
}

/// `reindex --json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReindexView {
    pub terminals: usize,
    pub entries: usize,
    /// Lines that could not be read, as `journal:line: why` (a torn last line after a crash).
    pub skipped: Vec<String>,
    /// Removals a crash had cut short, finished now (by terminal name).
    #[serde(default)]
    pub finished_removals: Vec<String>,
}

/// `instructions extract --json`: what the configured extractor keeps of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractedView {
    pub lines: Vec<String>,
    /// `local`, `model`, `local (model failed: …)`, or `none (…)` for a skipped prompt.
    pub extractor: String,
}

/// `baton export --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportView {
    pub name: String,
    /// The zip written.
    pub path: String,
    /// How many files it holds besides `manifest.json`.
    pub files: usize,
    /// Their size together (uncompressed).
    pub bytes: u64,
    /// What could not be exported and why (CLI session files that were not found).
    pub warnings: Vec<String>,
}

/// One provider session of an imported terminal and where its CLI file was put.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedSessionView {
    pub provider: ProviderKind,
    pub session_id: String,
    /// Where the CLI's session file now is (null: the archive had none).
    pub placed: Option<String>,
}

/// `baton import --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportView {
    pub name: String,
    /// The terminal's name where it was exported.
    pub from: String,
    pub terminal_id: String,
    /// Where its runs happen now.
    pub dir: String,
    pub mode: CheckoutMode,
    pub branch: Option<String>,
    pub worktree: Option<String>,
    pub sessions: Vec<ImportedSessionView>,
    pub notes: Vec<String>,
}
