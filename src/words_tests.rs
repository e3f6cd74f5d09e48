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
        TurnEvent::tool("read_file", "Read a".into()),
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

#[test]
fn a_tool_use_line_from_before_ids_and_edits_still_reads() {
    let old: TurnEvent =
        serde_json::from_str(r#"{"kind":"tool_use","name":"Read","summary":"/a.rs"}"#).unwrap();
    assert_eq!(old, TurnEvent::tool("Read", "/a.rs".into()));
    let result: TurnEvent =
        serde_json::from_str(r#"{"kind":"tool_result","id":"t","output":"ok"}"#).unwrap();
    assert_eq!(
        result,
        TurnEvent::ToolResult {
            id: "t".into(),
            output: "ok".into(),
            is_error: false,
            parent: None
        }
    );
    let full = TurnEvent::ToolUse {
        name: "Edit".into(),
        summary: "Edit a.rs".into(),
        id: Some("t".into()),
        parent: Some("p".into()),
        edits: vec![FileEdit {
            path: "a.rs".into(),
            old: "x".into(),
            new: "y".into(),
        }],
    };
    let line = serde_json::to_string(&full).unwrap();
    assert_eq!(serde_json::from_str::<TurnEvent>(&line).unwrap(), full);
}

#[test]
fn cap_text_cuts_at_a_character_boundary_and_says_how_much() {
    assert_eq!(cap_text("short"), "short");
    let long = format!("{}é", "a".repeat(TOOL_TEXT_BYTES - 1));
    assert_eq!(
        cap_text(&long),
        format!(
            "{}\n… 2 more bytes not shown",
            "a".repeat(TOOL_TEXT_BYTES - 1)
        )
    );
}

#[test]
fn shown_writes_out_what_a_terminal_would_not_show_as_itself() {
    for (text, want) in [
        ("/home/me/api", "/home/me/api"),
        ("/tmp/日本 é", "/tmp/日本 é"),
        ("/tmp/a\u{1b}[2Jb", "/tmp/a<U+001B>[2Jb"),
        ("/tmp/two\nlines\ttab", "/tmp/two<U+000A>lines<U+0009>tab"),
        ("/tmp/evil\u{202E}gnp", "/tmp/evil<U+202E>gnp"),
        ("/tmp/\u{7f}del", "/tmp/<U+007F>del"),
    ] {
        assert_eq!(shown(text), want, "{text:?}");
    }
    assert!(matches!(
        shown("/plain/path"),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn each_kind_is_named_once_at_its_own_index() {
    for (i, k) in KINDS.iter().enumerate() {
        assert_eq!(k.kind as usize, i, "{k:?}");
        assert_eq!(ProviderKind::parse(k.name), Some(k.kind));
        assert_eq!(k.kind.to_string(), k.name);
    }
    assert_eq!(ProviderKind::parse("gemini"), None);
    assert_eq!(ProviderKind::default(), ProviderKind::Claude);
}

#[test]
fn the_next_provider_key_cycles_the_clis_and_leaves_an_endpoint_for_the_first() {
    use ProviderKind::*;
    let rows = [(Claude, Codex), (Codex, Claude), (Local, Claude)];
    for (from, to) in rows {
        assert_eq!(from.next_cli(), to, "{from}");
    }
}
