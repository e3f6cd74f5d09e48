//! The socket protocol between clients and the server: one JSON request line per connection,
//! answered by JSON lines (events for a streaming `send`, then exactly one final reply). What
//! the replies carry is typed in [`views`]; which request ends with which is [`answer`]. See
//! ARCHITECTURE.md ("The socket protocol").

pub mod answer;
pub mod approvals;
pub mod lane;
pub mod views;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::BatonError;
use crate::words::{ContextUsage, ProviderKind, TurnEvent, TurnStatus};
use crate::words::{OpenReason, SessionReason};
use views::TerminalView;

pub use answer::{Answer, AnswerKind, Sent};

/// The version of this protocol. `baton server bridge` says it in its [`Hello`], and a client
/// reaching another host over ssh refuses a bridge of another version (its requests or replies
/// might not read the same). Raise it with any change a peer of the old version would misread.
pub const PROTOCOL_VERSION: u32 = 1;

/// The first line `baton server bridge` prints, before any reply of the server behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The bridge's `baton --version` number.
    pub baton: String,
    pub protocol: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Request {
    Ping,
    New {
        name: Option<String>,
        dir: String,
        provider: Option<String>,
        model: Option<String>,
        brief: Option<String>,
        /// Run in `dir` itself rather than in a worktree of its own.
        in_place: bool,
    },
    Send {
        name: String,
        #[serde(flatten)]
        send: SendRequest,
        detach: bool,
    },
    /// The terminal's waiting input (`action`: none lists it; else change input `input`).
    Queue {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        change: Option<QueueChange>,
    },
    /// Resume the terminal's queue held after an interrupt.
    QueueRun {
        name: String,
    },
    /// Put the prompt of the terminal's latest turn a crash of the server cut short back at
    /// the head of its queue.
    QueueRetry {
        name: String,
    },
    Ls {
        /// Archived terminals too.
        #[serde(default)]
        all: bool,
        /// For `ls`'s table: each terminal's lists the table does not show (sessions, waiting
        /// prompts, standing instructions, approval rules) and its conversation left out
        /// ([`views::TerminalView::for_table`]). A server that does not know it sends them.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        table: bool,
    },
    Show {
        name: String,
    },
    Log {
        name: String,
    },
    /// Turn `turn` of terminal `name` step by step, as a client watching it saw it: read back
    /// from its raw stream (the log keeps one line per tool call, not what it gave back).
    Steps {
        name: String,
        turn: u32,
    },
    Instructions {
        name: String,
        action: InstructionsAction,
    },
    Interrupt {
        name: String,
    },
    /// Follow terminal `name`'s running turn as `send` would: every reply of it from its start,
    /// then the live ones, until its summary. `next`: with no turn running, wait for the next.
    Follow {
        name: String,
        #[serde(default)]
        next: bool,
    },
    /// The terminal's branch against where it started.
    Diff {
        name: String,
        patch: bool,
    },
    /// Squash-merge the terminal's branch into the branch it was created from.
    Merge {
        name: String,
    },
    /// Revert one turn's automatic commit.
    Revert {
        name: String,
        turn: u32,
    },
    /// Remove the terminal (its work is committed and its branch kept first).
    Rm {
        name: String,
        delete_branch: bool,
        force: bool,
    },
    /// Give the terminal another name (refused while a turn runs or the name is taken).
    Rename {
        name: String,
        new_name: String,
    },
    /// Title the terminal's live conversation.
    Title {
        name: String,
        title: String,
    },
    /// A new terminal carrying on from where `name` is now (`new`: its name).
    Fork {
        name: String,
        new: Option<String>,
    },
    /// A new terminal carrying on from just before `name`'s turn `turn`.
    Rewind {
        name: String,
        turn: u32,
        new: Option<String>,
    },
    /// Remove archived terminals idle for `older_than_days` days (0: any age), their worktree
    /// and baton's data of them; their branch only when merged, or with `force`.
    Prune {
        older_than_days: u32,
        dry_run: bool,
        force: bool,
    },
    /// The permission requests waiting for the user, of every terminal (`name`: of that one).
    Approvals {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Let waiting request `id` run; `always`: the same tool on the same target (a write: in
    /// the same folder) runs unasked for the rest of the terminal's life.
    Approve {
        id: String,
        #[serde(default)]
        always: bool,
    },
    /// Refuse waiting request `id`; `reason` is what the model reads in the tool's answer.
    Deny {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Remove terminal `name`'s `--always` rule made by request `id`.
    Forget {
        name: String,
        id: String,
    },
    /// Hide the terminal from listings (`archived: false` shows it again).
    Archive {
        name: String,
        archived: bool,
    },
    /// Write terminal `name`'s journal, turn streams, CLI session files and a manifest into a
    /// zip (in `<data>/exports`, or in `out`).
    Export {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        out: Option<String>,
    },
    /// Make the terminal exported in zip `file` a terminal here (`name`: another name; `dir`:
    /// the repository, or folder, it works in on this machine; `max_size`: the most, in
    /// bytes, it may unpack to, else the server's default).
    Import {
        file: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dir: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_size: Option<u64>,
    },
    /// Run the integration lane of the repository terminal `name` works in, or of the one at
    /// `dir` (one of the two): every live terminal's branch merged onto the base branch's tip
    /// in baton's own worktree, checked, reported. Moves no branch.
    Integrate {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dir: Option<String>,
    },
    /// What the configured extractor keeps of `prompt` (no terminal is touched).
    Extract {
        prompt: String,
        provider: Option<String>,
    },
    Status,
    Stop,
    Reindex,
    /// Stream every change of every terminal (the multiplexer UI): [`Reply::Watch`] lines until
    /// the client goes away.
    Watch,
    /// Serve the web client (`baton web`): start it unless it runs (on `port` when given;
    /// another port restarts it there), `new_token` rotates its access token first.
    Web {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<u16>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        new_token: bool,
    },
    /// Attach to terminal `name`'s shell (started in its checkout when it has none), sized
    /// `rows`×`cols`. The connection stays open both ways: the server answers with
    /// [`Reply::Shell`] lines (the current screen first, then output as it comes, then the
    /// exit); the client writes [`ShellInput`] lines (keys, resizes) on the same connection.
    Shell {
        name: String,
        rows: u16,
        cols: u16,
    },
}

/// The model name that unpins a terminal's model (`send --model default`, `/model default`,
/// an empty C-o entry): its runs go back to `[providers.<name>] model`, else the CLI's own.
pub const DEFAULT_MODEL: &str = "default";

/// What a send hands the terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendRequest {
    pub prompt: String,
    pub provider: Option<String>,
    /// The model from this turn on ([`DEFAULT_MODEL`]: none pinned); None: as it is.
    pub model: Option<String>,
    /// Move the terminal's runs to this directory from this turn on.
    pub dir: Option<String>,
    /// How it joins the work while a turn runs.
    #[serde(default)]
    pub mode: SendModeArg,
    /// Its turn opens a fresh conversation (`send --fresh`, reason `manual`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh: bool,
}

impl SendRequest {
    /// `prompt`, queued, on the terminal's own provider, model and directory.
    pub fn new(prompt: impl Into<String>) -> SendRequest {
        SendRequest {
            prompt: prompt.into(),
            provider: None,
            model: None,
            dir: None,
            mode: SendModeArg::Queue,
            fresh: false,
        }
    }
}

/// `--queue` (the default), `--steer` or `--jump`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SendModeArg {
    #[default]
    Queue,
    Steer,
    Jump,
}

/// One change of waiting input `input`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueChange {
    pub input: u32,
    #[serde(flatten)]
    pub action: QueueAction,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum QueueAction {
    /// Replace its text.
    Edit { text: String },
    /// Withdraw it.
    Rm,
    /// Move it to `position` (1 = next to run).
    Move { position: u32 },
    /// Hand it to the running turn.
    Steer,
    /// Interrupt the running turn and run it next.
    Jump,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum InstructionsAction {
    List,
    Add {
        text: String,
    },
    Rm {
        number: u32,
    },
    /// Line `number` says `text` from now on (same place in the list).
    Edit {
        number: u32,
        text: String,
    },
    Clear,
}

/// One line from the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// A step of a streaming `send`.
    Event { event: SendEvent },
    /// The request succeeded; `data` is its [`Answer`] (the command's `--json` value, one of
    /// [`views`]): built by [`Reply::answered`], read by [`Reply::into_answer`].
    Ok { data: serde_json::Value },
    /// The request failed.
    Error { error: BatonError },
    /// A change, for a client that sent [`Request::Watch`].
    Watch { event: WatchEvent },
    /// What a shell shows, for a client that sent [`Request::Shell`].
    Shell { event: ShellEvent },
}

/// A shell's screen and output; byte payloads are base64 (standard alphabet, padded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum ShellEvent {
    /// The whole screen as the server's emulator has it, `rows`×`cols`: escape sequences that
    /// draw it on a blank terminal of that size (alternate screen, colors, modes, cursor).
    /// Sent first, and again whenever the size or the alternate-screen mode changed (the
    /// client starts a fresh screen from this).
    Screen {
        rows: u16,
        cols: u16,
        /// Where the cursor is, `[row, col]` from 0.
        cursor: [u16; 2],
        data: String,
    },
    /// Escape sequences that bring the client's screen (as built from the events so far) to
    /// the server's: a frame, not the shell's own bytes (at most one per 8 ms).
    Output { data: String },
    /// Answer to [`ShellInput::History`]: on a blank `rows`×`cols` screen with scrollback,
    /// these bytes rebuild the shell's scrollback (oldest row first) and then its screen.
    /// The client keeps its screen as it was (frames go on from there).
    History { rows: u16, cols: u16, data: String },
    /// The shell ended; the next [`Request::Shell`] starts a new one.
    Exited { code: Option<i32> },
}

