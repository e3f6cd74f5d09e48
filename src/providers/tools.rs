//! What a tool call is about, the same way for every CLI: the one-line summary (the tool and
//! its target: `Edit src/server.rs`, `Bash cargo test`, `Grep fn main`), paths made relative to
//! the turn's checkout, the edits an editing call makes, and a tool result's text. Pure.
//!
//! Decisions: the summary starts with the tool's own name (as the CLI and the local loop name
//! it) so the transcript reads like the CLI's; a path outside the checkout stays absolute (it
//! is news to the user that the tool went there); a tool with no known target field shows its
//! input as compact JSON, cut. Every text an event carries is capped ([`cap_text`]).

use std::path::Path;

use serde_json::Value;

use super::claude::one_line;
use crate::words::{cap_text, FileEdit};

/// Longest tool summary, in characters.
pub const SUMMARY_CHARS: usize = 80;

/// `path` relative to `cwd` when it lies inside it, else as given.
pub fn relative(path: &str, cwd: Option<&Path>) -> String {
    let Some(cwd) = cwd else {
        return path.to_string();
    };
    match Path::new(path).strip_prefix(cwd) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_string(),
        Ok(rest) => rest.to_string_lossy().into_owned(),
        Err(_) => path.to_string(),
    }
}

/// What a Claude Code tool call works on: a file, a command, a pattern, a URL, a subagent's
/// task. None when the input has no field known for that tool.
pub fn claude_target(name: &str, input: &Value, cwd: Option<&Path>) -> Option<String> {
    let field = |key: &str| input.get(key).and_then(Value::as_str);
    let cut = |s: &str| one_line(s, SUMMARY_CHARS);
    match name {
        "Read" | "Write" | "Edit" | "MultiEdit" => field("file_path").map(|p| relative(p, cwd)),
        "NotebookEdit" => field("notebook_path").map(|p| relative(p, cwd)),
        "Bash" => field("command").map(cut),
        "Grep" | "Glob" => field("pattern").map(|p| match field("path") {
            Some(dir) => cut(&format!("{p} in {}", relative(dir, cwd))),
            None => cut(p),
        }),
        "WebFetch" => field("url").map(cut),
        "WebSearch" => field("query").map(cut),
        "Task" | "Agent" => field("description").or(field("prompt")).map(cut),
        _ => None,
    }
}

/// The one line a tool call shows: `Name target`, else `Name {input as JSON}` cut.
pub fn claude_summary(name: &str, input: &Value, cwd: Option<&Path>) -> String {
    match claude_target(name, input, cwd) {
        Some(target) if !target.is_empty() => format!("{name} {target}"),
        _ => {
            let compact = serde_json::to_string(input).unwrap_or_default();
            let rest = if compact == "{}" || compact == "null" {
                String::new()
            } else {
                format!(" {compact}")
            };
            one_line(&format!("{name}{rest}"), SUMMARY_CHARS)
        }
    }
}

/// The changes of a Claude editing call (`Edit`, `MultiEdit`, `Write`), texts capped.
pub fn claude_edits(name: &str, input: &Value, cwd: Option<&Path>) -> Vec<FileEdit> {
    let field = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(cap_text);
    let Some(path) = input.get("file_path").and_then(Value::as_str) else {
        return Vec::new();
    };
    let path = relative(path, cwd);
    let pair = |v: &Value| FileEdit {
        path: path.clone(),
        old: field(v, "old_string").unwrap_or_default(),
        new: field(v, "new_string").unwrap_or_default(),
    };
    match name {
        "Edit" => vec![pair(input)],
        "MultiEdit" => input["edits"]
            .as_array()
            .into_iter()
            .flatten()
            .map(pair)
            .collect(),
        "Write" => vec![FileEdit {
            path: path.clone(),
            old: String::new(),
            new: field(input, "content").unwrap_or_default(),
        }],
        _ => Vec::new(),
    }
}

/// The changes of a Codex app-server `fileChange` item (`changes: [{path, kind: {type}, diff}]`),
/// texts capped: an added file's `diff` is its whole text, a deleted one's its old text, an
/// update's a unified diff whose hunks each become one edit (context lines on both sides).
/// `codex exec --json` reports no diff: its items give none.
pub fn codex_edits(item: &Value, cwd: Option<&Path>) -> Vec<FileEdit> {
    let mut edits = Vec::new();
    for change in item["changes"].as_array().into_iter().flatten() {
        let (Some(path), Some(diff)) = (change["path"].as_str(), change["diff"].as_str()) else {
            continue;
        };
        let path = relative(path, cwd);
        let kind = change["kind"]["type"].as_str().unwrap_or_default();
        let whole = |old: &str, new: &str| FileEdit {
            path: path.clone(),
            old: cap_text(old),
            new: cap_text(new),
        };
        match kind {
            "add" => edits.push(whole("", diff)),
            "delete" => edits.push(whole(diff, "")),
            _ => edits.extend(hunks(diff).into_iter().map(|(old, new)| whole(&old, &new))),
        }
    }
    edits
}

/// A unified diff's hunks as (old text, new text).
fn hunks(diff: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in diff.split_inclusive('\n') {
        if line.starts_with("@@") {
            out.push((String::new(), String::new()));
            continue;
        }
        let Some((old, new)) = out.last_mut() else {
            continue;
        };
        match line.split_at(line.len().min(1)) {
            (" ", rest) => {
                old.push_str(rest);
                new.push_str(rest);
            }
            ("-", rest) => old.push_str(rest),
            ("+", rest) => new.push_str(rest),
            // `\ No newline at end of file`, or anything else: not text of either side.
            _ => {}
        }
    }
    out.retain(|(old, new)| !(old.is_empty() && new.is_empty()));
    out
}

/// The text of a Claude `tool_result` block's `content`: a string, or text blocks joined by
/// newlines (other blocks, such as images, named in brackets). Capped.
pub fn result_text(content: &Value) -> String {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => b["text"].as_str().unwrap_or_default().to_string(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    cap_text(&text)
}

/// A Codex `file_change` item's summary: `Edit a.rs`, `Add b.rs, Delete c.rs`.
pub fn codex_patch_summary(item: &Value, cwd: Option<&Path>) -> String {
    let changes: Vec<String> = item["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let verb = match c["kind"].as_str() {
                Some("add") => "Add",
                Some("delete") => "Delete",
                Some("update") => "Edit",
                _ => "Change",
            };
            format!(
                "{verb} {}",
                relative(c["path"].as_str().unwrap_or("?"), cwd)
            )
        })
        .collect();
    if changes.is_empty() {
        return "Patch".to_string();
    }
    one_line(&changes.join(", "), SUMMARY_CHARS)
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
