//! The Codex adapter: its `exec --json` command line, its JSONL events folded into
//! [`TurnEvent`]s and a [`TurnOutcome`], and its rollout files (context size and window).

pub mod app;
mod app_events;
pub mod ask;
pub mod provider;
pub mod rollout;

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::claude::one_line;
use super::process::{read_file_tail, ExitInfo};
use super::tools;
use super::{ProviderHomes, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ContextUsage, TurnEvent, TurnStatus};

/// What Codex prints on stderr when `exec resume <id>` names no thread.
const NOT_FOUND: &str = "no rollout found for thread id";
/// What Codex prints on stderr when another Codex process holds the thread (one writer each).
const ACTIVE_WRITER: &str = "already has an active writer";
/// How much of a rollout file's end is read first to find the last token count.
const ROLLOUT_TAIL_BYTES: u64 = 4 * 1024 * 1024;
/// Longest tool summary, in characters.
const SUMMARY_CHARS: usize = 80;

/// The `codex exec` command line for one run. Every option comes before `resume` (Codex
/// rejects some after it); the prompt is never in it: with no positional prompt Codex reads
/// stdin to EOF.
pub fn args(spec: &RunSpec) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["exec", "--json", "--skip-git-repo-check"]
        .into_iter()
        .map(OsString::from)
        .collect();
    if let Some(model) = &spec.model {
        args.extend(["-m".into(), model.into()]);
    }
    // A profile holding `developer_instructions`, when the run creates a thread (resume ignores
    // it): the text itself is never in argv, which every local user can read.
    args.extend(super::system_file::args(spec));
    if let Some(sandbox) = &spec.sandbox {
        args.extend(["--sandbox".into(), sandbox.into()]);
    }
    for dir in &spec.add_dirs {
        args.extend([OsString::from("--add-dir"), dir.into()]);
    }
    args.extend(spec.extra_args.iter().map(OsString::from));
    match &spec.session {
        SessionMode::New { .. } => {}
        SessionMode::Resume { session_id } => args.extend(["resume".into(), session_id.into()]),
        // Without the final `-` Codex forks but sends no prompt.
        SessionMode::Fork { from, .. } => args.extend(["fork".into(), from.into(), "-".into()]),
    }
    args
}

/// `text` as a TOML basic string: Codex parses a profile's (or a `-c key=value`) value as
/// TOML, so this yields exactly `text` back, whatever quotes, backslashes or newlines it holds.
pub fn toml_basic_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' || c == '\u{7f}' => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Folds `codex exec --json` stdout into events and, at exit, a [`TurnOutcome`].
#[derive(Debug, Default)]
pub struct CodexParser {
    json_events: usize,
    other_lines: usize,
    thread_id: Option<String>,
    end: Option<(TurnStatus, Option<String>)>,
    /// Items already reported as tool calls (at `item.started`), by id.
    reported: HashSet<String>,
    answer: String,
    /// `turn.completed`'s usage.
    cost: Option<crate::words::TurnCost>,
    /// The run's working directory: paths are shown relative to it.
    cwd: Option<PathBuf>,
    /// The app-server turn's id (`turn/started`).
    turn_id: Option<String>,
    /// Answer items whose text came as deltas (app-server), by id.
    streamed: HashSet<String>,
    /// The streamed text of an answer item not completed yet (an interrupt or a steer cuts
    /// one short: it never completes, yet the user saw it), and the item's id.
    partial: Option<(String, String)>,
    /// Tool items of an app-server turn that started and have not completed, by id.
    running: HashSet<String>,
    /// The context an app-server turn reported (`thread/tokenUsage/updated`).
    app_context: Option<ContextUsage>,
}

