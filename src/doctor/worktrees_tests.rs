//! Tests of the worktree checks: gone worktrees recreated, removed terminals' branches judged.

use super::*;
use crate::words::ProviderKind;
use pretty_assertions::assert_eq;

fn at(record: Record) -> Entry {
    Entry {
        at: "t".into(),
        record,
    }
}

fn wt(branch: &str) -> Worktree {
    Worktree {
        path: "/w".into(),
        branch: branch.into(),
        base_commit: "c".into(),
        base_branch: "main".into(),
        repo: "/r".into(),
        name: "baton-x".into(),
    }
}

#[test]
fn a_removed_terminal_leaves_its_last_worktree() {
    let created = at(Record::TerminalCreated {
        terminal_id: "x".into(),
        name: "x".into(),
        dir: "/w".into(),
        source: "/r".into(),
        mode: CheckoutMode::Worktree,
        worktree: Some(wt("baton/x")),
        provider: ProviderKind::Claude,
        model: None,
        brief: None,
        endpoint: None,
    });
    let moved = at(Record::CheckoutMoved {
        dir: "/w2".into(),
        mode: CheckoutMode::Worktree,
        worktree: Some(wt("baton/x2")),
        reason: "moved".into(),
    });
    let started = at(Record::RemovalStarted {
        delete_branch: false,
        force: false,
        purge: false,
    });
    let cancelled = at(Record::RemovalCancelled { error: "e".into() });
    let removed = at(Record::TerminalRemoved);
    let rows: Vec<(Vec<Entry>, Option<&str>)> = vec![
        (vec![created.clone()], None),
        (vec![created.clone(), started.clone()], None),
        (
            vec![created.clone(), started.clone(), removed.clone()],
            Some("baton/x"),
        ),
        (
            vec![created.clone(), moved, started.clone(), removed.clone()],
            Some("baton/x2"),
        ),
        (vec![created, started, cancelled], None),
    ];
    for (entries, want) in rows {
        assert_eq!(
            removed_worktree(&entries).map(|w| w.branch),
            want.map(String::from)
        );
    }
}

#[test]
fn left_locks_are_a_fault_to_clear_only_while_no_server_runs() {
    let left = [std::path::PathBuf::from("/r/.git/refs/heads/baton/x.lock")];
    let rows = [
        (false, Status::Fault, Some(Fix::ClearLocks(wt("baton/x")))),
        (true, Status::Note, None),
    ];
    for (live, status, fix) in rows {
        let f = locked("x", &wt("baton/x"), &left, live);
        assert_eq!((f.finding.status, f.fix), (status, fix), "live: {live}");
        assert!(f.finding.detail.contains("x.lock"), "{}", f.finding.detail);
    }
}
