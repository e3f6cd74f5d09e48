//! A terminal's worktree over its life: create, find after a move, recreate, remove.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use git2::{BranchType, Reference, Repository, WorktreeAddOptions, WorktreeLockStatus};

use super::error::GitContext;
use super::{
    auto_commit, branch_name, changed_paths, clean_path, ensure_writable, inspect, is_read_only,
    main_repo_path, open, same_path, GitError, RepoState, Worktree,
};

/// Where a worktree is now, according to git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Still at `Worktree::path`.
    Here,
    /// Moved (`git worktree move`, or a renamed parent then `git worktree repair`).
    Moved(PathBuf),
    /// Deleted, or moved without telling git: [`recreate`] brings it back from its branch.
    Gone,
}

/// What [`remove`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// The commit made of leftover uncommitted work, if there was any.
    pub committed: Option<String>,
    /// The directory removed (None: it was already gone).
    pub path: Option<PathBuf>,
    /// Whether the branch was deleted (it is kept unless asked).
    pub branch_deleted: bool,
}

/// Creates branch `baton/<terminal>` from the HEAD of the repository containing `repo_dir`
/// and a worktree for it at `into` (which must not exist; its parents are created).
/// Runs in a subdirectory of `repo_dir`'s root belong in the same subdirectory of the worktree.
pub fn create_worktree(repo_dir: &Path, terminal: &str, into: &Path) -> Result<Worktree, GitError> {
    let (root, base_branch, head) = on_branch(repo_dir)?;
    let repo = open(&root)?;
    branch_worktree(&repo, terminal, into, &head, base_branch)
}

/// A worktree for `terminal` on a new branch started at commit `start` of `from`'s repository
/// (a fork or rewind of the terminal `from` belongs to). Its base branch is `from`'s: merging
/// it lands where `from` would.
pub fn create_worktree_at(
    from: &Worktree,
    terminal: &str,
    into: &Path,
    start: &str,
) -> Result<Worktree, GitError> {
    let repo = open(&from.repo)?;
    branch_worktree(&repo, terminal, into, start, from.base_branch.clone())
}

/// A worktree for `terminal` on a new branch in the repository containing `repo_dir`, started
/// at commit `start` when the repository has it, else at its HEAD (an import whose commit did
/// not come along). Says which: `true` when it started at `start`. The base branch is the one
/// HEAD is on.
pub fn create_worktree_from(
    repo_dir: &Path,
    terminal: &str,
    into: &Path,
    start: Option<&str>,
) -> Result<(Worktree, bool), GitError> {
    let (root, base_branch, head) = on_branch(repo_dir)?;
    let repo = open(&root)?;
    let found = start.filter(|c| has_commit(&repo, c));
    let wt = branch_worktree(&repo, terminal, into, found.unwrap_or(&head), base_branch)?;
    Ok((wt, found.is_some()))
}

/// The root, branch and HEAD commit of the repository containing `repo_dir`, which must be on
/// a branch with a commit.
fn on_branch(repo_dir: &Path) -> Result<(PathBuf, String, String), GitError> {
    match inspect(repo_dir)? {
        RepoState::NotRepo => Err(GitError::NotRepo {
            dir: repo_dir.to_path_buf(),
        }),
        RepoState::NoCommit { root } => Err(GitError::NoCommit { root }),
        RepoState::Detached { root } => Err(GitError::Detached { root }),
        RepoState::Branch { root, branch, head } => Ok((root, branch, head)),
    }
}

/// Whether the repository containing `repo_dir` has commit `commit`.
pub fn commit_exists(repo_dir: &Path, commit: &str) -> bool {
    Repository::discover(repo_dir).is_ok_and(|r| has_commit(&r, commit))
}

/// The commit `spec` (a branch, `origin/<branch>`, `HEAD`…) names in the repository
/// containing `repo_dir`, if it names one.
pub fn resolve_commit(repo_dir: &Path, spec: &str) -> Option<String> {
    let repo = Repository::discover(repo_dir).ok()?;
    let commit = repo.revparse_single(spec).ok()?.peel_to_commit().ok()?;
    Some(commit.id().to_string())
}

