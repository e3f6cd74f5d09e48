//! Tests of what an import reads out of the exported journal.

use super::*;
use pretty_assertions::assert_eq;

fn at(record: Record) -> Entry {
    Entry {
        at: "t".into(),
        record,
    }
}

fn accepted(n: u32, prompt: &str) -> Entry {
    at(Record::queued(n, prompt.into(), None))
}

fn started(id: &str, n: u32, input: Option<u32>) -> Entry {
    at(Record::TurnStarted {
        turn_id: id.into(),
        number: n,
        conversation_id: "c".into(),
        provider: ProviderKind::Claude,
        prompt: "p".into(),
        input,
        mode: None,
        standing: Vec::new(),
        boot: None,
    })
}

fn finished(id: &str) -> Entry {
    at(Record::TurnFinished {
        turn_id: id.into(),
        status: crate::words::TurnStatus::Completed,
        error: None,
        session_id: None,
        model: None,
        context: None,
        answer: String::new(),
        tools: vec![],
        notes: vec![],
        cost: None,
        duration_ms: None,
    })
}

#[test]
fn running_turns_and_waiting_input_are_found() {
    let entries = vec![
        accepted(1, "one"),
        started("t1", 1, Some(1)),
        accepted(2, "two"),
        accepted(3, "three"),
        accepted(4, "four"),
        at(Record::InputEdited {
            input: 3,
            prompt: "three, edited".into(),
        }),
        at(Record::InputWithdrawn { input: 2 }),
        at(Record::InputSteered {
            input: 4,
            turn_id: "t1".into(),
        }),
        finished("t1"),
        accepted(5, "five"),
        started("t2", 2, Some(5)),
        accepted(6, "six"),
    ];
    assert_eq!(
        waiting_inputs(&entries),
        vec![(3, "three, edited".to_string()), (6, "six".to_string())]
    );
    assert_eq!(
        open_turns(&entries),
        vec![OpenTurn {
            turn_id: "t2".into(),
            number: 2,
            provider: ProviderKind::Claude,
        }]
    );
    assert_eq!(open_turns(&entries[..9]), vec![]);
    assert_eq!(live_conversation(&entries), None);
    assert!(!archived(&entries));
}

#[test]
fn a_voided_start_is_no_open_turn_and_its_input_waits_again_first() {
    let entries = vec![
        accepted(1, "one"),
        accepted(2, "two"),
        started("t1", 1, Some(1)),
        at(Record::TurnPrompted {
            turn_id: "t1".into(),
        }),
        finished("t1"),
        started("t2", 2, Some(2)),
        accepted(3, "three"),
        at(Record::TurnVoided {
            turn_id: "t2".into(),
        }),
    ];
    assert_eq!(open_turns(&entries), vec![]);
    assert_eq!(
        waiting_inputs(&entries),
        vec![(2, "two".to_string()), (3, "three".to_string())]
    );
}

#[test]
fn the_live_conversation_is_the_last_opened_as_an_earlier_import_re_pointed_it() {
    let opened = |id: &str, dir: &str| {
        at(Record::ConversationOpened {
            conversation_id: id.into(),
            number: 1,
            reason: crate::words::OpenReason::First,
            dir: dir.into(),
            system_text: format!("work in {dir}"),
            title: None,
            fork: None,
        })
    };
    let imported = |id: &str, dir: &str| {
        at(Record::Imported {
            from: crate::store::ImportedFrom {
                baton_version: "0".into(),
                dir: "/a".into(),
                worktree: None,
                exported_at: "t".into(),
            },
            name: "n".into(),
            dir: dir.into(),
            source: dir.into(),
            mode: crate::words::CheckoutMode::Folder,
            worktree: None,
            conversation: Some(crate::store::Repointed {
                conversation_id: id.into(),
                dir: dir.into(),
                system_text: format!("work in {dir}"),
            }),
        })
    };
    let live = |entries: &[Entry]| {
        live_conversation(entries).map(|l| (l.conversation_id, l.dir, l.system_text))
    };
    let switched = |id: &str| {
        at(Record::SessionStarted {
            conversation_id: id.into(),
            turn_id: "t".into(),
            provider: ProviderKind::Codex,
            session_id: "s".into(),
            model: None,
            reason: crate::words::SessionReason::Switch,
            standing: vec!["rule".into()],
        })
    };
    let standing = |entries: &[Entry]| live_conversation(entries).unwrap().sessions_standing;
    assert_eq!(
        standing(&[opened("c1", "/a"), switched("c1"), switched("c0")]),
        vec![vec!["rule".to_string()]]
    );
    assert!(standing(&[opened("c1", "/a"), switched("c1"), opened("c2", "/a")]).is_empty());
    let want =
        |id: &str, dir: &str| Some((id.to_string(), dir.to_string(), format!("work in {dir}")));
    let cases = [
        (vec![opened("c1", "/a")], want("c1", "/a")),
        (
            vec![opened("c1", "/a"), imported("c1", "/b")],
            want("c1", "/b"),
        ),
        // an import that re-pointed another conversation changes nothing
        (
            vec![opened("c1", "/a"), imported("c0", "/b")],
            want("c1", "/a"),
        ),
        (
            vec![opened("c1", "/a"), imported("c1", "/b"), opened("c2", "/b")],
            want("c2", "/b"),
        ),
    ];
    for (entries, want) in cases {
        assert_eq!(live(&entries), want);
    }
    let archived_then = [
        at(Record::Archived),
        at(Record::Unarchived),
        at(Record::Archived),
    ];
    assert!(archived(&archived_then));
    assert!(!archived(&archived_then[..2]));
}
