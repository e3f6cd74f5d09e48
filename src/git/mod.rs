//! The git layer: a worktree per terminal, automatic commits, following moved worktrees,
//! reviewing and landing a terminal's work, and watching folders (git2 and notify; the git
//! command line is never run here).
//!
//! # Shape
//!
//! - A terminal opened in a repository gets its own branch `baton/<name>` (see
//!   [`branch_name`]) from the current HEAD and a linked worktree at a place the caller chooses
//!   ([`create_worktree`]). Git's own worktree name is `baton-<name>` (plus `-2`, `-3`… if
//!   taken); `git worktree list` shows it and plain git works in it as in any worktree.
//! - After each changing turn [`auto_commit`] stages everything git would (new, modified and
//!   deleted files, `.gitignore` honoured, caller's exclusions such as the screenshots folder
//!   left out) and commits on the checkout's branch with a message from [`commit_message`].
//!   In a big checkout [`auto_commit_tracked`] asks a [`Tracker`] which paths changed since
//!   the last commit, so status checks those instead of walking every file, whenever the
//!   tracker can vouch for them (ARCHITECTURE.md, "The change tracker").
//! - [`locate`] asks git where the worktree is now; [`recreate`] checks the branch out again
//!   when it was deleted; [`Watch`] only makes these checks prompt: the caller also checks at
//!   every send, so a missed event costs latency, never correctness.
//! - baton never deletes git objects and never moves a branch other than the terminal's own,
//!   except the base branch during [`merge_squash`], which the user asked for. The integration
//!   lane ([`Integration`], [`check_out_lane`]) moves none: its merges are commit objects no ref
//!   points to, its worktree is detached (the `baton-lane/…` branch libgit2 needs to make it
//!   lives only until HEAD is detached). Every refusal
//!   (no commit yet, detached HEAD, branch exists, target exists, locked worktree, read-only
//!   disk, dirty checkout, conflict, git busy) happens before anything is written.
//! - Read-only: writes are probed first (a file created and removed in the git dir) so a
//!   read-only mount fails with [`GitError::ReadOnly`] and nothing changed. A linked
//!   worktree's git data lives in the main repository, so a read-only worktree whose
//!   repository is writable still commits (nothing in the worktree is written).
//! - A write cut short (a crash) leaves git's lock files: [`left_locks`] finds those of
//!   baton's own branch and worktree, [`clear_left_locks`] removes them and settles the index.
//! - Squash merges carry a `Baton-Squashed: <branch tip>` trailer; the next merge of the same
//!   branch starts from that tip, so a terminal can be merged, keep working, and merge again.
//!
//! # A folder that becomes a repository ([`adopt_folder`])
//!
//! The terminal ran in a plain folder; now the folder (or a parent) is a repository with a
//! commit. baton creates the worktree from HEAD as usual and **copies** the folder's
//! uncommitted work into it: modified tracked files and untracked files that are not ignored
//! (as they are on disk now), and deletions of tracked files are mirrored. The originals stay
//! where they are, so nothing disappears from where the user last saw it; the copies are left
//! uncommitted in the worktree and go into the next automatic commit (or `remove`'s final
//! commit), so the history keeps one commit per changing turn. Ignored files (build output,
//! `node_modules`, `.env`) are not copied: they stay in the folder. The move waits (an error
//! saying why, nothing changed) while git is busy in the folder: a merge, rebase, cherry-pick,
//! revert or bisect in progress, unresolved conflicts, or an `index.lock` (a git command is
//! running right now). If copying fails halfway the new worktree and branch are removed again.
//! Merging the terminal back later is not blocked by the originals: [`merge_squash`] accepts
//! an untracked file in its way when its content is exactly what the merge puts there.
//!
//! # What `diff` shows ([`diff`])
//!
//! The terminal's committed work: the branch tip against the commit it started from. Between
//! turns that is all of the work, because every changing turn is committed; while a turn runs
//! it leaves out half-written files. When the checkout has uncommitted changes (someone edited
//! by hand) a last line says how many files are not shown yet.

mod adopt;
mod branches;
mod changes;
mod commit;
mod error;
mod include;
mod lane;
mod locks;
mod message;
mod review;
mod stamps;
mod tracker;
mod watch;
mod worktree;

