//! Moving a plain-folder terminal into a worktree once its folder became a repository,
//! bringing the folder's uncommitted work along (the rules are in the module docs of `git`).

use std::fs;
use std::path::{Path, PathBuf};

use git2::StatusOptions;

use super::error::GitContext;
use super::worktree::discard_new;
use super::{create_worktree, ensure_idle, inspect, open, GitError, RepoState, Worktree};

/// The result of [`adopt_folder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adopted {
    /// The terminal's new worktree.
    pub worktree: Worktree,
    /// Where the terminal's runs go now: the worktree, or the same subdirectory of it when the
    /// folder is a subdirectory of the repository.
    pub dir: PathBuf,
    /// The uncommitted paths brought along (relative to the repository root): copied, or
    /// deleted when they were deleted in the folder. Left uncommitted in the worktree.
    pub carried: Vec<PathBuf>,
}

/// The folder's repository now has a commit: creates the terminal's worktree from HEAD at
/// `into` and copies the folder's uncommitted work into it, leaving the originals in place.
/// Errors (nothing changed) while git is busy in the folder: the caller retries later.
pub fn adopt_folder(folder: &Path, terminal: &str, into: &Path) -> Result<Adopted, GitError> {
    let root = match inspect(folder)? {
        RepoState::NotRepo => {
            return Err(GitError::NotRepo {
                dir: folder.to_path_buf(),
            })
        }
        RepoState::NoCommit { root } => return Err(GitError::NoCommit { root }),
        RepoState::Detached { root } => return Err(GitError::Detached { root }),
        RepoState::Branch { root, .. } => root,
    };
    let repo = open(&root)?;
    ensure_idle(&repo)?;
    let index = repo
        .index()
        .ctx(|| format!("cannot read the index of {}", root.display()))?;
    if index.has_conflicts() {
        return Err(GitError::Busy {
            root,
            what: "some files have unresolved conflicts".into(),
        });
    }
    let scope = scope_of(&root, folder);
    let changes = uncommitted(&repo, &scope)?;
    let worktree = create_worktree(&root, terminal, into)?;
    if let Err(e) = carry(&root, &worktree.path, &changes) {
        discard_new(&worktree);
        return Err(e);
    }
    Ok(Adopted {
        dir: worktree.path.join(&scope),
        worktree,
        carried: changes,
    })
}

/// `folder` relative to the repository root ("" when it is the root).
fn scope_of(root: &Path, folder: &Path) -> PathBuf {
    let canon = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(folder)
        .strip_prefix(canon(root))
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Paths under `scope` whose content on disk is not what HEAD has: modified, new (not
/// ignored) or deleted. An untracked directory holding its own repository is one entry.
fn uncommitted(repo: &git2::Repository, scope: &Path) -> Result<Vec<PathBuf>, GitError> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true)
        .renames_head_to_index(false)
        .renames_index_to_workdir(false);
    let statuses = repo
        .statuses(Some(&mut opts))
        .ctx(|| format!("cannot read the status of {}", repo.path().display()))?;
    let mut out: Vec<PathBuf> = statuses
        .iter()
        .map(|s| bytes_path(s.path_bytes()))
        .filter(|p| p.starts_with(scope))
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// A status path (bytes, so non-UTF-8 names survive) without a directory's trailing slash.
fn bytes_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let trimmed = bytes.strip_suffix(b"/").unwrap_or(bytes);
    PathBuf::from(std::ffi::OsStr::from_bytes(trimmed))
}

/// Mirrors each path from the folder's checkout into the worktree: copied when it exists,
/// deleted when it does not.
fn carry(root: &Path, worktree: &Path, paths: &[PathBuf]) -> Result<(), GitError> {
    for rel in paths {
        let src = root.join(rel);
        let dst = worktree.join(rel);
        if fs::symlink_metadata(&dst).is_ok() {
            remove_any(&dst)?;
        }
        if fs::symlink_metadata(&src).is_ok() {
            copy_any(&src, &dst)?;
        }
    }
    Ok(())
}

/// Copies a file, symlink or directory tree (permissions kept, symlinks kept as links).
fn copy_any(src: &Path, dst: &Path) -> Result<(), GitError> {
    if let Some(parent) = dst.parent() {
        fs::create_dir_all(parent).ctx(|| format!("cannot create {}", parent.display()))?;
    }
    let meta = fs::symlink_metadata(src).ctx(|| format!("cannot read {}", src.display()))?;
    if meta.file_type().is_symlink() {
        let target = fs::read_link(src).ctx(|| format!("cannot read link {}", src.display()))?;
        std::os::unix::fs::symlink(&target, dst)
            .ctx(|| format!("cannot create link {}", dst.display()))?;
    } else if meta.is_dir() {
        fs::create_dir_all(dst).ctx(|| format!("cannot create {}", dst.display()))?;
        let entries = fs::read_dir(src).ctx(|| format!("cannot list {}", src.display()))?;
        for entry in entries {
            let entry = entry.ctx(|| format!("cannot list {}", src.display()))?;
            copy_any(&entry.path(), &dst.join(entry.file_name()))?;
        }
    } else {
        fs::copy(src, dst).ctx(|| format!("cannot copy {} to {}", src.display(), dst.display()))?;
    }
    Ok(())
}

fn remove_any(path: &Path) -> Result<(), GitError> {
    let meta = fs::symlink_metadata(path).ctx(|| format!("cannot read {}", path.display()))?;
    if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
    .ctx(|| format!("cannot remove {}", path.display()))
}

#[cfg(test)]
#[path = "adopt_tests.rs"]
mod tests;
