//! The Claude Code adapter: its command line, its `stream-json` output folded into
//! [`TurnEvent`]s and a [`TurnOutcome`], and where its session files live on disk.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::process::{read_file_tail, ExitInfo};
use super::{
    ContextUsage, ProviderHomes, RunSpec, SessionMode, TurnEvent, TurnOutcome, TurnStatus,
};

/// What Claude Code prints (stderr and the error result) when `--resume` names no session.
const NOT_FOUND: &str = "No conversation found with session ID";
/// The model name Claude Code gives the placeholder messages it makes up for API errors.
const SYNTHETIC_MODEL: &str = "<synthetic>";
/// Claude Code's limit for an encoded project directory name (`MAX_SANITIZED_LENGTH`).
const MAX_ENCODED_LEN: usize = 200;
/// How much of a session file's end is read first to find the last model call.
const SESSION_TAIL_BYTES: u64 = 4 * 1024 * 1024;
/// Longest tool summary, in characters.
const SUMMARY_CHARS: usize = 80;

/// The Claude Code command line for one run. The prompt is never in it: it goes on stdin.
pub fn args(spec: &RunSpec) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["-p", "--output-format", "stream-json", "--verbose"]
        .into_iter()
        .map(OsString::from)
        .collect();
    let mut pair = |flag: &str, value: &str| {
        args.push(flag.into());
        args.push(value.into());
    };
    match &spec.session {
        SessionMode::New {
            session_id: Some(id),
        } => pair("--session-id", id),
        SessionMode::New { session_id: None } => {}
        SessionMode::Resume { session_id } => pair("--resume", session_id),
    }
    // Passed on resume too: some CLI versions otherwise resume on a model with another window.
    if let Some(model) = &spec.model {
        pair("--model", model);
    }
    if !spec.system_text.is_empty() {
        pair("--append-system-prompt", &spec.system_text);
    }
    if let Some(mode) = &spec.permission_mode {
        pair("--permission-mode", mode);
    }
    for dir in &spec.add_dirs {
        // `--add-dir DIR` is variadic and would swallow what follows; `=` takes exactly one.
        let mut arg = OsString::from("--add-dir=");
        arg.push(dir);
        args.push(arg);
    }
    args.extend(spec.extra_args.iter().map(OsString::from));
    args
}

/// The token counts of one model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CallUsage {
    input: u64,
    cache_creation: u64,
    cache_read: u64,
    output: u64,
}

impl CallUsage {
    fn from_json(usage: &Value) -> Option<CallUsage> {
        let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        usage.get("input_tokens")?.as_u64()?;
        Some(CallUsage {
            input: n("input_tokens"),
            cache_creation: n("cache_creation_input_tokens"),
            cache_read: n("cache_read_input_tokens"),
            output: n("output_tokens"),
        })
    }

    /// Tokens in context after this call: everything sent plus what the model wrote.
    fn total(&self) -> u64 {
        self.input + self.cache_creation + self.cache_read + self.output
    }

    /// Both describe the same request (the output count may differ: the stream's is partial).
    fn same_request(&self, other: &CallUsage) -> bool {
        (self.input, self.cache_creation, self.cache_read)
            == (other.input, other.cache_creation, other.cache_read)
    }
}

/// The `result` line, reduced to what the outcome needs.
#[derive(Debug, Clone)]
struct ResultLine {
    status: TurnStatus,
    error: Option<String>,
    session_id: Option<String>,
    /// `modelUsage` keys with their `contextWindow`.
    windows: Vec<(String, u64)>,
}

/// Folds Claude Code's `stream-json` stdout into events and, at exit, a [`TurnOutcome`].
#[derive(Debug, Default)]
pub struct ClaudeParser {
    json_events: usize,
    other_lines: usize,
    session_id: Option<String>,
    init_model: Option<String>,
    /// The last real (non-synthetic) model call, its message id and model.
    last_call: Option<(CallUsage, Option<String>, Option<String>)>,
    /// The latest `message_delta` final output count, by message id (partial-message mode).
    delta_output: Option<(String, u64)>,
    result: Option<ResultLine>,
    not_found_in_stream: bool,
    answer: String,
}

