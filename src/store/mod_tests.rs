//! The store as the server uses it: open, append, the rebuild of an index of another schema
//! version, and the endpoint a terminal last chose for `local`.

use super::*;
use crate::words::{
    CheckoutMode, ContextUsage, OpenReason, ProviderKind, SessionReason, TurnStatus,
};
use pretty_assertions::assert_eq;

fn store_in(d: &tempfile::TempDir) -> Store {
    Store::open(DataDir::new(d.path().to_path_buf())).unwrap()
}

pub(super) fn created(tid: &str, provider: ProviderKind, endpoint: Option<&str>) -> Record {
    Record::TerminalCreated {
        terminal_id: tid.into(),
        name: format!("name-{tid}"),
        dir: "/w".into(),
        source: "/w".into(),
        mode: CheckoutMode::InPlace,
        worktree: None,
        provider,
        model: None,
        brief: Some("a brief".into()),
        endpoint: endpoint.map(str::to_string),
    }
}

fn settings(provider: ProviderKind, endpoint: Option<&str>) -> Record {
    Record::SettingsChanged {
        provider,
        model: Some("m".into()),
        endpoint: endpoint.map(str::to_string),
    }
}

/// A terminal with a bit of everything: a conversation, a turn with a session, instructions.
fn busy_store(d: &tempfile::TempDir) -> Store {
    let store = store_in(d);
    let records = vec![
        created("T1", ProviderKind::Local, Some("big")),
        Record::ConversationOpened {
            conversation_id: "C1".into(),
            number: 1,
            reason: OpenReason::First,
            dir: "/w".into(),
            system_text: "s".into(),
            title: None,
            fork: None,
        },
        Record::TurnStarted {
            turn_id: "t1".into(),
            number: 1,
            conversation_id: "C1".into(),
            provider: ProviderKind::Local,
            prompt: "p".into(),
            input: None,
            mode: None,
            standing: Vec::new(),
            boot: None,
        },
        Record::SessionStarted {
            conversation_id: "C1".into(),
            turn_id: "t1".into(),
            provider: ProviderKind::Local,
            session_id: "s1".into(),
            model: None,
            reason: SessionReason::Fresh,
            standing: Vec::new(),
        },
        Record::TurnFinished {
            turn_id: "t1".into(),
            status: TurnStatus::Completed,
            error: None,
            session_id: Some("s1".into()),
            model: Some("m".into()),
            context: Some(ContextUsage {
                tokens: 10,
                window: 100,
            }),
            answer: "a".into(),
            tools: vec!["read_file".into()],
            notes: vec![],
            cost: None,
            duration_ms: Some(1_234),
        },
        Record::InstructionAdded {
            text: "never use unwrap".into(),
            turn_id: Some("t1".into()),
        },
        settings(ProviderKind::Claude, None),
    ];
    for r in records {
        store.append("T1", r).unwrap();
    }
    store
        .append("T2", created("T2", ProviderKind::Codex, None))
        .unwrap();
    store
}

/// Sets the index's version as another build would have left it, and empties a table so a
/// rebuild shows.
fn tamper(d: &tempfile::TempDir, version: i32) {
    let conn = Connection::open(d.path().join("index.db")).unwrap();
    conn.execute("DELETE FROM turns", []).unwrap();
    conn.pragma_update(None, "user_version", version).unwrap();
}

fn version_of(d: &tempfile::TempDir) -> i32 {
    let conn = Connection::open(d.path().join("index.db")).unwrap();
    index::schema_version(&conn).unwrap()
}

#[test]
fn an_index_of_another_version_is_rebuilt_from_the_journals_at_open() {
    for found in [0, index::SCHEMA_VERSION - 1, index::SCHEMA_VERSION + 1, -1] {
        let d = tempfile::tempdir().unwrap();
        let before = busy_store(&d).dump().unwrap();
        tamper(&d, found);
        let store = store_in(&d);
        assert_eq!(store.dump().unwrap(), before, "found version {found}");
        assert_eq!(version_of(&d), index::SCHEMA_VERSION);
    }
}

#[test]
fn an_index_of_this_version_is_kept_at_open() {
    let d = tempfile::tempdir().unwrap();
    drop(busy_store(&d));
    tamper(&d, index::SCHEMA_VERSION);
    assert_eq!(store_in(&d).turns("T1").unwrap(), vec![]);
}

