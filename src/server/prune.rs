//! `baton prune` and retention (`[storage] retention_days`): archived terminals idle for long
//! enough are removed, with their worktree and baton's own data of them.
//!
//! Decisions (issue 13 leaves them open):
//! - **Last activity** is the time of the terminal's latest journal entry (the index keeps it,
//!   `active_at`). Every change counts, archiving too: a terminal archived today is kept for
//!   the whole period, however long it sat idle before.
//! - **Which go** is [`judge`], pure: archived, no turn running (nor instructions still being
//!   extracted), no input waiting, last active at least `days` before now (0: any age). The
//!   looks and the removal happen under the terminal's turn and input locks, so no turn starts
//!   in between; a terminal whose turn lock is taken counts as running.
//! - **The removal** is `rm`'s, in the same two journalled steps (`removal::remove_settled`,
//!   finished at the next start if a crash cuts it): leftovers committed, the worktree removed.
//!   The branch is deleted only when it is merged into the branch it came from (as `rm
//!   --delete-branch` judges it), or with `force`; otherwise it stays and the report names it.
//! - **Baton's data** (`terminals/<id>/`) is deleted once `TerminalRemoved` is synced (`rm`
//!   keeps the journal). The index needs nothing of it; a crash before the deletion leaves a
//!   journal that the next rebuild of the index deletes (`store::purge`). The CLIs' own session
//!   files are outside baton's data and stay.
//! - One terminal failing (git refuses, a locked worktree) is reported and the others go on.
//! - Retention runs the same prune, never forced, right after the server is ready and every
//!   [`RETENTION_EVERY`] while it runs, on a blocking thread; its report goes to `server.log`.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use super::removal::{self, Removal};
use super::state::{Server, TermRuntime};
use crate::error::BatonError;
use crate::git::{self, GitError, Located};
use crate::protocol::views::{PruneCounts, PruneFailedView, PruneSkip, PruneSkippedView};
use crate::protocol::views::{PruneView, PrunedView};
use crate::store::TerminalRow;
use crate::words::CheckoutMode;

/// How often retention runs while the server runs.
pub const RETENTION_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// One prune at a time: a retention run and a `baton prune` never race for a terminal.
static PRUNING: Mutex<()> = Mutex::new(());

/// What [`judge`] knows of a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    pub archived: bool,
    /// A turn runs or starts, or its instructions are still being extracted.
    pub running: bool,
    pub waiting: bool,
    /// Its latest journal entry's time (None: unreadable).
    pub active_at: Option<DateTime<Utc>>,
}

/// What becomes of a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Remove,
    /// Left alone and only counted.
    NotArchived,
    Skip(PruneSkip),
}

/// Whether a terminal goes, given `now` and the age asked for (`days`, 0: any age). A time
/// that cannot be read counts as recent: nothing is removed on a guess.
pub fn judge(f: &Facts, now: DateTime<Utc>, days: u32) -> Verdict {
    if !f.archived {
        return Verdict::NotArchived;
    }
    if f.running {
        return Verdict::Skip(PruneSkip::Running);
    }
    if f.waiting {
        return Verdict::Skip(PruneSkip::WaitingInput);
    }
    if days == 0 {
        return Verdict::Remove;
    }
    let cutoff = TimeDelta::try_days(i64::from(days)).and_then(|d| now.checked_sub_signed(d));
    match (f.active_at, cutoff) {
        (Some(at), Some(cutoff)) if at <= cutoff => Verdict::Remove,
        _ => Verdict::Skip(PruneSkip::TooRecent),
    }
}

/// `baton prune`: looks at every terminal and removes (with `dry_run`: says it would remove)
/// those [`judge`] lets go. Blocking (git, the disk): run it off the async workers.
pub fn prune(srv: &Server, days: u32, dry_run: bool, force: bool) -> Result<PruneView, BatonError> {
    let _one = PRUNING.lock().unwrap_or_else(|p| p.into_inner());
    let now = Utc::now();
    let mut view = PruneView {
        dry_run,
        older_than_days: days,
        force,
        removed: Vec::new(),
        skipped: Vec::new(),
        failed: Vec::new(),
        counts: PruneCounts::default(),
    };
    for t in srv.store.terminals()? {
        let rt = srv.runtime(&t.id);
        // Held from the look to the end of the removal, so no turn or input starts between.
        let turn = rt.turn_lock.try_lock();
        let _inputs = rt.inputs_lock.lock().unwrap_or_else(|p| p.into_inner());
        let looked = look(srv, &t, &rt, turn.is_err());
        let outcome = looked.and_then(|(facts, last)| match judge(&facts, now, days) {
            Verdict::Remove => prune_one(srv, &t, last, dry_run, force).map(Some),
            Verdict::NotArchived => {
                view.counts.not_archived += 1;
                Ok(None)
            }
            Verdict::Skip(reason) => {
                view.skipped.push(PruneSkippedView {
                    name: t.name.clone(),
                    reason,
                    last_activity: last,
                });
                Ok(None)
            }
        });
        match outcome {
            Ok(Some(removed)) => view.removed.push(removed),
            Ok(None) => {}
            Err(e) => view.failed.push(PruneFailedView {
                name: t.name.clone(),
                error: e.to_string(),
            }),
        }
    }
    view.counts.removed = view.removed.len();
    view.counts.skipped = view.skipped.len() + view.counts.not_archived;
    view.counts.failed = view.failed.len();
    Ok(view)
}

