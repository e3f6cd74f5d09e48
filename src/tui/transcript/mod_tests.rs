//! Tests of the transcript: turns from the log with their dividers, live deltas, merging the log
//! under a running turn, and reading a turn again when it missed steps.

use super::*;
use crate::words::ProviderKind;
use pretty_assertions::assert_eq;
use serde_json::json;

fn log() -> LogView {
    crate::tui::testing::views::log(json!({
        "name": "api",
        "conversations": [
            {"number": 1, "opened_reason": "first"},
            {"number": 2, "opened_reason": "size"},
        ],
        "turns": [
            {"number": 1, "conversation": 1, "provider": "claude", "prompt": "one",
             "status": "completed", "answer": "A1", "tools": ["Read x"], "notes": [],
             "context": {"tokens": 100000, "window": 200000}},
            {"number": 2, "conversation": 2, "provider": "claude", "prompt": "two",
             "status": "completed", "answer": "A2", "tools": [], "notes": []},
            {"number": 3, "conversation": 2, "provider": "codex", "prompt": "three",
             "status": null, "answer": null, "tools": [], "notes": []},
        ]
    }))
}

#[test]
fn log_turns_carry_their_dividers() {
    let t = Transcript::from_log(&log());
    let marks: Vec<(u32, Option<&str>, bool)> = t
        .turns
        .iter()
        .map(|e| (e.number, e.opened.map(OpenReason::as_str), e.switched))
        .collect();
    assert_eq!(
        marks,
        vec![
            (1, Some("first"), false),
            (2, Some("size"), false),
            (3, None, true)
        ]
    );
    assert_eq!(
        t.turns[0].parts,
        vec![
            Part::Tool(ToolPart::named("Read x")),
            Part::Text("A1".into())
        ]
    );
    assert!(t.running().is_some());
}

#[test]
fn deltas_extend_the_current_piece_and_a_start_opens_the_next() {
    let delta = |text: &str, start: bool| SendEvent::Turn {
        event: TurnEvent::Delta {
            text: text.into(),
            start,
        },
    };
    let tool = SendEvent::Turn {
        event: TurnEvent::tool("Read", "a.rs".into()),
    };
    let note = SendEvent::Note {
        message: "n".into(),
    };
    let rows: Vec<(Vec<SendEvent>, Vec<Part>)> = vec![
        (
            vec![delta("MOCK", true), delta("-REPLY", false)],
            vec![Part::Text("MOCK-REPLY".into())],
        ),
        (
            vec![delta("one", true), delta("two", true)],
            vec![Part::Text("one".into()), Part::Text("two".into())],
        ),
        (
            vec![
                delta("one", true),
                tool,
                delta("two", true),
                delta("!", false),
            ],
            vec![
                Part::Text("one".into()),
                Part::Tool(ToolPart::named("a.rs")),
                Part::Text("two!".into()),
            ],
        ),
        // A continuation whose piece was cut by something else starts a part of its own.
        (
            vec![delta("par", true), note, delta("tial", false)],
            vec![
                Part::Text("par".into()),
                Part::Note("n".into()),
                Part::Text("tial".into()),
            ],
        ),
    ];
    for (events, want) in rows {
        let mut t = Transcript::default();
        t.step(&SendEvent::Started {
            turn_id: "x".into(),
            number: 1,
            provider: ProviderKind::Claude,
            conversation: 1,
            opened: None,
            rotate_at: 0.45,
            session: SessionStart::Fresh,
            prompt: "p".into(),
        });
        let mut revs = Vec::new();
        for e in &events {
            t.step(e);
            revs.push(t.turns[0].rev);
        }
        assert_eq!(t.turns[0].parts, want, "{events:?}");
        assert!(
            revs.windows(2).all(|w| w[0] < w[1]),
            "every delta marks its turn changed: {revs:?}"
        );
    }
}

