//! The branches removed terminals left behind (`baton rm` keeps a terminal's branch unless
//! told otherwise): whether every commit of one is also in the branch it started from, and
//! deleting exactly those, so deleting one never makes a commit unreachable. A squash-merged
//! branch (`baton merge`) is NOT contained: its own commits exist nowhere else, so it stays.

use std::path::Path;

use git2::BranchType;

use super::commit::branch_tip;
use super::error::GitContext;
use super::worktree::checked_out_at;
use super::{open, GitError};

/// What became of a removed terminal's branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchFate {
    /// It no longer exists.
    Gone,
    /// Its tip is an ancestor of (or equal to) the base branch's tip: deleting it loses nothing.
    Contained,
    /// It has `ahead` commits the base branch does not have (or the base is gone: `None`).
    Ahead { ahead: Option<usize> },
}

/// Whether `branch` of the repository at `repo_dir` is contained in `base`. Reads only.
pub fn branch_fate(repo_dir: &Path, branch: &str, base: &str) -> Result<BranchFate, GitError> {
    let repo = open(repo_dir)?;
    let Ok(tip) = branch_tip(&repo, branch) else {
        return Ok(BranchFate::Gone);
    };
    let Ok(base_tip) = branch_tip(&repo, base) else {
        return Ok(BranchFate::Ahead { ahead: None });
    };
    if tip == base_tip || repo.graph_descendant_of(base_tip, tip).unwrap_or(false) {
        return Ok(BranchFate::Contained);
    }
    let ahead = repo
        .graph_ahead_behind(tip, base_tip)
        .map(|(ahead, _)| ahead)
        .ok();
    Ok(BranchFate::Ahead { ahead })
}

/// Deletes `branch` when (checked again here) it is contained in `base` and no checkout has it;
/// returns false, deleting nothing, otherwise.
pub fn delete_contained_branch(
    repo_dir: &Path,
    branch: &str,
    base: &str,
) -> Result<bool, GitError> {
    if branch_fate(repo_dir, branch, base)? != BranchFate::Contained {
        return Ok(false);
    }
    let repo = open(repo_dir)?;
    if let Some(path) = checked_out_at(&repo, &format!("refs/heads/{branch}")) {
        return Err(GitError::BranchCheckedOut {
            branch: branch.to_string(),
            path,
        });
    }
    let mut b = repo
        .find_branch(branch, BranchType::Local)
        .ctx(|| format!("cannot find branch {branch}"))?;
    b.delete()
        .ctx(|| format!("cannot delete branch {branch}"))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{commit_all, git, repo_with_commit, write};
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn only_a_branch_whose_commits_the_base_has_is_deleted() {
        let d = tempfile::tempdir().unwrap();
        let repo = repo_with_commit(d.path());
        let main = git(d.path(), &["branch", "--show-current"]);
        let main = main.trim();
        git(d.path(), &["branch", "baton/same"]);
        git(d.path(), &["switch", "-q", "-c", "baton/ahead"]);
        write(&d.path().join("f.txt"), "work\n");
        commit_all(&repo, "work");
        git(d.path(), &["switch", "-q", main]);
        let fate = |b: &str| branch_fate(d.path(), b, main).unwrap();
        assert_eq!(fate("baton/same"), BranchFate::Contained);
        assert_eq!(fate("baton/ahead"), BranchFate::Ahead { ahead: Some(1) });
        assert_eq!(fate("baton/none"), BranchFate::Gone);
        assert!(!delete_contained_branch(d.path(), "baton/ahead", main).unwrap());
        assert!(delete_contained_branch(d.path(), "baton/same", main).unwrap());
        assert_eq!(fate("baton/same"), BranchFate::Gone);
        assert_eq!(fate("baton/ahead"), BranchFate::Ahead { ahead: Some(1) });
    }
}