/// Whether branch `baton/<terminal>` can be made in the repository containing `repo_dir`.
pub fn check_branch_free_in(repo_dir: &Path, terminal: &str) -> Result<(), GitError> {
    let repo = Repository::discover(repo_dir)
        .ctx(|| format!("cannot open the repository at {}", repo_dir.display()))?;
    branch_free(&repo, terminal)
}

fn branch_free(repo: &Repository, terminal: &str) -> Result<(), GitError> {
    let branch = branch_name(terminal).ok_or_else(|| GitError::InvalidName {
        terminal: terminal.to_string(),
    })?;
    if repo.find_branch(&branch, BranchType::Local).is_ok() {
        return Err(branch_taken(repo, branch));
    }
    Ok(())
}

/// The refusal for a branch that already exists, naming the worktree that has it checked out
/// (whose registration `git branch -D` would trip over).
fn branch_taken(repo: &Repository, branch: String) -> GitError {
    match checked_out_at(repo, &format!("refs/heads/{branch}")) {
        Some(path) => GitError::BranchInWorktree { branch, path },
        None => GitError::BranchExists { branch },
    }
}

fn has_commit(repo: &Repository, commit: &str) -> bool {
    git2::Oid::from_str(commit).is_ok_and(|oid| repo.find_commit(oid).is_ok())
}

fn branch_worktree(
    repo: &Repository,
    terminal: &str,
    into: &Path,
    head: &str,
    base_branch: String,
) -> Result<Worktree, GitError> {
    let branch = branch_name(terminal).ok_or_else(|| GitError::InvalidName {
        terminal: terminal.to_string(),
    })?;
    if repo.find_branch(&branch, BranchType::Local).is_ok() {
        return Err(branch_taken(repo, branch));
    }
    let into = absolute(into)?;
    ensure_free(&into)?;
    prepare(repo, &into)?;
    let commit = repo
        .revparse_single(head)
        .and_then(|o| o.peel_to_commit())
        .ctx(|| format!("cannot read commit {head}"))?;
    let head = commit.id().to_string();
    let mut created = repo
        .branch(&branch, &commit, false)
        .ctx(|| format!("cannot create branch {branch}"))?;
    let name = match add_worktree(repo, terminal, &into, created.get()) {
        Ok(name) => name,
        Err(e) => {
            // Nothing was committed on the new branch yet: deleting it loses nothing.
            let _ = created.delete();
            let _ = fs::remove_dir(&into);
            return Err(e);
        }
    };
    Ok(Worktree {
        path: into,
        branch,
        base_commit: head,
        base_branch,
        repo: main_repo_path(repo),
        name,
    })
}

/// Refuses a terminal name whose branch cannot be made in `wt`'s repository (taken, or not a
/// branch name), before anything changes.
pub fn check_branch_free(wt: &Worktree, terminal: &str) -> Result<(), GitError> {
    branch_free(&open(&wt.repo)?, terminal)
}

/// The commit at the tip of `wt`'s branch.
pub fn branch_head(wt: &Worktree) -> Result<String, GitError> {
    let repo = open(&wt.repo)?;
    Ok(super::commit::branch_tip(&repo, &wt.branch)?.to_string())
}

/// The first parent of `commit` in `wt`'s repository (None: it has none).
pub fn parent_of(wt: &Worktree, commit: &str) -> Result<Option<String>, GitError> {
    let repo = open(&wt.repo)?;
    let c = repo
        .revparse_single(commit)
        .and_then(|o| o.peel_to_commit())
        .ctx(|| format!("cannot read commit {commit}"))?;
    Ok(c.parent_ids().next().map(|p| p.to_string()))
}