#[cfg(test)]
mod testutil;

use std::fs;
use std::path::{Path, PathBuf};

use git2::{ErrorCode, Repository, RepositoryState, StatusOptions};
use serde::{Deserialize, Serialize};

pub use adopt::{adopt_folder, Adopted};
pub use branches::{branch_fate, delete_contained_branch, BranchFate};
pub use commit::{
    auto_commit, auto_commit_tracked, commit_for_trailer, prime_tracked, subjects_since,
};
pub use error::GitError;
pub use include::{copy_included, Included, INCLUDE_FILE};
pub use lane::{check_out_lane, main_checkout, remove_lane, Integration, Step};
pub use locks::{clear_left_locks, left_locks};
pub use message::{branch_name, commit_message, squash_message, CommitInfo, BODY_MAX, SUBJECT_MAX};
pub use review::{diff, merge_squash, revert, BranchDiff};
pub use tracker::Tracker;
pub use watch::Watch;
pub use worktree::{
    branch_head, check_branch_free, check_branch_free_in, check_removable, commit_exists,
    create_worktree, create_worktree_at, create_worktree_from, locate, parent_of, private_dirs,
    recreate, remove, resolve_commit, Located, Removed,
};

use error::GitContext;

/// What a directory is, as far as baton's checkouts are concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoState {
    /// Not inside any git repository.
    NotRepo,
    /// A repository whose current branch has no commit yet.
    NoCommit { root: PathBuf },
    /// A repository whose HEAD is detached.
    Detached { root: PathBuf },
    /// A repository on `branch` (short name, e.g. `main`), whose tip is `head`.
    Branch {
        root: PathBuf,
        branch: String,
        head: String,
    },
}

/// A terminal's worktree, as baton stores it in the terminal's journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worktree {
    /// Where the worktree was last known to be.
    pub path: PathBuf,
    /// The terminal's branch, short name (`baton/api`).
    pub branch: String,
    /// The commit the branch started from.
    pub base_commit: String,
    /// The branch HEAD was on when the terminal was created (short name).
    pub base_branch: String,
    /// The main repository's checkout (its git dir for a bare repository).
    pub repo: PathBuf,
    /// Git's name for the worktree (`.git/worktrees/<name>`).
    pub name: String,
}

/// What `dir` is: not a repository, a repository without commit, detached, or on a branch.
/// `dir` may be a subdirectory; the state names the checkout's root.
pub fn inspect(dir: &Path) -> Result<RepoState, GitError> {
    if !dir.is_dir() {
        return Err(GitError::Io {
            context: format!("cannot inspect {}", dir.display()),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
        });
    }
    let repo = match Repository::discover(dir) {
        Ok(r) => r,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(RepoState::NotRepo),
        Err(e) => return Err(e).ctx(|| format!("cannot open the repository at {}", dir.display())),
    };
    let root = checkout_root(&repo)?;
    let head = match repo.head() {
        Ok(h) => h,
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            return Ok(RepoState::NoCommit { root })
        }
        Err(e) => return Err(e).ctx(|| format!("cannot read HEAD in {}", root.display())),
    };
    if repo.head_detached().unwrap_or(false) || !head.is_branch() {
        return Ok(RepoState::Detached { root });
    }
    let branch = String::from_utf8_lossy(head.shorthand_bytes()).into_owned();
    let commit = head
        .peel_to_commit()
        .ctx(|| format!("cannot read HEAD's commit in {}", root.display()))?;
    Ok(RepoState::Branch {
        root,
        branch,
        head: commit.id().to_string(),
    })
}

/// The working directory of a repository, or `Bare`.
fn checkout_root(repo: &Repository) -> Result<PathBuf, GitError> {
    match repo.workdir() {
        Some(w) => Ok(clean_path(w)),
        None => Err(GitError::Bare {
            root: repo.path().to_path_buf(),
        }),
    }
}

/// A path without the trailing slash libgit2 puts on directories.
fn clean_path(p: &Path) -> PathBuf {
    p.components().collect()
}

/// The path Repository::open needs to reach the whole repository (main checkout, or the git
/// dir of a bare repository).
fn main_repo_path(repo: &Repository) -> PathBuf {
    let common = clean_path(repo.commondir());
    match common.file_name() {
        Some(n) if n == ".git" => common.parent().map_or(common.clone(), Path::to_path_buf),
        _ => common,
    }
}