impl ClaudeParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses one stdout line. Lines that are not JSON events are counted and otherwise ignored.
    pub fn feed(&mut self, line: &str) -> Vec<TurnEvent> {
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                self.other_lines += 1;
                return Vec::new();
            }
        };
        let Some(kind) = value.get("type").and_then(Value::as_str) else {
            self.other_lines += 1;
            return Vec::new();
        };
        self.json_events += 1;
        match kind {
            "system" => self.on_system(&value),
            "assistant" => self.on_assistant(&value),
            "result" => self.on_result(&value),
            "stream_event" => {
                self.on_stream_event(&value);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn on_system(&mut self, value: &Value) -> Vec<TurnEvent> {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        match value.get("subtype").and_then(Value::as_str) {
            Some("init") => {
                self.session_id = text("session_id").or(self.session_id.take());
                self.init_model = text("model");
                match &self.session_id {
                    Some(id) => vec![TurnEvent::Session {
                        session_id: id.clone(),
                        model: self.init_model.clone(),
                    }],
                    None => Vec::new(),
                }
            }
            Some("api_retry") => {
                let num = |key: &str| value.get(key).and_then(Value::as_u64);
                let status = num("error_status").map_or("an".to_string(), |s| s.to_string());
                let mut message = format!("claude API error {status}");
                if let Some(error) = text("error") {
                    message.push_str(&format!(" ({error})"));
                }
                if let (Some(attempt), Some(max)) = (num("attempt"), num("max_retries")) {
                    message.push_str(&format!(", retry {attempt}/{max}"));
                }
                vec![TurnEvent::Warning { message }]
            }
            _ => Vec::new(),
        }
    }

    fn on_assistant(&mut self, value: &Value) -> Vec<TurnEvent> {
        let message = &value["message"];
        let model = message.get("model").and_then(Value::as_str);
        // The API-error placeholder repeats the error the result line carries: keep it there.
        let api_error = value.get("is_api_error_message").and_then(Value::as_bool) == Some(true);
        let mut events = Vec::new();
        for block in message["content"].as_array().into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") if !api_error => {
                    let text = block["text"].as_str().unwrap_or_default();
                    if !text.is_empty() {
                        if !self.answer.is_empty() {
                            self.answer.push_str("\n\n");
                        }
                        self.answer.push_str(text);
                        events.push(TurnEvent::Text {
                            text: text.to_owned(),
                        });
                    }
                }
                Some("tool_use") => {
                    let name = block["name"].as_str().unwrap_or("tool").to_owned();
                    let summary = tool_summary(&name, &block["input"]);
                    events.push(TurnEvent::ToolUse { name, summary });
                }
                _ => {}
            }
        }
        if model != Some(SYNTHETIC_MODEL) {
            if let Some(usage) = CallUsage::from_json(&message["usage"]) {
                let id = message.get("id").and_then(Value::as_str).map(str::to_owned);
                self.last_call = Some((usage, id, model.map(str::to_owned)));
                events.push(TurnEvent::Usage {
                    tokens: usage.total(),
                });
            }
        }
        events
    }

    fn on_result(&mut self, value: &Value) -> Vec<TurnEvent> {
        let is_error = match value.get("is_error").and_then(Value::as_bool) {
            Some(flag) => flag,
            None => value.get("subtype").and_then(Value::as_str) != Some("success"),
        };
        let errors = result_errors(value);
        self.not_found_in_stream |= errors.iter().any(|e| e.contains(NOT_FOUND));
        let (status, error) = if is_error {
            (TurnStatus::Failed, Some(result_error(value, &errors)))
        } else {
            (TurnStatus::Completed, None)
        };
        let windows = value["modelUsage"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(model, usage)| {
                let window = usage.get("contextWindow").and_then(Value::as_u64)?;
                (window > 0).then(|| (model.clone(), window))
            })
            .collect();
        self.result = Some(ResultLine {
            status,
            error: error.clone(),
            session_id: value["session_id"].as_str().map(str::to_owned),
            windows,
        });
        vec![TurnEvent::End { status, error }]
    }

    /// `--include-partial-messages`: `message_delta` carries a call's final output count.
    fn on_stream_event(&mut self, value: &Value) {
        let event = &value["event"];
        if event["type"].as_str() != Some("message_delta") {
            return;
        }
        let output = event["usage"]["output_tokens"].as_u64();
        let id = value["api_message_id"].as_str();
        if let (Some(output), Some(id)) = (output, id) {
            self.delta_output = Some((id.to_owned(), output));
        }
    }

    /// The outcome of the run, once the process exited. `cwd` is the run's working directory
    /// (where the session file lives).
    pub fn finish(self, exit: &ExitInfo, homes: &ProviderHomes, cwd: &Path) -> TurnOutcome {
        let session_not_found = self.not_found_in_stream || exit.stderr_tail.contains(NOT_FOUND);
        let (status, error) = self.final_status(exit);
        let session_id = self
            .session_id
            .clone()
            .or_else(|| self.result.as_ref().and_then(|r| r.session_id.clone()));
        let context = session_id
            .as_deref()
            .and_then(|id| self.context(homes, cwd, id));
        TurnOutcome {
            status: Some(status),
            error,
            session_id,
            model: self.init_model,
            context,
            session_not_found,
            answer: self.answer,
        }
    }

    fn final_status(&self, exit: &ExitInfo) -> (TurnStatus, Option<String>) {
        let result = self.result.as_ref();
        let completed = result.is_some_and(|r| r.status == TurnStatus::Completed);
        if exit.was_interrupted() && !completed {
            return (TurnStatus::Interrupted, None);
        }
        if let Some(result) = result {
            return (result.status, result.error.clone());
        }
        let error = if self.json_events == 0 {
            format!(
                "claude printed no stream-json events (is it a real Claude Code CLI?): {} other \
                 stdout lines, then it exited with {}",
                self.other_lines,
                exit.describe_with_stderr()
            )
        } else {
            format!(
                "claude exited with {} before reporting the turn's result",
                exit.describe_with_stderr()
            )
        };
        (TurnStatus::Failed, Some(error))
    }

    /// Context after the turn: the last call's input + cache + output tokens, against the
    /// window the result reported for that model.
    fn context(&self, homes: &ProviderHomes, cwd: &Path, session_id: &str) -> Option<ContextUsage> {
        let (stream_call, message_id, _) = self.last_call.as_ref()?;
        let window = self.window()?;
        let mut call = *stream_call;
        // The stream's output count is the first chunk's; the session file has the final one.
        let on_disk = find_session_file(homes, cwd, session_id)
            .and_then(|file| last_call_in_session_file(&file))
            .filter(|disk| disk.same_request(stream_call));
        match (on_disk, &self.delta_output) {
            (Some(disk), _) => call.output = disk.output,
            (None, Some((id, output))) if message_id.as_deref() == Some(id.as_str()) => {
                call.output = *output;
            }
            _ => {}
        }
        Some(ContextUsage {
            tokens: call.total(),
            window,
        })
    }

    /// The window of the model the turn ran on, among the result's `modelUsage` keys.
    fn window(&self) -> Option<u64> {
        let windows = &self.result.as_ref()?.windows;
        let last_model = self.last_call.as_ref().and_then(|(_, _, m)| m.as_deref());
        let names: Vec<&str> = [self.init_model.as_deref(), last_model]
            .into_iter()
            .flatten()
            .collect();
        let exact = names
            .iter()
            .find_map(|n| windows.iter().find(|(key, _)| key == n));
        // 2.1.197 keys `claude-opus-4-8[1m]` while its messages say `claude-opus-4-8`.
        let prefixed = || {
            names
                .iter()
                .rev()
                .find_map(|n| windows.iter().find(|(key, _)| key.starts_with(n)))
        };
        let single = || (windows.len() == 1).then(|| &windows[0]);
        let largest = || windows.iter().max_by_key(|(_, w)| *w);
        exact
            .or_else(prefixed)
            .or_else(single)
            .or_else(largest)
            .map(|(_, w)| *w)
    }
}

