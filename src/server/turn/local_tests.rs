//! Tests of `local`.

use super::*;
use pretty_assertions::assert_eq;

fn at(record: Record) -> Entry {
    Entry {
        at: "t".into(),
        record,
    }
}

fn started(turn: &str, conv: &str, provider: ProviderKind, prompt: &str) -> Entry {
    at(Record::TurnStarted {
        turn_id: turn.into(),
        number: 1,
        conversation_id: conv.into(),
        provider,
        prompt: prompt.into(),
        input: None,
        mode: None,
        standing: Vec::new(),
        boot: None,
    })
}

fn finished(turn: &str, status: TurnStatus, answer: &str) -> Entry {
    finished_at(turn, status, answer, None)
}

fn finished_at(turn: &str, status: TurnStatus, answer: &str, tokens: Option<u64>) -> Entry {
    finished_full(turn, status, answer, tokens, None)
}

fn finished_full(
    turn: &str,
    status: TurnStatus,
    answer: &str,
    tokens: Option<u64>,
    error: Option<&str>,
) -> Entry {
    at(Record::TurnFinished {
        turn_id: turn.into(),
        status,
        error: error.map(str::to_string),
        session_id: None,
        model: None,
        context: tokens.map(|tokens| crate::words::ContextUsage {
            tokens,
            window: 2048,
        }),
        answer: answer.into(),
        tools: vec![],
        notes: vec![],
        cost: None,
        duration_ms: None,
    })
}

#[test]
fn the_servers_last_count_is_taken_only_from_a_local_turn_of_the_conversation() {
    let done = |t, n| finished_at(t, TurnStatus::Completed, "a", n);
    let local = |t, c| started(t, c, ProviderKind::Local, "p");
    let claude = |t, c| started(t, c, ProviderKind::Claude, "p");
    let messages = |t: &str, left_out| {
        at(Record::LocalMessages {
            turn_id: t.into(),
            messages: vec![],
            left_out,
        })
    };
    type Case = (Vec<Entry>, Option<(u64, usize)>);
    let cases: Vec<Case> = vec![
        (
            vec![local("t1", "c"), done("t1", Some(900))],
            Some((900, 0)),
        ),
        // with the number of earlier turns its request left out
        (
            vec![local("t1", "c"), messages("t1", 3), done("t1", Some(900))],
            Some((900, 3)),
        ),
        // the latest turn ran on claude: its count is another tokenizer's
        (
            vec![
                local("t1", "c"),
                done("t1", Some(900)),
                claude("t2", "c"),
                done("t2", Some(40_000)),
            ],
            None,
        ),
        // another conversation's turn does not count; a turn without usage gives nothing
        (vec![local("t1", "old"), done("t1", Some(900))], None),
        (vec![local("t1", "c"), done("t1", None)], None),
    ];
    for (mut entries, want) in cases {
        entries.push(local("now", "c"));
        assert_eq!(last_context(&entries, "c", "now"), want, "{entries:?}");
    }
}

#[test]
fn local_turns_keep_their_messages_and_others_give_prompt_and_answer() {
    let tool_turn = vec![
        json!({"role": "user", "content": "write it"}),
        json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "wrote"}),
        json!({"role": "assistant", "content": "done"}),
    ];
    let entries = vec![
        started("t0", "old", ProviderKind::Local, "before the move"),
        started("t1", "c", ProviderKind::Local, "write it"),
        at(Record::LocalMessages {
            turn_id: "t1".into(),
            messages: tool_turn.clone(),
            left_out: 0,
        }),
        finished("t1", TurnStatus::Completed, "done"),
        started("t2", "c", ProviderKind::Claude, "explain"),
        finished("t2", TurnStatus::Completed, "because"),
        started("t3", "c", ProviderKind::Codex, "stop"),
        finished("t3", TurnStatus::Interrupted, ""),
        started("t4", "c", ProviderKind::Local, "now"),
    ];
    let user = |c: &str| json!({"role": "user", "content": c});
    let assistant = |c: &str| json!({"role": "assistant", "content": c});
    assert_eq!(
        history(&entries, "c", "t4"),
        vec![
            tool_turn,
            vec![user("explain"), assistant("because")],
            vec![
                user("stop"),
                assistant("[the user interrupted this turn here]")
            ],
        ]
    );
}

