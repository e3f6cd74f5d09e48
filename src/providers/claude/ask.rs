//! Claude Code's permission prompts over stdio (`--permission-prompt-tool stdio`,
//! `fixtures/captures/approvals/`): the `control_request` `can_use_tool` line it prints instead
//! of refusing a call, and the `control_response` line that answers it.

use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::providers::ask::{Answerer, Asked, Verdict};

/// The flag that makes the CLI ask on stdout instead of refusing.
pub const ASK_FLAG: [&str; 2] = ["--permission-prompt-tool", "stdio"];

/// `line` as a permission request, answered on `lines` (the CLI's stdin); None for any other line.
pub fn asked(line: &str, lines: &UnboundedSender<String>) -> Option<Asked> {
    let (v, kind) = crate::providers::json_event(line)?;
    if kind != "control_request" {
        return None;
    }
    let req = v.get("request")?;
    if req.get("subtype")?.as_str()? != "can_use_tool" {
        return None;
    }
    let request_id = v.get("request_id")?.as_str()?;
    let tool = req.get("tool_name")?.as_str()?.to_string();
    let input = req.get("input").cloned().unwrap_or(Value::Null);
    let description = req.get("description").and_then(Value::as_str);
    let (target, write) = crate::approvals::target_of(&tool, &input, description);
    Some(Asked {
        tool,
        target,
        write,
        answerer: Answerer::claude(request_id, input, lines),
    })
}

/// The stdin line answering request `request_id` (an allow gives `input` back unchanged),
/// newline included.
pub fn response_line(request_id: &str, verdict: &Verdict, input: &Value) -> String {
    let response = match verdict {
        Verdict::Allow => json!({"behavior": "allow", "updatedInput": input}),
        Verdict::Deny { message } => json!({"behavior": "deny", "message": message}),
    };
    let msg = json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    });
    format!("{msg}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const CAPTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/captures/approvals/");

    fn lines_of(name: &str) -> Vec<String> {
        let text = std::fs::read_to_string(format!("{CAPTURES}{name}")).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn the_captured_requests_read_as_the_tool_and_its_target() {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let rows = [
            (
                "claude-write-deny-2.1.332",
                "Write",
                "/home/dev/world/outside/o.txt",
                true,
            ),
            (
                "claude-write-deny-2.1.197",
                "Write",
                "/home/dev/world/outside/o.txt",
                true,
            ),
            (
                "claude-bash-deny-2.1.332",
                "Bash",
                "cat /etc/hostname",
                false,
            ),
            (
                "claude-bash-deny-2.1.197",
                "Bash",
                "cat /etc/hostname",
                false,
            ),
        ];
        for (name, tool, target, write) in rows {
            let out = lines_of(&format!("{name}.stdout.jsonl"));
            let got: Vec<_> = out.iter().filter_map(|l| asked(l, &tx)).collect();
            assert_eq!(got.len(), 1, "{name}");
            assert_eq!(
                (got[0].tool.as_str(), got[0].target.as_str(), got[0].write),
                (tool, target, write),
                "{name}"
            );
        }
    }

    #[test]
    fn a_call_the_user_denied_is_not_listed_as_a_refusal_to_allow_in_the_settings() {
        for version in ["2.1.332", "2.1.197"] {
            let out = lines_of(&format!("claude-write-deny-{version}.stdout.jsonl"));
            let mut parser = crate::providers::claude::ClaudeParser::default();
            let events: Vec<_> = out.iter().flat_map(|l| parser.feed(l)).collect();
            let denied = events
                .iter()
                .filter(|e| matches!(e, crate::words::TurnEvent::Denied { .. }))
                .count();
            // The result still lists it in `permission_denials`.
            assert!(
                out.last().unwrap().contains("\"permission_denials\":[{"),
                "{version}"
            );
            assert_eq!(denied, 0, "{version}");
        }
    }

    #[test]
    fn the_answer_is_the_line_the_capture_wrote() {
        for (name, verdict) in [
            ("claude-write-allow-2.1.332", Verdict::Allow),
            (
                "claude-write-deny-2.1.332",
                Verdict::Deny {
                    message: "DENIED-BY-USER: not there".into(),
                },
            ),
        ] {
            let out = lines_of(&format!("{name}.stdout.jsonl"));
            let req: Value = out
                .iter()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|v| v["type"] == "control_request")
                .unwrap();
            let id = req["request_id"].as_str().unwrap();
            let line = response_line(id, &verdict, &req["request"]["input"]);
            let want: Value =
                serde_json::from_str(&lines_of(&format!("{name}.stdin.jsonl"))[1]).unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(&line).unwrap(),
                want,
                "{name}"
            );
        }
    }
}
