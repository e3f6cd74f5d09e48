//! The vocabulary every layer shares: which provider runs a turn ([`ProviderKind`]), how a
//! turn ended ([`TurnStatus`]), the context it left ([`ContextUsage`]), the one normalized
//! event type all providers' streams become ([`TurnEvent`]), why a conversation or a provider
//! session opened ([`OpenReason`], [`SessionReason`]), how input waits and reached its turn
//! ([`InputMode`], [`TurnMode`]) and where a terminal's runs happen ([`CheckoutMode`]). Their serialized forms are in the
//! journal and on the socket, so a change here is a change of format.
//!
//! This module depends on nothing in the crate: everything else may depend on it.

use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// Which provider runs a turn. `Local` is an OpenAI-compatible endpoint baton drives itself;
/// which endpoint is a separate setting of the terminal (`TerminalRow::endpoint`), so the kind
/// stays a plain `Copy` value everywhere else. What each one does is `providers::of(kind)`;
/// this file only names them (see [`KINDS`]). A terminal made without a choice runs the default.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    #[default]
    Claude,
    Codex,
    Local,
}

/// What every layer may know of a provider kind without asking its provider (the UI and the
/// store may not): its name and whether it is a CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindNames {
    pub kind: ProviderKind,
    /// As typed by the user, in the journal and on the socket.
    pub name: &'static str,
    /// A CLI baton runs as a child process, with a binary and a session of its own on disk.
    /// Otherwise an endpoint baton drives itself: its history is baton's own (journalled,
    /// trimmed per request, so it never rotates) and the terminal names the endpoint.
    pub cli: bool,
    /// What to tell a user whose binary (or endpoint) is missing.
    pub install_hint: &'static str,
}

/// Every provider kind, in the enum's order (`names` indexes it).
pub const KINDS: [KindNames; 3] = [
    KindNames {
        kind: ProviderKind::Claude,
        name: "claude",
        cli: true,
        install_hint: "npm install -g @anthropic-ai/claude-code",
    },
    KindNames {
        kind: ProviderKind::Codex,
        name: "codex",
        cli: true,
        install_hint: "npm install -g @openai/codex",
    },
    KindNames {
        kind: ProviderKind::Local,
        name: "local",
        cli: false,
        install_hint: "add [providers.local.endpoints.NAME] to baton's config.toml",
    },
];

impl ProviderKind {
    /// Every kind, in order.
    pub fn all() -> impl Iterator<Item = ProviderKind> {
        KINDS.iter().map(|k| k.kind)
    }

    fn names(self) -> &'static KindNames {
        &KINDS[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.names().name
    }

    /// Parses a provider name as typed by the user (`claude`, `codex`, `local`); the endpoint of
    /// `local:NAME` is split off by the caller.
    pub fn parse(name: &str) -> Option<ProviderKind> {
        KINDS.iter().find(|k| k.name == name).map(|k| k.kind)
    }

    /// True for the providers baton runs as a child process (a CLI with a binary); false for
    /// an endpoint baton drives itself (see [`KindNames::cli`]).
    pub fn is_cli(self) -> bool {
        self.names().cli
    }

    /// What to tell a user whose binary is missing.
    pub fn install_hint(self) -> &'static str {
        self.names().install_hint
    }

    /// The CLI a "next provider" key moves to: the next CLI kind in order, round; an endpoint
    /// is chosen by name (`--provider local:NAME`), never by cycling.
    pub fn next_cli(self) -> ProviderKind {
        let clis = || KINDS.iter().filter(|k| k.cli).map(|k| k.kind);
        clis()
            .skip_while(|k| *k != self)
            .nth(1)
            .or_else(|| clis().next())
            .unwrap_or(self)
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

/// What a turn cost, as its CLI reported it at the end: tokens over all the turn's model calls
/// and, where the CLI says (Claude Code's `total_cost_usd`), money.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TurnCost {
    /// Tokens sent to the model, cached ones included.
    pub input_tokens: u64,
    /// Of those, read from the provider's cache.
    pub cached_tokens: u64,
    pub output_tokens: u64,
    /// US dollars, when the CLI reports it (Codex does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
}