#[test]
fn an_unversioned_index_with_the_endpoint_packed_in_provider_is_rebuilt() {
    let d = tempfile::tempdir().unwrap();
    let want = busy_store(&d).terminals().unwrap();
    std::fs::remove_file(d.path().join("index.db")).unwrap();
    // The layout before versions: no endpoint columns, `local:NAME` in provider.
    let conn = Connection::open(d.path().join("index.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE terminals (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,
           dir TEXT NOT NULL, provider TEXT NOT NULL, model TEXT, brief TEXT,
           created_at TEXT NOT NULL, source TEXT NOT NULL, mode TEXT NOT NULL, worktree TEXT);
         INSERT INTO terminals VALUES ('T1', 'old', '/w', 'local:big', NULL, NULL, 'x', '/w',
           'in_place', NULL);
         CREATE TABLE turns (id TEXT PRIMARY KEY);
         CREATE INDEX turns_by_terminal ON turns (id);",
    )
    .unwrap();
    drop(conn);
    let store = store_in(&d);
    assert_eq!(store.terminals().unwrap(), want);
    assert_eq!(version_of(&d), index::SCHEMA_VERSION);
}

#[test]
fn a_rebuild_that_never_commits_leaves_the_old_version_to_rebuild_again() {
    let d = tempfile::tempdir().unwrap();
    let before = busy_store(&d).dump().unwrap();
    tamper(&d, 0);
    {
        // A crash mid-rebuild: the schema is recreated and stamped, but never committed.
        let mut conn = Connection::open(d.path().join("index.db")).unwrap();
        let tx = conn.transaction().unwrap();
        index::recreate_schema(&tx).unwrap();
        drop(tx);
    }
    assert_eq!(version_of(&d), 0);
    assert_eq!(store_in(&d).dump().unwrap(), before);
}

#[test]
fn the_endpoint_last_chosen_for_local_is_remembered_across_other_providers() {
    use ProviderKind::{Claude, Local};
    let cases: Vec<(Vec<Record>, Option<&str>)> = vec![
        (vec![created("T", Claude, None)], None),
        (vec![created("T", Local, Some("big"))], Some("big")),
        (
            vec![created("T", Local, Some("big")), settings(Claude, None)],
            Some("big"),
        ),
        (
            vec![
                created("T", Claude, None),
                settings(Local, Some("big")),
                settings(Claude, None),
                settings(Local, Some("small")),
                settings(Claude, None),
            ],
            Some("small"),
        ),
        // `local` without a name, or a name given to another provider, changes nothing.
        (
            vec![
                created("T", Local, Some("big")),
                settings(Local, None),
                settings(Claude, Some("odd")),
            ],
            Some("big"),
        ),
    ];
    for (records, want) in cases {
        let d = tempfile::tempdir().unwrap();
        let store = store_in(&d);
        for r in records.clone() {
            store.append("T", r).unwrap();
        }
        let live = store.last_local_endpoint("T").unwrap();
        assert_eq!(live.as_deref(), want, "{records:?}");
        store.reindex().unwrap();
        assert_eq!(store.last_local_endpoint("T").unwrap(), live, "{records:?}");
    }
    let d = tempfile::tempdir().unwrap();
    assert_eq!(store_in(&d).last_local_endpoint("nobody").unwrap(), None);
}

#[test]
fn a_local_terminal_has_its_endpoint_and_others_none() {
    let d = tempfile::tempdir().unwrap();
    let store = busy_store(&d);
    store
        .append("T1", settings(ProviderKind::Local, Some("small")))
        .unwrap();
    let endpoints: Vec<(String, ProviderKind, Option<String>)> = store
        .terminals()
        .unwrap()
        .into_iter()
        .map(|t| (t.id, t.provider, t.endpoint))
        .collect();
    assert_eq!(
        endpoints,
        vec![
            ("T1".into(), ProviderKind::Local, Some("small".into())),
            ("T2".into(), ProviderKind::Codex, None),
        ]
    );
}

