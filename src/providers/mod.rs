//! Provider adapters: how each CLI is launched, how its stdout becomes one normalized
//! [`TurnEvent`] stream, and where its sessions live on disk.
//!
//! The engine and server only ever see the types in this file; the per-provider modules
//! (`claude`, `codex`, `local`) hold everything that knows a provider's raw JSON.

pub mod claude;
pub mod codex;
pub mod local;
pub mod process;
pub mod run;

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Which provider runs a turn. `Local` is an OpenAI-compatible endpoint baton drives itself;
/// which endpoint is a separate setting of the terminal (`TerminalRow::endpoint`), so the kind
/// stays a plain `Copy` value everywhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    Claude,
    Codex,
    Local,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 3] = [
        ProviderKind::Claude,
        ProviderKind::Codex,
        ProviderKind::Local,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Claude => "claude",
            ProviderKind::Codex => "codex",
            ProviderKind::Local => "local",
        }
    }

    /// Parses a provider name as typed by the user (`claude`, `codex`, `local`); the endpoint of
    /// `local:NAME` is split off by the caller.
    pub fn parse(name: &str) -> Option<ProviderKind> {
        match name {
            "claude" => Some(ProviderKind::Claude),
            "codex" => Some(ProviderKind::Codex),
            "local" => Some(ProviderKind::Local),
            _ => None,
        }
    }

    /// True for the providers baton runs as a child process (a CLI with a binary).
    pub fn is_cli(self) -> bool {
        match self {
            ProviderKind::Claude | ProviderKind::Codex => true,
            ProviderKind::Local => false,
        }
    }

    /// What to tell a user whose binary is missing.
    pub fn install_hint(self) -> &'static str {
        match self {
            ProviderKind::Claude => "npm install -g @anthropic-ai/claude-code",
            ProviderKind::Codex => "npm install -g @openai/codex",
            ProviderKind::Local => "add [providers.local.endpoints.NAME] to baton's config.toml",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    Completed,
    Failed,
    Interrupted,
}

impl TurnStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnStatus::Completed => "completed",
            TurnStatus::Failed => "failed",
            TurnStatus::Interrupted => "interrupted",
        }
    }
}

/// The context a conversation occupies after a turn, as the provider reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextUsage {
    /// Tokens in the model's context at the end of the turn (last call, never a cumulative sum).
    pub tokens: u64,
    /// The model's context window as the provider reported it for that turn.
    pub window: u64,
}

impl ContextUsage {
    pub fn fraction(&self) -> f64 {
        if self.window == 0 {
            0.0
        } else {
            self.tokens as f64 / self.window as f64
        }
    }
}

/// One normalized event out of any provider's stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnEvent {
    /// The provider session this turn runs in (Claude `system/init`, Codex `thread.started`).
    Session {
        session_id: String,
        model: Option<String>,
    },
    /// A piece of the answer, in full (one assistant message or agent message).
    Text { text: String },
    /// Answer text still arriving (Claude with `--include-partial-messages`). `start` marks the
    /// first delta of a piece: it opens a new piece exactly where a `Text` would; the deltas
    /// after it extend that piece until any other event or the next `start`. A streamed
    /// piece's deltas, joined, are the text a `Text` would have carried: it is not sent again.
    Delta { text: String, start: bool },
    /// A tool call, summarized in one line (`Read src/main.rs`, `$ cargo test`).
    ToolUse { name: String, summary: String },
    /// Usage of one model call as the stream reported it (not necessarily final).
    Usage { tokens: u64 },
    /// Something the provider warned about without failing the turn.
    Warning { message: String },
    /// The turn ended.
    End {
        status: TurnStatus,
        error: Option<String>,
    },
}

