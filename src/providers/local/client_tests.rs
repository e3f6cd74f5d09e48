//! Tests of reading a server's answers: the window from `/models`, refusals sorted by kind.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn the_window_is_the_servers_context_before_the_models_training_length() {
    let one = |entry: Value| json!({"object": "list", "data": [entry]});
    let cases = [
        // llama-server -c 2048 on a model trained on 8192 (its /v1/models, trimmed)
        (
            one(json!({"id": "m", "meta": {"n_ctx": 2048, "n_ctx_train": 8192}})),
            Some(2048),
        ),
        // older llama-server: only the training length
        (
            one(json!({"id": "m", "meta": {"n_ctx_train": 8192}})),
            Some(8192),
        ),
        (one(json!({"id": "m", "max_model_len": 32768})), Some(32768)),
        (one(json!({"id": "m", "context_length": 4096})), Some(4096)),
        (one(json!({"id": "m", "meta": {"n_ctx": 0}})), None),
        (one(json!({"id": "m"})), None),
    ];
    for (models, want) in cases {
        assert_eq!(window_of(&models, "m"), want, "{models}");
    }
}

#[test]
fn a_request_past_the_context_is_told_apart_from_other_refusals() {
    let ep = Endpoint {
        name: "e".into(),
        base_url: "http://127.0.0.1:1/v1".into(),
        model: None,
        api_key: None,
        context_window: None,
        stall: Duration::from_secs(1),
        retries: 0,
        backoff: Duration::from_millis(1),
        command_timeout: Duration::from_secs(1),
    };
    let bad = reqwest::StatusCode::BAD_REQUEST;
    // llama-server's answer, as captured from 0.3.36's vendored llama.cpp
    let llama = r#"{"error":{"code":400,"message":"request (2055 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":2055,"n_ctx":2048}}"#;
    let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    let tools = r#"{"error":{"code":400,"message":"tools param requires --jinja flag","type":"invalid_request_error"}}"#;
    let kind = |body: &str| match refusal(&ep, bad, body, true) {
        Failure::TooLong {
            counted, window, ..
        } => format!("too long, counted {counted:?} of {window:?}"),
        Failure::NoTools(_) => "no tools".into(),
        Failure::Temporary(_) => "temporary".into(),
        Failure::Fatal(_) => "fatal".into(),
        Failure::Interrupted => "interrupted".into(),
    };
    assert_eq!(
        [llama, openai, tools, "{}"].map(kind),
        [
            "too long, counted Some(2055) of Some(2048)".to_string(),
            "too long, counted None of None".into(),
            "no tools".into(),
            "fatal".into()
        ]
    );
}
