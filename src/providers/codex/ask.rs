//! Codex's approval requests (`codex app-server` under an approval policy that asks,
//! `fixtures/captures/approvals/codex/`): `item/fileChange/requestApproval` (a patch its sandbox
//! would refuse; the paths are only in the `fileChange` item started before it, kept by
//! [`Changes`]) and `item/commandExecution/requestApproval`, read as the inbox's [`Asked`]; and
//! the lines that answer one. A decision carries no text: a deny's reason follows as a
//! `turn/steer`, which the model reads with the rejection in its next call (captured).

use std::collections::HashMap;

use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::providers::ask::{Answerer, Asked, Verdict};

/// The approval policy of a turn that may ask (`exec`'s, and a turn that may not, is `never`).
pub const ASK_POLICY: &str = "on-request";
/// What the inbox calls a patch and a command.
pub const PATCH_TOOL: &str = "apply_patch";
pub const COMMAND_TOOL: &str = "exec_command";

const FILE_CHANGE: &str = "item/fileChange/requestApproval";
const COMMAND: &str = "item/commandExecution/requestApproval";

/// Whether `message` is an approval request of the app-server (the inbox answers it).
pub fn is_approval(message: &Value) -> bool {
    message.get("id").is_some() && matches!(message["method"].as_str(), Some(FILE_CHANGE | COMMAND))
}

/// The paths of each `fileChange` item started in the turn, by item id.
#[derive(Debug, Default)]
pub struct Changes(HashMap<String, Vec<String>>);

impl Changes {
    /// Keeps the paths of `message` if it starts a `fileChange` item.
    pub fn note(&mut self, message: &Value) {
        if message["method"] != "item/started" {
            return;
        }
        let item = &message["params"]["item"];
        if item["type"] != "fileChange" {
            return;
        }
        let (Some(id), Some(changes)) = (item["id"].as_str(), item["changes"].as_array()) else {
            return;
        };
        let paths = changes
            .iter()
            .filter_map(|c| c["path"].as_str().map(str::to_string))
            .collect();
        self.0.insert(id.to_string(), paths);
    }
}

/// `message` as an approval request, answered on `lines` (the app-server's stdin); None for
/// any other message.
pub fn asked(message: &Value, changes: &Changes, lines: &UnboundedSender<String>) -> Option<Asked> {
    if !is_approval(message) {
        return None;
    }
    let params = &message["params"];
    let (tool, target, write) = match message["method"].as_str()? {
        FILE_CHANGE => {
            let item = params["itemId"].as_str().unwrap_or_default();
            match changes.0.get(item).map(Vec::as_slice) {
                // One file: an `--always` answer covers its folder.
                Some([path]) => (PATCH_TOOL, path.clone(), true),
                Some(paths) if !paths.is_empty() => (PATCH_TOOL, paths.join(" "), false),
                _ => (PATCH_TOOL, format!("the patch of {item}"), false),
            }
        }
        _ => (COMMAND_TOOL, command_of(params), false),
    };
    Some(Asked {
        tool: tool.to_string(),
        target,
        write,
        answerer: Answerer::codex(
            message["id"].clone(),
            params["threadId"].as_str().unwrap_or_default(),
            params["turnId"].as_str().unwrap_or_default(),
            lines,
        ),
    })
}

/// The command a request asks to run, without the shell wrapper Codex shows it in.
fn command_of(params: &Value) -> String {
    let shown = params["command"].as_str().unwrap_or_default();
    shown
        .strip_prefix("/bin/bash -lc '")
        .and_then(|c| c.strip_suffix('\''))
        .filter(|c| !c.contains('\''))
        .unwrap_or(shown)
        .to_string()
}

/// The stdin lines answering request `id` of `turn` on `thread`: the decision, then (a deny)
/// the reason as a `turn/steer`, newlines included. The steer's own id is a string, apart from
/// the turn's numbered requests.
pub fn answer_lines(id: &Value, thread: &str, turn: &str, verdict: &Verdict) -> Vec<String> {
    let decision = match verdict {
        Verdict::Allow => "accept",
        Verdict::Deny { .. } => "decline",
    };
    let mut lines = vec![json!({"id": id, "result": {"decision": decision}})];
    if let Verdict::Deny { message } = verdict {
        lines.push(json!({
            "id": format!("baton-deny-{}", id_text(id)),
            "method": "turn/steer",
            "params": {
                "threadId": thread,
                "input": [{"type": "text", "text": message, "text_elements": []}],
                "expectedTurnId": turn,
            },
        }));
    }
    lines.into_iter().map(|l| format!("{l}\n")).collect()
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "ask_tests.rs"]
mod tests;