fn result_errors(value: &Value) -> Vec<String> {
    value["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str().map(str::to_owned))
        .collect()
}

/// The error text of a failed result: its `result` text, else `errors[]`, else the API status
/// and the reason the turn stopped.
fn result_error(value: &Value, errors: &[String]) -> String {
    if let Some(text) = value["result"].as_str().filter(|t| !t.trim().is_empty()) {
        return text.to_owned();
    }
    if !errors.is_empty() {
        return errors.join("; ");
    }
    let mut parts = Vec::new();
    if let Some(status) = value["api_error_status"].as_u64() {
        parts.push(format!("API error {status}"));
    }
    for key in ["terminal_reason", "subtype"] {
        if let Some(reason) = value[key].as_str() {
            parts.push(format!("{key} {reason}"));
            break;
        }
    }
    if parts.is_empty() {
        "claude reported an error without details".to_owned()
    } else {
        format!("claude failed: {}", parts.join(", "))
    }
}

/// One line saying what a tool call does: the file for file tools, `$ command` for Bash, the
/// pattern for searches, else the tool name and its input in compact JSON.
fn tool_summary(name: &str, input: &Value) -> String {
    let field = |key: &str| input.get(key).and_then(Value::as_str);
    let specific = match name {
        "Read" | "Write" | "Edit" | "MultiEdit" => field("file_path").map(str::to_owned),
        "NotebookEdit" => field("notebook_path").map(str::to_owned),
        "Bash" => field("command").map(|c| format!("$ {}", one_line(c, SUMMARY_CHARS))),
        "Grep" | "Glob" => field("pattern").map(|p| one_line(p, SUMMARY_CHARS)),
        _ => None,
    };
    specific.unwrap_or_else(|| {
        let compact = serde_json::to_string(input).unwrap_or_default();
        one_line(&format!("{name} {compact}"), SUMMARY_CHARS)
    })
}

/// The first line of `text`, cut to `max` characters; `…` marks anything left out.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let text = text.trim();
    let first = text.lines().next().unwrap_or_default().trim_end();
    let mut out: String = first.chars().take(max).collect();
    if out.len() < first.len() || first.len() < text.len() {
        out.push('…');
    }
    out
}