/// The facts of terminal `t` (read again under its locks) and its last activity as stored.
fn look(
    srv: &Server,
    t: &TerminalRow,
    rt: &TermRuntime,
    locked: bool,
) -> Result<(Facts, Option<String>), BatonError> {
    let now = srv.store.terminal(&t.id)?;
    let archived = now.is_some_and(|n| n.archived && !n.removing);
    let unfinished = srv
        .store
        .turns_summary(&t.id, None)?
        .last
        .is_some_and(|l| l.status.is_none());
    let running = locked
        || unfinished
        || rt.is_running()
        || rt.taken().is_some()
        || rt.extracting.load(Ordering::SeqCst) > 0;
    let last = srv.store.active_at(&t.id)?;
    let facts = Facts {
        archived,
        running,
        waiting: !srv.store.waiting_inputs(&t.id)?.is_empty(),
        active_at: last
            .as_deref()
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|d| d.with_timezone(&Utc)),
    };
    Ok((facts, last))
}

/// Removes one terminal (or, with `dry_run`, says what its removal would do).
fn prune_one(
    srv: &Server,
    t: &TerminalRow,
    last: Option<String>,
    dry_run: bool,
    force: bool,
) -> Result<PrunedView, BatonError> {
    let delete_branch = branch_goes(t, force)?;
    let branch = match (t.mode, &t.worktree) {
        (CheckoutMode::Worktree, Some(wt)) => Some(wt.branch.clone()),
        _ => None,
    };
    let mut out = PrunedView {
        name: t.name.clone(),
        last_activity: last.unwrap_or_default(),
        worktree: None,
        committed: None,
        kept_branch: branch.clone().filter(|_| !delete_branch),
        branch,
        branch_deleted: delete_branch,
    };
    if dry_run {
        out.worktree = match (t.mode, &t.worktree) {
            (CheckoutMode::Worktree, Some(wt)) => match git::locate(wt) {
                Located::Here => Some(wt.path.clone()),
                Located::Moved(p) => Some(p),
                Located::Gone => None,
            },
            _ => None,
        }
        .map(|p| p.to_string_lossy().into_owned());
        return Ok(out);
    }
    let how = Removal {
        delete_branch,
        force,
        purge: true,
    };
    let removed = removal::remove_settled(srv, t, how)?;
    out.worktree = removed.worktree_removed.flatten();
    out.committed = removed.committed.flatten();
    Ok(out)
}

/// Whether terminal `t`'s branch is deleted with it: merged (as `rm --delete-branch` judges
/// it), or `force`. What git refuses anyway (a locked worktree) is an error.
fn branch_goes(t: &TerminalRow, force: bool) -> Result<bool, BatonError> {
    let (CheckoutMode::Worktree, Some(wt)) = (t.mode, &t.worktree) else {
        return Ok(false);
    };
    let refused = |e: GitError| BatonError::bad_input(format!("cannot remove {}: {e}", t.name));
    match git::check_removable(wt, true, force) {
        Ok(()) => Ok(true),
        Err(GitError::Unmerged { .. }) => {
            git::check_removable(wt, false, force).map_err(refused)?;
            Ok(false)
        }
        Err(e) => Err(refused(e)),
    }
}

/// Starts retention when `[storage] retention_days` is set: a prune right away (after the
/// server is ready: it never delays or fails it) and every [`RETENTION_EVERY`]. Each run's
/// report, or error, goes to the server's log.
pub fn start_retention(srv: &Arc<Server>) {
    let Some(days) = srv.config.storage.retention() else {
        return;
    };
    crate::log_line!(
        "baton server: retention: archived terminals idle for {days} day(s) are pruned now and every {} h",
        RETENTION_EVERY.as_secs() / 3600
    );
    let srv = srv.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(RETENTION_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if srv.shutting_down.load(Ordering::SeqCst) {
                return;
            }
            let s = srv.clone();
            match tokio::task::spawn_blocking(move || prune(&s, days, false, false)).await {
                Ok(Ok(view)) => crate::log_line!("baton server: retention: {}", summary(&view)),
                Ok(Err(e)) => crate::log_line!("baton server: retention failed: {e}"),
                Err(e) => crate::log_line!("baton server: retention crashed: {e}"),
            }
        }
    });
}

/// One line of a prune's outcome, for the server's log.
pub fn summary(v: &PruneView) -> String {
    let names = |n: Vec<&str>| {
        if n.is_empty() {
            String::new()
        } else {
            format!(" ({})", n.join(", "))
        }
    };
    let failed: Vec<String> = v
        .failed
        .iter()
        .map(|f| format!("; {} failed: {}", f.name, f.error))
        .collect();
    format!(
        "{} removed{}, {} skipped, {} failed{}",
        v.counts.removed,
        names(v.removed.iter().map(|r| r.name.as_str()).collect()),
        v.counts.skipped,
        v.counts.failed,
        failed.concat()
    )
}

#[cfg(test)]
#[path = "prune_tests.rs"]
mod tests;