/// Refuses, before anything changes, what [`remove`] would refuse: a locked worktree, or a
/// branch to delete that is not merged (without `force`).
pub fn check_removable(wt: &Worktree, delete_branch: bool, force: bool) -> Result<(), GitError> {
    let repo = open(&wt.repo)?;
    if let Ok(found) = repo.find_worktree(&wt.name) {
        ensure_unlocked(&found)?;
    }
    if !delete_branch || force {
        return Ok(());
    }
    let pending = match locate(wt) {
        Located::Here => changed_paths(&open_linked(&wt.path)?, true)?,
        Located::Moved(p) => changed_paths(&open_linked(&p)?, true)?,
        Located::Gone => Vec::new(),
    };
    if !pending.is_empty() || !super::review::is_merged(&repo, &wt.branch, &wt.base_branch)? {
        return Err(GitError::Unmerged {
            branch: wt.branch.clone(),
            base: wt.base_branch.clone(),
        });
    }
    Ok(())
}

/// Where the worktree is now: git's registration (which `git worktree move` and
/// `git worktree repair` update), else any worktree that has the terminal's branch checked out.
pub fn locate(wt: &Worktree) -> Located {
    let Ok(repo) = Repository::open(&wt.repo) else {
        // The main repository moved away; the worktree itself may still be fine.
        return if wt.path.join(".git").exists() {
            Located::Here
        } else {
            Located::Gone
        };
    };
    if let Ok(found) = repo.find_worktree(&wt.name) {
        let path = clean_path(found.path());
        if path.join(".git").exists() {
            return if same_path(&path, &wt.path) {
                Located::Here
            } else {
                Located::Moved(path)
            };
        }
    }
    let refname = format!("refs/heads/{}", wt.branch);
    match checked_out_at(&repo, &refname) {
        Some(path) if same_path(&path, &wt.path) => Located::Here,
        Some(path) if path.join(".git").is_file() => Located::Moved(path),
        _ => Located::Gone,
    }
}

/// The worktree was deleted: drops git's stale registration and checks the terminal's branch
/// out again at `into`. When the worktree still exists (here or moved) it is returned as is.
pub fn recreate(wt: &Worktree, into: &Path) -> Result<Worktree, GitError> {
    match locate(wt) {
        Located::Here => return Ok(wt.clone()),
        Located::Moved(path) => return Ok(Worktree { path, ..wt.clone() }),
        Located::Gone => {}
    }
    let repo = open(&wt.repo)?;
    if let Ok(old) = repo.find_worktree(&wt.name) {
        ensure_unlocked(&old)?;
        let mut opts = git2::WorktreePruneOptions::new();
        if old.is_prunable(Some(&mut opts)).unwrap_or(false) {
            old.prune(Some(&mut opts))
                .ctx(|| format!("cannot prune the stale worktree {}", wt.name))?;
        }
    }
    let branch = repo
        .find_branch(&wt.branch, BranchType::Local)
        .map_err(|_| GitError::BranchMissing {
            branch: wt.branch.clone(),
        })?;
    let refname = format!("refs/heads/{}", wt.branch);
    if let Some(path) = checked_out_at(&repo, &refname) {
        return Err(GitError::BranchCheckedOut {
            branch: wt.branch.clone(),
            path,
        });
    }
    let into = absolute(into)?;
    ensure_free(&into)?;
    prepare(&repo, &into)?;
    let base = wt.name.strip_prefix("baton-").unwrap_or(&wt.name);
    let name = add_worktree(&repo, base, &into, branch.get())?;
    Ok(Worktree {
        path: into,
        name,
        ..wt.clone()
    })
}

