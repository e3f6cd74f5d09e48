//! The Chat Completions stream: server-sent-event lines in, one assistant message out. Text
//! deltas are released paragraph by paragraph, tool-call fragments are joined by index, and the
//! usage report of the last chunk (`stream_options.include_usage`) is kept. A tool call whose
//! arguments are not JSON (cut by the answer's token limit) is kept with `{}` as arguments:
//! servers that render them through a template (llama.cpp) refuse every later request of the
//! conversation otherwise; the model learns what went wrong from the call's result.

use serde_json::{json, Value};

/// Token counts of one model call as the server reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub prompt: u64,
    pub completion: u64,
}

/// One tool call as it is being streamed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// What one `data:` line meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Nothing to show (a comment, a role-only delta, usage, a tool-call fragment).
    Quiet,
    /// `data: [DONE]`.
    Done,
    /// Whole paragraphs of answer text that are now complete.
    Text(Vec<String>),
}

/// Why a stream cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// A `data:` line that is not JSON.
    Malformed(String),
    /// The server reported an error inside the stream.
    Server(String),
}

/// The assistant message being assembled from a stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
    pub done: bool,
    /// Bytes of an unfinished line.
    pending: Vec<u8>,
    /// How much of `content` was released as paragraphs.
    released: usize,
}

impl Answer {
    /// Feeds raw bytes; returns the complete `data:` payloads with what each meant.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<(String, Line)>, StreamError> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(nl) = self.pending.iter().position(|b| *b == b'\n') {
            let raw: Vec<u8> = self.pending.drain(..=nl).collect();
            let line = String::from_utf8_lossy(&raw);
            let line = line.trim_end_matches(['\n', '\r']);
            let Some(data) = line.strip_prefix("data:") else {
                continue; // blank separators, `event:`, `id:`, `: comments`
            };
            let data = data.strip_prefix(' ').unwrap_or(data).to_string();
            let meaning = self.data(&data)?;
            out.push((data, meaning));
        }
        Ok(out)
    }

    fn data(&mut self, data: &str) -> Result<Line, StreamError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Line::Done);
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            let shown: String = data.chars().take(120).collect();
            StreamError::Malformed(format!("{e} in {shown:?}"))
        })?;
        if let Some(err) = v.get("error") {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| err.to_string(), str::to_string);
            return Err(StreamError::Server(msg));
        }
        if let Some(m) = v.get("model").and_then(Value::as_str) {
            self.model = Some(m.to_string());
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some(Usage {
                prompt: n("prompt_tokens"),
                completion: n("completion_tokens"),
            });
        }
        let Some(choice) = v.pointer("/choices/0") else {
            return Ok(Line::Quiet);
        };
        if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(r.to_string());
        }
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.tool_fragment(call);
        }
        match delta.get("content").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => {
                self.content.push_str(text);
                Ok(self.paragraphs(false))
            }
            _ => Ok(Line::Quiet),
        }
    }

    fn tool_fragment(&mut self, call: &Value) {
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .map_or_else(|| self.tool_calls.len().saturating_sub(1), |i| i as usize);
        while self.tool_calls.len() <= index {
            self.tool_calls.push(ToolCall::default());
        }
        let slot = &mut self.tool_calls[index];
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            slot.id = id.to_string();
        }
        if let Some(f) = call.get("function") {
            if let Some(name) = f.get("name").and_then(Value::as_str) {
                slot.name.push_str(name);
            }
            if let Some(args) = f.get("arguments").and_then(Value::as_str) {
                slot.arguments.push_str(args);
            }
        }
    }

    /// The paragraphs completed since the last call (all that is left when `finish`).
    pub fn paragraphs(&mut self, finish: bool) -> Line {
        let rest = &self.content[self.released..];
        let upto = if finish {
            rest.len()
        } else {
            match rest.rfind("\n\n") {
                Some(i) => i,
                None => return Line::Quiet,
            }
        };
        let pieces: Vec<String> = rest[..upto]
            .split("\n\n")
            .map(|p| p.trim_matches('\n').to_string())
            .filter(|p| !p.is_empty())
            .collect();
        self.released += if finish { upto } else { upto + 2 };
        if pieces.is_empty() {
            Line::Quiet
        } else {
            Line::Text(pieces)
        }
    }

    /// True when the model asked for tools (the loop runs them and asks again).
    pub fn wants_tools(&self) -> bool {
        self.tool_calls.iter().any(|c| !c.name.is_empty())
    }

    /// The assistant message as the conversation keeps it (arguments that are not JSON as
    /// `{}`, see [`json_arguments`]).
    pub fn message(&self) -> Value {
        let mut m = json!({"role": "assistant", "content": self.content});
        if self.wants_tools() {
            m["tool_calls"] = self
                .tool_calls
                .iter()
                .filter(|c| !c.name.is_empty())
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                           "function": {"name": c.name, "arguments": json_arguments(&c.arguments)}})
                })
                .collect();
        }
        m
    }
}

/// `arguments` when it is JSON, else `{}`.
pub fn json_arguments(arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(_) => arguments.to_string(),
        Err(_) => "{}".to_string(),
    }
}

/// A kept message with every tool call's arguments made JSON (see [`json_arguments`]), for
/// conversations journalled before that was done.
pub fn with_json_arguments(mut message: Value) -> Value {
    if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for call in calls {
            if let Some(args) = call.pointer_mut("/function/arguments") {
                let fixed = json_arguments(args.as_str().unwrap_or_default());
                *args = Value::String(fixed);
            }
        }
    }
    message
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