impl CodexParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser for a run in `cwd` (paths relative to it).
    pub fn in_dir(cwd: &Path) -> Self {
        Self {
            cwd: Some(cwd.to_path_buf()),
            ..Self::default()
        }
    }

    /// A parser for a turn of a warm app-server in `cwd`, on thread `thread_id` (its stream
    /// never names the thread).
    pub fn for_thread(cwd: &Path, thread_id: &str) -> Self {
        Self {
            thread_id: Some(thread_id.to_owned()),
            ..Self::in_dir(cwd)
        }
    }

    /// The app-server turn's id, once it started.
    pub fn turn_id(&self) -> Option<&str> {
        self.turn_id.as_deref()
    }

    /// Ends the turn as failed with `error` (the CLI refused it before it began): its end.
    pub fn fail(&mut self, error: String) -> TurnEvent {
        let status = TurnStatus::Failed;
        self.end = Some((status, Some(error.clone())));
        TurnEvent::End {
            status,
            error: Some(error),
        }
    }

    /// Whether a tool call of the turn started and has not completed (an interrupted
    /// app-server turn leaves its command running).
    pub fn tools_running(&self) -> bool {
        !self.running.is_empty()
    }

    /// Whether the turn has ended (`turn.completed`/`turn.failed`, `turn/completed`).
    pub fn ended(&self) -> bool {
        self.end.is_some()
    }

    /// Parses one stdout line, of `codex exec --json` or of `codex app-server` (JSON-RPC: a
    /// `method`, or an answer's `id`). Lines that are neither are counted and otherwise ignored.
    pub fn feed(&mut self, line: &str) -> Vec<TurnEvent> {
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        let value = match serde_json::from_str::<Value>(line) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                self.other_lines += 1;
                return Vec::new();
            }
        };
        let rpc = value["method"].is_string()
            || value.get("id").is_some()
                && (value.get("result").is_some() || value.get("error").is_some());
        if rpc {
            self.json_events += 1;
            return self.feed_app(&value);
        }
        let Some(kind) = value["type"].as_str().map(str::to_owned) else {
            self.other_lines += 1;
            return Vec::new();
        };
        let kind = kind.as_str();
        self.json_events += 1;
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        match kind {
            "thread.started" => match value["thread_id"].as_str() {
                Some(id) => {
                    self.thread_id = Some(id.to_owned());
                    vec![TurnEvent::Session {
                        session_id: id.to_owned(),
                        model: None,
                    }]
                }
                None => Vec::new(),
            },
            "item.started" => self.on_item(&value["item"], false),
            "item.completed" => self.on_item(&value["item"], true),
            // Transient: `Reconnecting... 1/5 (…)`. A failure ends with `turn.failed`.
            "error" => vec![TurnEvent::Warning {
                message: text(&value["message"]),
            }],
            "turn.completed" => {
                self.cost = usage_cost(&value["usage"]);
                self.end(TurnStatus::Completed, None)
            }
            "turn.failed" => self.end(TurnStatus::Failed, Some(failure(&value["error"]))),
            _ => Vec::new(),
        }
    }

    fn end(&mut self, status: TurnStatus, error: Option<String>) -> Vec<TurnEvent> {
        self.end = Some((status, error.clone()));
        vec![TurnEvent::End { status, error }]
    }

    /// One more piece of the answer.
    fn add_answer(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.answer.is_empty() {
            self.answer.push_str("\n\n");
        }
        self.answer.push_str(text);
    }

    fn on_item(&mut self, item: &Value, completed: bool) -> Vec<TurnEvent> {
        let kind = item["type"].as_str().unwrap_or_default();
        match kind {
            "agent_message" if completed => {
                let text = item["text"].as_str().unwrap_or_default();
                if text.is_empty() {
                    return Vec::new();
                }
                self.add_answer(text);
                vec![TurnEvent::Text {
                    text: text.to_owned(),
                }]
            }
            // An item of type error is a warning (e.g. missing model metadata), not a failure.
            "error" if completed => vec![TurnEvent::Warning {
                message: item["message"].as_str().unwrap_or_default().to_owned(),
            }],
            "agent_message" | "error" | "reasoning" | "todo_list" => Vec::new(),
            _ => {
                // Reported once, when first seen (started, or completed without a start); its
                // result when it completes.
                let id = item["id"].as_str().unwrap_or_default().to_owned();
                let mut events = Vec::new();
                if id.is_empty() || self.reported.insert(id.clone()) {
                    let (name, summary) = item_summary(kind, item, self.cwd.as_deref());
                    events.push(TurnEvent::ToolUse {
                        name,
                        summary,
                        id: (!id.is_empty()).then(|| id.clone()),
                        parent: None,
                        edits: Vec::new(),
                    });
                }
                if completed && !id.is_empty() {
                    events.extend(item_result(kind, item, id));
                }
                events
            }
        }
    }

    /// The outcome of the run, once the process exited. `expected_thread` is the thread a
    /// resume asked for: Codex silently starts a new thread on some ids, so the echo is checked.
    pub fn finish(
        self,
        exit: &ExitInfo,
        homes: &ProviderHomes,
        expected_thread: Option<&str>,
    ) -> TurnOutcome {
        let session_not_found = exit.stderr_tail.contains(NOT_FOUND);
        let (status, error) = self.final_status(exit, expected_thread, session_not_found);
        let rollout = self
            .thread_id
            .as_deref()
            .and_then(|id| find_rollout(&homes.codex, id))
            .map(|file| read_rollout(&file))
            .unwrap_or_default();
        TurnOutcome {
            status: Some(status),
            error,
            session_id: self.thread_id,
            model: rollout.model,
            // An app-server turn's own report comes first: its rollout may lag.
            context: self.app_context.or(rollout.context),
            session_not_found,
            answer: self.answer,
            // `turn.completed.usage` is the thread's running total: the turn's own tokens are
            // the rollout's (the total will do where no rollout was read: a thread's first turn).
            cost: rollout
                .turn_tokens
                .or(self.cost.filter(|_| expected_thread.is_none())),
        }
    }

    fn final_status(
        &self,
        exit: &ExitInfo,
        expected: Option<&str>,
        session_not_found: bool,
    ) -> (TurnStatus, Option<String>) {
        if let (Some(expected), Some(echoed)) = (expected, self.thread_id.as_deref()) {
            if expected != echoed {
                let error = format!(
                    "codex started a different thread ({echoed}) instead of resuming {expected}"
                );
                return (TurnStatus::Failed, Some(error));
            }
        }
        let completed = matches!(self.end, Some((TurnStatus::Completed, _)));
        if exit.was_interrupted() && !completed {
            return (TurnStatus::Interrupted, None);
        }
        if let Some((status, error)) = &self.end {
            return (*status, error.clone());
        }
        let error = if exit.stderr_tail.contains(ACTIVE_WRITER) {
            let thread = expected.unwrap_or("the thread");
            format!(
                "codex could not open thread {thread}: another Codex process has it open (a Codex of your own on this thread?); close it and send again ({})",
                exit.describe_with_stderr()
            )
        } else if session_not_found {
            let thread = expected.unwrap_or("the requested thread");
            format!(
                "codex has no thread {thread} to resume ({})",
                exit.describe_with_stderr()
            )
        } else if self.json_events == 0 {
            format!(
                "codex printed no JSON events (is it a real Codex CLI?): {} other stdout lines, \
                 then it exited with {}",
                self.other_lines,
                exit.describe_with_stderr()
            )
        } else {
            format!(
                "codex exited with {} before the turn ended",
                exit.describe_with_stderr()
            )
        };
        (TurnStatus::Failed, Some(error))
    }
}

