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
fn shown_lines_keeps_the_layout_of_lines_and_writes_out_every_other_control() {
    for (text, want) in [
        ("plain answer", "plain answer"),
        ("two\nlines\tand a tab", "two\nlines\tand a tab"),
        ("windows\r\nline", "windows\r\nline"),
        ("over\rwrite", "over<U+000D>write"),
        ("ends in\r", "ends in<U+000D>"),
        ("\u{1b}]52;c;aGk=\u{7}", "<U+001B>]52;c;aGk=<U+0007>"),
        ("\u{1b}]0;title\u{7}", "<U+001B>]0;title<U+0007>"),
        ("\u{1b}[2J", "<U+001B>[2J"),
        ("\u{9b}31m C1", "<U+009B>31m C1"),
        ("nul\0del\u{7f}", "nul<U+0000>del<U+007F>"),
        ("日本 é 👨\u{200D}👩", "日本 é 👨\u{200D}👩"),
    ] {
        assert_eq!(shown_lines(text), want, "{text:?}");
    }
    assert!(matches!(shown_lines("a\nb"), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn a_turn_lasts_what_the_server_measured_else_what_its_times_say() {
    let start = "2026-01-01T00:00:00.000Z";
    let rows: [(Option<u64>, Option<&str>, Option<u64>); 6] = [
        (Some(1_234), Some("2026-01-01T00:00:09.000Z"), Some(1_234)),
        (Some(1_234), None, Some(1_234)),
        (None, Some("2026-01-01T00:00:04.250Z"), Some(4_250)),
        (None, Some("2026-01-01T01:00:04.250+01:00"), Some(4_250)),
        (None, None, None),
        (None, Some("not a time"), None),
    ];
    for (measured, end, want) in rows {
        assert_eq!(
            turn_duration_ms(measured, start, end),
            want,
            "{measured:?} {end:?}"
        );
    }
    // The clock went back between the two records: no length rather than a wrong one.
    let back = turn_duration_ms(None, "2026-01-01T00:00:05Z", Some("2026-01-01T00:00:04Z"));
    assert_eq!(back, None);
}

#[test]
fn a_length_of_time_reads_in_tenths_whole_seconds_or_minutes() {
    use TimeText::*;
    let rows = [
        (0, Tenths, "0.0 s"),
        (12_340, Tenths, "12.3 s"),
        (125_300, Tenths, "125.3 s"),
        (8_100, TenthsThenMinutes, "8.1 s"),
        (59_960, TenthsThenMinutes, "60.0 s"),
        (60_000, TenthsThenMinutes, "1 min 00 s"),
        (125_000, TenthsThenMinutes, "2 min 05 s"),
        (12_900, WholeThenMinutes, "12 s"),
        (125_900, WholeThenMinutes, "2 min 05 s"),
    ];
    for (ms, how, want) in rows {
        assert_eq!(duration_text(ms, how), want, "{ms} {how:?}");
    }
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