#[test]
fn merging_the_log_keeps_live_steps_of_the_running_turn() {
    let mut t = Transcript::default();
    t.step(&started_three());
    t.step(&SendEvent::Turn {
        event: TurnEvent::Text {
            text: "partial".into(),
        },
    });
    t.merge_log(Transcript::from_log(&log()));
    assert_eq!(t.turns.len(), 3);
    assert_eq!(t.turns[2].prompt.as_deref(), Some("three"));
    assert_eq!(t.turns[2].parts, vec![Part::Text("partial".into())]);
}

#[test]
fn a_turn_that_missed_steps_is_read_again_when_it_ends() {
    let summary = |number: u32| -> TurnSummary {
        crate::tui::testing::views::summary(json!({"number": number, "conversation": 2}))
    };
    // Turn 3 is running when this client falls behind: only its end asks for the log.
    let mut t = Transcript::from_log(&log());
    t.fell_behind();
    assert_eq!(t.gapped, Some(3));
    assert!(!t.finished(&summary(2)));
    assert!(t.finished(&summary(3)));
    assert_eq!(t.gapped, None);
    assert!(!t.finished(&summary(3)), "once");
    // Falling behind with nothing running marks nothing.
    let mut idle = Transcript::from_log(&log());
    idle.finished(&summary(3));
    idle.fell_behind();
    assert_eq!(idle.gapped, None);
}

fn started_three() -> SendEvent {
    SendEvent::Started {
        turn_id: "x".into(),
        number: 3,
        provider: ProviderKind::Codex,
        conversation: 2,
        opened: None,
        rotate_at: 0.45,
        session: SessionStart::Switch,
        prompt: "three".into(),
    }
}

#[test]
fn a_running_turn_first_seen_in_the_log_is_read_again_when_it_ends() {
    let summary = crate::tui::testing::views::summary(json!({"number": 3, "conversation": 2}));
    // Attached mid-turn with none of turn 3's steps: its end reads the log again.
    let mut attached = Transcript::default();
    attached.merge_log(Transcript::from_log(&log()));
    assert_eq!(attached.gapped, Some(3));
    assert!(attached.finished(&summary));
    // A client that saw it start has it whole: no second read.
    let mut watching = Transcript::default();
    watching.step(&started_three());
    watching.merge_log(Transcript::from_log(&log()));
    assert_eq!(watching.gapped, None);
    assert!(!watching.finished(&summary));
    // The server's replay of the turn from its start, arriving after the log, fills it too.
    let mut replayed = Transcript::default();
    replayed.merge_log(Transcript::from_log(&log()));
    replayed.step(&started_three());
    assert_eq!(replayed.gapped, None);
    assert!(!replayed.finished(&summary));
}

#[test]
fn results_and_subagent_steps_find_their_calls() {
    let mut t = Transcript::from_log(&log());
    let started = SendEvent::Started {
        turn_id: "t9".into(),
        number: 9,
        provider: ProviderKind::Claude,
        conversation: 1,
        opened: None,
        rotate_at: 0.45,
        session: SessionStart::Resume,
        prompt: "p".into(),
    };
    t.step(&started);
    let call = |id: &str, summary: &str, parent: Option<&str>| TurnEvent::ToolUse {
        name: "X".into(),
        summary: summary.into(),
        id: Some(id.into()),
        parent: parent.map(Into::into),
        edits: vec![],
    };
    let result = |id: &str, out: &str| TurnEvent::ToolResult {
        id: id.into(),
        output: out.into(),
        is_error: false,
        parent: None,
    };
    for event in [
        call("a", "Task look", None),
        call("b", "Grep x", Some("a")),
        result("b", "found"),
        TurnEvent::SubagentText {
            parent: "a".into(),
            text: "done".into(),
        },
        result("a", "all done"),
        call("c", "Read y", Some("unknown")),
        TurnEvent::Denied {
            tool: "Bash".into(),
            target: "rm -rf build".into(),
        },
        TurnEvent::Usage { tokens: 1234 },
    ] {
        t.step(&SendEvent::Turn { event });
    }
    let out = |text: &str| {
        Some(ToolOutput {
            text: text.into(),
            is_error: false,
        })
    };
    let turn = t.running().unwrap();
    assert_eq!(
        turn.parts,
        vec![
            Part::Tool(ToolPart {
                summary: "Task look".into(),
                id: Some("a".into()),
                edits: vec![],
                result: out("all done"),
                nested: vec![
                    Part::Tool(ToolPart {
                        summary: "Grep x".into(),
                        id: Some("b".into()),
                        result: out("found"),
                        ..ToolPart::default()
                    }),
                    Part::Text("done".into()),
                ],
            }),
            // A call under a parent this client never saw stays at the top level.
            Part::Tool(ToolPart {
                summary: "Read y".into(),
                id: Some("c".into()),
                ..ToolPart::default()
            }),
            Part::Denied {
                tool: "Bash".into(),
                target: "rm -rf build".into()
            },
        ]
    );
    assert_eq!(turn.tokens, Some(1234));
}

