//! Tests of the claude adapter's partial messages (`--include-partial-messages`): deltas as
//! they come, the full message adding only what did not stream, the answer unchanged.
use super::tests::{capture, home};
use super::*;
use pretty_assertions::assert_eq;

/// The answer, with and without the `stream_event` lines of a capture.
fn answers_with_and_without_partials(stdout: &str) -> (String, String) {
    let h = home();
    let fold = |lines: Vec<&str>| {
        let mut parser = ClaudeParser::new();
        let mut folded = String::new();
        for line in lines {
            for event in parser.feed(line) {
                event.add_to_answer(&mut folded);
            }
        }
        let outcome = parser.finish(&ExitInfo::default(), &h.homes, &h.cwd);
        assert_eq!(
            outcome.answer, folded,
            "the outcome's answer is the events' fold"
        );
        folded
    };
    let whole = stdout
        .lines()
        .filter(|l| !l.contains(r#""type":"stream_event""#));
    (fold(stdout.lines().collect()), fold(whole.collect()))
}

#[test]
fn the_answer_is_the_same_with_or_without_partial_messages() {
    let (streamed, whole) = answers_with_and_without_partials(&capture("out-partial.stdout"));
    assert_eq!(
        streamed,
        "MOCK-REPLY #18 model=claude-opus-5-5 last_user=partial"
    );
    assert_eq!(streamed, whole);
}

/// A stream line of message `id` (`api_message_id`), as the CLI prints it.
fn stream_line(id: &str, event: serde_json::Value) -> String {
    serde_json::json!({"type": "stream_event", "event": event, "session_id": "s",
        "parent_tool_use_id": null, "uuid": "u", "api_message_id": id})
    .to_string()
}

fn message_start(id: &str) -> String {
    stream_line(
        id,
        serde_json::json!({"type": "message_start", "message": {"id": id, "type": "message",
            "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 1,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
    )
}

fn block_delta(id: &str, index: u64, kind: &str, text: &str) -> String {
    let field = match kind {
        "text_delta" => "text",
        "thinking_delta" => "thinking",
        _ => "partial_json",
    };
    stream_line(
        id,
        serde_json::json!({"type": "content_block_delta", "index": index,
            "delta": {"type": kind, field: text}}),
    )
}

fn assistant_line(id: &str, content: serde_json::Value) -> String {
    serde_json::json!({"type": "assistant", "message": {"id": id, "type": "message",
        "role": "assistant", "model": "m", "content": content, "usage": {"input_tokens": 1,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}},
        "parent_tool_use_id": null, "session_id": "s", "uuid": "u"})
    .to_string()
}

fn text_block(text: &str) -> serde_json::Value {
    serde_json::json!([{"type": "text", "text": text}])
}

/// The answer events (text, deltas, tools) a stream of lines gives.
fn answer_events(lines: &[String]) -> Vec<TurnEvent> {
    let mut parser = ClaudeParser::new();
    lines
        .iter()
        .flat_map(|l| parser.feed(l))
        .filter(|e| !matches!(e, TurnEvent::Usage { .. }))
        .collect()
}

#[test]
fn partial_message_table() {
    let d = |text: &str, start| TurnEvent::Delta {
        text: text.into(),
        start,
    };
    let t = |text: &str| TurnEvent::Text { text: text.into() };
    let read = TurnEvent::ToolUse {
        name: "Read".into(),
        summary: "Read /a.rs".into(),
        id: Some("toolu_1".into()),
        parent: None,
        edits: vec![],
    };
    let tool_block = serde_json::json!([{"type": "tool_use", "id": "toolu_1", "name": "Read",
        "input": {"file_path": "/a.rs"}}]);
    let rows: Vec<(&str, Vec<String>, Vec<TurnEvent>)> = vec![
        (
            "deltas, then the same text in full: nothing repeated",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", "Hel"),
                block_delta("m1", 0, "text_delta", "lo"),
                assistant_line("m1", text_block("Hello")),
            ],
            vec![d("Hel", true), d("lo", false)],
        ),
        (
            "thinking and tool input are not answer text; one message, one block each",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "thinking_delta", "hmm"),
                assistant_line(
                    "m1",
                    serde_json::json!([{"type": "thinking", "thinking": "hmm"}]),
                ),
                block_delta("m1", 1, "text_delta", "Let me read."),
                assistant_line("m1", text_block("Let me read.")),
                block_delta("m1", 2, "input_json_delta", "{\"file_path\":"),
                assistant_line("m1", tool_block.clone()),
                message_start("m2"),
                block_delta("m2", 0, "text_delta", "Done"),
                block_delta("m2", 0, "text_delta", "."),
                assistant_line("m2", text_block("Done.")),
            ],
            vec![
                d("Let me read.", true),
                read.clone(),
                d("Done", true),
                d(".", false),
            ],
        ),
        (
            "two text blocks of one message are two pieces",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", "one"),
                block_delta("m1", 1, "text_delta", "two"),
                assistant_line(
                    "m1",
                    serde_json::json!([{"type": "text", "text": "one"},
                    {"type": "text", "text": "two"}]),
                ),
            ],
            vec![d("one", true), d("two", true)],
        ),
        (
            "the message holds more than streamed: the rest follows as a delta",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", "Hel"),
                assistant_line("m1", text_block("Hello")),
            ],
            vec![d("Hel", true), d("lo", false)],
        ),
        (
            "an aborted message holding less than streamed adds nothing",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", "Hello"),
                assistant_line("m1", text_block("Hel")),
            ],
            vec![d("Hello", true)],
        ),
        (
            "stream and message disagree: the message is a piece of its own",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", "Hello"),
                assistant_line("m1", text_block("Goodbye")),
            ],
            vec![d("Hello", true), t("Goodbye")],
        ),
        (
            "a message that never streamed (a subagent's) is whole text",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", "main"),
                assistant_line("sub", text_block("from a subagent")),
                assistant_line("m1", text_block("main")),
            ],
            vec![d("main", true), t("from a subagent")],
        ),
        (
            "no partial messages at all: as before",
            vec![
                assistant_line("m1", tool_block),
                assistant_line("m2", text_block("whole")),
            ],
            vec![read, t("whole")],
        ),
        (
            "empty deltas say nothing",
            vec![
                message_start("m1"),
                block_delta("m1", 0, "text_delta", ""),
                block_delta("m1", 0, "text_delta", "x"),
                assistant_line("m1", text_block("x")),
            ],
            vec![d("x", true)],
        ),
    ];
    for (what, lines, want) in rows {
        assert_eq!(answer_events(&lines), want, "{what}");
    }
}

#[test]
fn an_interrupted_stream_keeps_the_deltas_that_arrived() {
    // SIGINT between two deltas: no `assistant` line with the text ever comes.
    let lines = [
        message_start("m1"),
        block_delta("m1", 0, "text_delta", "MOCK-"),
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#.to_string(),
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_streaming","errors":[]}"#.to_string(),
    ];
    let mut parser = ClaudeParser::new();
    for line in &lines {
        parser.feed(line);
    }
    let h = home();
    let exit = ExitInfo {
        code: Some(0),
        interrupted: true,
        ..ExitInfo::default()
    };
    let outcome = parser.finish(&exit, &h.homes, &h.cwd);
    assert_eq!(outcome.status, Some(TurnStatus::Interrupted));
    assert_eq!(outcome.answer, "MOCK-");
}
