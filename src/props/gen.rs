//! Generators shared by the property tests: arbitrary JSON, valid lines with one part
//! mutated, hostile scalars (huge numbers, wrong types), deep nesting and byte damage; and the
//! check both CLI parsers' outcomes must pass.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::providers::process::ExitInfo;
use crate::providers::{TurnOutcome, TurnStatus};

/// A CLI that exited with `code`, not interrupted.
pub fn exit(code: i32) -> ExitInfo {
    ExitInfo {
        code: Some(code),
        signal: None,
        stderr_tail: String::new(),
        interrupted: false,
    }
}

/// A turn has a status, and one that failed says why.
pub fn explained(outcome: &TurnOutcome) -> bool {
    match outcome.status {
        Some(TurnStatus::Completed) | Some(TurnStatus::Interrupted) => true,
        Some(TurnStatus::Failed) => outcome.error.as_ref().is_some_and(|e| !e.trim().is_empty()),
        None => false,
    }
}

/// Any JSON value, a few levels deep, with keys drawn from the ones baton's parsers look at so
/// that random objects reach past the first `type` check.
pub fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        hostile_number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Keys the parsers read, and a few they never do.
pub fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(KEYS).prop_map(str::to_owned),
        "[a-z_]{1,8}",
    ]
}

const KEYS: &[&str] = &[
    "type",
    "subtype",
    "session_id",
    "message",
    "content",
    "text",
    "id",
    "usage",
    "model",
    "result",
    "is_error",
    "modelUsage",
    "contextWindow",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "event",
    "delta",
    "index",
    "content_block",
    "name",
    "input",
    "tool_use_id",
    "thread_id",
    "item",
    "command",
    "changes",
    "path",
    "kind",
    "error",
    "payload",
    "info",
    "last_token_usage",
    "total_tokens",
    "model_context_window",
    "uuid",
    "parentUuid",
    "isSidechain",
    "isMeta",
    "attachment",
    "systemPrompt",
    "role",
    "history_base",
    "at",
    "record",
    "cmd",
    "reply",
    "prompt",
    "data",
    "status",
    "errors",
    "api_error_status",
    "terminal_reason",
    "stop_reason",
    "aggregated_output",
];

/// Strings with the characters that break naive parsers: quotes, backslashes, newlines,
/// multibyte and astral characters, NUL.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        "\\PC{0,16}",
        prop::collection::vec(
            prop::sample::select(vec![
                '"', '\\', '\n', '\r', '\u{0}', 'é', '中', '🦀', '\u{feff}', 'x'
            ]),
            0..12
        )
        .prop_map(|cs| cs.into_iter().collect()),
    ]
}

/// Numbers a field may hold: ordinary, negative, fractional, at and past the integer edges.
pub fn hostile_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u64>().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(0)),
    ]
}

/// `base` with the value at one path (chosen by `picks`, each taken modulo the width at its
/// level) replaced by `with`: a valid event whose one field has the wrong type or value.
pub fn mutate(base: &Value, picks: &[usize], with: Value) -> Value {
    let mut out = base.clone();
    replace_at(&mut out, picks, with);
    out
}

fn replace_at(at: &mut Value, picks: &[usize], with: Value) {
    let Some((pick, rest)) = picks.split_first() else {
        *at = with;
        return;
    };
    let next = match at {
        Value::Object(m) if !m.is_empty() => {
            let n = m.len();
            m.values_mut().nth(pick % n)
        }
        Value::Array(a) if !a.is_empty() => {
            let n = a.len();
            a.get_mut(pick % n)
        }
        _ => None,
    };
    match next {
        Some(next) => replace_at(next, rest, with),
        None => *at = with,
    }
}

/// A valid line (one of `lines`) with one field replaced, as a line of JSON text.
pub fn mutated_line(lines: Vec<Value>) -> impl Strategy<Value = String> {
    (
        prop::sample::select(lines),
        prop::collection::vec(any::<usize>(), 0..5),
        value(),
    )
        .prop_map(|(base, picks, with)| mutate(&base, &picks, with).to_string())
}

/// Text nested `depth` levels deep in arrays and objects, closed or not.
pub fn nested(depth: usize, closed: bool) -> String {
    let open = "[{\"a\":".repeat(depth);
    if closed {
        format!("{open}1{}", "}]".repeat(depth))
    } else {
        open
    }
}

/// The JSON lines of a fixture, for mutation.
pub fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Lines a stream may carry that are not what the parser expects: deep nesting, huge
/// numbers, JSON of the wrong shape, plain text.
pub fn hostile_lines() -> Vec<String> {
    vec![
        nested(200, true),
        nested(100_000, false),
        "1e400".into(),
        "-1".into(),
        "18446744073709551616".into(),
        "[]".into(),
        "null".into(),
        "\"just a string\"".into(),
        "{\"type\":null}".into(),
        "{\"type\":{\"type\":\"result\"}}".into(),
        "{".into(),
        String::new(),
        "\u{feff}{}".into(),
        "not json at all".into(),
    ]
}
