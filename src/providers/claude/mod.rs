//! The Claude Code adapter: its command line, its `stream-json` output folded into
//! [`TurnEvent`]s and a [`TurnOutcome`], and where its session files live on disk.
//!
//! Answers stream token by token: every run passes `--include-partial-messages` (both captured
//! versions, 2.1.332 and 2.1.197, list it in `--help`, so no version check), and each
//! `text_delta` of a text block becomes a [`TurnEvent::Delta`] at once. The CLI then prints the
//! finished block again in an `assistant` message (one per block, before its
//! `content_block_stop`). That message is matched to the streamed blocks of the same message id
//! in order, and adds only what the stream did not already give: nothing when they agree, the
//! missing tail when the stream was a prefix, nothing when the stream went further (an aborted
//! message may hold less), and the whole text as a piece of its own when they disagree (never
//! seen; nothing either said is lost). A text block that never streamed (a CLI without partial
//! messages) is a `Text` as before. Thinking and tool-input deltas are not answer text. The
//! answer is the fold of the events ([`TurnEvent::add_to_answer`]), so it equals the
//! `assistant` texts joined by blank lines, as without partial messages.
//!
//! Tool calls: each `tool_use` block is a [`TurnEvent::ToolUse`] with its id, its summary and
//! edits (`providers::tools`, paths relative to the run's cwd), each `tool_result` block of a
//! `user` line a [`TurnEvent::ToolResult`]. A line with `parent_tool_use_id` set is a
//! subagent's (started by a `Task`/`Agent` call): its calls and results carry that id as
//! `parent`, its text is a [`TurnEvent::SubagentText`] (never the answer), and its usage is the
//! subagent's own context, so it is not reported as the turn's. The result's
//! `permission_denials` become [`TurnEvent::Denied`] events, just before the end (not those the
//! user was asked about and denied: `ask`, `--permission-prompt-tool stdio`). 2.1.332 runs a
//! `Agent` call in the background by default: the subagent's lines come after the call's own
//! result (and often after the answer), and once it finishes the CLI runs a follow-up turn on
//! its own (a second `init` and `result`); that turn's text is shown, its result is not a
//! second end (`fixtures/captures/tools/README.md`).

pub mod ask;
mod files;
pub mod provider;
pub mod session;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::claude_written::TurnWritten;
use super::process::ExitInfo;
use super::tools;
use super::{ProviderHomes, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ContextUsage, TurnCost, TurnEvent, TurnStatus};
pub(crate) use files::find_session_file;
pub(in crate::providers) use files::last_call_in_session_file;
pub use files::{encode_cwd, session_exists, session_file};
#[cfg(test)]
use files::{to_base36, SESSION_TAILS};

/// What Claude Code prints (stderr and the error result) when `--resume` names no session.
const NOT_FOUND: &str = "No conversation found with session ID";
/// The model name Claude Code gives the placeholder messages it makes up for API errors.
pub(super) const SYNTHETIC_MODEL: &str = "<synthetic>";
/// `text` as the stdin line of a user message (`--input-format stream-json`), newline included.
/// The text reaches the model byte for byte (`fixtures/captures/steer`).
pub fn user_line(text: &str) -> String {
    let msg = serde_json::json!({"type": "user", "message": {"role": "user", "content": text}});
    format!("{msg}\n")
}

/// The stdin line asking the CLI to interrupt its running turn (it answers with a
/// `control_response`, ends the turn with an error result and reads on:
/// `fixtures/captures/steer/control-interrupt-*`), newline included.
pub fn interrupt_line(request_id: &str) -> String {
    let msg = serde_json::json!({
        "type": "control_request",
        "request_id": request_id,
        "request": {"subtype": "interrupt"},
    });
    format!("{msg}\n")
}

/// True for the echo (`--replay-user-messages`) of a user line the CLI just read: the prompt
/// first, then each steer, in the order written, at the moment the CLI takes it in.
pub fn is_replay(line: &str) -> bool {
    match super::json_event(line) {
        Some((v, kind)) => {
            kind == "user" && v.get("isReplay").and_then(Value::as_bool) == Some(true)
        }
        None => false,
    }
}