impl TurnEvent {
    /// Adds what this event says of the answer to `answer`: pieces (a `Text`, or the deltas from
    /// a `start` on) are joined by a blank line; other events add nothing. The server's
    /// journalled answer and a parser's [`TurnOutcome::answer`] are both this fold.
    pub fn add_to_answer(&self, answer: &mut String) {
        let (text, new_piece) = match self {
            TurnEvent::Text { text } => (text, true),
            TurnEvent::Delta { text, start } => (text, *start),
            TurnEvent::Session { .. }
            | TurnEvent::ToolUse { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::Warning { .. }
            | TurnEvent::End { .. } => return,
        };
        if new_piece && !answer.is_empty() {
            answer.push_str("\n\n");
        }
        answer.push_str(text);
    }
}

/// Whether a run opens a provider session or resumes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionMode {
    /// A fresh provider session. Claude gets the id baton chose (`--session-id`); Codex picks its
    /// own (`None`).
    New { session_id: Option<String> },
    /// Resume this session id.
    Resume { session_id: String },
}

/// Everything needed to launch one provider run. Built by the engine; turned into argv by the
/// provider module (`claude::args` / `codex::args`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSpec {
    pub provider: ProviderKind,
    /// The CLI binary (resolved path or bare name to look up on PATH).
    pub bin: PathBuf,
    /// Working directory of the child process.
    pub cwd: PathBuf,
    pub session: SessionMode,
    /// The model to pin, if known (configured or reported when the session started).
    pub model: Option<String>,
    /// The system instructions baton adds; byte-identical for every turn of a conversation.
    pub system_text: String,
    /// Claude `--permission-mode` value (None: CLI default).
    pub permission_mode: Option<String>,
    /// Codex `--sandbox` value (None: CLI default).
    pub sandbox: Option<String>,
    /// Extra writable directories (screenshots folder): `--add-dir`.
    pub add_dirs: Vec<PathBuf>,
    /// Extra flags from the config, passed on every run.
    pub extra_args: Vec<String>,
    /// Extra environment for the child (e.g. a TMPDIR inside the fence).
    pub env: Vec<(String, String)>,
}

/// What the provider told us when a run ended, folded from its stream (and session files).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnOutcome {
    /// The final status (None until a result/turn end was seen or the process exited).
    pub status: Option<TurnStatus>,
    pub error: Option<String>,
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub context: Option<ContextUsage>,
    /// The CLI said the session to resume does not exist.
    pub session_not_found: bool,
    /// The full answer text of the turn (its events folded by [`TurnEvent::add_to_answer`]).
    pub answer: String,
}

/// What can go wrong launching or talking to a provider CLI.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("{provider} was not found ({bin}): install it with `{hint}`, or set providers.{provider}.bin in baton's config.toml")]
    NotFound {
        provider: ProviderKind,
        bin: String,
        hint: &'static str,
    },
    #[error("cannot start {provider} ({bin}): {source}")]
    Spawn {
        provider: ProviderKind,
        bin: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{provider} run failed: {source}")]
    Io {
        provider: ProviderKind,
        #[source]
        source: std::io::Error,
    },
}

/// Where the CLIs keep their files, taken from the environment the server runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderHomes {
    /// `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
    pub claude: PathBuf,
    /// `$CODEX_HOME`, else `$HOME/.codex`.
    pub codex: PathBuf,
}

/// A message from a running provider turn, in stream order.
#[derive(Debug, Clone, PartialEq)]
pub enum RunMsg {
    /// The child started; `pid` is also its process group id (interrupt = SIGINT to it).
    Started { pid: i32 },
    /// One stdout line exactly as the CLI printed it (without the newline).
    Raw(String),
    /// A normalized event parsed from that line.
    Event(TurnEvent),
    /// Something baton itself did during the run that the turn's notes keep (a local run's
    /// trimmed history, an estimated usage).
    Note(String),
}

/// A stdout line as a JSON object with a string `type` (and that type), or None for anything
/// else: blank lines, garbage, JSON that is not an event.
pub(crate) fn json_event(line: &str) -> Option<(serde_json::Value, String)> {
    match serde_json::from_str(line) {
        Ok(v @ serde_json::Value::Object(_)) => {
            let kind = v.get("type")?.as_str()?.to_string();
            Some((v, kind))
        }
        _ => None,
    }
}
