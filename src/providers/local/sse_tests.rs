//! Tests of the SSE reader: paragraphs, tool calls, usage, cut and malformed streams.

use super::*;
use pretty_assertions::assert_eq;

fn chunk(delta: Value) -> String {
    format!(
        "data: {}\n\n",
        json!({"model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    )
}

#[test]
fn text_comes_out_by_paragraph_and_split_lines_join() {
    let mut a = Answer::default();
    let stream = format!(
        "{}{}{}: keep-alive\n\n{}",
        chunk(json!({"role": "assistant"})),
        chunk(json!({"content": "First para"})),
        chunk(json!({"content": "graph.\n\nSecond"})),
        chunk(json!({"content": " one."}))
    );
    let bytes = stream.as_bytes();
    let mut texts = Vec::new();
    // Fed in awkward pieces: lines split across reads.
    for piece in bytes.chunks(7) {
        for (_, line) in a.feed(piece).unwrap() {
            if let Line::Text(t) = line {
                texts.extend(t);
            }
        }
    }
    assert_eq!(texts, vec!["First paragraph."]);
    assert_eq!(a.paragraphs(true), Line::Text(vec!["Second one.".into()]));
    assert_eq!(a.content, "First paragraph.\n\nSecond one.");
    assert_eq!(a.model.as_deref(), Some("m"));
}

#[test]
fn tool_calls_join_by_index_and_usage_is_read() {
    let mut a = Answer::default();
    let stream = format!(
        "{}{}{}data: {}\n\ndata: [DONE]\n\n",
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"pa"}}]})
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "th\":\"a\"}"}}]})),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "list_dir", "arguments": "{}"}}]})
        ),
        json!({"choices": [], "usage": {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100}})
    );
    a.feed(stream.as_bytes()).unwrap();
    assert!(a.done && a.wants_tools());
    assert_eq!(
        a.tool_calls,
        vec![
            ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: "{\"path\":\"a\"}".into()
            },
            ToolCall {
                id: "c2".into(),
                name: "list_dir".into(),
                arguments: "{}".into()
            }
        ]
    );
    assert_eq!(
        a.usage,
        Some(Usage {
            prompt: 90,
            completion: 10
        })
    );
    assert_eq!(a.message()["tool_calls"][1]["function"]["name"], "list_dir");
}

#[test]
fn a_tool_call_cut_mid_arguments_is_kept_with_json_arguments() {
    // As llama-server streamed it when the answer hit its token limit (-n) mid-call.
    let mut a = Answer::default();
    let stream = format!(
        "{}{}data: {}\n\n",
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}]})
        ),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": "{\n    \"path\": \"lis"}}]})
        ),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
    );
    a.feed(stream.as_bytes()).unwrap();
    // The raw arguments stay for running the call (which then reports they are not JSON).
    assert_eq!(a.tool_calls[1].arguments, "{\n    \"path\": \"lis");
    let args: Vec<Value> = a.message()["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["function"]["arguments"].clone())
        .collect();
    assert_eq!(args, vec![json!("{\"path\": \"a\"}"), json!("{}")]);
    // A message journalled before: mended the same way.
    let old = json!({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": "{\"pa"}}]});
    assert_eq!(
        with_json_arguments(old)["tool_calls"][0]["function"]["arguments"],
        "{}"
    );
    let plain = json!({"role": "user", "content": "hi"});
    assert_eq!(with_json_arguments(plain.clone()), plain);
}

#[test]
fn malformed_data_and_stream_errors_are_reported() {
    let mut a = Answer::default();
    let e = a.feed(b"data: {\"choices\": [\n").unwrap_err();
    assert!(matches!(e, StreamError::Malformed(_)), "{e:?}");
    let mut a = Answer::default();
    let e = a
        .feed(b"data: {\"error\": {\"message\": \"model crashed\"}}\n")
        .unwrap_err();
    assert_eq!(e, StreamError::Server("model crashed".into()));
}
