//! Provider adapters: how each CLI is launched, how its stdout becomes one normalized
//! [`TurnEvent`] stream, and where its sessions live on disk.
//!
//! The server, the doctor and the exports ask a provider what it does through one interface,
//! [`Provider`] (`provider.rs`), got with [`of`]; they never match on its kind. Each provider's
//! folder (`claude/`, `codex/`, `local/`) holds its implementation (`provider.rs`) and
//! everything that knows its raw JSON and its files.

pub mod ask;
pub mod claude;
pub mod claude_written;
pub mod closing;
pub mod codex;
pub mod codex_warm;
pub mod local;
pub mod process;
pub mod provider;
pub mod run;
pub mod system_file;
pub mod tools;
pub mod warden;
pub mod warm;
pub mod warm_budget;

pub use crate::words::{ContextUsage, ProviderKind, TurnEvent, TurnStatus};
pub use provider::{Carrying, Provider, SessionCopy, SessionFiles, StreamParser, WriteFence};

/// What provider `kind` does: every provider's registration.
pub fn of(kind: ProviderKind) -> &'static dyn Provider {
    match kind {
        ProviderKind::Claude => &claude::provider::Claude,
        ProviderKind::Codex => &codex::provider::Codex,
        ProviderKind::Local => &local::provider::Local,
    }
}

/// Every provider, in the order of [`crate::words::KINDS`].
pub fn all() -> impl Iterator<Item = &'static dyn Provider> {
    ProviderKind::all().map(of)
}

use std::path::PathBuf;

/// Whether a run opens a provider session or resumes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionMode {
    /// A fresh provider session. Claude gets the id baton chose (`--session-id`); Codex picks its
    /// own (`None`).
    New { session_id: Option<String> },
    /// Resume this session id.
    Resume { session_id: String },
    /// A new session that starts as a copy of session `from` (another terminal's): Claude
    /// `--resume FROM --fork-session --session-id ID`, cut back to the entry `at` when given
    /// (`--resume-session-at`); Codex `exec … fork FROM -` (it picks the id).
    Fork {
        from: String,
        session_id: Option<String>,
        at: Option<String>,
    },
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
    /// Never in argv: a private file or Codex profile carries it (`system_file`).
    pub system_text: String,
    /// Names the run's system-text file (`system_file::run_name`): Claude's
    /// `<run_dir>/<run_name>.txt`, Codex's profile `$CODEX_HOME/<run_name>.config.toml`.
    pub run_name: String,
    /// A 0700 folder of baton's own for the Claude file (`terminals/<id>/runs`).
    pub run_dir: PathBuf,
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
#[derive(Debug, Clone, PartialEq, Default)]
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
    /// What the turn cost, as the CLI reported it at the end.
    pub cost: Option<crate::words::TurnCost>,
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
    #[error("providers.codex.args names a profile of its own (-p {name}): baton passes its own profile to carry its system text and Codex takes only one; remove it and put those settings in $CODEX_HOME/config.toml or as -c key=value in providers.codex.args")]
    ProfileClash { name: String },
    #[error("cannot write the system text for {provider} ({path}): {source}")]
    SystemFile {
        provider: ProviderKind,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("a {provider} session cannot be {what} here ({id})")]
    Unsupported {
        provider: ProviderKind,
        what: &'static str,
        id: String,
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
    /// A run without a process (a local endpoint) sends its prompt once its gate opens, which
    /// the caller does once it journalled that the prompt goes out.
    Prompting,
    /// One stdout line exactly as the CLI printed it (without the newline).
    Raw(String),
    /// A normalized event parsed from that line.
    Event(TurnEvent),
    /// Something baton itself did during the run that the turn's notes keep (a local run's
    /// trimmed history, an estimated usage).
    Note(String),
    /// The CLI read the `index`-th line sent on the run's steer channel (from 0).
    SteerRead { index: usize },
    /// The CLI asks before a call it would otherwise refuse, and waits for the answer.
    Asked(ask::Asked),
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

/// `jsonl` with every JSON string value equal to `old` replaced by `new` on the lines whose
/// JSON value `pick` chooses (in place: the rest of those lines, and every other line, byte for
/// byte). A CLI's session file keeps baton's system text; a copy for another checkout gets the
/// new one. Only whole string values change, however the CLI escaped them: never a key, never
/// text that merely spells `"old"` across the quotes of two other strings.
pub(crate) fn replace_in_lines(
    jsonl: &[u8],
    old: &str,
    new: &str,
    pick: impl Fn(&serde_json::Value) -> bool,
) -> Vec<u8> {
    let Ok(new_json) = serde_json::to_string(new) else {
        return jsonl.to_vec();
    };
    let mut out = Vec::with_capacity(jsonl.len());
    for line in jsonl.split_inclusive(|b| *b == b'\n') {
        let text = std::str::from_utf8(line).ok();
        let picked = text
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t.trim_end()).ok())
            .is_some_and(|v| pick(&v));
        match text {
            Some(t) if picked => {
                out.extend_from_slice(replace_values(t, old, &new_json).as_bytes())
            }
            _ => out.extend_from_slice(line),
        }
    }
    out
}

/// `line` (valid JSON) with each string value that decodes to `old` written as `new_json`.
fn replace_values(line: &str, old: &str, new_json: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // A string token: up to its closing quote (escapes skipped).
        let mut end = i + 1;
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        let end = (end + 1).min(bytes.len());
        let (Some(token), Some(rest)) = (line.get(i..end), line.get(end..)) else {
            break;
        };
        let is_key = rest.trim_start().starts_with(':');
        if !is_key && serde_json::from_str::<String>(token).is_ok_and(|s| s == old) {
            out.push_str(&line[copied..i]);
            out.push_str(new_json);
            copied = end;
        }
        i = end;
    }
    out.push_str(&line[copied..]);
    out
}

/// What the providers' tests share: a private folder standing for HOME, with the CLIs' homes
/// (`.claude`, `.codex`) inside it, as a user's are.
#[cfg(test)]
pub(crate) mod testing {
    use super::ProviderHomes;

    pub struct Home {
        pub dir: tempfile::TempDir,
        pub homes: ProviderHomes,
    }

    pub fn home() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let homes = ProviderHomes {
            claude: dir.path().join(".claude"),
            codex: dir.path().join(".codex"),
        };
        Home { dir, homes }
    }
}

#[cfg(test)]
#[path = "tool_captures_tests.rs"]
mod tool_captures_tests;
