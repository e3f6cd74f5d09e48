//! Table tests of the send path's rules (ARCHITECTURE.md, "The send path"): every row, and
//! the rotation line.

use super::*;
use pretty_assertions::assert_eq;
use ProviderKind::{Claude, Codex, Local};

fn conv(
    dir: &str,
    ctx: Option<(u64, u64)>,
    session: Option<(ProviderKind, &str)>,
) -> ConversationFacts {
    ConversationFacts {
        dir: PathBuf::from(dir),
        context: ctx.map(|(tokens, window)| ContextUsage { tokens, window }),
        session: session.map(|(provider, id)| SessionFact {
            provider,
            session_id: id.to_string(),
        }),
        fork: None,
    }
}

fn forked(provider: ProviderKind, ready: bool) -> ConversationFacts {
    ConversationFacts {
        fork: Some(ForkFact {
            provider,
            session_id: "orig".into(),
            at: Some("cut".into()),
            ready,
        }),
        ..conv("/f", None, None)
    }
}

fn open(reason: OpenReason) -> Decision {
    Decision::OpenConversation { reason }
}
fn new(reason: SessionReason) -> Decision {
    Decision::NewSession { reason }
}
fn resume(id: &str) -> Decision {
    Decision::Resume {
        session_id: id.to_string(),
    }
}

#[test]
fn every_row_of_the_send_path() {
    let s = Some((Claude, "s1"));
    // (what, live conversation, run dir, provider, session file on disk, decision)
    type Case = (
        &'static str,
        Option<ConversationFacts>,
        &'static str,
        ProviderKind,
        bool,
        Decision,
    );
    let cases: Vec<Case> = vec![
        (
            "no conversation yet",
            None,
            "/a",
            Claude,
            false,
            open(OpenReason::First),
        ),
        (
            "directory moved",
            Some(conv("/a", None, s)),
            "/b",
            Claude,
            true,
            open(OpenReason::Moved),
        ),
        (
            "moved wins over size",
            Some(conv("/a", Some((900, 1000)), s)),
            "/b",
            Claude,
            true,
            open(OpenReason::Moved),
        ),
        (
            "44.9% resumes",
            Some(conv("/a", Some((449, 1000)), s)),
            "/a",
            Claude,
            true,
            resume("s1"),
        ),
        (
            "exactly 45% resumes",
            Some(conv("/a", Some((450, 1000)), s)),
            "/a",
            Claude,
            true,
            resume("s1"),
        ),
        (
            "45.1% rotates",
            Some(conv("/a", Some((451, 1000)), s)),
            "/a",
            Claude,
            true,
            open(OpenReason::Size),
        ),
        (
            "size wins over switch",
            Some(conv("/a", Some((451, 1000)), s)),
            "/a",
            Codex,
            true,
            open(OpenReason::Size),
        ),
        (
            "unknown window never rotates",
            Some(conv("/a", Some((451, 0)), s)),
            "/a",
            Claude,
            true,
            resume("s1"),
        ),
        (
            "provider switch",
            Some(conv("/a", Some((10, 1000)), s)),
            "/a",
            Codex,
            true,
            new(SessionReason::Switch),
        ),
        (
            "switch ignores the other CLI's files",
            Some(conv("/a", None, s)),
            "/a",
            Codex,
            false,
            new(SessionReason::Switch),
        ),
        (
            "session file deleted",
            Some(conv("/a", Some((10, 1000)), s)),
            "/a",
            Claude,
            false,
            new(SessionReason::Lost),
        ),
        (
            "no session yet in conversation",
            Some(conv("/a", None, None)),
            "/a",
            Codex,
            false,
            new(SessionReason::Fresh),
        ),
        (
            "codex resumes codex",
            Some(conv("/a", Some((100, 258400)), Some((Codex, "t1")))),
            "/a",
            Codex,
            true,
            resume("t1"),
        ),
        (
            "local never rotates on size",
            Some(conv("/a", Some((900, 1000)), Some((Local, "l1")))),
            "/a",
            Local,
            true,
            resume("l1"),
        ),
        (
            "a switch to local keeps the conversation past 45%",
            Some(conv("/a", Some((900, 1000)), s)),
            "/a",
            Local,
            true,
            new(SessionReason::Switch),
        ),
        (
            "a switch away from a full local loop keeps the conversation",
            Some(conv("/a", Some((900, 1000)), Some((Local, "l1")))),
            "/a",
            Claude,
            false,
            new(SessionReason::Switch),
        ),
        (
            "local still follows a moved directory",
            Some(conv("/a", Some((10, 1000)), Some((Local, "l1")))),
            "/b",
            Local,
            true,
            open(OpenReason::Moved),
        ),
    ];
    for (what, conversation, run_dir, provider, on_disk, want) in cases {
        let facts = SendFacts {
            conversation,
            run_dir: PathBuf::from(run_dir),
            provider,
            session_on_disk: on_disk,
            fresh: false,
        };
        assert_eq!(decide(&facts), want, "{what}");
    }
}

#[test]
fn a_forked_conversation_forks_its_source_on_its_first_turn() {
    let fork = |provider, ready| Decision::Fork {
        fork: forked(provider, ready).fork.unwrap(),
    };
    // (what, live conversation, provider, source on disk, decision)
    let cases: Vec<(&str, ConversationFacts, ProviderKind, bool, Decision)> = vec![
        (
            "first turn forks",
            forked(Claude, false),
            Claude,
            true,
            fork(Claude, false),
        ),
        (
            "a ready copy is forked too",
            forked(Codex, true),
            Codex,
            true,
            fork(Codex, true),
        ),
        (
            "another provider cannot read it",
            forked(Claude, false),
            Codex,
            true,
            new(SessionReason::Switch),
        ),
        (
            "the source is gone",
            forked(Claude, false),
            Claude,
            false,
            new(SessionReason::Lost),
        ),
        (
            "once it has its own session, that one is resumed",
            ConversationFacts {
                session: Some(SessionFact {
                    provider: Claude,
                    session_id: "own".into(),
                }),
                ..forked(Claude, false)
            },
            Claude,
            true,
            resume("own"),
        ),
    ];
    for (what, c, provider, on_disk, want) in cases {
        let facts = SendFacts {
            conversation: Some(c),
            run_dir: PathBuf::from("/f"),
            provider,
            session_on_disk: on_disk,
            fresh: false,
        };
        assert_eq!(decide(&facts), want, "{what}");
    }
}

#[test]
fn fresh_retires_any_live_conversation_as_manual() {
    let rows = [
        (None, open(OpenReason::First)),
        (
            Some(conv("/a", None, Some((Claude, "s")))),
            open(OpenReason::Manual),
        ),
        (Some(conv("/b", None, None)), open(OpenReason::Manual)),
        (Some(forked(Claude, false)), open(OpenReason::Manual)),
    ];
    for (conversation, want) in rows {
        let facts = SendFacts {
            conversation,
            run_dir: PathBuf::from("/a"),
            provider: Claude,
            session_on_disk: true,
            fresh: true,
        };
        assert_eq!(decide(&facts), want);
    }
}

#[test]
fn the_rotation_line_is_strictly_greater_than_45_percent() {
    let at = |tokens, window| over_limit(&ContextUsage { tokens, window });
    assert!(!at(89_800, 200_000)); // 44.9%
    assert!(!at(90_000, 200_000)); // 45.0%
    assert!(at(90_200, 200_000)); // 45.1%
    assert!(!at(116_021, 258_400)); // 44.9% of Codex's reported window
    assert!(at(116_538, 258_400)); // 45.1%
}
