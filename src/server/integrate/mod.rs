//! The integration lane (`baton integrate`, issue 44): for one repository, every live
//! terminal's branch merged onto the base branch's tip, oldest terminal first, in a worktree
//! of baton's own (`<data>/lanes/<repo>-<hash>`, reused, detached, never a terminal's), and
//! each terminal reported clean, conflicting (with whom, on which files) or failing the
//! repository's check. It moves nothing: no terminal's branch, checkout or index, nor the base
//! branch. One run at a time per repository; the last report is kept beside the lane
//! (`<key>.json`). See ARCHITECTURE.md, "The integration lane".

mod auto;
mod check;
mod judge;
mod run;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::state::Server;
use crate::config::{RepoFile, REPO_FILE};
use crate::error::BatonError;
use crate::git::{self, Integration, Located};
use crate::protocol::lane::{IntegrateView, LaneStatus, LaneTerminalView};
use crate::store::TerminalRow;
use crate::words::CheckoutMode;
pub use auto::after_commit;
use judge::{FileFacts, Member};

/// `baton integrate NAME|PATH`: the lane of the repository terminal `name` works in (its base
/// branch), or of the repository at `dir` (the base branch of its oldest terminal).
pub async fn integrate(
    srv: &Arc<Server>,
    name: Option<String>,
    dir: Option<String>,
) -> Result<IntegrateView, BatonError> {
    let (repo, base) = match (name, dir) {
        (Some(name), _) => {
            let term = srv.terminal(&name)?;
            let wt = term
                .worktree
                .filter(|_| term.mode == CheckoutMode::Worktree);
            let Some(wt) = wt else {
                return Err(BatonError::bad_input(format!(
                    "{name} works in {} itself, not in a worktree of its own: it has no branch to integrate",
                    term.dir
                )));
            };
            (canonical(&wt.repo), Some(wt.base_branch))
        }
        (None, Some(dir)) => (repository_at(Path::new(&dir))?, None),
        (None, None) => return Err(BatonError::bad_input("give a terminal's name or a path")),
    };
    run_for(srv, &repo, base).await
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// The main checkout of the repository holding `dir`.
fn repository_at(dir: &Path) -> Result<PathBuf, BatonError> {
    match git::inspect(dir).map_err(|e| BatonError::bad_input(e.to_string()))? {
        git::RepoState::NotRepo => Err(BatonError::bad_input(format!(
            "{} is not inside a git repository: nothing to integrate",
            dir.display()
        ))),
        git::RepoState::NoCommit { root }
        | git::RepoState::Detached { root }
        | git::RepoState::Branch { root, .. } => Ok(canonical(
            &git::main_checkout(&root).map_err(|e| BatonError::bad_input(e.to_string()))?,
        )),
    }
}

/// The live terminals working in worktrees of `repo`, oldest first (archived ones left out).
fn members_of(srv: &Server, repo: &Path) -> Result<Vec<TerminalRow>, BatonError> {
    let mut rows: Vec<TerminalRow> = srv
        .store
        .terminals()?
        .into_iter()
        .filter(|t| !t.removing && !t.archived && t.mode == CheckoutMode::Worktree)
        .filter(|t| {
            t.worktree
                .as_ref()
                .is_some_and(|w| canonical(&w.repo) == repo)
        })
        .collect();
    rows.sort_by(|a, b| (&a.created_at, &a.name).cmp(&(&b.created_at, &b.name)));
    Ok(rows)
}

/// Where the lane of `repo` lives: `<data>/lanes/<folder>-<8 hex of its path's SHA-256>`.
pub fn lane_dir(srv: &Server, repo: &Path) -> PathBuf {
    let leaf = repo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    let hash = crate::trust::digest(repo.as_os_str().as_encoded_bytes());
    srv.data_root()
        .join("lanes")
        .join(format!("{leaf}-{}", &hash[..8]))
}

/// `<lane>.<ext>`, beside the lane's folder (the report, the check's log).
fn beside(dir: &Path, ext: &str) -> PathBuf {
    let mut name = dir.as_os_str().to_os_string();
    name.push(format!(".{ext}"));
    PathBuf::from(name)
}

/// One run at a time per repository.
fn repo_lock(repo: &Path) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: Mutex<Option<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>> = Mutex::new(None);
    let mut all = LOCKS.lock().unwrap_or_else(|p| p.into_inner());
    all.get_or_insert_with(HashMap::new)
        .entry(repo.to_path_buf())
        .or_default()
        .clone()
}

