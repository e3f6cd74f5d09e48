//! `[repos."PATH"] integrate = "auto"`: the lane runs again in the background after each turn's
//! automatic commit in that repository, never slowing the turn. One run at a time per
//! repository; commits that land meanwhile ask for one more run, which takes the newest tips
//! (the latest state wins, the runs in between are skipped). Each terminal whose row went from
//! clean to conflicting is said in the server's log and announced to watchers (its view's
//! `lane` mark; the multiplexer rings as for a turn that ended out of view).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::super::state::Server;
use crate::config::IntegrateWhen;
use crate::protocol::lane::{IntegrateView, LaneStatus};
use crate::store::TerminalRow;

/// Per repository: whether a run is under way, and whether another was asked for meanwhile.
static PENDING: Mutex<Option<HashMap<PathBuf, bool>>> = Mutex::new(None);

/// After terminal `term`'s turn committed: starts (or asks for one more) background run of its
/// repository's lane when the user asked for `integrate = "auto"` there.
pub fn after_commit(srv: &Arc<Server>, term: &TerminalRow) {
    let Some(wt) = &term.worktree else {
        return;
    };
    let repo = super::canonical(&wt.repo);
    let auto = srv.config.repo(&repo).and_then(|r| r.integrate) == Some(IntegrateWhen::Auto);
    if !auto || !claim(&repo) {
        return;
    }
    let srv = srv.clone();
    tokio::spawn(async move {
        loop {
            let before = super::load(&super::beside(&super::lane_dir(&srv, &repo), "json"));
            match super::run_for(&srv, &repo, None).await {
                Ok(view) => said(&srv, before.as_ref(), &view),
                Err(e) => crate::log_line!(
                    "baton server: the integration lane of {} could not run: {e}",
                    repo.display()
                ),
            }
            if !again(&repo) {
                break;
            }
        }
    });
}

/// Takes the repository's run (true), or asks the one under way for another (false).
fn claim(repo: &Path) -> bool {
    let mut all = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    let all = all.get_or_insert_with(HashMap::new);
    match all.get_mut(repo) {
        Some(more) => {
            *more = true;
            false
        }
        None => {
            all.insert(repo.to_path_buf(), false);
            true
        }
    }
}

/// Whether another run was asked for; when not, the repository's run ends here.
fn again(repo: &Path) -> bool {
    let mut all = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    let all = all.get_or_insert_with(HashMap::new);
    match all.get_mut(repo) {
        Some(more) if *more => {
            *more = false;
            true
        }
        _ => {
            all.remove(repo);
            false
        }
    }
}

/// The terminals that went from clean (or not in the last report) to conflicting. Pure.
pub fn newly_conflicting(before: Option<&IntegrateView>, now: &IntegrateView) -> Vec<String> {
    now.terminals
        .iter()
        .filter(|t| t.status == LaneStatus::Conflict)
        .filter(|t| {
            before
                .and_then(|b| b.terminals.iter().find(|o| o.name == t.name))
                .is_none_or(|o| o.status == LaneStatus::Clean)
        })
        .map(|t| t.name.clone())
        .collect()
}

/// Logs what newly conflicts, and announces every terminal of the report (their marks).
fn said(srv: &Server, before: Option<&IntegrateView>, now: &IntegrateView) {
    for name in newly_conflicting(before, now) {
        crate::log_line!(
            "baton server: {name} now conflicts in the integration lane of {} (baton integrate {name})",
            now.repo
        );
    }
    for t in &now.terminals {
        if let Ok(Some(id)) = srv.store.terminal_id(&t.name) {
            srv.announce(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::lane::LaneTerminalView;
    use pretty_assertions::assert_eq;

    fn report(rows: &[(&str, LaneStatus)]) -> IntegrateView {
        IntegrateView {
            terminals: rows
                .iter()
                .map(|(n, s)| LaneTerminalView {
                    name: n.to_string(),
                    status: *s,
                    ..LaneTerminalView::default()
                })
                .collect(),
            ..IntegrateView::default()
        }
    }

    #[test]
    fn only_a_move_from_clean_to_conflicting_is_news() {
        use LaneStatus::*;
        let before = report(&[
            ("a", Clean),
            ("b", Conflict),
            ("c", CheckFailed),
            ("d", Clean),
        ]);
        let now = report(&[
            ("a", Conflict),
            ("b", Conflict),
            ("c", Conflict),
            ("d", Clean),
            ("e", Conflict),
        ]);
        assert_eq!(newly_conflicting(Some(&before), &now), vec!["a", "e"]);
        assert_eq!(newly_conflicting(None, &now).len(), 4);
    }

    #[test]
    fn one_run_at_a_time_and_one_more_when_asked() {
        let repo = Path::new("/tmp/baton-auto-test-repo");
        assert!(claim(repo));
        assert!(!claim(repo));
        assert!(!claim(repo), "two asks meanwhile are one more run");
        assert!(again(repo));
        assert!(!again(repo));
        assert!(claim(repo), "free again");
        assert!(!again(repo));
    }
}
