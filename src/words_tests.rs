//! Tests of the shared words: their serialized bytes and the answer fold.

use super::*;
use pretty_assertions::assert_eq;

/// The journal and the socket carry these bytes: moving or renaming must not change them.
#[test]
fn serialized_forms_are_pinned() {
    let json = |v: serde_json::Result<String>| v.unwrap();
    assert_eq!(
        json(serde_json::to_string(&ProviderKind::Local)),
        r#""local""#
    );
    assert_eq!(
        json(serde_json::to_string(&TurnStatus::Interrupted)),
        r#""interrupted""#
    );
    let usage = ContextUsage {
        tokens: 5,
        window: 10,
    };
    assert_eq!(
        json(serde_json::to_string(&usage)),
        r#"{"tokens":5,"window":10}"#
    );
    let events = [
        TurnEvent::End {
            status: TurnStatus::Failed,
            error: None,
        },
        TurnEvent::Delta {
            text: "a".into(),
            start: true,
        },
        TurnEvent::ToolUse {
            name: "read_file".into(),
            summary: "Read a".into(),
        },
    ];
    assert_eq!(
        events.map(|e| json(serde_json::to_string(&e))),
        [
            r#"{"kind":"end","status":"failed","error":null}"#.to_string(),
            r#"{"kind":"delta","text":"a","start":true}"#.into(),
            r#"{"kind":"tool_use","name":"read_file","summary":"Read a"}"#.into(),
        ]
    );
}

#[test]
fn answer_pieces_are_joined_by_a_blank_line() {
    let mut answer = String::new();
    for e in [
        TurnEvent::Text { text: "one".into() },
        TurnEvent::Usage { tokens: 3 },
        TurnEvent::Delta {
            text: "tw".into(),
            start: true,
        },
        TurnEvent::Delta {
            text: "o".into(),
            start: false,
        },
    ] {
        e.add_to_answer(&mut answer);
    }
    assert_eq!(answer, "one\n\ntwo");
}