/// One run on `repo`, then the lane dropped if its last terminal went meanwhile (a removal
/// during the run leaves the lane to the run: see [`drop_if_unused`]).
async fn run_for(
    srv: &Arc<Server>,
    repo: &Path,
    base: Option<String>,
) -> Result<IntegrateView, BatonError> {
    let lock = repo_lock(repo);
    let one = lock.lock().await;
    let ran = run_locked(srv, repo, base).await;
    drop(one);
    drop_if_unused(srv, repo);
    ran
}

async fn run_locked(
    srv: &Arc<Server>,
    repo: &Path,
    base: Option<String>,
) -> Result<IntegrateView, BatonError> {
    let rows = members_of(srv, repo)?;
    let Some(first) = rows.first() else {
        return Err(BatonError::bad_input(format!(
            "no live terminal works in {}: nothing to integrate (baton new NAME --dir {})",
            repo.display(),
            repo.display()
        )));
    };
    let base = base
        .or_else(|| first.worktree.as_ref().map(|w| w.base_branch.clone()))
        .unwrap_or_default();
    let integ = Integration::open(repo).map_err(|e| BatonError::failed(e.to_string()))?;
    let Some(base_commit) = integ.tip(&base) else {
        return Err(BatonError::bad_input(format!(
            "the base branch {base} of {} no longer exists: nothing to merge onto (recreate it, or run baton integrate on a terminal based on another branch)",
            repo.display()
        )));
    };
    let members: Vec<Member> = rows.iter().map(|t| member(&integ, t, &base)).collect();
    drop(integ);
    let dir = lane_dir(srv, repo);
    let (check, mut notes) = check_of(srv, repo);
    notes.extend(skipped_note(&members));
    let plan = run::Plan {
        repo: repo.to_path_buf(),
        base,
        base_commit,
        log: beside(&dir, "log"),
        lane_dir: dir.clone(),
        check,
        members,
        notes,
    };
    let view = run::run(plan).await?;
    save(&beside(&dir, "json"), &view);
    Ok(view)
}

/// A terminal as the lane takes it: its branch's tip, or why it cannot be merged.
fn member(integ: &Integration, t: &TerminalRow, base: &str) -> Member {
    let Some(wt) = &t.worktree else {
        return Member::default();
    };
    let mut m = Member {
        name: t.name.clone(),
        branch: wt.branch.clone(),
        ..Member::default()
    };
    if wt.base_branch != base {
        m.skip = Some(format!(
            "based on {}, not {base}: run baton integrate {} for its lane",
            wt.base_branch, t.name
        ));
        return m;
    }
    m.tip = integ.tip(&wt.branch);
    if m.tip.is_none() {
        m.skip = Some(format!(
            "its branch {} no longer exists: nothing of it could be merged",
            wt.branch
        ));
    } else if git::locate(wt) == Located::Gone {
        m.note = Some(format!(
            "its worktree {} is gone (removed by hand): its branch was merged as last committed",
            wt.path.display()
        ));
    }
    m
}

fn skipped_note(members: &[Member]) -> Option<String> {
    let skipped: Vec<&str> = members
        .iter()
        .filter(|m| m.skip.is_some())
        .map(|m| m.name.as_str())
        .collect();
    (!skipped.is_empty()).then(|| {
        format!(
            "could not merge {}: see each one's note",
            skipped.join(", ")
        )
    })
}