/// A line a client writes on a [`Request::Shell`] connection: `{"input": "<base64>"}`,
/// `{"resize": [rows, cols]}` or `"history"`. Typing or resizing makes the client's size the
/// shell's (the latest active client's size wins, as tmux's `window-size latest`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellInput {
    Input(String),
    Resize([u16; 2]),
    /// Ask for a [`ShellEvent::History`].
    History,
}

/// What a watching client (the multiplexer UI) is told, as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum WatchEvent {
    /// Every terminal, as `show --json` has it: sent first, and again whenever the client fell
    /// behind (it should then re-read what it shows).
    Terminals { terminals: Vec<TerminalView> },
    /// One terminal changed (state, provider, conversation, context, instructions…).
    Terminal { terminal: Box<TerminalView> },
    /// A step of a turn running on terminal `name`.
    Turn { name: String, event: SendEvent },
    /// A turn on terminal `name` ended.
    Finished { name: String, summary: TurnSummary },
    /// Terminal `name` is called `new_name` from now on.
    Renamed { name: String, new_name: String },
    /// Terminal `name` was removed.
    Removed { name: String },
    /// A send to terminal `name` was refused or failed before its turn could end.
    Refused { name: String, error: BatonError },
}

/// What a client watching a send sees, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum SendEvent {
    /// Another turn runs on this terminal; this one waits.
    Queued { ahead: usize },
    /// The turn started, with what the send path decided.
    Started {
        turn_id: String,
        number: u32,
        provider: ProviderKind,
        conversation: u32,
        /// Why a conversation opened for this turn, if one did.
        opened: Option<OpenReason>,
        /// The rotation line the last conversation was judged against (for `opened: size`).
        rotate_at: f64,
        session: SessionStart,
        /// The prompt, as the user sent it (watchers that did not send it learn it here).
        prompt: String,
    },
    /// A normalized provider event.
    Turn { event: TurnEvent },
    /// Something baton did that the user should know (a lost session restarted…).
    Note { message: String },
}