/// `n` with a comma between each three digits: `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// How long a turn took: what the server measured (`turn_finished`'s `duration_ms`), else the
/// time between its start and its end as journalled (`started_at`, `finished_at`: a turn from
/// before the measure was kept, or one a crash or an import closed). None while it runs, or
/// when a time does not read or the clock went back.
pub fn turn_duration_ms(
    measured: Option<u64>,
    started_at: &str,
    finished_at: Option<&str>,
) -> Option<u64> {
    if measured.is_some() {
        return measured;
    }
    let start = chrono::DateTime::parse_from_rfc3339(started_at).ok()?;
    let end = chrono::DateTime::parse_from_rfc3339(finished_at?).ok()?;
    u64::try_from((end - start).num_milliseconds()).ok()
}

/// How a length of time reads ([`duration_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeText {
    /// `8.1 s`, `125.3 s`: tenths of seconds, however long (a turn's summary line, `/cost`).
    Tenths,
    /// `8.1 s`, and from a minute on `2 min 05 s` (a finished turn in the multiplexer).
    TenthsThenMinutes,
    /// `12 s`, and from a minute on `2 min 05 s` (a running turn, redrawn every second).
    WholeThenMinutes,
}

/// `ms` milliseconds as `how` says: the one way every client writes a length of time.
pub fn duration_text(ms: u64, how: TimeText) -> String {
    let secs = ms / 1000;
    match how {
        TimeText::TenthsThenMinutes | TimeText::WholeThenMinutes if secs >= 60 => {
            format!("{} min {:02} s", secs / 60, secs % 60)
        }
        TimeText::WholeThenMinutes => format!("{secs} s"),
        TimeText::Tenths | TimeText::TenthsThenMinutes => format!("{:.1} s", ms as f64 / 1000.0),
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
    /// A tool call, summarized in one line: the tool and its target (`Read src/main.rs`,
    /// `Bash cargo test`), paths relative to the turn's checkout. The other fields came later
    /// (absent from older senders: `#[serde(default)]`).
    ToolUse {
        name: String,
        summary: String,
        /// The call's id (Claude `tool_use.id`, Codex item id): its result names it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The call this one was made under (a Claude subagent's, started by `Task`/`Agent`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
        /// What an editing call changes, for a small diff (each text capped, see
        /// [`cap_text`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        edits: Vec<FileEdit>,
    },
    /// What a tool call gave back (its output capped, see [`cap_text`]).
    ToolResult {
        /// The call's id (`ToolUse.id`).
        id: String,
        output: String,
        /// The tool failed (Claude `is_error`, a Codex command's non-zero exit).
        #[serde(default)]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
    },
    /// A tool call the CLI refused to run headless (Claude's `result.permission_denials`).
    Denied {
        /// The tool (`Bash`).
        tool: String,
        /// What it would have done (`rm -rf build`), as in a tool summary.
        target: String,
    },
    /// Text a subagent wrote under the call that started it (not part of the answer).
    SubagentText { parent: String, text: String },
    /// Usage of one model call as the stream reported it (not necessarily final).
    Usage { tokens: u64 },
    /// Something the provider warned about without failing the turn.
    Warning { message: String },
    /// Something the CLI did that the user should know of, not a warning (Claude compacted
    /// the conversation). The server journals it among the turn's notes.
    Notice { message: String },
    /// The turn ended.
    End {
        status: TurnStatus,
        error: Option<String>,
    },
}

impl TurnEvent {
    /// A tool call known only by its name and summary (no id, parent or edits).
    pub fn tool(name: &str, summary: String) -> TurnEvent {
        TurnEvent::ToolUse {
            name: name.to_string(),
            summary,
            id: None,
            parent: None,
            edits: Vec::new(),
        }
    }

    /// Adds what this event says of the answer to `answer`: pieces (a `Text`, or the deltas from
    /// a `start` on) are joined by a blank line; other events add nothing. The server's
    /// journalled answer and a parser's `providers::TurnOutcome::answer` are both this fold.
    pub fn add_to_answer(&self, answer: &mut String) {
        let (text, new_piece) = match self {
            TurnEvent::Text { text } => (text, true),
            TurnEvent::Delta { text, start } => (text, *start),
            TurnEvent::Session { .. }
            | TurnEvent::ToolUse { .. }
            | TurnEvent::ToolResult { .. }
            | TurnEvent::Denied { .. }
            | TurnEvent::SubagentText { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::Warning { .. }
            | TurnEvent::Notice { .. }
            | TurnEvent::End { .. } => return,
        };
        if new_piece && !answer.is_empty() {
            answer.push_str("\n\n");
        }
        answer.push_str(text);
    }
}

/// One change an editing tool call makes: `old` replaced by `new` in `path` (relative to the
/// checkout). A whole-file write has an empty `old`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEdit {
    pub path: String,
    #[serde(default)]
    pub old: String,
    #[serde(default)]
    pub new: String,
}

/// Longest tool output or edit text an event carries, in bytes: a `cat` of a big file must
/// not travel whole to every watching client.
pub const TOOL_TEXT_BYTES: usize = 4096;

/// `text` cut to at most [`TOOL_TEXT_BYTES`] (at a character boundary), with a last line
/// saying how much was cut.
pub fn cap_text(text: &str) -> String {
    if text.len() <= TOOL_TEXT_BYTES {
        return text.to_string();
    }
    let mut end = TOOL_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    format!("{}\n… {cut} more bytes not shown", &text[..end])
}

/// Why a fresh conversation opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenReason {
    /// The terminal's first conversation.
    First,
    /// The directory runs use changed (rule 1).
    Moved,
    /// The context passed 45% of the window (rule 2).
    Size,
    /// The user asked for one (`send --fresh`).
    Manual,
    /// The terminal was forked from another: its first conversation carries on the original's.
    Fork,
    /// The terminal was rewound from another: the original's conversation up to a turn.
    Rewind,
}