/// Removes the terminal's worktree: commits leftover work first (with `message`, leaving out
/// `exclude`), deletes the directory and git's registration, and keeps the branch unless
/// `delete_branch`. Deleting a branch whose work is not in the base branch needs `force`.
/// Objects are never deleted and no other worktree is touched.
pub fn remove(
    wt: &Worktree,
    message: &str,
    exclude: &[&Path],
    delete_branch: bool,
    force: bool,
) -> Result<Removed, GitError> {
    let repo = open(&wt.repo)?;
    let at = match locate(wt) {
        Located::Here => Some(wt.path.clone()),
        Located::Moved(p) => Some(p),
        Located::Gone => None,
    };
    if let Ok(found) = repo.find_worktree(&wt.name) {
        ensure_unlocked(&found)?;
    }
    let checkout = at.as_deref().map(open_linked).transpose()?;
    if delete_branch && !force {
        let pending = match &checkout {
            Some(c) => !changed_paths(c, true)?.is_empty(),
            None => false,
        };
        if pending || !super::review::is_merged(&repo, &wt.branch, &wt.base_branch)? {
            return Err(GitError::Unmerged {
                branch: wt.branch.clone(),
                base: wt.base_branch.clone(),
            });
        }
    }
    let mut committed = None;
    if let (Some(path), Some(c)) = (&at, &checkout) {
        committed = auto_commit(path, message, exclude)?;
        // Whatever git could not commit (a nested repository's own work) would be lost.
        let left = changed_paths(c, true)?;
        if !left.is_empty() {
            return Err(GitError::Dirty {
                checkout: path.clone(),
                files: left,
            });
        }
        fs::remove_dir_all(path).ctx(|| format!("cannot remove {}", path.display()))?;
    }
    prune_registration(&repo, wt, at.as_deref())?;
    if delete_branch {
        if let Ok(mut b) = repo.find_branch(&wt.branch, BranchType::Local) {
            b.delete()
                .ctx(|| format!("cannot delete branch {}", wt.branch))?;
        }
    }
    Ok(Removed {
        committed,
        path: at,
        branch_deleted: delete_branch,
    })
}

/// Opens `path` and makes sure it is a linked worktree, never a main checkout.
fn open_linked(path: &Path) -> Result<Repository, GitError> {
    let repo = open(path)?;
    if !repo.is_worktree() {
        return Err(GitError::Io {
            context: format!(
                "{} is a main checkout, not a baton worktree; baton will not delete it",
                path.display()
            ),
            source: std::io::Error::other("not a linked worktree"),
        });
    }
    Ok(repo)
}

/// Prunes the registration named `wt.name`, or the one pointing at `path`, once its
/// directory is gone. Other worktrees are left alone.
fn prune_registration(
    repo: &Repository,
    wt: &Worktree,
    path: Option<&Path>,
) -> Result<(), GitError> {
    let names = repo
        .worktrees()
        .ctx(|| "cannot list worktrees".to_string())?;
    for name in names.iter().flatten().flatten() {
        let Ok(found) = repo.find_worktree(name) else {
            continue;
        };
        let ours =
            name == wt.name || path.is_some_and(|p| clean_path(found.path()) == clean_path(p));
        let mut opts = git2::WorktreePruneOptions::new();
        if ours && found.is_prunable(Some(&mut opts)).unwrap_or(false) {
            found
                .prune(Some(&mut opts))
                .ctx(|| format!("cannot prune worktree {name}"))?;
        }
    }
    Ok(())
}

fn ensure_unlocked(found: &git2::Worktree) -> Result<(), GitError> {
    match found.is_locked() {
        Ok(WorktreeLockStatus::Locked(reason)) => Err(GitError::Locked {
            path: clean_path(found.path()),
            reason: reason
                .filter(|r| !r.trim().is_empty())
                .map(|r| r.trim().to_string()),
        }),
        _ => Ok(()),
    }
}

