//! Tests of a journal whose first record is unreadable, listed as `recovered-<id>`.

use super::*;
use crate::words::OpenReason;
use crate::words::ProviderKind;
use pretty_assertions::assert_eq;

fn at(record: Record) -> Entry {
    Entry {
        at: "2026-12-01T00:00:00.000Z".into(),
        record,
    }
}

#[test]
fn a_lost_first_line_is_stood_in_for_from_the_rest() {
    let opened = at(Record::ConversationOpened {
        conversation_id: "c".into(),
        number: 1,
        reason: OpenReason::First,
        dir: "/w/api".into(),
        system_text: "s".into(),
        title: None,
        fork: None,
    });
    let started = at(Record::TurnStarted {
        turn_id: "t".into(),
        number: 1,
        conversation_id: "c".into(),
        provider: ProviderKind::Codex,
        prompt: "p".into(),
        input: None,
        mode: None,
        standing: Vec::new(),
        boot: None,
    });
    let created = stand_in_created("01a2-0000-7777-abcdef12", &[opened.clone(), started]);
    let Some(Record::TerminalCreated {
        name,
        dir,
        provider,
        mode,
        ..
    }) = created
    else {
        panic!("no stand-in");
    };
    assert_eq!(name, "recovered-abcdef12");
    assert_eq!(dir, "/w/api");
    assert_eq!(provider, ProviderKind::Codex);
    assert_eq!(mode, CheckoutMode::Folder);
    // A journal that starts right, or holds nothing, needs none.
    assert_eq!(stand_in_created("x", &[]), None);
    let first = at(Record::TerminalCreated {
        terminal_id: "x".into(),
        name: "x".into(),
        dir: "/".into(),
        source: "/".into(),
        mode: CheckoutMode::InPlace,
        worktree: None,
        provider: ProviderKind::Claude,
        model: None,
        brief: None,
        endpoint: None,
    });
    assert_eq!(stand_in_created("x", &[first, opened]), None);
}
