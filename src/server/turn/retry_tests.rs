use super::*;
use pretty_assertions::assert_eq;

fn at(record: Record) -> Entry {
    Entry {
        at: "2026-12-06T05:00:00.000Z".into(),
        record,
    }
}

fn started(id: &str, number: u32, prompt: &str) -> Entry {
    at(Record::TurnStarted {
        turn_id: id.into(),
        number,
        conversation_id: "C".into(),
        provider: crate::words::ProviderKind::Claude,
        prompt: prompt.into(),
        input: Some(number),
        mode: None,
        standing: Vec::new(),
        boot: None,
    })
}

fn finished(id: &str, status: TurnStatus, error: Option<&str>) -> Entry {
    at(Record::TurnFinished {
        turn_id: id.into(),
        status,
        error: error.map(Into::into),
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

fn retried(id: &str) -> Entry {
    at(Record::queued(9, "p".into(), Some(id.into())))
}

fn crashed() -> Option<&'static str> {
    Some("the baton server stopped while this turn ran: its prompt may have reached the model")
}

#[test]
fn only_a_turn_a_crash_cut_short_is_retried_and_only_once() {
    use TurnStatus::{Completed, Failed, Interrupted};
    let cut = |id: &str, number, prompt: &str| {
        Some(Cut {
            turn_id: id.into(),
            number,
            prompt: prompt.into(),
        })
    };
    let table: Vec<(&str, Vec<Entry>, Option<Cut>)> = vec![
        ("nothing ran", vec![], None),
        (
            "a crash cut it short",
            vec![
                started("a", 1, "one"),
                finished("a", Interrupted, crashed()),
            ],
            cut("a", 1, "one"),
        ),
        (
            "the user interrupted it",
            vec![started("a", 1, "one"), finished("a", Interrupted, None)],
            None,
        ),
        (
            "it failed",
            vec![started("a", 1, "one"), finished("a", Failed, Some("boom"))],
            None,
        ),
        (
            "it completed",
            vec![started("a", 1, "one"), finished("a", Completed, None)],
            None,
        ),
        (
            "put back already",
            vec![
                started("a", 1, "one"),
                finished("a", Interrupted, crashed()),
                retried("a"),
            ],
            None,
        ),
        (
            "the latest of two, then the other",
            vec![
                started("a", 1, "one"),
                finished("a", Interrupted, crashed()),
                started("b", 2, "two"),
                finished("b", Interrupted, crashed()),
                retried("b"),
            ],
            cut("a", 1, "one"),
        ),
        ("still running", vec![started("a", 1, "one")], None),
    ];
    for (why, entries, want) in table {
        assert_eq!(retryable(&entries), want, "{why}");
    }
}
