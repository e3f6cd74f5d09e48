//! The app-server dialect folded by the Codex parser.
use super::*;
use pretty_assertions::assert_eq;
use std::path::Path;

fn feed(parser: &mut CodexParser, lines: &[Value]) -> Vec<TurnEvent> {
    lines
        .iter()
        .flat_map(|l| parser.feed(&l.to_string()))
        .collect()
}

#[test]
fn items_are_renamed_into_exec_shapes() {
    let cases = [
        (
            json!({"type": "commandExecution", "id": "c1", "command": "/bin/bash -lc 'echo hi'", "aggregatedOutput": "hi\n", "exitCode": 0, "status": "completed", "cwd": "/w"}),
            Some(
                json!({"type": "command_execution", "id": "c1", "command": "/bin/bash -lc 'echo hi'", "aggregated_output": "hi\n", "exit_code": 0, "status": "completed"}),
            ),
        ),
        (
            json!({"type": "fileChange", "id": "f1", "changes": [{"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "+x"}], "status": "inProgress"}),
            Some(
                json!({"type": "file_change", "id": "f1", "changes": [{"path": "/w/a.txt", "kind": "add"}], "status": "in_progress"}),
            ),
        ),
        (
            json!({"type": "agentMessage", "id": "m1", "text": "done"}),
            Some(json!({"type": "agent_message", "id": "m1", "text": "done"})),
        ),
        (
            json!({"type": "webSearch", "id": "w1", "query": "rust"}),
            Some(json!({"type": "web_search", "id": "w1", "query": "rust"})),
        ),
        (
            json!({"type": "imageView", "id": "i1", "path": "/w/p.png"}),
            Some(json!({"type": "image_view", "id": "i1", "path": "/w/p.png"})),
        ),
        (
            json!({"type": "userMessage", "id": "u1", "content": []}),
            None,
        ),
        (json!({"type": "reasoning", "id": "r1"}), None),
        (json!({"id": "x"}), None),
    ];
    for (app, exec) in cases {
        assert_eq!(exec_item(&app), exec, "{app}");
    }
}

#[test]
fn a_turn_streams_deltas_reports_tools_usage_and_its_end() {
    let mut parser = CodexParser::for_thread(Path::new("/w"), "T");
    let item = |method: &str, item: Value| json!({"method": method, "params": {"threadId": "T", "turnId": "U", "item": item}});
    let events = feed(
        &mut parser,
        &[
            json!({"id": 3, "result": {"turn": {"id": "U", "items": [], "status": "inProgress"}}}),
            json!({"method": "turn/started", "params": {"threadId": "T", "turn": {"id": "U", "items": [], "status": "inProgress"}}}),
            item(
                "item/started",
                json!({"type": "userMessage", "id": "u", "content": [{"type": "text", "text": "hi"}]}),
            ),
            item(
                "item/started",
                json!({"type": "commandExecution", "id": "c", "command": "/bin/bash -lc ls", "status": "inProgress", "cwd": "/w"}),
            ),
            item(
                "item/completed",
                json!({"type": "commandExecution", "id": "c", "command": "/bin/bash -lc ls", "aggregatedOutput": "a\n", "exitCode": 2, "status": "failed", "cwd": "/w"}),
            ),
            json!({"method": "item/agentMessage/delta", "params": {"threadId": "T", "turnId": "U", "itemId": "m", "delta": "Hel"}}),
            json!({"method": "item/agentMessage/delta", "params": {"threadId": "T", "turnId": "U", "itemId": "m", "delta": "lo"}}),
            item(
                "item/completed",
                json!({"type": "agentMessage", "id": "m", "text": "Hello"}),
            ),
            item(
                "item/completed",
                json!({"type": "agentMessage", "id": "m2", "text": "And more"}),
            ),
            json!({"method": "thread/tokenUsage/updated", "params": {"threadId": "T", "turnId": "U", "tokenUsage": {"total": {"totalTokens": 30000, "inputTokens": 29000, "cachedInputTokens": 0, "outputTokens": 1000, "reasoningOutputTokens": 0}, "last": {"totalTokens": 10300, "inputTokens": 10000, "cachedInputTokens": 0, "outputTokens": 300, "reasoningOutputTokens": 0}, "modelContextWindow": 258400}}}),
            json!({"method": "turn/completed", "params": {"threadId": "T", "turn": {"id": "U", "items": [], "status": "completed", "error": null}}}),
        ],
    );
    assert_eq!(
        events,
        vec![
            TurnEvent::ToolUse {
                name: "shell".into(),
                summary: "Shell ls".into(),
                id: Some("c".into()),
                parent: None,
                edits: vec![],
            },
            TurnEvent::ToolResult {
                id: "c".into(),
                output: "a\n\n(exit code 2)".into(),
                is_error: true,
                parent: None,
            },
            TurnEvent::Delta {
                text: "Hel".into(),
                start: true
            },
            TurnEvent::Delta {
                text: "lo".into(),
                start: false
            },
            TurnEvent::Text {
                text: "And more".into()
            },
            TurnEvent::Usage { tokens: 10300 },
            TurnEvent::End {
                status: TurnStatus::Completed,
                error: None
            },
        ]
    );
    assert_eq!(parser.turn_id(), Some("U"));
    assert!(parser.ended());
    let homes = crate::providers::testing::home();
    let exit = crate::providers::process::ExitInfo {
        code: Some(0),
        ..Default::default()
    };
    let outcome = parser.finish(&exit, &homes.homes, Some("T"));
    assert_eq!(outcome.status, Some(TurnStatus::Completed));
    assert_eq!(outcome.session_id.as_deref(), Some("T"));
    assert_eq!(outcome.answer, "Hello\n\nAnd more");
    assert_eq!(
        outcome.context,
        Some(ContextUsage {
            tokens: 10300,
            window: 258400
        })
    );
}

#[test]
fn a_turn_ends_failed_or_interrupted_as_turn_completed_says() {
    let end = |turn: Value| {
        let mut parser = CodexParser::for_thread(Path::new("/w"), "T");
        feed(
            &mut parser,
            &[json!({"method": "turn/completed", "params": {"threadId": "T", "turn": turn}})],
        )
    };
    let cases = [
        (
            json!({"id": "U", "items": [], "status": "failed", "error": {"message": "upstream said 400"}}),
            TurnStatus::Failed,
            Some("upstream said 400"),
        ),
        (
            json!({"id": "U", "items": [], "status": "failed", "error": {"message": " "}}),
            TurnStatus::Failed,
            Some("codex reported a failed turn"),
        ),
        (
            json!({"id": "U", "items": [], "status": "interrupted", "error": null}),
            TurnStatus::Interrupted,
            None,
        ),
        (
            json!({"id": "U", "items": [], "status": "completed"}),
            TurnStatus::Completed,
            None,
        ),
    ];
    for (turn, status, error) in cases {
        assert_eq!(
            end(turn.clone()),
            vec![TurnEvent::End {
                status,
                error: error.map(str::to_owned)
            }],
            "{turn}"
        );
    }
}

#[test]
fn retries_are_warnings_and_answers_carry_no_event() {
    let mut parser = CodexParser::for_thread(Path::new("/w"), "T");
    let events = feed(
        &mut parser,
        &[
            json!({"method": "error", "params": {"threadId": "T", "turnId": "U", "willRetry": true, "error": {"message": "Reconnecting... 1/5"}}}),
            json!({"id": 4, "result": {}}),
            json!({"id": 5, "error": {"code": -32600, "message": "no active turn"}}),
            json!({"method": "thread/status/changed", "params": {"threadId": "T", "status": {"type": "idle"}}}),
        ],
    );
    assert_eq!(
        events,
        vec![TurnEvent::Warning {
            message: "Reconnecting... 1/5".into()
        }]
    );
    assert!(!parser.ended());
}

#[test]
fn an_answer_cut_short_is_kept_as_far_as_it_streamed() {
    let delta = |item: &str, text: &str| json!({"method": "item/agentMessage/delta", "params": {"threadId": "T", "turnId": "U", "itemId": item, "delta": text}});
    let done = |item: &str, text: &str| json!({"method": "item/completed", "params": {"threadId": "T", "turnId": "U", "item": {"type": "agentMessage", "id": item, "text": text}}});
    // A steer cut the first answer (it never completes); an interrupt cut the last one.
    let mut parser = CodexParser::for_thread(Path::new("/w"), "T");
    feed(
        &mut parser,
        &[
            delta("m1", "Wor"),
            delta("m1", "king"),
            delta("m2", "Steered"),
            done("m2", "Steered answer"),
            delta("m3", "Half"),
            json!({"method": "turn/completed", "params": {"threadId": "T", "turn": {"id": "U", "items": [], "status": "interrupted"}}}),
        ],
    );
    let homes = crate::providers::testing::home();
    let outcome = parser.finish(&Default::default(), &homes.homes, Some("T"));
    assert_eq!(outcome.answer, "Working\n\nSteered answer\n\nHalf");
    assert_eq!(outcome.status, Some(TurnStatus::Interrupted));
}

#[test]
fn a_command_left_running_is_known() {
    let item = |method: &str, status: &str| json!({"method": method, "params": {"threadId": "T", "turnId": "U", "item": {"type": "commandExecution", "id": "c", "command": "sleep 9", "status": status}}});
    let mut parser = CodexParser::for_thread(Path::new("/w"), "T");
    assert!(!parser.tools_running());
    feed(&mut parser, &[item("item/started", "inProgress")]);
    assert!(
        parser.tools_running(),
        "an interrupt now would leave it running"
    );
    feed(&mut parser, &[item("item/completed", "completed")]);
    assert!(!parser.tools_running());
}

#[test]
fn a_patch_shows_its_diff() {
    let change = json!([{"path": "/w/a.txt", "kind": {"type": "update", "move_path": null}, "diff": "@@ -1 +1 @@\n-old line\n+new line\n"}]);
    let item = |method: &str, status: &str| json!({"method": method, "params": {"threadId": "T", "turnId": "U", "item": {"type": "fileChange", "id": "p", "changes": change, "status": status}}});
    let mut parser = CodexParser::for_thread(Path::new("/w"), "T");
    let events = feed(
        &mut parser,
        &[
            item("item/started", "inProgress"),
            item("item/completed", "completed"),
        ],
    );
    assert_eq!(
        events,
        vec![
            TurnEvent::ToolUse {
                name: "patch".into(),
                summary: "Edit a.txt".into(),
                id: Some("p".into()),
                parent: None,
                edits: vec![crate::words::FileEdit {
                    path: "a.txt".into(),
                    old: "old line\n".into(),
                    new: "new line\n".into(),
                }],
            },
            TurnEvent::ToolResult {
                id: "p".into(),
                output: "applied".into(),
                is_error: false,
                parent: None,
            },
        ]
    );
}

/// The turns of an app-server capture: each from the answer to its `turn/start` to its
/// `turn/completed` (what a warm turn's raw stream holds), parsed.
fn captured_turns(name: &str) -> Vec<(Vec<TurnEvent>, CodexParser)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/codex-warm")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let mut turns = Vec::new();
    let mut current: Option<(Vec<TurnEvent>, CodexParser)> = None;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["result"]["turn"]["status"] == "inProgress" {
            current = Some((
                Vec::new(),
                CodexParser::for_thread(Path::new("/tmp/codex-warm/proj"), "T"),
            ));
        }
        let Some((events, parser)) = current.as_mut() else {
            continue;
        };
        events.extend(parser.feed(line));
        if v["method"] == "turn/completed" {
            turns.extend(current.take());
        }
    }
    turns
}

#[test]
fn the_real_app_servers_turns_read_as_their_events() {
    let turns = captured_turns("w2-tools.stdout.jsonl");
    assert!(turns.len() >= 2, "a command, then a patch");
    let tools = |events: &[TurnEvent]| -> Vec<TurnEvent> {
        events
            .iter()
            .filter(|e| matches!(e, TurnEvent::ToolUse { .. } | TurnEvent::ToolResult { .. }))
            .cloned()
            .collect()
    };
    let (events, parser) = &turns[0];
    assert_eq!(
        tools(events),
        vec![
            TurnEvent::ToolUse {
                name: "shell".into(),
                summary: "Shell echo hi > made.txt".into(),
                id: Some("call_5".into()),
                parent: None,
                edits: vec![],
            },
            TurnEvent::ToolResult {
                id: "call_5".into(),
                output: String::new(),
                is_error: false,
                parent: None,
            },
        ]
    );
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Delta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "ran it");
    assert!(
        !events.iter().any(|e| matches!(e, TurnEvent::Text { .. })),
        "not twice"
    );
    assert_eq!(
        events.last(),
        Some(&TurnEvent::End {
            status: TurnStatus::Completed,
            error: None
        })
    );
    assert_eq!(parser.answer, "ran it");
    assert!(parser.app_context.is_some_and(|c| c.window == 258400));

    let (events, _) = &turns[1];
    assert_eq!(
        tools(events)[0],
        TurnEvent::ToolUse {
            name: "patch".into(),
            summary: "Add new.txt".into(),
            id: Some("call_7".into()),
            parent: None,
            edits: vec![crate::words::FileEdit {
                path: "new.txt".into(),
                old: String::new(),
                new: "written by standin\n".into(),
            }],
        }
    );
}

#[test]
fn the_real_app_servers_interrupted_and_failed_turns_end_so() {
    let (events, parser) = captured_turns("w4-interrupt.stdout.jsonl").remove(0);
    assert_eq!(
        events.last(),
        Some(&TurnEvent::End {
            status: TurnStatus::Interrupted,
            error: None
        })
    );
    assert!(!parser.answer.is_empty(), "what streamed is kept");
    let failed = captured_turns("w6-fail.stdout.jsonl");
    let (events, _) = &failed[0];
    match events.last() {
        Some(TurnEvent::End {
            status: TurnStatus::Failed,
            error: Some(e),
        }) => assert!(e.contains("standin 400"), "{e}"),
        other => panic!("{other:?}"),
    }
}
