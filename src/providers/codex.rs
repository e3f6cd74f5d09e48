//! The Codex adapter: its `exec --json` command line, its JSONL events folded into
//! [`TurnEvent`]s and a [`TurnOutcome`], and its rollout files (context size and window).

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::claude::one_line;
use super::process::{read_file_tail, ExitInfo};
use super::{
    ContextUsage, ProviderHomes, RunSpec, SessionMode, TurnEvent, TurnOutcome, TurnStatus,
};

/// What Codex prints on stderr when `exec resume <id>` names no thread.
const NOT_FOUND: &str = "no rollout found for thread id";
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
    // Stored when the thread is created and ignored on resume; passing it always is harmless.
    let instructions = format!(
        "developer_instructions={}",
        toml_basic_string(&spec.system_text)
    );
    args.extend(["-c".into(), instructions.into()]);
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
    }
    args
}

/// `text` as a TOML basic string: Codex parses a `-c key=value` value as TOML, so this yields
/// exactly `text` back, whatever quotes, backslashes or newlines it holds.
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
}

impl CodexParser {
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
            "turn.completed" => self.end(TurnStatus::Completed, None),
            "turn.failed" => {
                let message = value["error"]["message"].as_str().map(str::to_owned);
                let error = message.unwrap_or_else(|| "codex reported a failed turn".to_owned());
                self.end(TurnStatus::Failed, Some(error))
            }
            _ => Vec::new(),
        }
    }

    fn end(&mut self, status: TurnStatus, error: Option<String>) -> Vec<TurnEvent> {
        self.end = Some((status, error.clone()));
        vec![TurnEvent::End { status, error }]
    }

    fn on_item(&mut self, item: &Value, completed: bool) -> Vec<TurnEvent> {
        let kind = item["type"].as_str().unwrap_or_default();
        match kind {
            "agent_message" if completed => {
                let text = item["text"].as_str().unwrap_or_default();
                if text.is_empty() {
                    return Vec::new();
                }
                if !self.answer.is_empty() {
                    self.answer.push_str("\n\n");
                }
                self.answer.push_str(text);
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
                // Reported once, when first seen (started, or completed without a start).
                let id = item["id"].as_str().unwrap_or_default().to_owned();
                if !id.is_empty() && !self.reported.insert(id) {
                    return Vec::new();
                }
                let (name, summary) = item_summary(kind, item);
                vec![TurnEvent::ToolUse { name, summary }]
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
            context: rollout.context,
            session_not_found,
            answer: self.answer,
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
        let error = if session_not_found {
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

/// A tool-like item as a name and a one-line summary.
fn item_summary(kind: &str, item: &Value) -> (String, String) {
    let field = |key: &str| item[key].as_str().unwrap_or_default();
    match kind {
        "command_execution" => {
            let command = unwrap_shell(field("command"));
            (
                "shell".into(),
                format!("$ {}", one_line(&command, SUMMARY_CHARS)),
            )
        }
        "file_change" => {
            let changes: Vec<String> = item["changes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let kind = c["kind"].as_str().unwrap_or("change");
                    format!("{kind} {}", c["path"].as_str().unwrap_or("?"))
                })
                .collect();
            ("patch".into(), one_line(&changes.join(", "), SUMMARY_CHARS))
        }
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
        match shell_words(script)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    });
    inner.unwrap_or_else(|| command.to_owned())
}

/// Splits POSIX shell words (quotes and backslashes); None when a quote is left open.
fn shell_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('$' | '`' | '"' | '\\') => w.push(c),
                            '\n' => {}
                            c => {
                                w.push('\\');
                                w.push(c);
                            }
                        },
                        c => w.push(c),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => word.get_or_insert_with(String::new).push('\\'),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// What a rollout file says about the thread's latest turn.
#[derive(Debug, Default, PartialEq, Eq)]
struct RolloutFacts {
    context: Option<ContextUsage>,
    model: Option<String>,
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
/// `total_token_usage`) and the last `turn_context` model of a rollout file.
fn read_rollout(file: &Path) -> RolloutFacts {
    let scan = |text: &str| {
        let mut facts = RolloutFacts::default();
        for line in text.lines().rev() {
            if facts.context.is_some() && facts.model.is_some() {
                break;
            }
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let payload = &value["payload"];
            match value["type"].as_str() {
                Some("turn_context") if facts.model.is_none() => {
                    facts.model = payload["model"].as_str().map(str::to_owned);
                }
                Some("event_msg") if facts.context.is_none() => {
                    facts.context = token_count_context(payload);
                }
                _ => {}
            }
        }
        facts
    };
    let Ok((tail, whole)) = read_file_tail(file, ROLLOUT_TAIL_BYTES) else {
        return RolloutFacts::default();
    };
    let facts = scan(&tail);
    if whole || (facts.context.is_some() && facts.model.is_some()) {
        return facts;
    }
    match read_file_tail(file, u64::MAX) {
        Ok((text, _)) => scan(&text),
        Err(_) => facts,
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn capture(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/captures/codex")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    struct Home {
        dir: tempfile::TempDir,
        homes: ProviderHomes,
    }

    fn home() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let homes = ProviderHomes {
            claude: dir.path().join("claude"),
            codex: dir.path().join("codex"),
        };
        Home { dir, homes }
    }

    impl Home {
        /// Places a rollout capture where Codex would have written it for `thread`.
        fn rollout(&self, day: &str, capture_name: &str, thread: &str) -> PathBuf {
            let dir = self.homes.codex.join("sessions").join(day);
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join(format!("rollout-2026-11-29T11-46-55-{thread}.jsonl"));
            std::fs::write(&file, capture(capture_name)).unwrap();
            file
        }
    }

    fn parse(name: &str) -> (CodexParser, Vec<TurnEvent>) {
        let mut parser = CodexParser::new();
        let events = capture(name).lines().flat_map(|l| parser.feed(l)).collect();
        (parser, events)
    }

    fn ok_exit() -> ExitInfo {
        ExitInfo {
            code: Some(0),
            ..ExitInfo::default()
        }
    }

    const MODEL_WARNING: &str = "Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.";

    fn spec(session: SessionMode) -> RunSpec {
        RunSpec {
            provider: super::super::ProviderKind::Codex,
            bin: "codex".into(),
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

    #[test]
    fn args_table() {
        let new = SessionMode::New { session_id: None };
        let resume = SessionMode::Resume {
            session_id: "01a2-uuid".into(),
        };
        let full = |session| RunSpec {
            model: Some("gpt-5.5".into()),
            system_text: "rules \"quoted\"\nline".into(),
            sandbox: Some("workspace-write".into()),
            add_dirs: vec!["/shots".into()],
            extra_args: vec![
                "-c".into(),
                "sandbox_workspace_write.exclude_slash_tmp=true".into(),
            ],
            ..spec(session)
        };
        let head = ["exec", "--json", "--skip-git-repo-check"];
        let full_opts = [
            "-m",
            "gpt-5.5",
            "-c",
            r#"developer_instructions="rules \"quoted\"\nline""#,
            "--sandbox",
            "workspace-write",
            "--add-dir",
            "/shots",
            "-c",
            "sandbox_workspace_write.exclude_slash_tmp=true",
        ];
        let rows: Vec<(RunSpec, Vec<&str>)> = vec![
            (
                spec(new.clone()),
                vec!["-c", r#"developer_instructions="""#],
            ),
            (
                spec(resume.clone()),
                vec!["-c", r#"developer_instructions="""#, "resume", "01a2-uuid"],
            ),
            (full(new), full_opts.to_vec()),
            (
                full(resume),
                [&full_opts[..], &["resume", "01a2-uuid"]].concat(),
            ),
        ];
        for (spec, tail) in rows {
            let got: Vec<String> = args(&spec)
                .into_iter()
                .map(|a| a.into_string().unwrap())
                .collect();
            let want: Vec<String> = head
                .iter()
                .chain(tail.iter())
                .map(|s| s.to_string())
                .collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn developer_instructions_survive_a_toml_parse() {
        let samples = [
            "",
            "plain",
            "quotes \" and ' and ''' and \"\"\" here",
            "back\\slash \\n not a newline, C:\\path",
            "multi\nline\r\n\ttabbed",
            "control \u{1}\u{8}\u{c}\u{1b}\u{7f} chars",
            "unicode: é 😀 \u{2028}",
            "  leading and trailing spaces  ",
            "key = \"value\"\n[table]\n",
        ];
        for text in samples {
            let arg = format!("developer_instructions={}", toml_basic_string(text));
            // Codex splits at the first `=`, trims, and parses `_x_ = <value>` as TOML.
            let value = arg.split_once('=').unwrap().1.trim();
            let table: toml::Table = toml::from_str(&format!("_x_ = {value}")).unwrap();
            assert_eq!(table["_x_"].as_str(), Some(text));
        }
    }

    #[test]
    fn success_reads_context_and_model_from_the_rollout() {
        let home = home();
        let thread = "01a22721-2de9-7bb3-bb7a-acb98d244678";
        let (parser, events) = parse("exec-json-success.stdout.jsonl");
        let text = "MOCK REPLY #1 to: Say hello to the research harness";
        assert_eq!(
            events,
            vec![
                TurnEvent::Session {
                    session_id: thread.into(),
                    model: None
                },
                TurnEvent::Warning {
                    message: MODEL_WARNING.into()
                },
                TurnEvent::Text { text: text.into() },
                TurnEvent::End {
                    status: TurnStatus::Completed,
                    error: None
                },
            ]
        );
        home.rollout("2026/11/29", "rollout-turn1.jsonl", thread);
        assert_eq!(
            parser.finish(&ok_exit(), &home.homes, None),
            TurnOutcome {
                status: Some(TurnStatus::Completed),
                error: None,
                session_id: Some(thread.into()),
                model: Some("mock-model".into()),
                // The rollout's last token_count, not turn.completed.usage.
                context: Some(ContextUsage {
                    tokens: 10145,
                    window: 258400
                }),
                session_not_found: false,
                answer: text.into(),
            }
        );
    }

    #[test]
    fn tool_call_context_is_the_last_call_not_the_thread_total() {
        let home = home();
        let thread = "01a22721-c5b9-7223-a62f-33c0fbffe0e7";
        let (parser, events) = parse("exec-json-tool-call.stdout.jsonl");
        let shell = TurnEvent::ToolUse {
            name: "shell".into(),
            summary: "$ echo hello-from-tool && pwd".into(),
        };
        assert_eq!(
            events.iter().filter(|e| **e == shell).count(),
            1,
            "{events:?}"
        );
        home.rollout("2026/11/29", "rollout-tool-call.jsonl", thread);
        let outcome = parser.finish(&ok_exit(), &home.homes, None);
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 10261,
                window: 258400
            })
        );
        assert_eq!(outcome.answer, "MOCK REPLY #12: command finished.");
    }

    #[test]
    fn resumed_thread_uses_the_latest_turn_and_checks_the_echo() {
        let home = home();
        let thread = "01a22722-f4ac-7162-8cd9-27bc304639c1";
        home.rollout("2026/11/29", "rollout-3-turns-resumed.jsonl", thread);
        let mut parser = CodexParser::new();
        parser.feed(&format!(
            r#"{{"type":"thread.started","thread_id":"{thread}"}}"#
        ));
        parser.feed(r#"{"type":"turn.completed","usage":{"input_tokens":30651}}"#);
        let outcome = parser.finish(&ok_exit(), &home.homes, Some(thread));
        assert_eq!(outcome.status, Some(TurnStatus::Completed));
        assert_eq!(
            outcome.context,
            Some(ContextUsage {
                tokens: 10301,
                window: 258400
            })
        );

        // Codex started a new thread instead (a non-UUID or unknown name).
        let (parser, _) = parse("exec-json-success.stdout.jsonl");
        let outcome = parser.finish(&ok_exit(), &home.homes, Some(thread));
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.session_id.as_deref(),
            Some("01a22721-2de9-7bb3-bb7a-acb98d244678")
        );
        assert_eq!(
            outcome.error.as_deref(),
            Some("codex started a different thread (01a22721-2de9-7bb3-bb7a-acb98d244678) instead of resuming 01a22722-f4ac-7162-8cd9-27bc304639c1")
        );
    }

    #[test]
    fn resume_of_an_unknown_thread_is_session_not_found() {
        let home = home();
        let exit = ExitInfo {
            code: Some(1),
            stderr_tail: capture("resume-nonexistent-uuid.stderr.txt"),
            ..ExitInfo::default()
        };
        let id = "11111111-2222-4333-8444-555555555555";
        let outcome = CodexParser::new().finish(&exit, &home.homes, Some(id));
        assert!(outcome.session_not_found);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.error.as_deref(),
            Some("codex has no thread 11111111-2222-4333-8444-555555555555 to resume (rc 1: Error: thread/resume: thread/resume failed: no rollout found for thread id 11111111-2222-4333-8444-555555555555 (code -32600))")
        );
    }

    #[test]
    fn failed_turns_carry_the_message_and_reconnects_are_warnings() {
        let home = home();
        let rows = [
            (
                "exec-json-FAIL400.stdout.jsonl",
                1,
                "{\"error\": {\"message\": \"mock bad request\"",
            ),
            (
                "exec-json-FAIL401.stdout.jsonl",
                6,
                "unexpected status 401 Unauthorized",
            ),
            ("exec-json-FAILCTX.stdout.jsonl", 1, "Codex ran out of room"),
            (
                "exec-json-http500.stdout.jsonl",
                6,
                "We’re currently experiencing high demand",
            ),
            (
                "exec-json-response-failed.stdout.jsonl",
                6,
                "stream disconnected before completion",
            ),
            (
                "exec-json-transport-error.stdout.jsonl",
                6,
                "stream disconnected before completion",
            ),
        ];
        for (name, warnings, error) in rows {
            let (parser, events) = parse(name);
            let count = events
                .iter()
                .filter(|e| matches!(e, TurnEvent::Warning { .. }))
                .count();
            assert_eq!(
                count,
                warnings + 1,
                "{name}: plus the model metadata warning"
            );
            let exit = ExitInfo {
                code: Some(1),
                ..ExitInfo::default()
            };
            let outcome = parser.finish(&exit, &home.homes, None);
            assert_eq!(outcome.status, Some(TurnStatus::Failed), "{name}");
            assert!(
                outcome.error.as_deref().unwrap().starts_with(error),
                "{name}: {:?}",
                outcome.error
            );
            assert!(!outcome.session_not_found);
        }
    }

    #[test]
    fn sigint_is_interrupted() {
        let home = home();
        let thread = "01a22724-0434-7f53-b400-9c37c50c0ebe";
        home.rollout("2026/11/29", "rollout-sigint-aborted.jsonl", thread);
        let (parser, _) = parse("exec-json-sigint.stdout.jsonl");
        let exit = ExitInfo {
            code: Some(1),
            interrupted: true,
            ..ExitInfo::default()
        };
        let outcome = parser.finish(&exit, &home.homes, None);
        assert_eq!(outcome.status, Some(TurnStatus::Interrupted));
        assert_eq!(
            outcome.context, None,
            "the aborted turn recorded no token count"
        );
        assert_eq!(outcome.model.as_deref(), Some("mock-model"));
        // Not interrupted by us: a dying CLI.
        let (parser, _) = parse("exec-json-sigint.stdout.jsonl");
        let exit = ExitInfo {
            code: Some(1),
            stderr_tail: "panicked at x\n".into(),
            ..ExitInfo::default()
        };
        let outcome = parser.finish(&exit, &home.homes, None);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.error.as_deref(),
            Some("codex exited with rc 1: panicked at x before the turn ended")
        );
    }

    #[test]
    fn garbage_gives_a_clear_error() {
        let home = home();
        let mut parser = CodexParser::new();
        assert!(parser.feed("Usage: codex [OPTIONS]").is_empty());
        assert!(parser.feed("{\"no_type\": 1}").is_empty());
        let exit = ExitInfo {
            code: Some(2),
            stderr_tail: "error: unexpected argument\n".into(),
            ..ExitInfo::default()
        };
        let outcome = parser.finish(&exit, &home.homes, None);
        assert_eq!(outcome.status, Some(TurnStatus::Failed));
        assert_eq!(
            outcome.error.as_deref(),
            Some("codex printed no JSON events (is it a real Codex CLI?): 2 other stdout lines, then it exited with rc 2: error: unexpected argument")
        );
    }

    #[test]
    fn find_rollout_prefers_the_newest_day() {
        let home = home();
        let thread = "01a22721-2de9-7bb3-bb7a-acb98d244678";
        home.rollout("2025/12/31", "rollout-turn1.jsonl", thread);
        let newest = home.rollout("2026/01/02", "rollout-turn1.jsonl", thread);
        home.rollout("2026/01/01", "rollout-turn1.jsonl", "other-thread");
        assert_eq!(find_rollout(&home.homes.codex, thread), Some(newest));
        assert_eq!(find_rollout(&home.homes.codex, "missing"), None);
        assert_eq!(find_rollout(&home.dir.path().join("nowhere"), thread), None);
    }

    #[test]
    fn item_summaries() {
        let rows = [
            (
                r#"{"id":"1","type":"command_execution","command":"/bin/bash -lc 'echo '\"'\"'hi'\"'\"''"}"#,
                "shell",
                "$ echo 'hi'",
            ),
            (
                r#"{"id":"2","type":"command_execution","command":"ls -la"}"#,
                "shell",
                "$ ls -la",
            ),
            (
                r#"{"id":"3","type":"command_execution","command":"/bin/zsh -lc \"cargo test\""}"#,
                "shell",
                "$ cargo test",
            ),
            (
                r#"{"id":"4","type":"file_change","changes":[{"path":"a.rs","kind":"update"},{"path":"b.rs","kind":"add"}]}"#,
                "patch",
                "update a.rs, add b.rs",
            ),
            (
                r#"{"id":"5","type":"mcp_tool_call","server":"docs","tool":"search"}"#,
                "mcp",
                "docs.search",
            ),
            (
                r#"{"id":"6","type":"web_search","query":"rust tokio"}"#,
                "web_search",
                "rust tokio",
            ),
            (
                r#"{"id":"7","type":"new_kind","x":1}"#,
                "new_kind",
                "{\"x\":1}",
            ),
        ];
        let mut parser = CodexParser::new();
        for (item, name, summary) in rows {
            let line = format!(r#"{{"type":"item.started","item":{item}}}"#);
            let want = vec![TurnEvent::ToolUse {
                name: name.into(),
                summary: summary.into(),
            }];
            assert_eq!(parser.feed(&line), want);
            // The completion of the same item is not reported again.
            assert_eq!(
                parser.feed(&line.replace("item.started", "item.completed")),
                vec![]
            );
        }
        assert_eq!(
            unwrap_shell("/bin/bash -lc 'a' 'b'"),
            "/bin/bash -lc 'a' 'b'"
        );
        assert_eq!(unwrap_shell("/bin/bash -lc 'open"), "/bin/bash -lc 'open");
        assert_eq!(
            shell_words(r#"a\ b "c\"d" 'e\f'"#),
            Some(vec!["a b".into(), "c\"d".into(), "e\\f".into()])
        );
    }
}
