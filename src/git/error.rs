//! The git layer's error type: what went wrong, and what the user can do about it.

use std::path::PathBuf;

/// Every failure of the git layer. Each message names the next step; a failed operation has
/// changed nothing unless its message says otherwise.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("{} is not inside a git repository: run git init and commit something first, or use --in-place", dir.display())]
    NotRepo { dir: PathBuf },

    #[error("{} has no commit yet: commit something first (git commit --allow-empty -m init), or use --in-place", root.display())]
    NoCommit { root: PathBuf },

    #[error("{} is on a detached HEAD: check out a branch first (git switch -c NAME), or use --in-place", root.display())]
    Detached { root: PathBuf },

    #[error("{} is a bare repository: open the terminal in one of its checkouts", root.display())]
    Bare { root: PathBuf },

    #[error("terminal name {terminal:?} cannot be made into a git branch name: pick another name")]
    InvalidName { terminal: String },

    #[error("branch {branch} already exists: pick another terminal name, or delete the branch (git branch -D {branch}) if its work is no longer needed")]
    BranchExists { branch: String },

    /// The branch exists and a worktree has it checked out: `git branch -D` alone would fail.
    #[error("branch {branch} already exists, checked out in the worktree {}: pick another terminal name, or, if its work is no longer needed, remove both (git worktree remove --force {} && git branch -D {branch})", path.display(), path.display())]
    BranchInWorktree { branch: String, path: PathBuf },

    #[error("branch {branch} no longer exists: its commits are still in git (git reflog); recreate the branch or remove the terminal")]
    BranchMissing { branch: String },

    #[error("branch {branch} is already checked out at {}: switch that checkout to another branch first", path.display())]
    BranchCheckedOut { branch: String, path: PathBuf },

    #[error("{} already exists: baton will not put a worktree over it; move it away or choose another place", path.display())]
    TargetExists { path: PathBuf },

    #[error("the worktree at {} is locked{}: unlock it first (git worktree unlock {})", path.display(), reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default(), path.display())]
    Locked {
        path: PathBuf,
        reason: Option<String>,
    },

    #[error("{} is busy: {what}; finish or abort it first, baton will retry", root.display())]
    Busy { root: PathBuf, what: String },

    #[error("{} has uncommitted changes ({}): commit or stash them first", checkout.display(), list(files))]
    Dirty {
        checkout: PathBuf,
        files: Vec<String>,
    },

    #[error(
        "{what} conflicts in {}: nothing was changed; resolve it by hand with git",
        list(files)
    )]
    Conflict { what: String, files: Vec<String> },

    #[error("branch {branch} has work not merged into {base}: merge it first (baton merge), or pass --force to delete it anyway")]
    Unmerged { branch: String, base: String },

    #[error("nothing to merge: branch {branch} has no changes that {base} does not already have")]
    NothingToMerge { branch: String, base: String },

    #[error("reverting {commit} changes nothing: its changes are already undone on the branch")]
    NothingToRevert { commit: String },

    #[error("commit {commit} is not one of branch {branch}'s own commits: pick a commit made on that branch")]
    NotOnBranch { commit: String, branch: String },

    #[error("cannot write to {}: the disk or folder is read-only; make it writable and try again", path.display())]
    ReadOnly { path: PathBuf },

    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    #[error("{context}: {}", source.message())]
    Git {
        context: String,
        #[source]
        source: git2::Error,
    },

    #[error("cannot watch {}: {source}", path.display())]
    Watch {
        path: PathBuf,
        #[source]
        source: notify::Error,
    },
}

/// At most five names, then a count, so a message stays one line.
fn list(files: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut out = files
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > SHOWN {
        out.push_str(&format!(" and {} more", files.len() - SHOWN));
    }
    out
}

/// Adds context to a git2 result.
pub(crate) trait GitContext<T> {
    fn ctx(self, context: impl FnOnce() -> String) -> Result<T, GitError>;
}

impl<T> GitContext<T> for Result<T, git2::Error> {
    fn ctx(self, context: impl FnOnce() -> String) -> Result<T, GitError> {
        self.map_err(|source| GitError::Git {
            context: context(),
            source,
        })
    }
}

impl<T> GitContext<T> for Result<T, std::io::Error> {
    fn ctx(self, context: impl FnOnce() -> String) -> Result<T, GitError> {
        self.map_err(|source| GitError::Io {
            context: context(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn long_file_lists_are_summarized() {
        let files: Vec<String> = (1..=7).map(|i| format!("f{i}")).collect();
        assert_eq!(list(&files), "f1, f2, f3, f4, f5 and 2 more");
        assert_eq!(list(&files[..2]), "f1, f2");
    }

    #[test]
    fn messages_name_the_next_step() {
        let e = GitError::NoCommit {
            root: PathBuf::from("/r"),
        };
        assert_eq!(
            e.to_string(),
            "/r has no commit yet: commit something first (git commit --allow-empty -m init), or use --in-place"
        );
        let e = GitError::Locked {
            path: PathBuf::from("/w"),
            reason: Some("usb disk".into()),
        };
        assert_eq!(
            e.to_string(),
            "the worktree at /w is locked (usb disk): unlock it first (git worktree unlock /w)"
        );
    }
}
