//! The app-server dialect of Codex's stream: the JSON-RPC notifications a warm `codex
//! app-server` prints for a turn (`turn/started`, `item/*`, `thread/tokenUsage/updated`,
//! `turn/completed`, `error`), folded by the same [`CodexParser`] as `codex exec --json`'s
//! lines, so a turn's raw stream reads back the same way whichever ran it (steps, recovery).
//! The shapes: `fixtures/captures/codex-warm/README.md`.
//!
//! Items are renamed into `exec --json`'s shapes (`commandExecution` → `command_execution`,
//! `aggregatedOutput` → `aggregated_output`, …) and go through the same summaries. The answer
//! streams as deltas (`item/agentMessage/delta`), which `exec --json` never prints.

use serde_json::{json, Map, Value};

use super::CodexParser;
use crate::words::{ContextUsage, TurnEvent, TurnStatus};

impl CodexParser {
    /// One app-server message (a notification, or an answer to a request, which carries no
    /// event).
    pub(super) fn feed_app(&mut self, message: &Value) -> Vec<TurnEvent> {
        let Some(method) = message["method"].as_str() else {
            return Vec::new();
        };
        let params = &message["params"];
        match method {
            "turn/started" => {
                self.turn_id = params["turn"]["id"].as_str().map(str::to_owned);
                Vec::new()
            }
            "item/started" => self.on_app_item(&params["item"], false),
            "item/completed" => self.on_app_item(&params["item"], true),
            "item/agentMessage/delta" => {
                let text = params["delta"].as_str().unwrap_or_default();
                let item = params["itemId"].as_str().unwrap_or_default();
                if text.is_empty() {
                    return Vec::new();
                }
                let start = self.streamed.insert(item.to_owned());
                match &mut self.partial {
                    Some((id, so_far)) if id == item => so_far.push_str(text),
                    _ => {
                        self.keep_partial();
                        self.partial = Some((item.to_owned(), text.to_owned()));
                    }
                }
                vec![TurnEvent::Delta {
                    text: text.to_owned(),
                    start,
                }]
            }
            "thread/tokenUsage/updated" => {
                let usage = &params["tokenUsage"];
                let last = usage["last"]["totalTokens"].as_u64();
                let window = usage["modelContextWindow"].as_u64();
                if let (Some(tokens), Some(window)) = (last, window) {
                    self.app_context = Some(ContextUsage { tokens, window });
                }
                last.map(|tokens| vec![TurnEvent::Usage { tokens }])
                    .unwrap_or_default()
            }
            // Transient (a retry); a failure ends with `turn/completed` failed.
            "error" => {
                let message = params["error"]["message"].as_str().unwrap_or_default();
                vec![TurnEvent::Warning {
                    message: message.to_owned(),
                }]
            }
            "turn/completed" => {
                self.keep_partial();
                let turn = &params["turn"];
                match turn["status"].as_str() {
                    Some("completed") => self.end(TurnStatus::Completed, None),
                    Some("interrupted") => self.end(TurnStatus::Interrupted, None),
                    _ => self.end(TurnStatus::Failed, Some(super::failure(&turn["error"]))),
                }
            }
            _ => Vec::new(),
        }
    }

    fn on_app_item(&mut self, item: &Value, completed: bool) -> Vec<TurnEvent> {
        let Some(exec) = exec_item(item) else {
            return Vec::new();
        };
        let streamed = exec["type"] == "agent_message"
            && self
                .streamed
                .contains(exec["id"].as_str().unwrap_or_default());
        if exec["type"] != "agent_message" {
            let id = exec["id"].as_str().unwrap_or_default().to_owned();
            if completed {
                self.running.remove(&id);
            } else {
                self.running.insert(id);
            }
        }
        if !streamed {
            let mut events = self.on_item(&exec, completed);
            if exec["type"] == "file_change" {
                self.with_patch(item, &mut events);
            }
            return events;
        }
        // Its deltas showed it already: the answer keeps it, no event repeats it.
        if completed {
            if self
                .partial
                .as_ref()
                .is_some_and(|(id, _)| exec["id"] == id.as_str())
            {
                self.partial = None;
            }
            self.add_answer(exec["text"].as_str().unwrap_or_default());
        }
        Vec::new()
    }

    /// A patch's call carries its edits (the app-server reports the diff, `exec` does not), and
    /// its result says only that it applied.
    fn with_patch(&self, item: &Value, events: &mut [TurnEvent]) {
        for event in events {
            match event {
                TurnEvent::ToolUse { edits, .. } => {
                    *edits = super::tools::codex_edits(item, self.cwd.as_deref());
                }
                TurnEvent::ToolResult { output, .. } if output == super::PATCH_APPLIED => {
                    *output = "applied".to_string();
                }
                _ => {}
            }
        }
    }

    /// The answer keeps the text of a streamed item that will never complete.
    fn keep_partial(&mut self) {
        if let Some((_, text)) = self.partial.take() {
            self.add_answer(&text);
        }
    }
}

/// An app-server thread item in `codex exec --json`'s shape, or None for what no event shows
/// (the user's own message, reasoning, plans, hooks, compaction).
pub(super) fn exec_item(item: &Value) -> Option<Value> {
    let kind = item["type"].as_str()?;
    let id = item["id"].clone();
    let field = |key: &str| item.get(key).cloned().unwrap_or(Value::Null);
    let status = snake(item["status"].as_str().unwrap_or_default());
    Some(match kind {
        "userMessage" | "reasoning" | "plan" | "hookPrompt" | "contextCompaction" => return None,
        "agentMessage" => json!({"type": "agent_message", "id": id, "text": field("text")}),
        "commandExecution" => json!({
            "type": "command_execution",
            "id": id,
            "command": field("command"),
            "aggregated_output": field("aggregatedOutput"),
            "exit_code": field("exitCode"),
            "status": status,
        }),
        "fileChange" => {
            let changes: Vec<Value> = item["changes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| json!({"path": c["path"], "kind": c["kind"]["type"]}))
                .collect();
            json!({"type": "file_change", "id": id, "changes": changes, "status": status})
        }
        "mcpToolCall" => json!({
            "type": "mcp_tool_call",
            "id": id,
            "server": field("server"),
            "tool": field("tool"),
            "arguments": field("arguments"),
            "result": field("result"),
            "error": field("error"),
            "status": status,
        }),
        "webSearch" => json!({"type": "web_search", "id": id, "query": field("query")}),
        other => {
            // Shown as exec shows an item it has no summary for: its fields, compacted.
            let mut rest: Map<String, Value> = item.as_object().cloned().unwrap_or_default();
            rest.insert("type".into(), Value::String(snake(other)));
            Value::Object(rest)
        }
    })
}

/// `inProgress` → `in_progress`.
fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[path = "app_events_tests.rs"]
mod tests;