/// The Claude Code command line for one run. The prompt is never in it: it goes on stdin.
pub fn args(spec: &RunSpec) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        // The prompt is one JSON line on stdin and stdin stays open while the turn runs, so a
        // steer can join it; each line is echoed when the CLI reads it (see [`is_replay`]).
        "--input-format",
        "stream-json",
        "--replay-user-messages",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    let mut add = |items: &[&str]| args.extend(items.iter().map(OsString::from));
    match &spec.session {
        SessionMode::New {
            session_id: Some(id),
        } => add(&["--session-id", id]),
        SessionMode::New { session_id: None } => {}
        SessionMode::Resume { session_id } => add(&["--resume", session_id]),
        SessionMode::Fork {
            from,
            session_id,
            at,
        } => {
            add(&["--resume", from]);
            add(&["--fork-session"]);
            if let Some(id) = session_id {
                add(&["--session-id", id]);
            }
            if let Some(at) = at {
                add(&["--resume-session-at", at]);
            }
        }
    }
    // Passed on resume too: some CLI versions otherwise resume on a model with another window.
    if let Some(model) = &spec.model {
        add(&["--model", model]);
    }
    // The text itself is in a private file: argv is readable by every local user.
    args.extend(super::system_file::args(spec));
    let mut add = |items: &[&str]| args.extend(items.iter().map(OsString::from));
    if let Some(mode) = &spec.permission_mode {
        add(&["--permission-mode", mode]);
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
pub(super) struct CallUsage {
    input: u64,
    cache_creation: u64,
    cache_read: u64,
    output: u64,
}

impl CallUsage {
    pub(super) fn from_json(usage: &Value) -> Option<CallUsage> {
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
        // Saturating: the counts are the CLI's, and a wild one must not wrap or panic.
        self.input
            .saturating_add(self.cache_creation)
            .saturating_add(self.cache_read)
            .saturating_add(self.output)
    }

    /// Both describe the same request (the output count may differ: the stream's is partial).
    pub(super) fn same_request(&self, other: &CallUsage) -> bool {
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
    cost: Option<TurnCost>,
    /// `total_cost_usd` as printed: the process's (2.1.332: the session's) running total.
    total_usd: Option<f64>,
}

/// Folds Claude Code's `stream-json` stdout into events and, at exit, a [`TurnOutcome`].
#[derive(Debug, Default)]
pub struct ClaudeParser {
    json_events: usize,
    other_lines: usize,
    /// The last line fed was a replayed user line.
    replay: bool,
    session_id: Option<String>,
    init_model: Option<String>,
    /// The last real (non-synthetic) model call, its message id and model.
    last_call: Option<(CallUsage, Option<String>, Option<String>)>,
    /// The latest `message_delta` final output count, by message id (partial-message mode).
    delta_output: Option<(String, u64)>,
    /// The id of the main thread's latest `message_start`: 2.1.197's stream events carry no
    /// `api_message_id`, and its `message_delta` belongs to that message.
    main_streaming: Option<String>,
    result: Option<ResultLine>,
    not_found_in_stream: bool,
    answer: String,
    /// The messages whose text streamed (partial-message mode), oldest first.
    streamed: Vec<StreamedMessage>,
    /// The run's working directory: tool paths are shown relative to it.
    cwd: Option<PathBuf>,
    /// The `total_cost_usd` of the last result this process printed before this turn (a warm
    /// process: the figure adds up over a process's turns).
    cost_before: Option<f64>,
    /// The main thread's model calls of this turn, by message id, as the stream gave them:
    /// the turn's tokens when its result reports none (an interrupted 2.1.197 turn).
    calls: Vec<(Option<String>, CallUsage)>,
    /// The context right after the CLI compacted the conversation (`compact_boundary`'s
    /// `post_tokens`), until a later call reports one.
    compacted: Option<u64>,
    /// The calls the CLI asked the user about (`--permission-prompt-tool stdio`): a denied one
    /// is the user's answer, not a refusal to allow in the settings.
    asked: Vec<String>,
}

/// The text blocks of one message as they streamed, and how many an `assistant` line has
/// already accounted for.
#[derive(Debug, Default)]
struct StreamedMessage {
    id: Option<String>,
    /// (content block index, text so far) of each block that streamed some text, in order.
    blocks: Vec<(u64, String)>,
    matched: usize,
}

impl ClaudeParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser for a run in `cwd` (tool paths relative to it).
    pub fn in_dir(cwd: &Path) -> Self {
        Self {
            cwd: Some(cwd.to_path_buf()),
            ..Self::default()
        }
    }

    /// A parser for a further turn of a process whose last result reported `total_usd` as its
    /// running `total_cost_usd` (see `result_cost`).
    pub fn after(cwd: &Path, total_usd: Option<f64>) -> Self {
        Self {
            cost_before: total_usd,
            ..Self::in_dir(cwd)
        }
    }

    /// The session the stream named (its `init`, else its result).
    pub fn session_id(&self) -> Option<String> {
        self.session_id
            .clone()
            .or_else(|| self.result.as_ref().and_then(|r| r.session_id.clone()))
    }

    /// The model the stream's `init` named.
    pub fn model(&self) -> Option<String> {
        self.init_model.clone()
    }

    /// What this turn's session file holds once the CLI has written the turn (its last call),
    /// for a warm CLI kept after it (`claude_written`). None: the turn made no call.
    pub(super) fn written_check(&self, homes: &ProviderHomes, cwd: &Path) -> Option<TurnWritten> {
        let (usage, id, _) = self.last_call.as_ref()?;
        Some(TurnWritten::new(
            homes,
            cwd,
            self.session_id()?,
            id.clone(),
            *usage,
        ))
    }

    /// The running `total_cost_usd` of this turn's result, for the process's next turn.
    pub fn total_usd(&self) -> Option<f64> {
        self.result.as_ref().and_then(|r| r.total_usd)
    }

    /// Whether the last line fed was the echo of a user line the CLI read ([`is_replay`]).
    pub fn was_replay(&self) -> bool {
        self.replay
    }

    /// Parses one stdout line. Lines that are not JSON events are counted and otherwise ignored.
    pub fn feed(&mut self, line: &str) -> Vec<TurnEvent> {
        self.replay = false;
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        let Some((value, kind)) = super::json_event(line) else {
            self.other_lines += 1;
            return Vec::new();
        };
        let kind = kind.as_str();
        self.json_events += 1;
        self.replay =
            kind == "user" && value.get("isReplay").and_then(Value::as_bool) == Some(true);
        let events = match kind {
            "system" => self.on_system(&value),
            "assistant" => self.on_assistant(&value),
            "user" => self.on_user(&value),
            "result" => self.on_result(&value),
            "stream_event" => self.on_stream_event(&value),
            "control_request" => {
                let asked = &value["request"];
                if asked["subtype"] == "can_use_tool" {
                    if let Some(id) = asked["tool_use_id"].as_str() {
                        self.asked.push(id.to_owned());
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
        for event in &events {
            event.add_to_answer(&mut self.answer);
        }
        events
    }

    fn on_system(&mut self, value: &Value) -> Vec<TurnEvent> {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        match value.get("subtype").and_then(Value::as_str) {
            Some("init") => {
                let before = (self.session_id.clone(), self.init_model.clone());
                self.session_id = text("session_id").or(self.session_id.take());
                self.init_model = text("model");
                // 2.1.332 prints `init` again when a background subagent's notification starts
                // a follow-up turn in the same session: nothing new to say.
                if before == (self.session_id.clone(), self.init_model.clone()) {
                    return Vec::new();
                }
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
            Some("compact_boundary") => self.on_compacted(&value["compact_metadata"]),
            _ => Vec::new(),
        }
    }

    /// `system/compact_boundary`: the CLI summarized the conversation (`/compact`, or by itself
    /// near its window); what is in context from here on is `post_tokens`.
    fn on_compacted(&mut self, meta: &Value) -> Vec<TurnEvent> {
        let n = |key: &str| meta.get(key).and_then(Value::as_u64);
        let post = n("post_tokens");
        self.last_call = None;
        self.compacted = post;
        let how = match meta.get("trigger").and_then(Value::as_str) {
            Some("manual") => "claude compacted the conversation (/compact)",
            _ => "claude compacted the conversation by itself",
        };
        let message = match (n("pre_tokens"), post) {
            (Some(pre), Some(post)) => format!(
                "{how}: context {} → {} tokens",
                crate::words::thousands(pre),
                crate::words::thousands(post)
            ),
            _ => how.to_owned(),
        };
        let mut events = vec![TurnEvent::Notice { message }];
        if let Some(tokens) = post {
            events.push(TurnEvent::Usage { tokens });
        }
        events
    }

    fn on_assistant(&mut self, value: &Value) -> Vec<TurnEvent> {
        if let Some(parent) = value["parent_tool_use_id"].as_str() {
            return self.on_subagent(parent, &value["message"]);
        }
        let message = &value["message"];
        let model = message.get("model").and_then(Value::as_str);
        // The API-error placeholder repeats the error the result line carries: keep it there.
        let api_error = value.get("is_api_error_message").and_then(Value::as_bool) == Some(true);
        let id = message.get("id").and_then(Value::as_str);
        let mut events = Vec::new();
        for block in message["content"].as_array().into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") if !api_error => {
                    let text = block["text"].as_str().unwrap_or_default();
                    if !text.is_empty() {
                        let streamed = self.take_streamed(id);
                        events.extend(rest_of_block(streamed.as_deref(), text));
                    }
                }
                Some("tool_use") => events.push(self.tool_use(block, None)),
                _ => {}
            }
        }
        if model != Some(SYNTHETIC_MODEL) {
            if let Some(usage) = CallUsage::from_json(&message["usage"]) {
                let id = id.map(str::to_owned);
                self.count_call(id.clone(), usage);
                self.last_call = Some((usage, id, model.map(str::to_owned)));
                events.push(TurnEvent::Usage {
                    tokens: usage.total(),
                });
            }
        }
        events
    }

    /// A subagent's message (`parent_tool_use_id` names the `Task`/`Agent` call that started
    /// it): its text is not the answer, and its usage is the subagent's own context, not the
    /// conversation's, so neither is counted as the turn's.
    fn on_subagent(&mut self, parent: &str, message: &Value) -> Vec<TurnEvent> {
        let mut events = Vec::new();
        for block in message["content"].as_array().into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block["text"].as_str().unwrap_or_default();
                    if !text.is_empty() {
                        events.push(TurnEvent::SubagentText {
                            parent: parent.to_owned(),
                            text: crate::words::cap_text(text),
                        });
                    }
                }
                Some("tool_use") => events.push(self.tool_use(block, Some(parent))),
                _ => {}
            }
        }
        events
    }

    fn tool_use(&self, block: &Value, parent: Option<&str>) -> TurnEvent {
        let cwd = self.cwd.as_deref();
        let name = block["name"].as_str().unwrap_or("tool").to_owned();
        let input = &block["input"];
        TurnEvent::ToolUse {
            summary: tools::claude_summary(&name, input, cwd),
            edits: tools::claude_edits(&name, input, cwd),
            id: block["id"].as_str().map(str::to_owned),
            parent: parent.map(str::to_owned),
            name,
        }
    }

    /// A `user` line: the results of tool calls (the prompt's own echo carries none).
    fn on_user(&mut self, value: &Value) -> Vec<TurnEvent> {
        let parent = value["parent_tool_use_id"].as_str().map(str::to_owned);
        let content = value["message"]["content"].as_array();
        content
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .filter_map(|b| {
                Some(TurnEvent::ToolResult {
                    id: b["tool_use_id"].as_str()?.to_owned(),
                    output: tools::result_text(&b["content"]),
                    is_error: b["is_error"].as_bool().unwrap_or(false),
                    parent: parent.clone(),
                })
            })
            .collect()
    }

    fn on_result(&mut self, value: &Value) -> Vec<TurnEvent> {
        // A second result (`result_index` 1…) is the follow-up turn 2.1.332 runs by itself once
        // a background subagent it started finishes (`fixtures/captures/tools`): the prompt's
        // turn ended at the first, so it is neither a second end nor the turn's status.
        if self.result.is_some() {
            return Vec::new();
        }
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
            cost: result_cost(value, self.cost_before).map(|c| self.reported_tokens(value, c)),
            total_usd: total_usd(value),
        });
        let mut events = self.denials(value);
        events.push(TurnEvent::End { status, error });
        events
    }

    /// `permission_denials`: each tool call the CLI refused, as `{tool_name, tool_use_id,
    /// tool_input}`.
    fn denials(&self, value: &Value) -> Vec<TurnEvent> {
        let list = value["permission_denials"].as_array();
        list.into_iter()
            .flatten()
            .filter(|d| {
                let id = d["tool_use_id"].as_str().unwrap_or_default();
                !self.asked.iter().any(|a| a == id)
            })
            .map(|d| {
                let tool = d["tool_name"].as_str().unwrap_or("tool").to_owned();
                let input = &d["tool_input"];
                let target = tools::claude_target(&tool, input, self.cwd.as_deref())
                    .unwrap_or_else(|| one_line(&input.to_string(), tools::SUMMARY_CHARS));
                TurnEvent::Denied { tool, target }
            })
            .collect()
    }

    /// `--include-partial-messages`: a `text_delta` is answer text arriving; `message_delta`
    /// carries a call's final output count.
    fn on_stream_event(&mut self, value: &Value) -> Vec<TurnEvent> {
        let event = &value["event"];
        let api_id = value["api_message_id"].as_str();
        match event["type"].as_str() {
            Some("message_start") => {
                let id = event["message"]["id"].as_str().or(api_id);
                self.streamed.push(StreamedMessage {
                    id: id.map(str::to_owned),
                    ..StreamedMessage::default()
                });
                // What the call was sent is known at its start: the running turn's context
                // shows at once, not only once the call's message is whole. (A subagent's
                // usage is its own context.)
                let main = value["parent_tool_use_id"].is_null();
                if main {
                    self.main_streaming = id.map(str::to_owned);
                }
                match CallUsage::from_json(&event["message"]["usage"]) {
                    Some(usage) if main => vec![TurnEvent::Usage {
                        tokens: usage.total(),
                    }],
                    _ => Vec::new(),
                }
            }
            Some("content_block_delta") if event["delta"]["type"] == "text_delta" => {
                let text = event["delta"]["text"].as_str().unwrap_or_default();
                let index = event["index"].as_u64().unwrap_or(0);
                if text.is_empty() {
                    return Vec::new();
                }
                let message = self.streaming_message(api_id);
                let start = match message.blocks.last_mut() {
                    Some((i, so_far)) if *i == index => {
                        so_far.push_str(text);
                        false
                    }
                    _ => {
                        message.blocks.push((index, text.to_owned()));
                        true
                    }
                };
                vec![TurnEvent::Delta {
                    text: text.to_owned(),
                    start,
                }]
            }
            Some("message_delta") => {
                let output = event["usage"]["output_tokens"].as_u64();
                let main = value["parent_tool_use_id"].is_null();
                let id = api_id.or_else(|| main.then_some(self.main_streaming.as_deref())?);
                if let (Some(output), Some(id)) = (output, id) {
                    if let Some((_, call)) = self
                        .calls
                        .iter_mut()
                        .find(|(i, _)| i.as_deref() == Some(id))
                    {
                        call.output = call.output.max(output);
                    }
                    self.delta_output = Some((id.to_owned(), output));
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Notes one main-thread model call (a message id seen again is the same call, fuller).
    fn count_call(&mut self, id: Option<String>, usage: CallUsage) {
        let known = id
            .is_some()
            .then(|| self.calls.iter_mut().find(|(i, _)| *i == id));
        match known.flatten() {
            Some((_, call)) => {
                let output = call.output.max(usage.output);
                *call = CallUsage { output, ..usage };
            }
            None => self.calls.push((id, usage)),
        }
    }

    /// `cost` with tokens when the result's `usage` reports none although the turn made
    /// calls: an interrupted turn, a `/compact`. Then the tokens are 2.1.332's
    /// `model_usage_since_last_result`, else the calls the stream showed.
    fn reported_tokens(&self, value: &Value, cost: TurnCost) -> TurnCost {
        if cost.input_tokens > 0 || cost.output_tokens > 0 {
            return cost;
        }
        let streamed = || {
            let calls = self.calls.iter().map(|(_, c)| c);
            let sum = |f: fn(&CallUsage) -> u64| calls.clone().map(f).fold(0, u64::saturating_add);
            (!self.calls.is_empty()).then(|| TurnCost {
                input_tokens: sum(|c| c.total().saturating_sub(c.output)),
                cached_tokens: sum(|c| c.cache_read),
                output_tokens: sum(|c| c.output),
                usd: None,
            })
        };
        let tokens = since_last_result_tokens(value).or_else(streamed);
        tokens.map_or(cost, |t| TurnCost { usd: cost.usd, ..t })
    }

    /// The message a delta belongs to: the one its `api_message_id` names, else the latest
    /// (a delta before any `message_start` opens one).
    fn streaming_message(&mut self, api_id: Option<&str>) -> &mut StreamedMessage {
        let named = api_id.and_then(|id| {
            self.streamed
                .iter()
                .rposition(|m| m.id.as_deref() == Some(id))
        });
        let at = match named {
            Some(at) => at,
            None if self.streamed.is_empty() || api_id.is_some() => {
                self.streamed.push(StreamedMessage {
                    id: api_id.map(str::to_owned),
                    ..StreamedMessage::default()
                });
                self.streamed.len() - 1
            }
            None => self.streamed.len() - 1,
        };
        &mut self.streamed[at]
    }

    /// The text of the next streamed block of message `id` that no `assistant` line has
    /// accounted for yet, if any.
    fn take_streamed(&mut self, id: Option<&str>) -> Option<String> {
        let message = self
            .streamed
            .iter_mut()
            .rev()
            .find(|m| id.is_none() || m.id.is_none() || m.id.as_deref() == id)?;
        let (_, text) = message.blocks.get(message.matched)?;
        message.matched += 1;
        Some(text.clone())
    }

    /// The outcome of the run, once the process exited. `cwd` is the run's working directory
    /// (where the session file lives).
    pub fn finish(self, exit: &ExitInfo, homes: &ProviderHomes, cwd: &Path) -> TurnOutcome {
        let session_not_found = self.not_found_in_stream || exit.stderr_tail.contains(NOT_FOUND);
        let (status, error) = self.final_status(exit);
        let session_id = self.session_id();
        let context = session_id
            .as_deref()
            .and_then(|id| self.context(homes, cwd, id));
        let cost = self.result.as_ref().and_then(|r| r.cost);
        TurnOutcome {
            status: Some(status),
            error,
            session_id,
            model: self.init_model,
            context,
            session_not_found,
            answer: self.answer,
            cost,
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
        let window = self.window()?;
        let Some((stream_call, message_id, _)) = self.last_call.as_ref() else {
            // A compaction with no call after it: what it left in context.
            return self.compacted.map(|tokens| ContextUsage { tokens, window });
        };
        let mut call = *stream_call;
        // The stream's output count is the first chunk's; the session file has the final one
        // (2.1.332 writes it before its result; 2.1.197 a few ms after, when only the
        // stream's `message_delta` has it).
        let on_disk = find_session_file(homes, cwd, session_id)
            .and_then(|file| last_call_in_session_file(&file))
            .map(|(_, disk)| disk)
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

/// What an `assistant` text block adds after `streamed`, the text its deltas already gave.
fn rest_of_block(streamed: Option<&str>, full: &str) -> Option<TurnEvent> {
    let Some(streamed) = streamed else {
        return Some(TurnEvent::Text {
            text: full.to_owned(),
        });
    };
    if let Some(rest) = full.strip_prefix(streamed) {
        return (!rest.is_empty()).then(|| TurnEvent::Delta {
            text: rest.to_owned(),
            start: false,
        });
    }
    if streamed.starts_with(full) {
        return None;
    }
    Some(TurnEvent::Text {
        text: full.to_owned(),
    })
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

/// The turn's tokens (the result's `usage`, summed over its calls) and money. `total_cost_usd`
/// is a running total, not the turn's: 2.1.332 carries it over from the session's earlier
/// processes (a resumed session's first result holds every earlier turn's cost too) and every
/// version adds up over the turns of one process (`fixtures/captures/steer`: `two-turns`,
/// `resume-two-turns`). So the turn's money is the sum of 2.1.332's
/// `model_usage_since_last_result[*].costUSD`, else the total less `before` (the total of the
/// process's previous result), else the total (the first turn of a 2.1.197 process).
fn result_cost(value: &Value, before: Option<f64>) -> Option<TurnCost> {
    let usage = value.get("usage")?;
    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    usage.get("input_tokens")?.as_u64()?;
    let cached = n("cache_read_input_tokens");
    Some(TurnCost {
        input_tokens: n("input_tokens")
            .saturating_add(n("cache_creation_input_tokens"))
            .saturating_add(cached),
        cached_tokens: cached,
        output_tokens: n("output_tokens"),
        usd: since_last_result_usd(value).or_else(|| {
            let total = total_usd(value)?;
            Some(before.map_or(total, |b| (total - b).max(0.0)))
        }),
    })
}

/// `total_cost_usd`, when it is a sane figure.
fn total_usd(value: &Value) -> Option<f64> {
    value
        .get("total_cost_usd")
        .and_then(Value::as_f64)
        .filter(|c| c.is_finite() && *c >= 0.0)
}

/// 2.1.332's tokens of this result alone: `model_usage_since_last_result`, summed over
/// models. None when it is absent or counts nothing.
fn since_last_result_tokens(value: &Value) -> Option<TurnCost> {
    let models = value.get("model_usage_since_last_result")?.as_object()?;
    let mut cost = TurnCost::default();
    for usage in models.values() {
        let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        let cached = n("cacheReadInputTokens");
        let input = n("inputTokens").saturating_add(n("cacheCreationInputTokens"));
        cost.input_tokens = cost
            .input_tokens
            .saturating_add(input.saturating_add(cached));
        cost.cached_tokens = cost.cached_tokens.saturating_add(cached);
        cost.output_tokens = cost.output_tokens.saturating_add(n("outputTokens"));
    }
    (cost.input_tokens > 0 || cost.output_tokens > 0).then_some(cost)
}

/// 2.1.332's cost of this result alone: `model_usage_since_last_result`, summed over models.
fn since_last_result_usd(value: &Value) -> Option<f64> {
    let models = value.get("model_usage_since_last_result")?.as_object()?;
    let mut sum = 0.0;
    for usage in models.values() {
        sum += usage.get("costUSD")?.as_f64()?;
    }
    // Empty (an interrupted call with nothing billed): this result cost nothing.
    (sum.is_finite() && sum >= 0.0).then_some(sum)
}

#[cfg(test)]
#[path = "mod_tests.rs"]
pub(super) mod tests;

#[cfg(test)]
#[path = "partial_tests.rs"]
mod partial_tests;

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tools_tests;