/// Claude Code's project directory name for a working directory: every UTF-16 unit outside
/// `[A-Za-z0-9]` becomes `-`; a name longer than 200 is cut to 200 and gets `-` plus a hash.
///
/// The rule is Claude Code's `sanitizePath` (`MAX_SANITIZED_LENGTH = 200`). The hash is its
/// Node fallback `simpleHash`: `Math.abs(djb2Hash(name)).toString(36)`, where `djb2Hash` is
/// `h = (h << 5) - h + unit` over UTF-16 units in wrapping 32-bit arithmetic. Builds running on
/// Bun use `Bun.hash` (wyhash) instead, so [`session_exists`] also searches every project
/// directory by session id rather than trusting the suffix.
pub fn encode_cwd(path: &Path) -> String {
    let name = path.to_string_lossy();
    let units: Vec<u16> = name.encode_utf16().collect();
    let encoded: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if encoded.len() <= MAX_ENCODED_LEN {
        return encoded;
    }
    let hash = units
        .iter()
        .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    format!(
        "{}-{}",
        &encoded[..MAX_ENCODED_LEN],
        to_base36(i64::from(hash).unsigned_abs())
    )
}

fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// Where Claude Code keeps session `id` for runs in `cwd` (its physical path, like the CLI's
/// own `process.cwd()`).
pub fn session_file(homes: &ProviderHomes, cwd: &Path, id: &str) -> PathBuf {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    homes
        .claude
        .join("projects")
        .join(encode_cwd(&cwd))
        .join(format!("{id}.jsonl"))
}

/// Whether Claude Code can still resume session `id`: its file in the cwd's project directory,
/// else in any project directory (2.1.332 finds sessions across projects).
pub fn session_exists(homes: &ProviderHomes, cwd: &Path, id: &str) -> bool {
    find_session_file(homes, cwd, id).is_some()
}

fn find_session_file(homes: &ProviderHomes, cwd: &Path, id: &str) -> Option<PathBuf> {
    // A session id names a file: anything path-like is not one.
    if id.is_empty() || id.contains('/') || id.starts_with('.') {
        return None;
    }
    // Claude Code treats an empty file as no session.
    let usable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > 0);
    let direct = session_file(homes, cwd, id);
    if usable(&direct) {
        return Some(direct);
    }
    let file_name = format!("{id}.jsonl");
    std::fs::read_dir(homes.claude.join("projects"))
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join(&file_name))
        .find(|p| usable(p))
}