#[test]
fn a_terminal_created_whole_is_all_there_or_not_at_all() {
    let d = tempfile::tempdir().unwrap();
    let store = store_in(&d);
    // What a crash before the rename leaves: a temporary journal nobody reads.
    let tdir = d.path().join("terminals").join("T9");
    std::fs::create_dir_all(&tdir).unwrap();
    std::fs::write(tdir.join("journal.jsonl.new"), b"{\"torn").unwrap();
    assert!(store.reindex().unwrap().skipped.is_empty());
    assert_eq!(store.terminals().unwrap().len(), 0);

    let records = vec![
        created("T9", ProviderKind::Claude, None),
        Record::InstructionAdded {
            text: "Keep it small.".into(),
            turn_id: None,
        },
    ];
    let entries = store.create("T9", records.clone()).unwrap();
    assert_eq!(entries.len(), 2);
    assert!(!tdir.join("journal.jsonl.new").exists());
    assert_eq!(store.terminals().unwrap().len(), 1);
    assert_eq!(store.instructions("T9").unwrap().len(), 1);
    let dump = store.dump().unwrap();
    store.reindex().unwrap();
    assert_eq!(store.dump().unwrap(), dump);
    // An existing terminal is never created over.
    assert!(store.create("T9", records).is_err());
    assert_eq!(store.instructions("T9").unwrap().len(), 1);
}

#[test]
fn a_terminal_created_under_a_name_another_holds_never_hides_it_in_any_rebuild_order() {
    let d = tempfile::tempdir().unwrap();
    let store = store_in(&d);
    let named = |tid: &str, name: &str| {
        let mut r = created(tid, ProviderKind::Claude, None);
        if let Record::TerminalCreated { name: n, .. } = &mut r {
            *n = name.to_string();
        }
        r
    };
    let names = |store: &Store| -> Vec<(String, String)> {
        let mut v: Vec<_> = (store.terminals().unwrap().into_iter())
            .map(|t| (t.id, t.name))
            .collect();
        v.sort();
        v
    };
    // Ids sorted so that a rebuild may read the import before or after the terminal here.
    store.create("T5", vec![named("T5", "api")]).unwrap();
    for tid in ["T1", "T9"] {
        let import = vec![
            named(tid, "api"),
            Record::Renamed {
                name: format!("api-{tid}"),
            },
        ];
        store.create(tid, import).unwrap();
    }
    // Two journals that both end named api (baton never writes them): the one the index
    // reads second gets the stand-in.
    store.create("T7", vec![named("T7", "api")]).unwrap();
    let want = vec![
        ("T1".to_string(), "api-T1".to_string()),
        ("T5".to_string(), "api".to_string()),
        ("T7".to_string(), "api~T7".to_string()),
        ("T9".to_string(), "api-T9".to_string()),
    ];
    assert_eq!(names(&store), want);
    store.reindex().unwrap();
    assert_eq!(names(&store), want);
    // A journal creating another terminal's id (or a path) creates only its own.
    let crafted = vec![
        named("T2", "other"),
        named("T5", "api"),
        named("../../x", "x"),
    ];
    store.create("T2", crafted).unwrap();
    let mut want = want;
    want.insert(1, ("T2".to_string(), "x".to_string()));
    assert_eq!(names(&store), want);
    store.reindex().unwrap();
    assert_eq!(names(&store), want);
}

/// A store in `d` holding terminal `T1` on Claude, and its index dumped.
fn claude_terminal_t1(d: &tempfile::TempDir) -> (Store, String) {
    let store = store_in(d);
    store
        .append("T1", created("T1", ProviderKind::Claude, None))
        .unwrap();
    let dump = store.dump().unwrap();
    (store, dump)
}

