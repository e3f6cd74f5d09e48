//! A turn's tool calls as the transcript keeps them: each call with its result and edits, and
//! a subagent's work (Claude's `Task`/`Agent`) nested under the call that started it. Pure.
//!
//! Decisions: a result or a subagent's step finds its call by id among the turn's calls and
//! their nested calls (a subagent's own subagent nests one level only: deeper work is drawn
//! under its outermost known call); a step whose call is not known (it started before this
//! client watched) is drawn where it arrived, at the top level, so nothing is dropped.

use crate::words::{FileEdit, TurnEvent};

use super::Part;

/// What a tool call gave back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolPart {
    /// `Edit src/server.rs`.
    pub summary: String,
    pub id: Option<String>,
    pub edits: Vec<FileEdit>,
    /// None until the result arrives (and always for a turn read back from the log, which
    /// keeps only the summaries).
    pub result: Option<ToolOutput>,
    /// A subagent's work under this call: its tool calls and texts, in order.
    pub nested: Vec<Part>,
}

impl ToolPart {
    /// A call known only by its summary (a turn read back from the log).
    pub fn named(summary: &str) -> ToolPart {
        ToolPart {
            summary: summary.to_string(),
            ..ToolPart::default()
        }
    }
}

/// The call with id `id` among `parts` and their nested calls.
fn find<'a>(parts: &'a mut [Part], id: &str) -> Option<&'a mut ToolPart> {
    for part in parts.iter_mut().rev() {
        if let Part::Tool(tool) = part {
            if tool.id.as_deref() == Some(id) {
                return Some(tool);
            }
            if let Some(inner) = find(&mut tool.nested, id) {
                return Some(inner);
            }
        }
    }
    None
}

/// The indices leading to the call with id `id` (through nested parts).
fn path_of(parts: &[Part], id: &str) -> Option<Vec<usize>> {
    for (k, part) in parts.iter().enumerate().rev() {
        if let Part::Tool(tool) = part {
            if tool.id.as_deref() == Some(id) {
                return Some(vec![k]);
            }
            if let Some(mut rest) = path_of(&tool.nested, id) {
                rest.insert(0, k);
                return Some(rest);
            }
        }
    }
    None
}

/// The nested parts of the call at `path`.
fn nested_at<'a>(parts: &'a mut [Part], path: &[usize]) -> Option<&'a mut Vec<Part>> {
    let (k, rest) = path.split_first()?;
    match parts.get_mut(*k)? {
        Part::Tool(tool) => {
            if rest.is_empty() {
                Some(&mut tool.nested)
            } else {
                nested_at(&mut tool.nested, rest)
            }
        }
        _ => None,
    }
}

/// Adds a step made under call `parent` to that call's nested parts, else to the top level.
fn push_under(parts: &mut Vec<Part>, parent: Option<&str>, part: Part) {
    let path = parent.and_then(|p| path_of(parts, p));
    match path.and_then(|p| nested_at(parts, &p)) {
        Some(nested) => nested.push(part),
        None => parts.push(part),
    }
}

/// The parts hold more than the log keeps of them: a tool call's result, edits or subagent
/// steps, or a refusal.
pub fn has_details(parts: &[Part]) -> bool {
    parts.iter().any(|p| match p {
        Part::Tool(t) => t.result.is_some() || !t.edits.is_empty() || !t.nested.is_empty(),
        Part::Denied { .. } => true,
        Part::Text(_) | Part::Note(_) | Part::Warning(_) => false,
    })
}

/// Applies a tool step (a call, its result, a subagent's text) to a turn's parts. Returns
/// false for any other event.
pub fn apply(parts: &mut Vec<Part>, event: &TurnEvent) -> bool {
    match event {
        TurnEvent::ToolUse {
            summary,
            id,
            parent,
            edits,
            ..
        } => {
            let tool = ToolPart {
                summary: summary.clone(),
                id: id.clone(),
                edits: edits.clone(),
                result: None,
                nested: Vec::new(),
            };
            push_under(parts, parent.as_deref(), Part::Tool(tool));
        }
        TurnEvent::ToolResult {
            id,
            output,
            is_error,
            ..
        } => {
            if let Some(tool) = find(parts, id) {
                tool.result = Some(ToolOutput {
                    text: output.clone(),
                    is_error: *is_error,
                });
            }
        }
        TurnEvent::SubagentText { parent, text } => {
            push_under(parts, Some(parent), Part::Text(text.clone()));
        }
        TurnEvent::Session { .. }
        | TurnEvent::Text { .. }
        | TurnEvent::Delta { .. }
        | TurnEvent::Denied { .. }
        | TurnEvent::Usage { .. }
        | TurnEvent::Warning { .. }
        | TurnEvent::Notice { .. }
        | TurnEvent::End { .. } => return false,
    }
    true
}