impl OpenReason {
    pub fn as_str(self) -> &'static str {
        match self {
            OpenReason::First => "first",
            OpenReason::Moved => "moved",
            OpenReason::Size => "size",
            OpenReason::Manual => "manual",
            OpenReason::Fork => "fork",
            OpenReason::Rewind => "rewind",
        }
    }
}

/// Why a fresh provider session starts inside the live conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionReason {
    /// The conversation has no session yet (it just opened, or no turn got one).
    Fresh,
    /// The last turn ran on another provider (rule 3).
    Switch,
    /// The session to resume is gone from disk (rule 4's fallback).
    Lost,
    /// A fork of another terminal's session: the model keeps that session's history.
    Fork,
}

impl SessionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionReason::Fresh => "fresh",
            SessionReason::Switch => "switch",
            SessionReason::Lost => "lost",
            SessionReason::Fork => "fork",
        }
    }
}

/// How waiting input joins the terminal's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputMode {
    /// Starts the next turn, after the input before it.
    Queue,
    /// Joins the running turn before its next model call where the CLI can take it; else it
    /// runs next, before queued input.
    Steer,
}

impl InputMode {
    pub fn as_str(self) -> &'static str {
        match self {
            InputMode::Queue => "queue",
            InputMode::Steer => "steer",
        }
    }
}

/// How a turn's input reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnMode {
    /// Nothing was running or waiting: it started at once.
    Direct,
    /// It waited its turn.
    Queue,
    /// It was meant to join a running turn, which ended first (or could not take it).
    Steer,
    /// It interrupted the running turn and ran next.
    Jump,
}

/// Where a terminal's runs happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckoutMode {
    /// Its own git worktree on its own branch.
    Worktree,
    /// A plain folder (not a repository yet): watched, moves into a worktree once it is one.
    Folder,
    /// The directory it was opened on, as it is (`--in-place`).
    InPlace,
}

impl CheckoutMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckoutMode::Worktree => "worktree",
            CheckoutMode::Folder => "folder",
            CheckoutMode::InPlace => "in_place",
        }
    }

    pub fn parse(s: &str) -> Option<CheckoutMode> {
        match s {
            "worktree" => Some(CheckoutMode::Worktree),
            "folder" => Some(CheckoutMode::Folder),
            "in_place" => Some(CheckoutMode::InPlace),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "words_tests.rs"]
mod tests;

/// Longest automatic conversation title, in characters.
pub const TITLE_CHARS: usize = 40;

/// Characters that are invisible or change the direction of the text after them (Unicode
/// format characters, category Cf: U+202E, U+200B, U+2066–U+2069, U+FEFF…) and the line and
/// paragraph separators (Zl, Zp): in a name they make `ls` show something other than what
/// is stored. `None` only if the pattern failed to compile (a test compiles it).
static HIDDEN: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r"[\p{Cf}\p{Zl}\p{Zp}]").ok());

