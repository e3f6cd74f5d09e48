//! The worktrees check and the branches removed terminals left. Lock files a commit a crash
//! cut short left in a terminal's branch or worktree (`git::left_locks`) are a fault `--fix`
//! removes (`git::clear_left_locks`) when no server runs. A terminal's worktree whose
//! folder is gone or that git no longer knows is recreated by `--fix` at its recorded path
//! from the terminal's branch (`git::recreate`: git's stale entry pruned first, with git2),
//! when that branch still exists; otherwise it is reported with what to do. A branch that
//! `baton rm` kept (`baton/<name>`) is a note; `--fix` deletes only one whose every commit is
//! in the branch it started from (`git::delete_contained_branch`), so no commit is ever lost.

use super::journals::Scanned;
use super::report::{plural, Check, Status};
use super::{Fix, Found};
use crate::git::{self, BranchFate, Located, Worktree};
use crate::store::{Entry, PendingRemoval, Record, TerminalRow};
use crate::words::CheckoutMode;

/// Each terminal's worktree: there, moved, gone; and the lock files a git write of baton's
/// left there (`live`: a server runs, and may be writing them now).
pub fn check(terminals: &[TerminalRow], live: bool) -> Vec<Found> {
    let mut out = Vec::new();
    let mut here = 0usize;
    for t in terminals {
        let Some(wt) = t
            .worktree
            .as_ref()
            .filter(|_| t.mode == CheckoutMode::Worktree)
        else {
            continue;
        };
        let left = git::left_locks(wt);
        if !left.is_empty() {
            out.push(locked(&t.name, wt, &left, live));
        }
        match git::locate(wt) {
            Located::Here if left.is_empty() => here += 1,
            Located::Here => {}
            Located::Moved(path) => out.push(found(
                Check::Worktrees,
                Status::Note,
                &t.name,
                format!(
                    "its worktree moved to {}: the terminal follows it at its next send",
                    path.display()
                ),
                None,
            )),
            Located::Gone => out.push(gone(&t.name, wt)),
        }
    }
    if out.is_empty() {
        out.push(found(
            Check::Worktrees,
            Status::Ok,
            "terminals",
            format!("{} in place", plural(here, "worktree")),
            None,
        ));
    }
    out
}

/// Lock files left in a worktree or its branch: a fault `--fix` clears when no server runs
/// (the next server start clears them too); a note while one runs (a commit may be writing).
fn locked(name: &str, wt: &Worktree, left: &[std::path::PathBuf], live: bool) -> Found {
    let files: Vec<String> = left.iter().map(|p| p.display().to_string()).collect();
    let files = files.join(", ");
    if live {
        return found(
            Check::Worktrees,
            Status::Note,
            name,
            format!("git lock files: {files}; the running server may be committing now. If they stay, restart it (`baton server stop`, then any command): its start clears what a cut-short commit left"),
            None,
        );
    }
    found(
        Check::Worktrees,
        Status::Fault,
        name,
        format!("git lock files left by a commit a crash cut short: {files}; every commit of this terminal fails until they go (--fix removes them; so does the next server start)"),
        Some(Fix::ClearLocks(wt.clone())),
    )
}

/// A worktree git cannot find: fixable when its branch exists and its folder is free.
fn gone(name: &str, wt: &Worktree) -> Found {
    let at = wt.path.display();
    if std::fs::symlink_metadata(&wt.path).is_ok() {
        return found(
            Check::Worktrees,
            Status::Fault,
            name,
            format!("{at} is there but git does not know it as the worktree of {}: move that folder aside (keep what you need from it), then run `baton doctor --fix`", wt.branch),
            None,
        );
    }
    match git::branch_head(wt) {
        Ok(_) => found(
            Check::Worktrees,
            Status::Fault,
            name,
            format!("its worktree {at} is gone (--fix recreates it from branch {}; every turn was committed there)", wt.branch),
            Some(Fix::Worktree(wt.clone())),
        ),
        Err(e) => found(
            Check::Worktrees,
            Status::Fault,
            name,
            format!("its worktree {at} is gone and cannot be recreated: {e}"),
            None,
        ),
    }
}

/// Removals a crash cut short: notes (the next server start finishes them, as it always does;
/// doctor does not, since it never acts as the server).
pub fn pending(removals: &[PendingRemoval]) -> Vec<Found> {
    removals
        .iter()
        .map(|r| {
            found(
                Check::Removals,
                Status::Note,
                &r.name,
                "its removal was cut short by a crash: the next server start finishes it (any baton command starts one)".into(),
                None,
            )
        })
        .collect()
}

/// The worktree of a terminal whose journal ends removed (`TerminalRemoved` after its last
/// `RemovalStarted`), as last recorded.
pub fn removed_worktree(entries: &[Entry]) -> Option<Worktree> {
    let mut worktree = None;
    let mut removed = false;
    for e in entries {
        match &e.record {
            Record::TerminalCreated { worktree: w, .. }
            | Record::CheckoutMoved { worktree: w, .. } => worktree = w.clone(),
            Record::TerminalRemoved => removed = true,
            Record::RemovalStarted { .. } | Record::RemovalCancelled { .. } => removed = false,
            _ => {}
        }
    }
    worktree.filter(|_| removed)
}

/// The branches removed terminals left, except one a live terminal now works on.
pub fn branches(scans: &[Scanned], live: &[TerminalRow]) -> Vec<Found> {
    let in_use = |wt: &Worktree| {
        live.iter().any(|t| {
            t.worktree
                .as_ref()
                .is_some_and(|w| w.branch == wt.branch && w.repo == wt.repo)
        })
    };
    let mut out = Vec::new();
    for s in scans {
        let Some(wt) = s
            .read
            .as_ref()
            .ok()
            .and_then(|r| removed_worktree(&r.entries))
        else {
            continue;
        };
        if in_use(&wt) {
            continue;
        }
        let subject = format!("{} ({})", wt.branch, wt.repo.display());
        match git::branch_fate(&wt.repo, &wt.branch, &wt.base_branch) {
            Ok(BranchFate::Gone) => {}
            Ok(BranchFate::Contained) => out.push(found(
                Check::Branches,
                Status::Note,
                &subject,
                format!(
                    "left by a removed terminal; every commit of it is in {} (--fix deletes it)",
                    wt.base_branch
                ),
                Some(Fix::DeleteBranch(wt)),
            )),
            Ok(BranchFate::Ahead { ahead }) => {
                let what = match ahead {
                    Some(n) => format!(
                        "{n} commit{} that {} does not have",
                        if n == 1 { "" } else { "s" },
                        wt.base_branch
                    ),
                    None => format!("commits, and {} is gone", wt.base_branch),
                };
                out.push(found(
                    Check::Branches,
                    Status::Note,
                    &subject,
                    format!("left by a removed terminal, with {what}: kept (merge it, or delete it yourself with `git branch -D {}` once you are sure)", wt.branch),
                    None,
                ))
            }
            Err(e) => out.push(found(
                Check::Branches,
                Status::Note,
                &subject,
                format!("left by a removed terminal; cannot look at it: {e}"),
                None,
            )),
        }
    }
    out
}

fn found(check: Check, status: Status, subject: &str, detail: String, fix: Option<Fix>) -> Found {
    Found::new(check, status, subject, detail).fixed_by(fix)
}

#[cfg(test)]
#[path = "worktrees_tests.rs"]
mod tests;