/// How a turn's provider session was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStart {
    /// The live session carries on.
    Resume,
    /// A new session: the conversation has none yet.
    Fresh,
    /// A new session: the provider switched.
    Switch,
    /// A new session: the one to resume is gone.
    Lost,
    /// A new session forked from another terminal's (it keeps that history).
    Fork,
}

impl From<Option<SessionReason>> for SessionStart {
    fn from(r: Option<SessionReason>) -> Self {
        match r {
            None => SessionStart::Resume,
            Some(SessionReason::Fresh) => SessionStart::Fresh,
            Some(SessionReason::Switch) => SessionStart::Switch,
            Some(SessionReason::Lost) => SessionStart::Lost,
            Some(SessionReason::Fork) => SessionStart::Fork,
        }
    }
}

/// The `data` of a final [`Reply::Ok`] read as view `T`, by a client that reads the socket
/// itself (`doctor`); the others read it as their request's answer ([`Reply::into_answer`]).
pub fn data_as<T: DeserializeOwned>(data: serde_json::Value) -> Result<T, BatonError> {
    serde_json::from_value(data)
        .map_err(|e| BatonError::failed(format!("unreadable answer from the server: {e}")))
}

/// The end of a turn: the `data` of a send's final reply, and the line `baton send` ends with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnSummary {
    pub turn_id: String,
    pub number: u32,
    pub status: TurnStatus,
    pub error: Option<String>,
    pub provider: ProviderKind,
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub conversation: u32,
    pub conversation_id: String,
    pub opened: Option<OpenReason>,
    pub context: Option<ContextUsage>,
    /// The context passed the rotation line: the next prompt opens a fresh conversation.
    pub rotates_next: bool,
    /// The share of the window that is the rotation line.
    pub rotate_at: f64,
    /// The automatic commit of the turn's changes (null: nothing changed, or no worktree).
    pub commit: Option<String>,
    /// The CLI failed without ever ending the turn (garbage on stdout, died without a result):
    /// most likely not a working CLI at all. The turn is recorded failed: `baton send` exits 1.
    pub unusable_cli: bool,
    /// What the turn cost, as the CLI reported it (null: not reported).
    #[serde(default)]
    pub cost: Option<crate::words::TurnCost>,
    /// Milliseconds from the turn's start to its end record.
    #[serde(default)]
    pub elapsed_ms: u64,
}
