//! A new worktree made ready to work in (issue 43): the ignored files its repository's
//! `.worktreeinclude` lists copied in (`git::copy_included`), a block of ports of its own, and
//! the repository's set-up command run in it before its first turn (the runner waits for it:
//! [`wait`]). What came of it is kept in `terminals/<id>/setup.json` (the ports for the
//! terminal's life, across restarts) and the command's output in `setup.log`; `show` and
//! `log` read them back. See ARCHITECTURE.md, "Worktree set-up".

mod plan;
mod ports;
pub(super) mod run;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::state::Server;
use crate::config::{RepoFile, REPO_FILE};
use crate::git::{self, Worktree};
use crate::protocol::views::{PortsView, SetupState, SetupView};
use plan::RepoFileFacts;

/// What `setup.json` keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Kept {
    #[serde(default)]
    ports: Option<PortsView>,
    #[serde(default)]
    setup: SetupView,
}

fn kept_file(srv: &Server, tid: &str) -> PathBuf {
    srv.store.data_dir().terminal(tid).join("setup.json")
}

fn log_file(srv: &Server, tid: &str) -> PathBuf {
    srv.store.data_dir().terminal(tid).join("setup.log")
}

/// What each terminal's `setup.json` holds, as last read or written, by its path: every
/// listing shows every terminal's ports and set-up, so the file is read once per server, not
/// once per terminal per `ls`. This module is its only writer ([`save`]); a removal forgets
/// it ([`forget`]), since `prune` deletes the file with the terminal's data.
type Known = std::collections::HashMap<PathBuf, Option<Kept>>;

fn known() -> std::sync::MutexGuard<'static, Option<Known>> {
    static KNOWN: Mutex<Option<Known>> = Mutex::new(None);
    KNOWN.lock().unwrap_or_else(|p| p.into_inner())
}

fn load(srv: &Server, tid: &str) -> Option<Kept> {
    let file = kept_file(srv, tid);
    // Read under the lock, as [`save`] writes: what is kept is what the file holds.
    let mut all = known();
    let all = all.get_or_insert_with(Default::default);
    if let Some(kept) = all.get(&file) {
        return kept.clone();
    }
    let read = fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Kept>(&b).ok());
    all.insert(file, read.clone());
    read
}

/// Writes `setup.json` whole, renamed into place.
fn save(srv: &Server, tid: &str, kept: &Kept) {
    let file = kept_file(srv, tid);
    let mut all = known();
    let all = all.get_or_insert_with(Default::default);
    let written = serde_json::to_vec(kept)
        .map_err(std::io::Error::other)
        .and_then(|b| crate::paths::replace_private(&file, &b));
    match written {
        Ok(()) => all.insert(file, Some(kept.clone())),
        Err(e) => {
            crate::log_line!("baton server: cannot write {}: {e}", file.display());
            all.remove(&file)
        }
    };
}

/// Terminal `tid` was removed: what its `setup.json` held is read again if it comes back.
pub fn forget(srv: &Server, tid: &str) {
    if let Some(all) = known().as_mut() {
        all.remove(&kept_file(srv, tid));
    }
}

/// Makes terminal `tid`'s new worktree `wt` (its runs in `dir`) ready: copies the included
/// files, chooses its ports, and starts its set-up command. Never fails: what went wrong is a
/// note the terminal's view shows (and that is returned, for the answer), and the terminal is
/// usable either way.
pub fn prepare(srv: &Arc<Server>, tid: &str, dir: &Path, wt: &Worktree) -> Vec<String> {
    let included = git::copy_included(wt);
    let root = wt.repo.canonicalize().unwrap_or_else(|_| wt.repo.clone());
    let file = root.join(REPO_FILE);
    let facts = repo_file(srv, &file);
    let plan = plan::plan(srv.config.repo(&root), &facts, &file);
    let mut view = SetupView {
        copied: included.copied.len(),
        notes: included.notes,
        ..SetupView::default()
    };
    view.notes.extend(plan.notes);
    let ports = plan
        .ports
        .and_then(|n| choose_ports(srv, tid, n, &mut view.notes));
    let state = match (&plan.run, &plan.untrusted) {
        (Some(_), _) => SetupState::Running,
        (None, Some(_)) => SetupState::Untrusted,
        (None, None) => SetupState::None,
    };
    view.command = plan.run.as_ref().map(|(c, _)| c.clone()).or(plan.untrusted);
    view.state = state;
    if view == SetupView::default() && ports.is_none() {
        return Vec::new();
    }
    let notes = view.notes.clone();
    for n in &view.notes {
        crate::log_line!("baton server: set-up of {tid}: {n}");
    }
    if plan.run.is_some() {
        // Before the file says running: a view in between would take it for cut short.
        srv.runtime(tid).setup_running.send_replace(true);
    }
    save(srv, tid, &Kept { ports, setup: view });
    if let Some((command, timeout)) = plan.run {
        let job = run::Job {
            tid: tid.to_string(),
            dir: dir.to_path_buf(),
            command,
            timeout,
            env: env_of(ports),
            log: log_file(srv, tid),
        };
        tokio::spawn(run::run(srv.clone(), job));
    }
    notes
}