#[test]
fn a_watched_turn_keeps_its_tool_results_when_the_log_is_read() {
    let log = log();
    let mut live = Transcript::from_log(&log);
    let rich = vec![Part::Tool(ToolPart {
        summary: "Read x".into(),
        id: Some("t".into()),
        result: Some(ToolOutput {
            text: "42".into(),
            is_error: false,
        }),
        ..ToolPart::default()
    })];
    live.turns[0].parts = rich.clone();
    live.merge_log(Transcript::from_log(&log));
    assert_eq!(live.turns[0].parts, rich);
    // Without details, the log's parts win (its answer among them).
    let mut plain = Transcript::from_log(&log);
    plain.turns[0].parts = vec![Part::Tool(ToolPart::named("Read x"))];
    plain.merge_log(Transcript::from_log(&log));
    assert_eq!(
        plain.turns[0].parts,
        Transcript::from_log(&log).turns[0].parts
    );
}

#[test]
fn a_turn_read_back_from_its_steps_gets_its_results_and_keeps_baton_s_notes() {
    let mut t = Transcript::from_log(&log());
    // Turn 1 has a tool call and no result; turn 2 no tool call; turn 3 still runs.
    assert_eq!(t.lacking_steps(), vec![1]);
    t.turns[0]
        .parts
        .push(Part::Note("restarted a lost session".into()));
    let steps = vec![
        TurnEvent::ToolUse {
            name: "Read".into(),
            summary: "Read x".into(),
            id: Some("t1".into()),
            parent: None,
            edits: Vec::new(),
        },
        TurnEvent::ToolResult {
            id: "t1".into(),
            output: "42".into(),
            is_error: false,
            parent: None,
        },
        TurnEvent::Delta {
            text: "A".into(),
            start: true,
        },
        TurnEvent::Delta {
            text: "1".into(),
            start: false,
        },
    ];
    let before = t.version;
    t.fill_steps(1, &steps);
    assert!(t.version > before);
    assert_eq!(t.turns[0].rev, t.version);
    let Part::Tool(call) = &t.turns[0].parts[0] else {
        panic!("{:?}", t.turns[0].parts)
    };
    assert_eq!(call.result.as_ref().map(|r| r.text.as_str()), Some("42"));
    assert_eq!(
        t.turns[0].parts[1..],
        [
            Part::Text("A1".into()),
            Part::Note("restarted a lost session".into())
        ]
    );
    assert!(t.lacking_steps().is_empty());
    // Steps with no more than the log has (a pruned stream) change nothing; nor do steps of
    // a running turn.
    let mut u = Transcript::from_log(&log());
    let same = u.clone();
    u.fill_steps(1, &[]);
    u.fill_steps(3, &steps);
    assert_eq!(u, same);
}
