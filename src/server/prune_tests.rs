//! Table tests of `judge`: which terminal `baton prune` removes, and why it leaves one alone.

use super::*;
use pretty_assertions::assert_eq;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

const NOW: &str = "2026-12-01T12:00:00Z";

fn facts(archived: bool, running: bool, waiting: bool, active: Option<&str>) -> Facts {
    Facts {
        archived,
        running,
        waiting,
        active_at: active.map(at),
    }
}

#[test]
fn only_archived_idle_terminals_old_enough_go() {
    use PruneSkip::*;
    use Verdict::*;
    let old = Some("2026-10-01T12:00:00Z");
    let table = [
        // (archived, running, waiting, last activity, days, verdict)
        (false, false, false, old, 30, NotArchived),
        // Not archived wins over everything: it is never looked at further.
        (false, true, true, old, 0, NotArchived),
        (true, false, false, old, 30, Remove),
        (true, true, false, old, 30, Skip(Running)),
        // A running turn is named before the input waiting behind it.
        (true, true, true, old, 30, Skip(Running)),
        (true, false, true, old, 30, Skip(WaitingInput)),
        (
            true,
            false,
            false,
            Some("2026-11-20T12:00:00Z"),
            30,
            Skip(TooRecent),
        ),
        // Exactly `days` old goes; a millisecond less stays.
        (true, false, false, Some("2026-11-01T12:00:00Z"), 30, Remove),
        (
            true,
            false,
            false,
            Some("2026-11-01T12:00:00.001Z"),
            30,
            Skip(TooRecent),
        ),
        // 0: any age, even a time ahead of the clock.
        (true, false, false, Some("2026-12-01T11:59:59Z"), 0, Remove),
        (true, false, false, Some("2027-01-01T00:00:00Z"), 0, Remove),
        (
            true,
            false,
            false,
            Some("2027-01-01T00:00:00Z"),
            1,
            Skip(TooRecent),
        ),
        // An unreadable time is never a reason to remove.
        (true, false, false, None, 30, Skip(TooRecent)),
        (true, false, false, None, 0, Remove),
        // Busy still wins with 0.
        (true, false, true, old, 0, Skip(WaitingInput)),
        // Further back than the calendar goes: nothing is that old.
        (true, false, false, old, u32::MAX, Skip(TooRecent)),
    ];
    for (archived, running, waiting, active, days, want) in table {
        let f = facts(archived, running, waiting, active);
        assert_eq!(judge(&f, at(NOW), days), want, "{f:?}, {days} days");
    }
}

#[test]
fn the_log_line_names_what_was_removed_and_what_failed() {
    let view = PruneView {
        dry_run: false,
        older_than_days: 30,
        force: false,
        removed: vec![PrunedView {
            name: "old".into(),
            last_activity: "2026-10-01T12:00:00.000Z".into(),
            worktree: None,
            committed: None,
            branch: None,
            branch_deleted: false,
            kept_branch: None,
        }],
        skipped: vec![],
        failed: vec![PruneFailedView {
            name: "stuck".into(),
            error: "the worktree is locked".into(),
        }],
        counts: PruneCounts {
            removed: 1,
            skipped: 3,
            not_archived: 3,
            failed: 1,
        },
    };
    assert_eq!(
        summary(&view),
        "1 removed (old), 3 skipped, 1 failed; stuck failed: the worktree is locked"
    );
    let nothing = PruneView {
        removed: vec![],
        failed: vec![],
        counts: PruneCounts::default(),
        ..view
    };
    assert_eq!(summary(&nothing), "0 removed, 0 skipped, 0 failed");
}