#[test]
fn records_journalled_unindexed_reach_the_index_at_its_next_use_in_order_and_once() {
    let d = tempfile::tempdir().unwrap();
    let (store, before) = claude_terminal_t1(&d);
    let switches = vec![
        settings(ProviderKind::Codex, None),
        settings(ProviderKind::Local, Some("small")),
    ];
    store.append_unindexed("T1", switches).unwrap();
    // Both in the journal, one line each, at once.
    let journal = std::fs::read_to_string(d.path().join("terminals/T1/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 3, "{journal}");
    // Not yet in the index file: another reader of it sees the index as it was.
    assert_eq!(store_in(&d).dump().unwrap(), before);
    // This store's own readers see them (applied first), in order: the last switch wins.
    assert_eq!(
        store.last_local_endpoint("T1").unwrap().as_deref(),
        Some("small")
    );
    let after = store.dump().unwrap();
    assert_ne!(after, before);
    assert_eq!(store_in(&d).dump().unwrap(), after);

    // Waiting entries a rebuild finds in their journal are not applied again after it.
    let added = Record::InstructionAdded {
        text: "Keep it small.".into(),
        turn_id: None,
    };
    store.append_unindexed("T1", vec![added]).unwrap();
    store.reindex().unwrap();
    store.settle();
    assert!(store.index_current());
    assert_eq!(store.instructions("T1").unwrap().len(), 1);
    let rebuilt = store.dump().unwrap();
    store.reindex().unwrap();
    assert_eq!(store.dump().unwrap(), rebuilt);
}

#[test]
fn records_journalled_unsynced_are_in_the_file_at_once_and_indexed_once_synced() {
    let d = tempfile::tempdir().unwrap();
    let (store, before) = claude_terminal_t1(&d);
    store
        .append_unsynced("T1", vec![settings(ProviderKind::Codex, None)])
        .unwrap();
    assert_eq!(store.unsynced_lock().len(), 1);
    // Written: a crash of the process from here on loses nothing.
    let journal = std::fs::read_to_string(d.path().join("terminals/T1/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 2, "{journal}");
    assert_eq!(store_in(&d).dump().unwrap(), before);
    // A journal write after it goes after it, and the index takes both, in order, synced.
    store
        .append_unsynced("T1", vec![settings(ProviderKind::Local, Some("small"))])
        .unwrap();
    assert_eq!(store.unsynced_lock().len(), 1, "the first was synced first");
    store.settle();
    assert!(store.unsynced_lock().is_empty());
    assert_eq!(
        store.last_local_endpoint("T1").unwrap().as_deref(),
        Some("small")
    );
    let live = store.dump().unwrap();
    store.reindex().unwrap();
    assert_eq!(store.dump().unwrap(), live);
}

#[test]
fn a_voided_start_leaves_no_turn_and_its_input_first_in_the_queue_under_its_number() {
    let d = tempfile::tempdir().unwrap();
    let (store, _) = claude_terminal_t1(&d);
    let started = Record::TurnStarted {
        turn_id: "u1".into(),
        number: 1,
        conversation_id: "c1".into(),
        provider: ProviderKind::Claude,
        prompt: "one".into(),
        input: Some(1),
        mode: None,
        standing: Vec::new(),
        boot: Some("b".into()),
    };
    let records = vec![
        Record::queued(1, "one".into(), None),
        Record::queued(2, "two".into(), None),
        started,
    ];
    store.append_unindexed("T1", records).unwrap();
    // The mark is in the file at once, owing no sync.
    let mark = Record::TurnPrompted {
        turn_id: "u1".into(),
    };
    store.append_mark("T1", mark).unwrap();
    let journal = std::fs::read_to_string(d.path().join("terminals/T1/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 5, "{journal}");
    assert!(store.unsynced_lock().is_empty());
    let waiting = |s: &Store| -> Vec<(u32, Option<u32>)> {
        let rows = s.waiting_inputs("T1").unwrap();
        rows.iter().map(|i| (i.number, i.position)).collect()
    };
    assert_eq!(waiting(&store), vec![(2, Some(1))]);
    assert_eq!(store.last_turn_number("T1").unwrap(), 1);
    let voided = Record::TurnVoided {
        turn_id: "u1".into(),
    };
    store.append("T1", voided).unwrap();
    assert_eq!(waiting(&store), vec![(1, Some(1)), (2, Some(2))]);
    assert_eq!(store.last_turn_number("T1").unwrap(), 0);
    assert_eq!(store.unfinished_turns().unwrap(), vec![]);
    let one = store.input("T1", 1).unwrap().unwrap();
    assert_eq!((one.state.as_str(), one.turn_id), ("waiting", None));
    let live = store.dump().unwrap();
    store.reindex().unwrap();
    assert_eq!(store.dump().unwrap(), live);
}