/// The first character of `text` that a terminal would not show as itself: a format
/// character (Cf) or a line/paragraph separator (Zl, Zp). Fails closed: without the pattern,
/// any non-ASCII character that is neither alphanumeric nor whitespace counts.
pub fn hidden_char(text: &str) -> Option<char> {
    // Every such character is outside ASCII: most text (names, paths) never needs the
    // pattern, and a client that lists terminals never compiles it.
    if text.is_ascii() {
        return None;
    }
    match HIDDEN.as_ref() {
        Some(re) => re.find(text).and_then(|m| m.as_str().chars().next()),
        None => text
            .chars()
            .find(|c| !c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace()),
    }
}

/// `text` as a list or a table may print it: each control character (Cc: an escape, a
/// newline, a tab) and each [`hidden_char`] written out as `<U+XXXX>`, so what a terminal shows
/// is what is stored and no escape sequence reaches it. Used for what baton shows but does not
/// refuse: directories (a path may hold any byte but NUL) and titles.
pub fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    // One scan of the whole text first: `ls` shows every terminal's directory.
    if !text.chars().any(char::is_control) && hidden_char(text).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let odd = |c: char| c.is_control() || hidden_char(c.encode_utf8(&mut [0; 4])).is_some();
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if odd(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` as the client prints an answer, a log or any other text a CLI or a model produced:
/// each control character (Cc: an escape, a BEL, a C1 control such as U+009B, DEL) written out
/// as `<U+XXXX>` as [`shown`] does, but the ones that lay out lines kept: a newline, a tab, and
/// a carriage return right before a newline. So an answer holding an OSC 52 clipboard write, a
/// window title or a screen clear reaches the user's terminal as text, never as a sequence.
/// Format characters (Cf) are kept: an answer's text legitimately joins emoji (U+200D) and
/// marks its direction (U+200E).
pub fn shown_lines(text: &str) -> std::borrow::Cow<'_, str> {
    // `i` is a char boundary and `\r` one byte, so `i + 1` is one too.
    let odd = |i: usize, c: char| match c {
        '\n' | '\t' => false,
        '\r' => !text[i + 1..].starts_with('\n'),
        c => c.is_control(),
    };
    if !text.char_indices().any(|(i, c)| odd(i, c)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        if odd(i, c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A conversation's automatic title: the first non-blank line of its first prompt, trimmed, at
/// most [`TITLE_CHARS`] characters (cut at a character boundary, trimmed again). A prompt may
/// hold any character, but a title is shown in lists like a name: it is [`shown`] (a prompt
/// is refused for no character but NUL).
pub fn title_of(prompt: &str) -> String {
    let line = prompt
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let cut: String = shown(line).chars().take(TITLE_CHARS).collect();
    cut.trim_end().to_string()
}

#[cfg(test)]
mod title_tests {
    use super::title_of;

    #[test]
    fn titles_are_the_first_line_cut_at_forty_characters() {
        let rows = [
            ("fix the login bug", "fix the login bug"),
            ("  padded  \nsecond line", "padded"),
            ("\n\n  \nafter blank lines\nmore", "after blank lines"),
            (
                "0123456789012345678901234567890123456789XYZ",
                "0123456789012345678901234567890123456789",
            ),
            (
                "ééééééééééééééééééééééééééééééééééééééééé",
                "éééééééééééééééééééééééééééééééééééééééé",
            ),
            (
                "123456789 123456789 123456789 123456789 tail",
                "123456789 123456789 123456789 123456789",
            ),
            (
                "日本語のプロンプトです。日本語のプロンプトです。日本語のプロンプトです。日本語",
                "日本語のプロンプトです。日本語のプロンプトです。日本語のプロンプトです。日本語",
            ),
            ("🙂 emoji", "🙂 emoji"),
            ("", ""),
            ("\r\nwindows\r\nline", "windows"),
            ("evil\u{202E}gnp.exe", "evil<U+202E>gnp.exe"),
            ("a\u{200B}b\u{FEFF}", "a<U+200B>b<U+FEFF>"),
            // Control characters too: a tab would break a list's columns, an escape its screen.
            ("tab\there", "tab<U+0009>here"),
            ("\u{1b}[31mred", "<U+001B>[31mred"),
        ];
        for (prompt, want) in rows {
            assert_eq!(title_of(prompt), want, "{prompt:?}");
        }
    }
}