/// The usage of the last real model call recorded in a session file.
fn last_call_in_session_file(file: &Path) -> Option<CallUsage> {
    let find = |text: &str| {
        text.lines().rev().find_map(|line| {
            let value: Value = serde_json::from_str(line).ok()?;
            if value["type"].as_str() != Some("assistant")
                || value["message"]["model"].as_str() == Some(SYNTHETIC_MODEL)
            {
                return None;
            }
            CallUsage::from_json(&value["message"]["usage"])
        })
    };
    let (tail, whole) = read_file_tail(file, SESSION_TAIL_BYTES).ok()?;
    match find(&tail) {
        Some(call) => Some(call),
        None if !whole => find(&read_file_tail(file, u64::MAX).ok()?.0),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn capture(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/captures/claude-code")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn exit_of(name: &str) -> ExitInfo {
        let rc = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("fixtures/captures/claude-code/{name}.rc")),
        )
        .map_or(0, |rc| rc.trim().parse().unwrap());
        let stderr = capture_opt(&format!("{name}.stderr"));
        ExitInfo {
            code: Some(rc),
            signal: None,
            stderr_tail: stderr,
            interrupted: false,
        }
    }

    fn capture_opt(name: &str) -> String {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/captures/claude-code")
                .join(name),
        )
        .unwrap_or_default()
    }

    struct Home {
        _dir: tempfile::TempDir,
        homes: ProviderHomes,
        cwd: PathBuf,
    }

    fn home() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("proj1");
        std::fs::create_dir_all(&cwd).unwrap();
        let homes = ProviderHomes {
            claude: dir.path().join("claude"),
            codex: dir.path().join("codex"),
        };
        Home {
            cwd: std::fs::canonicalize(&cwd).unwrap(),
            homes,
            _dir: dir,
        }
    }

    fn parse(name: &str) -> (ClaudeParser, Vec<TurnEvent>) {
        let mut parser = ClaudeParser::new();
        let events = capture(&format!("{name}.stdout"))
            .lines()
            .flat_map(|l| parser.feed(l))
            .collect();
        (parser, events)
    }

    fn run(name: &str, home: &Home) -> (Vec<TurnEvent>, TurnOutcome) {
        let (parser, events) = parse(name);
        (
            events,
            parser.finish(&exit_of(name), &home.homes, &home.cwd),
        )
    }

    fn spec(session: SessionMode) -> RunSpec {
        RunSpec {
            provider: super::super::ProviderKind::Claude,
            bin: "claude".into(),
            cwd: "/w".into(),
            session,
            model: None,
            system_text: String::new(),
            permission_mode: None,
            sandbox: None,
            add_dirs: Vec::new(),
            extra_args: Vec::new(),
        }
    }

    fn strings(args: Vec<OsString>) -> Vec<String> {
        args.into_iter().map(|a| a.into_string().unwrap()).collect()
    }

    #[test]
    fn args_table() {
        let base = "-p --output-format stream-json --verbose";
        let new_id = SessionMode::New {
            session_id: Some("id-1".into()),
        };
        let resume = SessionMode::Resume {
            session_id: "id-2".into(),
        };
        let full = RunSpec {
            model: Some("claude-opus-4-8[1m]".into()),
            system_text: "- house rules\nline two".into(),
            permission_mode: Some("acceptEdits".into()),
            add_dirs: vec!["/shots".into(), "/tmp dir".into()],
            extra_args: vec!["--max-turns".into(), "3".into()],
            ..spec(resume.clone())
        };
        let rows: Vec<(RunSpec, Vec<String>)> = vec![
            (spec(SessionMode::New { session_id: None }), vec![]),
            (
                spec(new_id.clone()),
                vec!["--session-id", "id-1"]
                    .into_iter()
                    .map(String::from)
                    .collect(),
            ),
            (spec(resume.clone()), vec!["--resume".into(), "id-2".into()]),
            (
                RunSpec {
                    model: Some("sonnet".into()),
                    system_text: "rules".into(),
                    ..spec(new_id)
                },
                [
                    "--session-id",
                    "id-1",
                    "--model",
                    "sonnet",
                    "--append-system-prompt",
                    "rules",
                ]
                .map(String::from)
                .to_vec(),
            ),
            (
                full,
                [
                    "--resume",
                    "id-2",
                    "--model",
                    "claude-opus-4-8[1m]",
                    "--append-system-prompt",
                    "- house rules\nline two",
                    "--permission-mode",
                    "acceptEdits",
                    "--add-dir=/shots",
                    "--add-dir=/tmp dir",
                    "--max-turns",
                    "3",
                ]
                .map(String::from)
                .to_vec(),
            ),
        ];
        for (spec, tail) in rows {
            let mut want: Vec<String> = base.split(' ').map(String::from).collect();
            want.extend(tail);
            assert_eq!(strings(args(&spec)), want);
        }
    }

    #[test]
    fn run1_hello_reports_session_text_usage_and_window() {
        let home = home();
        let (events, outcome) = run("run1-hello", &home);
        let id = "8dffe31f-5134-40ee-9e54-ebb94b51af0b";
        let text = "MOCK-REPLY #1 model=claude-opus-5-5 last_user=hello";
        assert_eq!(
            events,
            vec![
                TurnEvent::Session {
                    session_id: id.into(),
                    model: Some("claude-opus-5-5".into())
                },
                TurnEvent::Text { text: text.into() },
                TurnEvent::Usage {
                    tokens: 1001 + 2001 + 3001 + 1
                },
                TurnEvent::End {
                    status: TurnStatus::Completed,
                    error: None
                },
            ]
        );
        assert_eq!(
            outcome,
            TurnOutcome {
                status: Some(TurnStatus::Completed),
                error: None,
                session_id: Some(id.into()),
                model: Some("claude-opus-5-5".into()),
                // No session file here: the stream's own output count is all there is.
                context: Some(ContextUsage {
                    tokens: 1001 + 2001 + 3001 + 1,
                    window: 1_000_000
                }),
                session_not_found: false,
                answer: text.into(),
            }
        );
    }

    #[test]
    fn tooluse_context_is_the_last_call_with_its_final_output_from_the_session_file() {
        let home = home();
        let id = "b868a233-cb59-492d-a502-8da5d8381056";
        let (events, outcome) = run("tooluse", &home);
        assert_eq!(
            events[1],
            TurnEvent::ToolUse {
                name: "Read".into(),
                summary: "/home/dev/proj1/note.txt".into()
            }
        );
        // Without the session file: the stream's partial output count of the last call.
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 1002 + 2002 + 3002 + 1,
                window: 1_000_000
            })
        );
        let file = session_file(&home.homes, &home.cwd, id);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, capture(&format!("sessions/tooluse-{id}.jsonl"))).unwrap();
        let (_, outcome) = run("tooluse", &home);
        // Not result.usage (2003+4003+6003+83), which sums both calls.
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 1002 + 2002 + 3002 + 42,
                window: 1_000_000
            })
        );
        assert_eq!(outcome.status, Some(TurnStatus::Completed));
    }

    #[test]
    fn session_file_of_another_request_is_not_used() {
        let home = home();
        let id = "b868a233-cb59-492d-a502-8da5d8381056";
        // A session file whose last call is the FIRST one: its counts do not match the stream's.
        let lines: Vec<String> = capture(&format!("sessions/tooluse-{id}.jsonl"))
            .lines()
            .map(String::from)
            .collect();
        let cut = lines
            .iter()
            .rposition(|l| l.contains("\"output_tokens\":42"))
            .unwrap();
        let file = session_file(&home.homes, &home.cwd, id);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, lines[..cut].join("\n")).unwrap();
        let (_, outcome) = run("tooluse", &home);
        assert_eq!(
            outcome.context.map(|c| c.tokens),
            Some(1002 + 2002 + 3002 + 1)
        );
    }

    #[test]
    fn resume_missing_is_session_not_found() {
        let home = home();
        for name in ["resume-missing", "v197-resume-missing"] {
            let (events, outcome) = run(name, &home);
            let error =
                "No conversation found with session ID: 11111111-2222-4333-8444-555555555555";
            assert_eq!(
                events,
                vec![TurnEvent::End {
                    status: TurnStatus::Failed,
                    error: Some(error.into())
                }]
            );
            assert!(outcome.session_not_found, "{name}");
            assert_eq!(outcome.status, Some(TurnStatus::Failed));
            assert_eq!(outcome.context, None);
        }
        // Only stderr says so (a CLI that printed no result line).
        let exit = ExitInfo {
            code: Some(1),
            stderr_tail: capture("resume-missing.stderr"),
            ..ExitInfo::default()
        };
        let outcome = ClaudeParser::new().finish(&exit, &home.homes, &home.cwd);
        assert!(outcome.session_not_found);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
    }

    #[test]
    fn resume_notuuid_fails_with_the_cli_message() {
        let home = home();
        let (_, outcome) = run("resume-notuuid", &home);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert!(!outcome.session_not_found);
        assert!(outcome
            .error
            .unwrap()
            .starts_with("Error: --resume requires a valid session ID"));
    }

    #[test]
    fn api_errors_fail_with_the_result_text_and_no_usage() {
        let home = home();
        let rows = [
            ("err-529", "API Error: 529 mock forced failure.", true),
            (
                "err-401",
                "Failed to authenticate. API Error: 401 mock forced failure",
                true,
            ),
            ("err-400-prompt_too_long", "Prompt is too long", false),
        ];
        for (name, error_start, retried) in rows {
            let (events, outcome) = run(name, &home);
            assert_eq!(outcome.status, Some(TurnStatus::Failed), "{name}");
            assert!(
                outcome.error.as_deref().unwrap().starts_with(error_start),
                "{name}: {:?}",
                outcome.error
            );
            assert_eq!(
                outcome.context, None,
                "{name}: the synthetic message has no real usage"
            );
            assert_eq!(outcome.answer, "", "{name}");
            assert!(!events
                .iter()
                .any(|e| matches!(e, TurnEvent::Usage { .. } | TurnEvent::Text { .. })));
            let warned = events
                .iter()
                .any(|e| matches!(e, TurnEvent::Warning { .. }));
            assert_eq!(warned, retried, "{name}");
        }
        let (events, _) = run("err-529", &home);
        assert_eq!(
            events[1],
            TurnEvent::Warning {
                message: "claude API error 529 (overloaded), retry 1/1".into()
            }
        );
    }

    #[test]
    fn maxturns_fails_with_the_errors_list() {
        let home = home();
        let (_, outcome) = run("maxturns1", &home);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.error.as_deref(),
            Some("Reached maximum number of turns (1)")
        );
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 1004 + 2004 + 3004 + 1,
                window: 1_000_000
            })
        );
    }

    #[test]
    fn result_error_falls_back_to_status_and_reason() {
        let value: Value =
            serde_json::json!({"api_error_status": 500, "terminal_reason": "api_error"});
        assert_eq!(
            result_error(&value, &[]),
            "claude failed: API error 500, terminal_reason api_error"
        );
        assert_eq!(
            result_error(&serde_json::json!({}), &[]),
            "claude reported an error without details"
        );
    }

    #[test]
    fn v197_window_comes_from_the_1m_key() {
        let home = home();
        let id = "49557436-d9e3-4bce-8089-ed1f5437ce4e";
        let file = session_file(&home.homes, &home.cwd, id);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            capture(&format!("sessions/v2.1.197-hello-{id}.jsonl")),
        )
        .unwrap();
        let (_, outcome) = run("v197-hello", &home);
        assert_eq!(outcome.model.as_deref(), Some("claude-opus-4-8[1m]"));
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 1004 + 2004 + 3004 + 44,
                window: 1_000_000
            })
        );
    }

    #[test]
    fn window_choice_table() {
        let windows =
            |pairs: &[(&str, u64)]| pairs.iter().map(|(k, w)| (k.to_string(), *w)).collect();
        let usage = CallUsage {
            input: 1,
            cache_creation: 0,
            cache_read: 0,
            output: 0,
        };
        type Row<'a> = (
            Option<&'a str>,
            Option<&'a str>,
            Vec<(String, u64)>,
            Option<u64>,
        );
        let rows: Vec<Row> = vec![
            (
                Some("a"),
                Some("b"),
                windows(&[("b", 2), ("a", 1)]),
                Some(1),
            ),
            (None, Some("b"), windows(&[("b", 2), ("a", 1)]), Some(2)),
            (
                Some("x"),
                Some("m"),
                windows(&[("m[1m]", 7), ("z", 9)]),
                Some(7),
            ),
            (Some("x"), Some("y"), windows(&[("only", 5)]), Some(5)),
            (
                Some("x"),
                Some("y"),
                windows(&[("p", 5), ("q", 8)]),
                Some(8),
            ),
            (Some("x"), None, Vec::new(), None),
        ];
        for (init, last, windows, want) in rows {
            let parser = ClaudeParser {
                init_model: init.map(String::from),
                last_call: Some((usage, None, last.map(String::from))),
                result: Some(ResultLine {
                    status: TurnStatus::Completed,
                    error: None,
                    session_id: None,
                    windows,
                }),
                ..ClaudeParser::default()
            };
            assert_eq!(parser.window(), want, "{init:?} {last:?}");
        }
    }

    #[test]
    fn out_partial_uses_the_message_delta_output() {
        let home = home();
        let (events, outcome) = run("out-partial", &home);
        assert_eq!(events.len(), 4, "{events:?}");
        assert_eq!(outcome.status, Some(TurnStatus::Completed));
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 1018 + 2018 + 3018 + 58,
                window: 1_000_000
            })
        );
    }

    #[test]
    fn garbage_and_early_exits_give_clear_errors() {
        let home = home();
        let mut parser = ClaudeParser::new();
        assert!(parser.feed("hello, I am not claude").is_empty());
        assert!(parser.feed("[1,2]").is_empty());
        let exit = ExitInfo {
            code: Some(0),
            stderr_tail: "usage: fake\n".into(),
            ..ExitInfo::default()
        };
        let outcome = parser.finish(&exit, &home.homes, &home.cwd);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.error.as_deref(),
            Some("claude printed no stream-json events (is it a real Claude Code CLI?): 2 other stdout lines, then it exited with rc 0: usage: fake")
        );
        // Dies mid-turn: init seen, no result.
        let (mut parser, _) = parse("run1-hello");
        parser.result = None;
        let exit = ExitInfo {
            code: None,
            signal: Some(9),
            ..ExitInfo::default()
        };
        let outcome = parser.finish(&exit, &home.homes, &home.cwd);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.error.as_deref(),
            Some("claude exited with signal 9 (SIGKILL) (stderr was empty) before reporting the turn's result")
        );
    }

    #[test]
    fn interrupts_are_interrupted_unless_the_turn_completed() {
        let home = home();
        let rows = [
            (
                ExitInfo {
                    signal: Some(2),
                    ..ExitInfo::default()
                },
                TurnStatus::Interrupted,
            ),
            (
                ExitInfo {
                    code: Some(130),
                    ..ExitInfo::default()
                },
                TurnStatus::Interrupted,
            ),
            (
                ExitInfo {
                    code: Some(1),
                    interrupted: true,
                    ..ExitInfo::default()
                },
                TurnStatus::Interrupted,
            ),
            (
                ExitInfo {
                    code: Some(1),
                    ..ExitInfo::default()
                },
                TurnStatus::Failed,
            ),
        ];
        for (exit, want) in rows {
            let (mut parser, _) = parse("run1-hello");
            parser.result = None;
            assert_eq!(
                parser.finish(&exit, &home.homes, &home.cwd).status,
                Some(want),
                "{exit:?}"
            );
        }
        let (parser, _) = parse("run1-hello");
        let exit = ExitInfo {
            code: Some(0),
            interrupted: true,
            ..ExitInfo::default()
        };
        assert_eq!(
            parser.finish(&exit, &home.homes, &home.cwd).status,
            Some(TurnStatus::Completed)
        );
    }

    #[test]
    fn tool_summaries() {
        let rows = [
            (
                "Read",
                serde_json::json!({"file_path": "/a/b.rs"}),
                "/a/b.rs".to_string(),
            ),
            (
                "Edit",
                serde_json::json!({"file_path": "/a/c.rs", "old_string": "x"}),
                "/a/c.rs".into(),
            ),
            (
                "Bash",
                serde_json::json!({"command": "cargo test\necho done"}),
                "$ cargo test…".into(),
            ),
            (
                "Bash",
                serde_json::json!({"command": "x".repeat(100)}),
                format!("$ {}…", "x".repeat(80)),
            ),
            (
                "Grep",
                serde_json::json!({"pattern": "fn main"}),
                "fn main".into(),
            ),
            (
                "Glob",
                serde_json::json!({"pattern": "**/*.rs"}),
                "**/*.rs".into(),
            ),
            (
                "WebFetch",
                serde_json::json!({"url": "https://x"}),
                "WebFetch {\"url\":\"https://x\"}".into(),
            ),
            ("Read", serde_json::json!({}), "Read {}".into()),
        ];
        for (name, input, want) in rows {
            assert_eq!(tool_summary(name, &input), want);
        }
    }

    #[test]
    fn encode_cwd_matches_claude_code() {
        assert_eq!(encode_cwd(Path::new("/home/dev/proj1")), "-home-dev-proj1");
        assert_eq!(encode_cwd(Path::new("/a/my_proj.v2/é")), "-a-my-proj-v2--");
        // Outside the BMP: two UTF-16 units, two dashes (JavaScript's regex without /u).
        assert_eq!(encode_cwd(Path::new("/x/😀")), "-x---");
        // Expected values computed by Claude Code's own sanitizePath under Node.
        let long = format!("/{}", "a".repeat(250));
        assert_eq!(
            encode_cwd(Path::new(&long)),
            format!("-{}-feo44x", "a".repeat(199))
        );
        let wide = format!("/home/dev/{}/x😀{}", "é".repeat(120), "b".repeat(90));
        let want = format!("-home-dev-{}x--{}-qvna8p", "-".repeat(121), "b".repeat(66));
        assert_eq!(encode_cwd(Path::new(&wide)), want);
        assert_eq!(to_base36(0), "0");
        assert_eq!(to_base36(2_147_483_648), "zik0zk");
    }

    #[test]
    fn session_lookup_finds_the_cwd_dir_then_any_project() {
        let home = home();
        let id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
        assert!(!session_exists(&home.homes, &home.cwd, id));
        let other = home.homes.claude.join("projects/-elsewhere");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join(format!("{id}.jsonl")), "").unwrap();
        assert!(
            !session_exists(&home.homes, &home.cwd, id),
            "an empty file is no session"
        );
        std::fs::write(other.join(format!("{id}.jsonl")), "{}\n").unwrap();
        assert!(session_exists(&home.homes, &home.cwd, id));
        assert!(!session_exists(&home.homes, &home.cwd, "../-elsewhere/x"));
        let direct = session_file(&home.homes, &home.cwd, id);
        assert_eq!(
            direct
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap(),
            encode_cwd(&home.cwd)
        );
    }

    #[test]
    fn one_line_cuts_on_char_boundaries() {
        assert_eq!(one_line("ééé", 2), "éé…");
        assert_eq!(one_line("  short  ", 10), "short");
        assert_eq!(one_line("", 10), "");
    }
}
