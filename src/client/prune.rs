//! `baton prune`: its DAYS argument checked, the server's report printed as text or `--json`,
//! and exit 1 when a terminal could not be removed. The text is pure ([`text`]).

use super::Client;
use crate::error::{BatonError, EXIT_FAILED};
use crate::protocol::views::{PruneView, PrunedView};
use crate::protocol::Request;

/// The `--older-than` value: whole days, 0 or more (0: any age).
pub fn days(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        format!("{s:?} is not a number of days: give a whole number, 0 or more (0: any age)")
    })
}

pub fn run(client: &Client, req: &Request, json: bool) -> Result<i32, BatonError> {
    let view = super::commands::shown(client, req, json, text)?;
    Ok(if view.failed.is_empty() {
        0
    } else {
        EXIT_FAILED
    })
}

/// The report, one line per terminal listed, then the counts.
pub fn text(v: &PruneView) -> String {
    let mut out = String::new();
    let verb = if v.dry_run { "would remove" } else { "removed" };
    for r in &v.removed {
        out.push_str(&format!(
            "{verb} {}{}\n",
            r.name,
            removed_details(r, v.dry_run)
        ));
    }
    for s in &v.skipped {
        let when = s
            .last_activity
            .as_deref()
            .map(|a| format!(" (last active {a})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "skipped {}: {}{when}\n",
            s.name,
            s.reason.as_str()
        ));
    }
    for f in &v.failed {
        out.push_str(&format!("failed {}: {}\n", f.name, f.error));
    }
    let c = &v.counts;
    out.push_str(&format!(
        "{}{} {}, {} skipped ({} not archived), {} failed\n",
        if v.dry_run {
            "dry run, nothing changed: "
        } else {
            ""
        },
        c.removed,
        if v.dry_run {
            "would be removed"
        } else {
            "removed"
        },
        c.skipped,
        c.not_archived,
        c.failed
    ));
    out
}

fn removed_details(r: &PrunedView, dry_run: bool) -> String {
    let mut parts = vec![format!("last active {}", r.last_activity)];
    if let Some(w) = &r.worktree {
        parts.push(format!("worktree {w}"));
    }
    if let Some(c) = &r.committed {
        parts.push(format!("leftovers committed as {}", short(c)));
    }
    match (&r.branch, &r.kept_branch) {
        (_, Some(kept)) => parts.push(format!(
            "branch {kept} {} (not merged; --force deletes it)",
            if dry_run { "would be kept" } else { "kept" }
        )),
        (Some(b), None) => parts.push(format!(
            "branch {b} {}",
            if dry_run {
                "would be deleted"
            } else {
                "deleted"
            }
        )),
        (None, None) => {}
    }
    format!(" ({})", parts.join("; "))
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::views::{PruneCounts, PruneFailedView, PruneSkip, PruneSkippedView};
    use pretty_assertions::assert_eq;

    #[test]
    fn days_take_whole_numbers_from_zero() {
        assert_eq!(days("0"), Ok(0));
        assert_eq!(days("30"), Ok(30));
        for bad in ["-1", "abc", "1.5", ""] {
            let e = days(bad).unwrap_err();
            assert!(e.contains("not a number of days"), "{bad}: {e}");
        }
    }

    fn pruned(name: &str, branch: Option<&str>, kept: bool) -> PrunedView {
        PrunedView {
            name: name.into(),
            last_activity: "2026-10-01T00:00:00.000Z".into(),
            worktree: branch.map(|_| format!("/w/{name}")),
            committed: None,
            branch: branch.map(String::from),
            branch_deleted: branch.is_some() && !kept,
            kept_branch: branch.filter(|_| kept).map(String::from),
        }
    }

    #[test]
    fn the_report_lists_each_terminal_then_the_counts() {
        let mut v = PruneView {
            dry_run: false,
            older_than_days: 30,
            force: false,
            removed: vec![
                pruned("a", Some("baton/a"), false),
                pruned("b", Some("baton/b"), true),
                pruned("c", None, false),
            ],
            skipped: vec![PruneSkippedView {
                name: "d".into(),
                reason: PruneSkip::TooRecent,
                last_activity: Some("2026-11-30T00:00:00.000Z".into()),
            }],
            failed: vec![PruneFailedView {
                name: "e".into(),
                error: "cannot remove e: locked".into(),
            }],
            counts: PruneCounts {
                removed: 3,
                skipped: 3,
                not_archived: 2,
                failed: 1,
            },
        };
        assert_eq!(
            text(&v),
            "removed a (last active 2026-10-01T00:00:00.000Z; worktree /w/a; branch baton/a deleted)\n\
             removed b (last active 2026-10-01T00:00:00.000Z; worktree /w/b; branch baton/b kept (not merged; --force deletes it))\n\
             removed c (last active 2026-10-01T00:00:00.000Z)\n\
             skipped d: too recent (last active 2026-11-30T00:00:00.000Z)\n\
             failed e: cannot remove e: locked\n\
             3 removed, 3 skipped (2 not archived), 1 failed\n"
        );
        v.dry_run = true;
        v.removed.truncate(2);
        v.skipped.clear();
        v.failed.clear();
        v.counts = PruneCounts {
            removed: 2,
            ..PruneCounts::default()
        };
        assert_eq!(
            text(&v),
            "would remove a (last active 2026-10-01T00:00:00.000Z; worktree /w/a; branch baton/a would be deleted)\n\
             would remove b (last active 2026-10-01T00:00:00.000Z; worktree /w/b; branch baton/b would be kept (not merged; --force deletes it))\n\
             dry run, nothing changed: 2 would be removed, 0 skipped (0 not archived), 0 failed\n"
        );
    }
}