/// What a failed turn's `error` says; a blank message explains nothing, yet the turn still
/// says it failed.
fn failure(error: &Value) -> String {
    error["message"]
        .as_str()
        .filter(|m| !m.trim().is_empty())
        .map_or_else(|| "codex reported a failed turn".to_owned(), str::to_owned)
}

/// The result of a patch that applied: Codex reports the files a patch changed, not the change.
pub const PATCH_APPLIED: &str =
    "applied (Codex reports which files a patch changed, not the change: the diff face shows it)";

/// A tool-like item as a name and a one-line summary.
fn item_summary(kind: &str, item: &Value, cwd: Option<&Path>) -> (String, String) {
    let field = |key: &str| item[key].as_str().unwrap_or_default();
    match kind {
        "command_execution" => {
            let command = unwrap_shell(field("command"));
            (
                "shell".into(),
                format!("Shell {}", one_line(&command, SUMMARY_CHARS)),
            )
        }
        "file_change" => ("patch".into(), tools::codex_patch_summary(item, cwd)),
        "mcp_tool_call" => {
            let name = format!("{}.{}", field("server"), field("tool"));
            ("mcp".into(), one_line(&name, SUMMARY_CHARS))
        }
        "web_search" => ("web_search".into(), one_line(field("query"), SUMMARY_CHARS)),
        _ => {
            let mut rest = item.clone();
            if let Some(obj) = rest.as_object_mut() {
                obj.remove("id");
                obj.remove("type");
            }
            let compact = serde_json::to_string(&rest).unwrap_or_default();
            (kind.to_owned(), one_line(&compact, SUMMARY_CHARS))
        }
    }
}