/// Adds a worktree for `reference` at `into` under a free name `baton-<terminal>[-N]`.
fn add_worktree(
    repo: &Repository,
    terminal: &str,
    into: &Path,
    reference: &Reference<'_>,
) -> Result<String, GitError> {
    let base = super::message::ref_component(terminal).unwrap_or_else(|| "terminal".into());
    let admin = repo.commondir().join("worktrees");
    let name = (1..)
        .map(|n| match n {
            1 => format!("baton-{base}"),
            n => format!("baton-{base}-{n}"),
        })
        .find(|n| !admin.join(n).exists())
        .unwrap_or_else(|| format!("baton-{base}"));
    let mut opts = WorktreeAddOptions::new();
    opts.reference(Some(reference));
    repo.worktree(&name, into, Some(&opts))
        .ctx(|| format!("cannot create a worktree at {}", into.display()))?;
    // Private like the data directory (git made it with the umask's 0755). A failure leaves
    // it as git made it: the worktree itself is whole.
    let _ = fs::set_permissions(into, fs::Permissions::from_mode(0o700));
    Ok(name)
}

/// Creates `into`'s parent (the folders it makes 0700) and checks both it and the git dir
/// can be written.
fn prepare(repo: &Repository, into: &Path) -> Result<(), GitError> {
    if let Some(parent) = into.parent() {
        private_dirs(parent).map_err(|e| match is_read_only(&e) {
            true => GitError::ReadOnly {
                path: parent.to_path_buf(),
            },
            false => GitError::Io {
                context: format!("cannot create {}", parent.display()),
                source: e,
            },
        })?;
        ensure_writable(parent)?;
    }
    ensure_writable(repo.commondir())
}

/// Creates `dir` and its missing parents, each one made 0700 (private like the data
/// directory); existing ones are left as they are.
pub fn private_dirs(dir: &Path) -> std::io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

fn ensure_free(into: &Path) -> Result<(), GitError> {
    if fs::symlink_metadata(into).is_ok() {
        return Err(GitError::TargetExists {
            path: into.to_path_buf(),
        });
    }
    Ok(())
}

fn absolute(p: &Path) -> Result<PathBuf, GitError> {
    std::path::absolute(p)
        .map(|p| clean_path(&p))
        .ctx(|| format!("cannot resolve {}", p.display()))
}

/// The checkout (main or linked) whose HEAD is the branch `refname`, if any.
pub(crate) fn checked_out_at(repo: &Repository, refname: &str) -> Option<PathBuf> {
    checkouts(repo)
        .into_iter()
        .find(|(_, head)| head.as_deref() == Some(refname))
        .map(|(path, _)| path)
}

/// Every checkout of the repository that exists on disk, with its HEAD's symbolic target.
pub(crate) fn checkouts(repo: &Repository) -> Vec<(PathBuf, Option<String>)> {
    let mut out = Vec::new();
    let head_of = |r: &Repository| -> Option<String> {
        let head = r.find_reference("HEAD").ok()?;
        head.symbolic_target().ok().flatten().map(str::to_string)
    };
    if let Ok(main) = Repository::open(main_repo_path(repo)) {
        if let Some(w) = main.workdir() {
            out.push((clean_path(w), head_of(&main)));
        }
    }
    let Ok(names) = repo.worktrees() else {
        return out;
    };
    for name in names.iter().flatten().flatten() {
        let Ok(found) = repo.find_worktree(name) else {
            continue;
        };
        if let Ok(r) = Repository::open_from_worktree(&found) {
            out.push((clean_path(found.path()), head_of(&r)));
        }
    }
    out
}

/// Undoes a [`create_worktree`] that nothing was committed in yet: removes the directory, its
/// registration and the branch (still at its base commit, so no work is lost). Best effort.
pub(crate) fn discard_new(wt: &Worktree) {
    let _ = fs::remove_dir_all(&wt.path);
    let Ok(repo) = Repository::open(&wt.repo) else {
        return;
    };
    let _ = prune_registration(&repo, wt, Some(&wt.path));
    let found = repo.find_branch(&wt.branch, BranchType::Local);
    if let Ok(mut b) = found {
        let untouched = b.get().target().map(|t| t.to_string()) == Some(wt.base_commit.clone());
        if untouched {
            let _ = b.delete();
        }
    }
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
