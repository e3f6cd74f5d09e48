//! `baton rm` in two steps that survive a crash: the intent is journalled first
//! (`RemovalStarted`: from then on the terminal is gone from listings but its name is still
//! taken), then the checkout is removed, then `TerminalRemoved` ends it. A removal a crash cut
//! short is finished by the next server start or `baton reindex` ([`finish_removals`]), which
//! says so. What git would refuse is checked before the intent is written, so a refusal
//! changes nothing; a failure after it (rare: git failing mid-way) journals
//! `RemovalCancelled` and the terminal is back. `baton prune` removes the same way
//! ([`remove_settled`]), and purges: once `TerminalRemoved` is synced, the terminal's folder
//! under `terminals/` goes too (`store::purge`). See ARCHITECTURE.md ("The journal's records").

use super::state::Server;
use crate::error::BatonError;
use crate::git;
use crate::protocol::views::RemovedView;
use crate::protocol::WatchEvent;
use crate::store::{PendingRemoval, Record, TerminalRow};
use crate::words::CheckoutMode;

/// `baton rm`: refused while the terminal runs or has sends waiting.
pub async fn remove(
    srv: &Server,
    name: &str,
    delete_branch: bool,
    force: bool,
) -> Result<RemovedView, BatonError> {
    let t = srv.terminal(name)?;
    let rt = srv.runtime(&t.id);
    if rt.ending.is_exiting() {
        // The last turn's CLI still exits, in the checkout that goes: stopped rather than
        // waited for (its turn is recorded), once nothing refuses the removal.
        super::terminals::refuse_unfinished(srv, &t, "remove")?;
        removable(&t, delete_branch, force)?;
        rt.ending.hurry();
    }
    // Holding the turn lock keeps a send from starting while the terminal is removed.
    let _turn = super::terminals::settled(srv, &rt, &t, "remove").await?;
    // A warm CLI still being started for it is waited for, and retired below.
    srv.warm.settled(&t.id).await;
    removable(&t, delete_branch, force)?;
    // Its set-up command runs in the worktree that goes: stopped (its whole group) first.
    if *rt.setup_running.borrow() {
        rt.setup_stop.notify_one();
        super::setup::wait(srv, &t.id).await;
    }
    let how = Removal {
        delete_branch,
        force,
        purge: false,
    };
    remove_settled(srv, &t, how)
}

/// What git would refuse of removing `t` (and its branch): checked before anything changes.
fn removable(t: &TerminalRow, delete_branch: bool, force: bool) -> Result<(), BatonError> {
    match (t.mode, &t.worktree) {
        (CheckoutMode::Worktree, Some(wt)) => git::check_removable(wt, delete_branch, force)
            .map_err(|e| BatonError::bad_input(format!("cannot remove {}: {e}", t.name))),
        _ if delete_branch => Err(BatonError::bad_input(format!(
            "{} has no branch of its own: drop --delete-branch",
            t.name
        ))),
        _ => Ok(()),
    }
}

/// What a removal takes away besides the terminal and its worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Removal {
    /// Its branch too.
    pub delete_branch: bool,
    /// Even when the branch is not merged.
    pub force: bool,
    /// Baton's own data of it (`terminals/<id>/`, see `store::purge`): `baton prune`.
    pub purge: bool,
}

/// Removes terminal `t` in the two journalled steps. The caller holds its turn lock, saw
/// nothing running or waiting, and checked what git would refuse.
pub(super) fn remove_settled(
    srv: &Server,
    t: &TerminalRow,
    how: Removal,
) -> Result<RemovedView, BatonError> {
    // Its warm CLI runs in the checkout that goes.
    if let Some(cli) = srv.warm.take(&t.id) {
        cli.retire();
    }
    srv.store.append(
        &t.id,
        Record::RemovalStarted {
            delete_branch: how.delete_branch,
            force: how.force,
            purge: how.purge,
        },
    )?;
    srv.shells.hang_up(&t.id);
    let _ = srv.watch.send(WatchEvent::Removed {
        name: t.name.clone(),
    });
    crash_point("rm-started");
    let pending = PendingRemoval {
        terminal_id: t.id.clone(),
        name: t.name.clone(),
        mode: t.mode,
        worktree: t.worktree.clone(),
        delete_branch: how.delete_branch,
        force: how.force,
        purge: how.purge,
    };
    carry_out(srv, &pending).inspect_err(|e| {
        let cancelled = Record::RemovalCancelled {
            error: e.to_string(),
        };
        if srv.store.append(&t.id, cancelled).is_ok() {
            srv.announce(&t.id);
        }
    })
}

/// Removes the checkout and ends the removal in the journal.
fn carry_out(srv: &Server, p: &PendingRemoval) -> Result<RemovedView, BatonError> {
    let removed = super::checkout::remove(
        &p.name,
        p.mode,
        p.worktree.as_ref(),
        p.delete_branch,
        p.force,
    )?;
    crash_point("rm-checkout");
    srv.store.append(&p.terminal_id, Record::TerminalRemoved)?;
    if let Some(wt) = &p.worktree {
        super::integrate::drop_if_unused(srv, &wt.repo);
    }
    if p.purge {
        crash_point("rm-removed");
        srv.store.purge(&p.terminal_id);
    }
    super::setup::forget(srv, &p.terminal_id);
    Ok(removed)
}

/// Finishes every removal a crash cut short; returns the names it finished. One that fails
/// again is cancelled (the terminal comes back, the error in the server's log).
pub fn finish_removals(srv: &Server) -> Vec<String> {
    let Ok(pending) = srv.store.pending_removals() else {
        return Vec::new();
    };
    let mut done = Vec::new();
    for p in pending {
        match carry_out(srv, &p) {
            Ok(_) => {
                crate::log_line!(
                    "baton server: finished removing {} (a crash had cut its removal short)",
                    p.name
                );
                let _ = srv.watch.send(WatchEvent::Removed {
                    name: p.name.clone(),
                });
                done.push(p.name);
            }
            Err(e) => {
                crate::log_line!("baton server: cannot finish removing {}: {e}", p.name);
                let cancelled = Record::RemovalCancelled {
                    error: e.to_string(),
                };
                let _ = srv.store.append(&p.terminal_id, cancelled);
            }
        }
    }
    done
}

/// Tests stop the server dead here (`BATON_CRASH_AT=NAME`, or `NAME@K`: the K-th time this
/// server gets here), as a `kill -9` would.
pub(super) fn crash_point(name: &str) {
    static HITS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let Some(at) = std::env::var_os("BATON_CRASH_AT") else {
        return;
    };
    let at = at.to_string_lossy();
    let (point, nth) = match at.split_once('@') {
        Some((point, k)) => (point, k.parse().unwrap_or(1)),
        None => (&*at, 1),
    };
    if point == name && HITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 >= nth {
        std::process::abort();
    }
}
