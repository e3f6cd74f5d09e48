//! The lock files a write of baton's leaves when it is cut short (a crash between git's lock
//! and its rename), found and cleared where baton is the one writer: its branch's ref
//! (`refs/heads/baton/<name>.lock`, in the repository's common dir) and its worktree's own
//! `index.lock` and `HEAD.lock`. Never the main checkout's locks, nor another branch's: those
//! may be a git command of the user's, running now.
//!
//! A commit cut short between moving the branch and writing the index leaves the index as it
//! was before the commit while the files and HEAD agree: clearing its lock also settles that
//! index ([`settle_index`]), so the worktree is clean again and the next commit holds only the
//! next turn's changes.

use std::fs;
use std::path::{Path, PathBuf};

use git2::{Repository, Status};

use super::error::GitContext;
use super::{locate, GitError, Located, Worktree};

/// The lock files left in `wt`'s branch ref and its worktree's git dir, those that exist.
/// Asking changes nothing.
pub fn left_locks(wt: &Worktree) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let (Some(rel), Ok(main)) = (branch_ref(&wt.branch), Repository::open(&wt.repo)) {
        out.push(main.commondir().join(format!("{rel}.lock")));
    }
    if let Some(admin) = linked_git_dir(wt) {
        out.extend(["index.lock", "HEAD.lock"].map(|f| admin.join(f)));
    }
    out.retain(|p| fs::symlink_metadata(p).is_ok_and(|m| m.is_file()));
    out
}

/// Removes the lock files [`left_locks`] finds, and settles the worktree's index when its lock
/// was one of them. Returns the locks removed. Only for a time no write of baton's to `wt` can
/// be running: a server's start, or `baton doctor --fix` holding the server's lock.
pub fn clear_left_locks(wt: &Worktree) -> Result<Vec<PathBuf>, GitError> {
    let found = left_locks(wt);
    for lock in &found {
        match fs::remove_file(lock) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).ctx(|| format!("cannot remove {}", lock.display()))
            }
            _ => {}
        }
    }
    if found.iter().any(|p| p.ends_with("index.lock")) {
        if let Some(path) = checkout_of(wt) {
            settle_index(&super::open(&path)?)?;
        }
    }
    Ok(found)
}

/// `refs/heads/<branch>`, for a branch of baton's own (`baton/…`) with a valid name (never a
/// path that climbs out: a journal's worktree record is outside input after an import).
fn branch_ref(branch: &str) -> Option<String> {
    let refname = format!("refs/heads/{branch}");
    (branch.starts_with("baton/") && git2::Reference::is_valid_name(&refname)).then_some(refname)
}

/// Where the worktree's files are now, if it still exists.
fn checkout_of(wt: &Worktree) -> Option<PathBuf> {
    match locate(wt) {
        Located::Here => Some(wt.path.clone()),
        Located::Moved(p) => Some(p),
        Located::Gone => None,
    }
}

/// The git dir of `wt`'s linked worktree (`<common dir>/worktrees/<name>`); None when it is
/// gone or is not a linked worktree (a main checkout's locks are never baton's to clear).
fn linked_git_dir(wt: &Worktree) -> Option<PathBuf> {
    let repo = Repository::open(checkout_of(wt)?).ok()?;
    repo.is_worktree().then(|| super::clean_path(repo.path()))
}

/// Each path where the index differs from HEAD while the file on disk is HEAD's (a commit
/// that moved HEAD and died before writing the index) gets HEAD's entry back; the index is
/// written only when one did. What the index holds that is on disk, or that HEAD lacks and
/// the disk too, is kept: only the entries the cut-short commit would have written change.
fn settle_index(repo: &Repository) -> Result<(), GitError> {
    let root = super::checkout_root(repo)?;
    let staged = staged_paths(repo, &root)?;
    if staged.is_empty() {
        return Ok(());
    }
    let Ok(head) = repo.head().and_then(|h| h.peel_to_tree()) else {
        return Ok(());
    };
    let differs = disk_differs(repo, &head, &staged)?;
    let mut index = repo
        .index()
        .ctx(|| format!("cannot read the index of {}", root.display()))?;
    let mut changed = false;
    for p in staged.iter().filter(|p| !differs.contains(*p)) {
        let path = Path::new(p);
        let done = match head.get_path(path) {
            Ok(_) => index.add_path(path),
            Err(_) => index.remove_path(path),
        };
        done.ctx(|| format!("cannot settle {p} in the index of {}", root.display()))?;
        changed = true;
    }
    if changed {
        index
            .write()
            .ctx(|| format!("cannot write the index of {}", root.display()))?;
    }
    Ok(())
}

/// The paths whose index entry differs from HEAD's.
fn staged_paths(repo: &Repository, root: &Path) -> Result<Vec<String>, GitError> {
    let mut opts = git2::StatusOptions::new();
    opts.show(git2::StatusShow::Index)
        .include_untracked(false)
        .exclude_submodules(true);
    let staged = Status::INDEX_NEW
        | Status::INDEX_MODIFIED
        | Status::INDEX_DELETED
        | Status::INDEX_TYPECHANGE
        | Status::INDEX_RENAMED;
    let statuses = repo
        .statuses(Some(&mut opts))
        .ctx(|| format!("cannot read the status of {}", root.display()))?;
    Ok(statuses
        .iter()
        .filter(|s| s.status().intersects(staged))
        .map(|s| String::from_utf8_lossy(s.path_bytes()).into_owned())
        .collect())
}

/// Which of `paths` differ between HEAD's tree and the disk (ignored and untracked files
/// included: a file HEAD lacks that is on disk differs).
fn disk_differs(
    repo: &Repository,
    head: &git2::Tree<'_>,
    paths: &[String],
) -> Result<Vec<String>, GitError> {
    let mut opts = git2::DiffOptions::new();
    for p in paths {
        opts.pathspec(p);
    }
    opts.disable_pathspec_match(true)
        .include_untracked(true)
        .include_ignored(true)
        .include_typechange(true);
    let diff = repo
        .diff_tree_to_workdir(Some(head), Some(&mut opts))
        .ctx(|| "cannot compare HEAD with the disk".to_string())?;
    Ok(diff
        .deltas()
        .flat_map(|d| [d.old_file().path(), d.new_file().path()])
        .flatten()
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}

/// Tests stop the server dead at `point` of an automatic commit (`BATON_CRASH_AT=POINT`),
/// leaving the lock file `lock` names as a kill inside git's own write of it would: written,
/// never renamed into place.
pub(super) fn crash_leaving(point: &str, lock: impl FnOnce() -> Option<PathBuf>) {
    if std::env::var_os("BATON_CRASH_AT").is_some_and(|v| v == point) {
        if let Some(lock) = lock() {
            let _ = fs::write(lock, b"");
        }
        std::process::abort();
    }
}

#[cfg(test)]
#[path = "locks_tests.rs"]
mod tests;