fn repo_file(srv: &Server, file: &Path) -> RepoFileFacts {
    let Ok(bytes) = fs::read(file) else {
        return RepoFileFacts::Absent;
    };
    match RepoFile::parse(&String::from_utf8_lossy(&bytes)) {
        Ok(parsed) => RepoFileFacts::Found {
            file: parsed.worktree,
            trusted: crate::trust::trusted(srv.store.data_dir(), file, &bytes),
        },
        Err(e) => RepoFileFacts::Invalid(e.to_string()),
    }
}

/// One block at a time, so two new terminals never get the same one.
static CHOOSING: Mutex<()> = Mutex::new(());

/// A block of `count` ports for `tid`, none in another live terminal's block.
fn choose_ports(srv: &Server, tid: &str, count: u16, notes: &mut Vec<String>) -> Option<PortsView> {
    let _one = CHOOSING.lock().unwrap_or_else(|p| p.into_inner());
    let taken: Vec<(u16, u16)> = srv
        .store
        .terminals()
        .unwrap_or_default()
        .iter()
        .filter(|t| !t.removing && t.id != tid)
        .filter_map(|t| load(srv, &t.id)?.ports)
        .map(|p| (p.first, p.count))
        .collect();
    match ports::choose(&taken, count, ports::RANGE, ports::bindable) {
        Some(first) => Some(PortsView { first, count }),
        None => {
            notes.push(format!(
                "no block of {count} free ports is left in {}-{} (other terminals hold {}): this terminal has no ports of its own (remove a terminal, or ask for fewer with ports = N)",
                ports::RANGE.start(),
                ports::RANGE.end(),
                taken.len()
            ));
            None
        }
    }
}

fn env_of(ports: Option<PortsView>) -> Vec<(String, String)> {
    ports
        .map(|p| {
            vec![
                ("BATON_PORT".to_string(), p.first.to_string()),
                ("BATON_PORTS".to_string(), p.count.to_string()),
            ]
        })
        .unwrap_or_default()
}

/// `BATON_PORT` and `BATON_PORTS` for terminal `tid`'s CLI and shell (none without ports).
pub fn env(srv: &Server, tid: &str) -> Vec<(String, String)> {
    env_of(load(srv, tid).and_then(|k| k.ports))
}

/// Waits until terminal `tid`'s set-up command, if one runs, has ended: its first turn runs
/// in the worktree it made ready.
pub async fn wait(srv: &Server, tid: &str) {
    let mut rx = srv.runtime(tid).setup_running.subscribe();
    let _ = rx.wait_for(|running| !*running).await;
}

/// The terminal's ports and set-up as its view shows them (`output`: with the command's
/// output, for `log`). A set-up journalled running that this server did not start was cut
/// short by a stop.
pub fn view(srv: &Server, tid: &str, output: bool) -> (Option<PortsView>, Option<SetupView>) {
    let Some(mut kept) = load(srv, tid) else {
        return (None, None);
    };
    if kept.setup.state == SetupState::Running && !*srv.runtime(tid).setup_running.borrow() {
        kept.setup.state = SetupState::Interrupted;
    }
    if output && kept.setup.command.is_some() {
        kept.setup.output = run::tail(&log_file(srv, tid));
    }
    let setup = (kept.setup != SetupView::default()).then_some(kept.setup);
    (kept.ports, setup)
}

/// Records how the command ended, and tells watchers.
fn finished(
    srv: &Server,
    tid: &str,
    state: SetupState,
    exit_code: Option<i32>,
    note: Option<String>,
) {
    let mut kept = load(srv, tid).unwrap_or_default();
    kept.setup.state = state;
    kept.setup.exit_code = exit_code;
    kept.setup.notes.extend(note);
    save(srv, tid, &kept);
    srv.runtime(tid).setup_running.send_replace(false);
    srv.announce(tid);
}
