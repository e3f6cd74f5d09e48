//! A listing reads what the per-terminal queries read, for every kind of terminal, and goes by
//! the indexes.

use super::super::views::tests::plan;
use super::*;
use crate::paths::DataDir;
use crate::store::Record;
use crate::store::Store;
use crate::words::{ContextUsage, OpenReason, ProviderKind, SessionReason, TurnCost, TurnStatus};
use pretty_assertions::assert_eq;

fn opened(conv: &str, number: u32) -> Record {
    Record::ConversationOpened {
        conversation_id: conv.into(),
        number,
        reason: if number == 1 {
            OpenReason::First
        } else {
            OpenReason::Size
        },
        dir: format!("/w/{conv}"),
        system_text: "a long system text".into(),
        title: Some(format!("title {conv}")),
        fork: None,
    }
}

fn started(turn: &str, number: u32, conv: &str, input: Option<u32>) -> Record {
    Record::TurnStarted {
        turn_id: turn.into(),
        number,
        conversation_id: conv.into(),
        provider: ProviderKind::Claude,
        prompt: "p".into(),
        input,
        mode: None,
        standing: Vec::new(),
        boot: None,
    }
}

fn session(conv: &str, turn: &str, id: &str) -> Record {
    Record::SessionStarted {
        conversation_id: conv.into(),
        turn_id: turn.into(),
        provider: ProviderKind::Claude,
        session_id: id.into(),
        model: Some("m".into()),
        reason: SessionReason::Fresh,
        standing: Vec::new(),
    }
}

fn finished(turn: &str, context: Option<u64>, usd: Option<f64>) -> Record {
    Record::TurnFinished {
        turn_id: turn.into(),
        status: if context.is_some() {
            TurnStatus::Completed
        } else {
            TurnStatus::Failed
        },
        error: context.is_none().then(|| "it broke".to_string()),
        session_id: None,
        model: None,
        context: context.map(|tokens| ContextUsage {
            tokens,
            window: 1000,
        }),
        answer: "a long answer".into(),
        tools: vec![],
        notes: vec![],
        cost: usd.map(|usd| TurnCost {
            input_tokens: 100,
            cached_tokens: 40,
            output_tokens: 7,
            usd: Some(usd),
        }),
        duration_ms: None,
    }
}

fn accepted(input: u32) -> Record {
    Record::queued(input, format!("prompt {input}"), None)
}

/// Four terminals, as the records that make them in the order they are journalled: a rotated
/// one with costs, instructions and waiting input; a fresh one; one whose turn runs; one being
/// removed.
fn fleet_records() -> Vec<(&'static str, Record)> {
    let created = |tid| super::super::tests::created(tid, ProviderKind::Claude, None);
    let rotated = vec![
        created("A"),
        opened("A1", 1),
        started("a1", 1, "A1", None),
        session("A1", "a1", "sa1"),
        finished("a1", Some(300), Some(0.5)),
        Record::InstructionAdded {
            text: "never use unwrap".into(),
            turn_id: Some("a1".into()),
        },
        opened("A2", 2),
        started("a2", 2, "A2", None),
        session("A2", "a2", "sa2"),
        finished("a2", Some(20), Some(0.25)),
        started("a3", 3, "A2", None),
        session("A2", "a3", "sa3"),
        finished("a3", None, None),
        Record::InstructionAdded {
            text: "answer in French".into(),
            turn_id: None,
        },
        accepted(1),
        accepted(2),
        accepted(3),
        started("a4", 4, "A2", Some(1)),
        finished("a4", Some(30), None),
    ];
    let running = vec![created("C"), opened("C1", 1), started("c1", 1, "C1", None)];
    let removing = vec![
        created("D"),
        Record::RemovalStarted {
            delete_branch: false,
            force: false,
            purge: false,
        },
    ];
    let mut out = vec![];
    for (tid, records) in [
        ("A", rotated),
        ("B", vec![created("B")]),
        ("C", running),
        ("D", removing),
    ] {
        out.extend(records.into_iter().map(|r| (tid, r)));
    }
    out
}

fn fleet(d: &tempfile::TempDir) -> Store {
    let store = Store::open(DataDir::new(d.path().to_path_buf())).unwrap();
    for (tid, r) in fleet_records() {
        store.append(tid, r).unwrap();
    }
    store
}

/// What the per-terminal queries say of terminal `tid`.
fn one_by_one(store: &Store, row: TerminalRow) -> Listed {
    let tid = row.id.clone();
    let conv = store.live_conversation(&tid).unwrap();
    let turns = store
        .turns_summary(&tid, conv.as_ref().map(|c| c.id.as_str()))
        .unwrap();
    Listed {
        sessions: match &conv {
            Some(c) => store.sessions(&c.id).unwrap(),
            None => vec![],
        },
        conversation: conv.map(|c| ListedConversation {
            id: c.id,
            number: c.number,
            opened_reason: c.opened_reason,
            dir: c.dir,
            opened_at: c.opened_at,
            title: c.title,
        }),
        turns: turns.count,
        last_turn: turns.last,
        context: turns.context,
        instructions: store
            .instructions(&tid)
            .unwrap()
            .into_iter()
            .map(|i| i.text)
            .collect(),
        cost: summed(store.turns(&tid).unwrap().iter().filter_map(|t| t.cost)),
        waiting: store.waiting_inputs(&tid).unwrap(),
        row,
    }
}