/// The check command for `repo`, and what to tell about it.
fn check_of(srv: &Server, repo: &Path) -> (Option<(String, std::time::Duration)>, Vec<String>) {
    let file = repo.join(REPO_FILE);
    let facts = match fs::read(&file) {
        Err(_) => FileFacts::Absent,
        Ok(bytes) => match RepoFile::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(parsed) => FileFacts::Found {
                file: parsed.integrate,
                trusted: crate::trust::trusted(srv.store.data_dir(), &file, &bytes),
            },
            Err(e) => FileFacts::Invalid(e.to_string()),
        },
    };
    judge::check_plan(srv.config.repo(repo), &facts, &file)
}

/// The last report of a lane (none: never ran, or unreadable).
fn load(file: &Path) -> Option<IntegrateView> {
    serde_json::from_slice(&fs::read(file).ok()?).ok()
}

/// Terminal `t`'s row in its repository's last lane report, when it is not clean: what its
/// view marks (`TerminalView.lane`). Read for every terminal of every listing, so from
/// [`reports`]: no syscall once its repository's report was read.
pub fn mark_of(srv: &Server, t: &TerminalRow) -> Option<LaneTerminalView> {
    let wt = t.worktree.as_ref()?;
    report_of(srv, &wt.repo)?
        .terminals
        .iter()
        .find(|r| r.name == t.name && r.status != LaneStatus::Clean)
        .cloned()
}

/// Each lane's last report as read, by (data directory, repository path as a terminal
/// names it): the server writes them all ([`save`], [`drop_if_unused`]), and forgets them
/// all then ([`forget_reports`]), so what is kept is what is on disk.
type Reports = HashMap<(PathBuf, PathBuf), Option<Arc<IntegrateView>>>;

fn reports() -> std::sync::MutexGuard<'static, Option<Reports>> {
    static REPORTS: Mutex<Option<Reports>> = Mutex::new(None);
    REPORTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The last lane report of the repository at `repo` (none: never ran, or unreadable).
fn report_of(srv: &Server, repo: &Path) -> Option<Arc<IntegrateView>> {
    let key = (srv.data_root().to_path_buf(), repo.to_path_buf());
    // Read under the lock: a report saved meanwhile is forgotten after this read, not before.
    let mut all = reports();
    let known = all.get_or_insert_with(HashMap::new);
    if let Some(report) = known.get(&key) {
        return report.clone();
    }
    let read = load(&beside(&lane_dir(srv, &canonical(repo)), "json")).map(Arc::new);
    known.insert(key, read.clone());
    read
}

/// After a report is written or removed: every one is read again when next listed.
fn forget_reports() {
    *reports() = None;
}

/// Keeps the report beside the lane (written whole, renamed into place).
fn save(file: &Path, view: &IntegrateView) {
    let written = serde_json::to_vec(view)
        .map_err(std::io::Error::other)
        .and_then(|b| crate::paths::replace_private(file, &b));
    if let Err(e) = written {
        crate::log_line!("baton server: cannot write {}: {e}", file.display());
    }
    forget_reports();
}

/// Removes the lane of `repo` (its worktree, its report and log) when no terminal is left
/// working in it: `rm` and `prune` call this after a removal.
pub fn drop_if_unused(srv: &Server, repo: &Path) {
    let repo = canonical(repo);
    let left = srv
        .store
        .terminals()
        .unwrap_or_default()
        .into_iter()
        .any(|t| {
            !t.removing
                && t.worktree
                    .as_ref()
                    .is_some_and(|w| canonical(&w.repo) == repo)
        });
    let dir = lane_dir(srv, &repo);
    if left || !dir.exists() {
        return;
    }
    // A run under way keeps its lane; its end calls this again (`run_for`).
    let lock = repo_lock(&repo);
    let Ok(_one) = lock.try_lock() else {
        return;
    };
    if let Err(e) = git::remove_lane(&repo, &dir) {
        crate::log_line!(
            "baton server: cannot remove the lane {}: {e}",
            dir.display()
        );
    }
    for ext in ["json", "log"] {
        let _ = fs::remove_file(beside(&dir, ext));
    }
    forget_reports();
}