/// The history the next local turn replays after local turn t1 left `left` and ended by `end`.
fn replayed(left: &[Value], end: Entry) -> Vec<Vec<Value>> {
    let entries = vec![
        started("t1", "c", ProviderKind::Local, "go"),
        at(Record::LocalMessages {
            turn_id: "t1".into(),
            messages: left.to_vec(),
            left_out: 0,
        }),
        end,
        started("t2", "c", ProviderKind::Local, "now"),
    ];
    history(&entries, "c", "t2")
}

#[test]
fn an_interrupted_turn_is_marked_in_the_replayed_history_and_turns_still_alternate() {
    let mark = "[the user interrupted this turn here]";
    let user = |c: &str| json!({"role": "user", "content": c});
    let assistant = |c: &str| json!({"role": "assistant", "content": c});
    let call = json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]});
    let result = json!({"role": "tool", "tool_call_id": "c1", "content": "text"});
    let marked = |c: &str| format!("{c}\n\n{mark}");
    // (what the interrupted turn left, what the next request replays)
    let local_rows: Vec<(Vec<Value>, Vec<Value>)> = vec![
        // cut while answering: the partial answer carries the mark
        (
            vec![user("go"), assistant("half an")],
            vec![user("go"), assistant(&marked("half an"))],
        ),
        // cut before any answer: an assistant message of its own keeps the alternation
        (vec![user("go")], vec![user("go"), assistant(mark)]),
        // cut after a tool ran
        (
            vec![user("go"), call.clone(), result.clone()],
            vec![user("go"), call.clone(), result.clone(), assistant(mark)],
        ),
    ];
    for (left, want) in local_rows {
        let end = finished("t1", TurnStatus::Interrupted, "");
        assert_eq!(replayed(&left, end), vec![want], "{left:?}");
    }
    // Another provider's interrupted turn: its partial answer, marked.
    let entries = vec![
        started("t1", "c", ProviderKind::Claude, "go"),
        finished("t1", TurnStatus::Interrupted, "partial"),
        started("t2", "c", ProviderKind::Local, "now"),
    ];
    assert_eq!(
        history(&entries, "c", "t2"),
        vec![vec![user("go"), assistant(&marked("partial"))]]
    );
}

#[test]
fn a_failed_turn_is_marked_in_the_replayed_history_and_turns_still_alternate() {
    let user = |c: &str| json!({"role": "user", "content": c});
    let assistant = |c: &str| json!({"role": "assistant", "content": c});
    let down = "cannot reach http://127.0.0.1:9/v1: connection refused\nsecond line";
    let before = "[this turn failed before any answer: cannot reach http://127.0.0.1:9/v1: connection refused]";
    let here = "[this turn failed here: cannot reach http://127.0.0.1:9/v1: connection refused]";
    // (what the failed turn left, its error, what the next request replays)
    let rows: Vec<(Vec<Value>, Option<&str>, Vec<Value>)> = vec![
        // the endpoint was down: no answer at all
        (
            vec![user("go")],
            Some(down),
            vec![user("go"), assistant(before)],
        ),
        // it failed mid-answer: the partial answer carries the mark
        (
            vec![user("go"), assistant("half")],
            Some(down),
            vec![user("go"), assistant(&format!("half\n\n{here}"))],
        ),
        (
            vec![user("go")],
            None,
            vec![
                user("go"),
                assistant("[this turn failed before any answer: no error was recorded]"),
            ],
        ),
    ];
    for (left, error, want) in rows {
        let end = finished_full("t1", TurnStatus::Failed, "", None, error);
        let replayed = replayed(&left, end);
        assert_eq!(replayed, vec![want], "{left:?}");
        // The next request adds its own user message: roles must alternate.
        let roles: Vec<_> = replayed
            .concat()
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_string())
            .chain(["user".to_string()])
            .collect();
        assert!(roles.windows(2).all(|w| w[0] != w[1]), "{roles:?}");
    }
}