/// Costs added up as a user would, turn by turn (None: no turn reported one).
fn summed(costs: impl Iterator<Item = TurnCost>) -> Option<TurnCost> {
    costs.reduce(|a, b| TurnCost {
        input_tokens: a.input_tokens + b.input_tokens,
        cached_tokens: a.cached_tokens + b.cached_tokens,
        output_tokens: a.output_tokens + b.output_tokens,
        usd: match (a.usd, b.usd) {
            (Some(x), Some(y)) => Some(x + y),
            (x, y) => x.or(y),
        },
    })
}

#[test]
fn a_listing_reads_what_each_terminals_own_queries_read() {
    let d = tempfile::tempdir().unwrap();
    let store = fleet(&d);
    let listed = store.snapshot().listing(None).unwrap();
    let names: Vec<&str> = listed.iter().map(|l| l.row.id.as_str()).collect();
    assert_eq!(
        names,
        ["A", "B", "C"],
        "oldest first, not the one being removed"
    );
    for l in &listed {
        assert_eq!(l, &one_by_one(&store, l.row.clone()));
    }
    let a = &listed[0];
    assert_eq!(a.conversation.as_ref().unwrap().id, "A2");
    assert_eq!((a.turns, a.sessions.len(), a.waiting.len()), (4, 2, 2));
    assert_eq!(a.cost.as_ref().unwrap().usd, Some(0.75));
    assert_eq!(a.context.unwrap().tokens, 30);
    assert_eq!(
        listed[2].last_turn.as_ref().unwrap().status,
        None,
        "it runs"
    );

    // One terminal alone, whatever its state: `show` reads the one it was handed.
    let d_row = store.terminal("D").unwrap().unwrap();
    let only = store.snapshot().listing(Some("D")).unwrap();
    assert_eq!(only, vec![one_by_one(&store, d_row)]);
    assert_eq!(
        store.snapshot().listing(Some("A")).unwrap(),
        vec![a.clone()]
    );
    assert_eq!(store.snapshot().listing(Some("nobody")).unwrap(), vec![]);
}

/// A listing walks the terminals (or goes to the one asked for) and reaches each one's rows by
/// an index: no other table is scanned whole, so a list does not slow down as the history of
/// the index grows.
#[test]
fn a_listing_scans_the_terminals_alone() {
    let d = tempfile::tempdir().unwrap();
    let store = fleet(&d);
    let c = store.conn();
    for (filter, scanned) in [(EVERY, 1), (ONE, 0)] {
        for sql in [
            main_sql(filter),
            sessions_sql(filter),
            instructions_sql(filter),
            waiting_sql(filter),
            costs_sql(filter),
        ] {
            let p = plan(&c, &sql);
            let scans: Vec<&String> = p.iter().filter(|l| l.starts_with("SCAN")).collect();
            assert_eq!(scans.len(), scanned, "{sql}\n{p:#?}");
            assert!(scans.iter().all(|l| l.starts_with("SCAN t")), "{p:#?}");
        }
        // What they read of every turn (its count, context, cost) comes from covering
        // indexes, never from the rows that hold the turns' answers and tools.
        for (sql, index) in [
            (main_sql(filter), "COVERING INDEX turns_by_terminal"),
            (main_sql(filter), "COVERING INDEX turns_by_conversation"),
            (costs_sql(filter), "COVERING INDEX turns_costs"),
        ] {
            let p = plan(&c, &sql);
            assert!(p.iter().any(|l| l.contains(index)), "{index}: {p:#?}");
        }
    }
}

/// What a listing keeps of a terminal is never older than the index: after every record of
/// the fleet, journalled one at a time (some indexed later, as a turn's end is), a listing of
/// all and of each terminal says what a fresh read of the index says.
#[test]
fn a_kept_listing_is_read_again_once_its_terminal_changes() {
    let d = tempfile::tempdir().unwrap();
    let store = Store::open(DataDir::new(d.path().to_path_buf())).unwrap();
    let fresh = |only: Option<&str>| listing(&store.conn(), only).unwrap();
    // A snapshot holds the index's lock: each is dropped before the fresh read.
    let kept = |only: Option<&str>| store.snapshot().listing(only).unwrap();
    for (k, (tid, r)) in fleet_records().into_iter().enumerate() {
        if k % 3 == 0 {
            store.append_unindexed(tid, vec![r]).unwrap();
        } else {
            store.append(tid, r).unwrap();
        }
        for only in [None, Some("A"), Some("B"), Some("C"), Some("D")] {
            let listed = kept(only);
            assert_eq!(listed, fresh(only), "record {k}, {only:?}");
        }
    }
    assert_eq!(kept(None).len(), 3);
    store.reindex().unwrap();
    let listed = kept(None);
    assert_eq!(listed, fresh(None));
}