fn open(path: &Path) -> Result<Repository, GitError> {
    Repository::open(path).ctx(|| format!("cannot open the repository at {}", path.display()))
}

/// Same file or directory, whether or not either path goes through a symlink.
fn same_path(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => clean_path(a) == clean_path(b),
    }
}

/// Fails with `ReadOnly` when nothing can be created in `dir` (read-only mount or mode), so an
/// operation stops before it changes anything. Root ignores modes; a read-only mount still shows.
fn ensure_writable(dir: &Path) -> Result<(), GitError> {
    let probe = dir.join(format!(".baton-write-probe-{}", std::process::id()));
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if is_read_only(&e) => Err(GitError::ReadOnly {
            path: dir.to_path_buf(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e).ctx(|| format!("cannot write to {}", dir.display())),
    }
}

fn is_read_only(e: &std::io::Error) -> bool {
    const EROFS: i32 = 30;
    e.kind() == std::io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(EROFS)
}

/// Refuses when git is in the middle of something in this repository.
fn ensure_idle(repo: &Repository) -> Result<(), GitError> {
    let root = checkout_root(repo).unwrap_or_else(|_| repo.path().to_path_buf());
    let what = match repo.state() {
        RepositoryState::Clean => None,
        RepositoryState::Merge => Some("a merge is in progress"),
        RepositoryState::Revert | RepositoryState::RevertSequence => {
            Some("a revert is in progress")
        }
        RepositoryState::CherryPick | RepositoryState::CherryPickSequence => {
            Some("a cherry-pick is in progress")
        }
        RepositoryState::Bisect => Some("a bisect is in progress"),
        RepositoryState::Rebase
        | RepositoryState::RebaseInteractive
        | RepositoryState::RebaseMerge => Some("a rebase is in progress"),
        RepositoryState::ApplyMailbox | RepositoryState::ApplyMailboxOrRebase => {
            Some("git am is in progress")
        }
    };
    let what = what.map(str::to_string).or_else(|| {
        repo.path()
            .join("index.lock")
            .exists()
            .then(|| "a git command is running (index.lock exists)".to_string())
    });
    match what {
        Some(what) => Err(GitError::Busy { root, what }),
        None => Ok(()),
    }
}

/// Paths (relative to the checkout) with uncommitted changes to tracked files, and, when
/// `untracked`, untracked files that are not ignored.
fn changed_paths(repo: &Repository, untracked: bool) -> Result<Vec<String>, GitError> {
    statuses(repo, git2::StatusShow::IndexAndWorkdir, untracked, &[])
}

/// The paths `git status` would show on the side(s) `show`; only under `within` (literal
/// paths: files, or folders and all they hold) unless it is empty.
fn statuses(
    repo: &Repository,
    show: git2::StatusShow,
    untracked: bool,
    within: &[String],
) -> Result<Vec<String>, GitError> {
    let mut opts = StatusOptions::new();
    for p in within {
        opts.pathspec(p);
    }
    opts.show(show)
        .disable_pathspec_match(!within.is_empty())
        .include_untracked(untracked)
        .recurse_untracked_dirs(untracked)
        .include_ignored(false)
        .exclude_submodules(true);
    let statuses = repo
        .statuses(Some(&mut opts))
        .ctx(|| format!("cannot read the status of {}", repo.path().display()))?;
    Ok(statuses
        .iter()
        .map(|s| String::from_utf8_lossy(s.path_bytes()).into_owned())
        .collect())
}

/// The author and committer: the repository's user.name/user.email, else `baton`.
fn signature(repo: &Repository) -> Result<git2::Signature<'static>, GitError> {
    let configured = repo.config().ok().and_then(|c| signature_from(&c));
    match configured {
        Some(sig) => Ok(sig),
        None => git2::Signature::now("baton", "baton@localhost")
            .ctx(|| "cannot build a commit signature".to_string()),
    }
}

fn signature_from(config: &git2::Config) -> Option<git2::Signature<'static>> {
    let name = config.get_string("user.name").ok()?;
    let email = config.get_string("user.email").ok()?;
    git2::Signature::now(&name, &email).ok()
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
