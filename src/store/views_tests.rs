//! The index's read queries against an index filled by `apply` from journal records.

use super::*;
use crate::store::index;
use crate::store::records::Entry;
use serde_json::json;

fn index_of(records: Vec<serde_json::Value>) -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    let tx = conn.transaction().unwrap();
    index::recreate_schema(&tx).unwrap();
    for (n, mut r) in records.into_iter().enumerate() {
        r["at"] = json!(format!("2026-11-29T10:00:{n:02}.000Z"));
        let e: Entry = serde_json::from_value(r).unwrap();
        index::apply(&tx, "T", &e).unwrap();
    }
    tx.commit().unwrap();
    conn
}

fn started(turn: &str, number: u32, conv: &str, provider: &str) -> serde_json::Value {
    json!({"type": "turn_started", "turn_id": turn, "number": number,
           "conversation_id": conv, "provider": provider, "prompt": "p"})
}

fn finished(turn: &str, session: Option<&str>, context: Option<(u64, u64)>) -> serde_json::Value {
    json!({"type": "turn_finished", "turn_id": turn, "status": "completed", "error": null,
           "session_id": session, "model": null,
           "context": context.map(|(tokens, window)| json!({"tokens": tokens, "window": window})),
           "answer": "a", "tools": [], "notes": []})
}

#[test]
fn a_conversations_state_is_its_latest_context_and_latest_session() {
    let opened = |conv: &str, number: u32| {
        json!({"type": "conversation_opened", "conversation_id": conv, "number": number,
               "reason": "first", "dir": "/w", "system_text": "s"})
    };
    let conn = index_of(vec![
        json!({"type": "terminal_created", "terminal_id": "T", "name": "t", "dir": "/w",
               "source": "/w", "mode": "in_place", "worktree": null, "provider": "claude",
               "model": null, "brief": null}),
        opened("C1", 1),
        started("t1", 1, "C1", "claude"),
        finished("t1", Some("s-claude"), Some((100, 1000))),
        // A switch: a codex session, then a failed turn that reported neither.
        started("t2", 2, "C1", "codex"),
        finished("t2", Some("s-codex"), Some((300, 2000))),
        started("t3", 3, "C1", "codex"),
        finished("t3", None, None),
        opened("C2", 2),
        started("t4", 4, "C2", "claude"),
        finished("t4", Some("s-other"), Some((5, 1000))),
    ]);
    let state = conversation_state(&conn, "C1").unwrap();
    assert_eq!(
        state.context,
        Some(ContextUsage {
            tokens: 300,
            window: 2000
        })
    );
    assert_eq!(
        state.session,
        Some((ProviderKind::Codex, "s-codex".to_string()))
    );
    let none = ConversationState {
        context: None,
        session: None,
    };
    assert_eq!(conversation_state(&conn, "C9").unwrap(), none);
}

/// `EXPLAIN QUERY PLAN`'s lines for `sql` (parameters bound to null: the plan is the same).
pub(in crate::store) fn plan(conn: &Connection, sql: &str) -> Vec<String> {
    let mut s = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    for i in 1..=s.parameter_count() {
        s.raw_bind_parameter(i, rusqlite::types::Null).unwrap();
    }
    let mut rows = s.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        out.push(r.get::<_, String>("detail").unwrap());
    }
    out
}

/// What listing a terminal and planning a send read per terminal goes by an index (issue 42:
/// turns looked up by conversation scanned the whole `turns` table, 191 µs a terminal at
/// 2,000 turns), and what they read of every turn comes from an index alone, not from rows
/// that hold the turns' answers and tools.
#[test]
fn listing_and_planning_read_by_index_never_a_whole_table() {
    let conn = index_of(vec![]);
    let waiting = crate::store::inputs::waiting_sql();
    let covering = |p: &[String]| p.iter().any(|l| l.contains("COVERING INDEX"));
    for (name, sql, reads_every_turn) in [
        ("turn count", TURN_COUNT, true),
        ("last turn", LAST_TURN, false),
        ("last context", LAST_CONTEXT, true),
        ("latest session", LATEST_SESSION, false),
        ("sessions", SESSIONS, false),
        ("waiting input", waiting.as_str(), false),
    ] {
        let p = plan(&conn, sql);
        let scans: Vec<&String> = p
            .iter()
            .filter(|l| l.starts_with("SCAN") || l.contains("TEMP B-TREE"))
            .collect();
        assert!(scans.is_empty(), "{name}: {p:?}");
        assert!(!reads_every_turn || covering(&p), "{name}: {p:?}");
    }
}
