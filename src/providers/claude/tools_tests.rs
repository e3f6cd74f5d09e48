//! Tests of the claude parser's tool events: calls with their targets and edits, results,
//! a subagent's steps under its call, and refusals.
use super::*;
use pretty_assertions::assert_eq;

/// One stdout line of each kind a tool-using, subagent-running, refused turn prints (shapes as
/// the `tooluse` capture; a subagent's lines carry `parent_tool_use_id`).
fn tool_lines() -> Vec<String> {
    let assistant = |parent: Option<&str>, content: serde_json::Value| {
        serde_json::json!({"type": "assistant", "message": {"id": "msg_1", "model": "m",
            "content": content, "usage": {"input_tokens": 10, "output_tokens": 1}},
            "parent_tool_use_id": parent, "session_id": "s"})
        .to_string()
    };
    let user = |parent: Option<&str>, id: &str, content: serde_json::Value, err: bool| {
        serde_json::json!({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": id, "type": "tool_result", "content": content, "is_error": err}]},
            "parent_tool_use_id": parent, "session_id": "s"})
        .to_string()
    };
    vec![
        assistant(None, serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Edit",
            "input": {"file_path": "/w/src/a.rs", "old_string": "old", "new_string": "new"}}])),
        user(None, "t1", serde_json::json!("The file /w/src/a.rs has been updated."), false),
        assistant(None, serde_json::json!([{"type": "tool_use", "id": "t2", "name": "Task",
            "input": {"description": "Look for tests", "prompt": "…", "subagent_type": "Explore"}}])),
        assistant(Some("t2"), serde_json::json!([{"type": "tool_use", "id": "t3", "name": "Grep",
            "input": {"pattern": "#[test]"}}])),
        user(Some("t2"), "t3", serde_json::json!([{"type": "text", "text": "a.rs:3"}]), false),
        assistant(Some("t2"), serde_json::json!([{"type": "text", "text": "Found one test."}])),
        user(None, "t2", serde_json::json!([{"type": "text", "text": "Found one test."}]), false),
        serde_json::json!({"type": "result", "subtype": "success", "is_error": false,
            "session_id": "s", "result": "done", "permission_denials": [
                {"tool_name": "Bash", "tool_use_id": "t4", "tool_input": {"command": "rm -rf build"}}]})
        .to_string(),
    ]
}

#[test]
fn tool_calls_results_subagents_and_denials_become_events() {
    let mut parser = ClaudeParser::in_dir(Path::new("/w"));
    let events: Vec<TurnEvent> = tool_lines().iter().flat_map(|l| parser.feed(l)).collect();
    let tool =
        |id: &str, name: &str, summary: &str, parent: Option<&str>, edits| TurnEvent::ToolUse {
            name: name.into(),
            summary: summary.into(),
            id: Some(id.into()),
            parent: parent.map(Into::into),
            edits,
        };
    let result = |id: &str, output: &str, parent: Option<&str>| TurnEvent::ToolResult {
        id: id.into(),
        output: output.into(),
        is_error: false,
        parent: parent.map(Into::into),
    };
    let edit = crate::words::FileEdit {
        path: "src/a.rs".into(),
        old: "old".into(),
        new: "new".into(),
    };
    let usage = TurnEvent::Usage { tokens: 11 };
    assert_eq!(
        events,
        vec![
            tool("t1", "Edit", "Edit src/a.rs", None, vec![edit]),
            usage.clone(),
            result("t1", "The file /w/src/a.rs has been updated.", None),
            tool("t2", "Task", "Task Look for tests", None, vec![]),
            usage,
            // The subagent's usage is its own context: not reported as the turn's.
            tool("t3", "Grep", "Grep #[test]", Some("t2"), vec![]),
            result("t3", "a.rs:3", Some("t2")),
            TurnEvent::SubagentText {
                parent: "t2".into(),
                text: "Found one test.".into()
            },
            result("t2", "Found one test.", None),
            TurnEvent::Denied {
                tool: "Bash".into(),
                target: "rm -rf build".into()
            },
            TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            },
        ]
    );
    // A subagent's text is not the answer.
    assert_eq!(parser.answer, "");
}

#[test]
fn tooluse_capture_gives_the_read_result() {
    let mut parser = ClaudeParser::in_dir(Path::new("/home/dev/proj1"));
    let events: Vec<TurnEvent> = super::tests::capture("tooluse.stdout")
        .lines()
        .flat_map(|l| parser.feed(l))
        .collect();
    assert!(events.contains(&TurnEvent::ToolResult {
        id: "toolu_mock_1".into(),
        output: "1\tfile content 42\n2\t".into(),
        is_error: false,
        parent: None,
    }));
    assert!(events
        .iter()
        .any(|e| matches!(e, TurnEvent::ToolUse { summary, .. } if summary == "Read note.txt")));
}