/// What a completed item gave back: a command's output (failed on a non-zero exit code); of a
/// patch, whether it applied (its summary already names the files, and `exec --json` tells no
/// more of the change: expanded, the call says where to see it).
fn item_result(kind: &str, item: &Value, id: String) -> Option<TurnEvent> {
    let status = item["status"].as_str().unwrap_or_default();
    let (output, is_error) = match kind {
        "command_execution" => {
            let code = item["exit_code"].as_i64();
            let mut out = item["aggregated_output"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if let Some(code) = code.filter(|c| *c != 0) {
                out.push_str(&format!("\n(exit code {code})"));
            }
            (out, code.is_some_and(|c| c != 0) || status == "failed")
        }
        "file_change" if status == "failed" => ("the patch was not applied".to_owned(), true),
        "file_change" if status == "completed" => (PATCH_APPLIED.to_owned(), false),
        "mcp_tool_call" if status == "failed" => {
            let message = item["error"]["message"].as_str().unwrap_or("failed");
            (message.to_owned(), true)
        }
        _ => return None,
    };
    Some(TurnEvent::ToolResult {
        id,
        output: crate::words::cap_text(output.trim_start_matches('\n')),
        is_error,
        parent: None,
    })
}

/// `/bin/bash -lc 'echo hi && pwd'` → `echo hi && pwd`: Codex wraps every command in a login
/// shell; the user wants to see the command. Anything else comes back unchanged.
fn unwrap_shell(command: &str) -> String {
    let inner = command.split_once(' ').and_then(|(shell, rest)| {
        let shell_name = shell.rsplit('/').next().unwrap_or(shell);
        if !matches!(shell_name, "bash" | "sh" | "zsh" | "dash") {
            return None;
        }
        let (flag, script) = rest.split_once(' ')?;
        if !matches!(flag, "-c" | "-lc") {
            return None;
        }
        match shlex::split(script)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    });
    inner.unwrap_or_else(|| command.to_owned())
}

/// What a rollout file says about the thread's latest turn.
#[derive(Debug, Default, PartialEq)]
struct RolloutFacts {
    context: Option<ContextUsage>,
    model: Option<String>,
    /// The turn's own tokens: the thread's running total at its last `token_count` less the
    /// total at the last one before the turn began (`task_started`); none before: the total.
    turn_tokens: Option<crate::words::TurnCost>,
}

/// The rollout file of `thread_id`: `<codex home>/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl`,
/// searched from the newest day back.
pub fn find_rollout(codex_home: &Path, thread_id: &str) -> Option<PathBuf> {
    if thread_id.is_empty() || thread_id.contains('/') {
        return None;
    }
    let suffix = format!("-{thread_id}.jsonl");
    for year in dirs_newest_first(&codex_home.join("sessions")) {
        for month in dirs_newest_first(&year) {
            for day in dirs_newest_first(&month) {
                let Ok(entries) = std::fs::read_dir(&day) else {
                    continue;
                };
                let found = entries.filter_map(Result::ok).find(|entry| {
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    name.starts_with("rollout-") && name.ends_with(&suffix)
                });
                if let Some(entry) = found {
                    return Some(entry.path());
                }
            }
        }
    }
    None
}

/// Subdirectories of `dir`, by name descending (zero-padded dates sort as numbers).
fn dirs_newest_first(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
    dirs
}

/// The last `token_count` (context = `last_token_usage.total_tokens`, never the cumulative
/// `total_token_usage`), the last `turn_context` model and the latest turn's own tokens of a
/// rollout file.
fn read_rollout(file: &Path) -> RolloutFacts {
    let Ok((tail, whole)) = read_file_tail(file, ROLLOUT_TAIL_BYTES) else {
        return RolloutFacts::default();
    };
    let (facts, done) = scan_rollout(&tail, whole);
    if done {
        return facts;
    }
    match read_file_tail(file, u64::MAX) {
        Ok((text, _)) => scan_rollout(&text, true).0,
        Err(_) => facts,
    }
}

/// The facts of rollout `text`, read from its end, and whether they are all there is to know
/// (`whole`: the text starts where the file does).
fn scan_rollout(text: &str, whole: bool) -> (RolloutFacts, bool) {
    let mut facts = RolloutFacts::default();
    // The running total at the latest turn's last count; whether the scan went past that
    // turn's start; whether its own tokens are known (or known to be unknowable).
    let mut end_total: Option<crate::words::TurnCost> = None;
    let mut before_turn = false;
    let mut settled = false;
    for line in text.lines().rev() {
        if facts.model.is_some() && facts.context.is_some() && settled {
            return (facts, true);
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let payload = &value["payload"];
        match (value["type"].as_str(), payload["type"].as_str()) {
            (Some("turn_context"), _) if facts.model.is_none() => {
                facts.model = payload["model"].as_str().map(str::to_owned);
            }
            (Some("event_msg"), Some("task_started")) if !before_turn => {
                before_turn = true;
                // A turn that counted nothing (it failed first) has no tokens of its own.
                settled = end_total.is_none();
            }
            (Some("event_msg"), Some("token_count")) => {
                if facts.context.is_none() {
                    facts.context = token_count_context(payload);
                }
                let Some(total) = token_total(payload) else {
                    continue;
                };
                if !before_turn && end_total.is_none() {
                    end_total = Some(total);
                } else if before_turn && !settled {
                    facts.turn_tokens = end_total.map(|end| minus(end, total));
                    settled = true;
                }
            }
            _ => {}
        }
    }
    if whole && !settled {
        // No count before the turn: the thread's first turn, its total is its own.
        facts.turn_tokens = end_total;
    }
    let done = whole || facts.model.is_some() && facts.context.is_some() && settled;
    (facts, done)
}

/// The thread's running total of a `token_count` payload (the shape of `turn.completed`'s).
fn token_total(payload: &Value) -> Option<crate::words::TurnCost> {
    usage_cost(&payload["info"]["total_token_usage"])
}

/// `end - start`, token by token (never below zero: a count that went back is no cost).
fn minus(end: crate::words::TurnCost, start: crate::words::TurnCost) -> crate::words::TurnCost {
    crate::words::TurnCost {
        input_tokens: end.input_tokens.saturating_sub(start.input_tokens),
        cached_tokens: end.cached_tokens.saturating_sub(start.cached_tokens),
        output_tokens: end.output_tokens.saturating_sub(start.output_tokens),
        usd: None,
    }
}

fn token_count_context(payload: &Value) -> Option<ContextUsage> {
    if payload["type"].as_str() != Some("token_count") {
        return None;
    }
    let info = &payload["info"];
    Some(ContextUsage {
        tokens: info["last_token_usage"]["total_tokens"].as_u64()?,
        window: info["model_context_window"].as_u64()?,
    })
}

/// A turn's tokens from `turn.completed`'s `usage` (Codex reports no money).
fn usage_cost(usage: &Value) -> Option<crate::words::TurnCost> {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    usage.get("input_tokens")?.as_u64()?;
    Some(crate::words::TurnCost {
        input_tokens: n("input_tokens"),
        cached_tokens: n("cached_input_tokens"),
        output_tokens: n("output_tokens"),
        usd: None,
    })
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
